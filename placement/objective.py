"""The objective of a placement: one parameter of the one driver, ``place(mod, objective=...)``.

The driver (`placement.api`) runs one pipeline for every objective and
writes its tail once:

    extract  -> objective.collapse -> objective.solve -> check -> realize -> objective.verify
    (`extract`)  (the problem)        (a `Decision`)     (`solve.check`) (`rewrite.realize`)  (the report)

An `Objective` supplies the three steps in the middle and says which of the
driver's options it can use; the driver does everything else: it checks the
options, extracts the constraints once, runs the independent checker on the
decision, realizes the placed module, fills `Stats`, attaches the report to
the `Placement`, and adds the specialization advice to a conflict.

The contract, step by step:

* ``prepare(mod, settings) -> IRModule``: refuse a module the objective
  cannot place (a `PlacementError` or `ValueError` saying why), or return
  the module to extract (the `Bytes` objective's ``default="host"`` adds a
  host vdevice to a module that declares none).  Never mutates `mod`.
* ``collapse(ex, settings) -> problem``: the objective's problem from the
  extraction (`placement.extract.extraction.Extraction`): `Bytes` collapses
  every hard equality into classes (`model.classes.Classes`); `Cost`
  coarsens (`cost.problem.coarsen`: the ties a copy can break are relaxed,
  the rest collapse into units, and the values between units are priced).
* ``solve(problem, ex, settings) -> Decision``: a device per site of the
  extraction to realize.  It raises `PlacementConflict` when no placement
  exists (the driver adds the advice) and `PlacementError` for a module it
  refuses.  The backend is ``settings.backend``, already resolved to one
  that decides the objective's `problem_kind`; ``settings.time_limit_s`` is
  the limit of its search and ``settings.propagate`` whether the
  objective's own exact steps run first.  `Decision.extraction` is `ex`
  itself, or the extraction of a module the objective wrote its plan into
  (`Cost` writes the copies its plan needs as ``R.to_vdevice`` bindings,
  `cost.rewrite`, and extracts that module: realization copies only where
  the IR says so).  Copies it wrote are named in `Decision.inserted`.
* ``verify(decision, placed, copies) -> report``: recompute the objective
  from the placed module alone and compare it with what the solver
  claimed; a difference is a `PlacementInternalError`, never a result.  The
  return value is the objective's report (None for `Bytes`), attached as
  `Placement.report` and readable under the objective's `report_name`
  (``Placement.cost`` for `Cost`, ``Placement.schedule`` for an objective
  whose `report_name` is ``"schedule"``).
* ``finish(placed, report) -> IRModule``: the placed module the driver
  returns, after `verify` (`placed` itself by default; `Time` puts the
  bindings in its schedule's order, `schedule.order`).  Never mutates `placed`.

An objective over units of the coarsened problem (`Cost`, and a time
objective that schedules the same units) subclasses
`placement.cost.units.UnitObjective`, which implements the three steps
above and asks only for ``plan(coarsened, settings) -> UnitPlan`` (a device
per unit and the solver's outcome, or a `PlacementConflict`) and
``verify``: the coarsening, the plan's rewriting into the module, the
re-extraction and the per-site devices are written once there.

Options and their one meaning (the driver refuses one the objective cannot
use, `Objective.options`, with a `ValueError`, and never ignores it):

    backend        the procedure that decides what the objective's exact steps leave
                   (`placement.solve.backend`; None: `Objective.default_backend`)
    propagate      run the objective's own exact steps first (False: the backend decides everything)
    time_limit_s   the limit of the backend's search, past which the best answer found is used
                   (None: `Objective.default_time_limit_s`)
    strict_hints, default, specialize   the `Bytes` objective's (docs/placement.md)
"""

from __future__ import annotations

import copy
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from vdplace.placement.solve.backend import Backend

if TYPE_CHECKING:
    from vdplace.ir.module import IRModule
    from vdplace.placement.extract.extraction import Extraction
    from vdplace.placement.rewrite.realize import Copy

# The driver options every objective uses; `Objective.options` adds those only some can use.
COMMON_OPTIONS = ("backend", "propagate", "time_limit_s")


class Settings:
    """The driver's options as an objective reads them, checked and resolved (module docstring)."""

    __slots__ = ("strict_hints", "default", "backend", "propagate", "time_limit_s", "dims", "started")

    def __init__(
        self,
        strict_hints: bool,
        default: str,
        backend: Backend,
        propagate: bool,
        time_limit_s: float | None,
        dims: Mapping[str, int] | None = None,
    ) -> None:
        self.strict_hints = strict_hints
        self.default = default
        self.backend = backend
        self.propagate = propagate
        self.time_limit_s = time_limit_s
        self.dims = dims  # sizes of symbolic dims (`ir.sizes.Sizes`): every byte and time figure weighs them so
        self.started: float | None = None  # ``time.perf_counter()`` when the place() call began (`starting`)

    def starting(self) -> Settings:
        """A copy with `started` now: the driver's at the start of each call, for an objective whose time
        limit covers the whole call (`Time`)."""
        out = copy.copy(self)
        out.started = time.perf_counter()
        return out


class Decision:
    """An objective's answer: a device per site of `extraction`, and what deciding it took.

    extraction   the extraction realization walks (the driver's, or one the objective made)
    assignment   per site of `extraction`: a vdevice index, or None where a site stays unplaced
    classes      how many things the objective decided a device for (classes, units)
    backend      the name of the backend asked, or ``""`` when the objective's own steps decided
    variables, soft   the size of the backend's encoding
    status       how the search ended (`Stats.status`)
    inserted     names of the copies the objective wrote into the module (their `Copy.why` says so)
    outcome      what `verify` needs of the solver's answer (the `Cost` plan's `CostSolution`), or None
    """

    __slots__ = ("extraction", "assignment", "classes", "backend", "variables", "soft", "status", "inserted", "outcome")

    def __init__(self, extraction: Extraction, assignment: list[int | None], classes: int) -> None:
        self.extraction = extraction
        self.assignment = assignment
        self.classes = classes
        self.backend = ""
        self.variables = 0
        self.soft = 0
        self.status = "unused"
        self.inserted: frozenset[str] = frozenset()
        self.outcome: Any = None


class Objective(ABC):
    """What placement minimizes, and how (module docstring has the contract).

    name                  ``"bytes"``, ``"cost"``, ...: how messages and reports name it
    report_name           the `Placement` attribute its report is read under (None: no report)
    options               the driver options it can use beyond `COMMON_OPTIONS`
    problem_kind          the problem class its backends decide (`Problem`, `PlanProblem`)
    default_backend       the registered backend used when ``place(..., backend=None)``
    backend_noun          how an unknown backend is named in the error (``"placement backend"``)
    default_time_limit_s  the time limit when ``place(..., time_limit_s=None)`` (None: no limit)
    settles_copies        the extraction drops copies nothing reads and computes a hinted value on the hinted
                          device where bytes tie (`extract.copies`); False keeps every copy op as written, for
                          objectives that price the copies they write themselves
    """

    name: str = ""
    report_name: str | None = None
    options: frozenset[str] = frozenset()
    problem_kind: type = object
    default_backend: str = ""
    backend_noun: str = "placement backend"
    default_time_limit_s: float | None = None
    settles_copies: bool = True

    def prepare(self, mod: IRModule, settings: Settings) -> IRModule:
        """The module to extract (`mod` by default); refuses a module this objective cannot place."""
        return mod

    @abstractmethod
    def collapse(self, ex: Extraction, settings: Settings) -> object:
        """The objective's problem built from the extraction."""

    @abstractmethod
    def solve(self, problem: Any, ex: Extraction, settings: Settings) -> Decision:
        """A device per site, or `PlacementConflict` / `PlacementError`."""

    @abstractmethod
    def verify(self, decision: Decision, placed: IRModule, copies: list[Copy]) -> object:
        """The report, after checking the placed module against the solver's claim."""

    def finish(self, placed: IRModule, report: object) -> IRModule:
        """The placed module the driver returns, after `verify` checked it: `placed` itself by default."""
        return placed

    def conflict_functions(self, problem: Any, ex: Extraction) -> frozenset[str]:
        """After `solve` raised `PlacementConflict`: the functions whose parameters or results the conflicts
        involve.  An objective that takes ``specialize`` says; the driver then offers specialization
        advice when one of them is reached by two call chains (none by default)."""
        return frozenset()

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
