"""`place()`, `specialize()` and the `realize_vdevice` pass: the one placement driver.

Every objective (`placement.objective`: `Bytes`, the default; `Cost`; any
other implementation of the contract) runs through one pipeline, whose tail
is written once, here:

    prepare -> extract -> collapse -> solve -> check -> realize -> verify (-> finish)

extract (one walk, `ConstraintSet`), collapse and solve (the objective's:
its problem, then a device per site, with a backend from the one registry
`placement.solve.backend`), check (every constraint, independently,
`placement.solve.check`), realize (a new module with every site annotated
and every copy explicit, `placement.rewrite.realize`), verify (the
objective recomputed from the placed module: its report), finish (the
objective's last word on the placed module: `Time` orders its bindings).  When no
placement exists the objective raises `PlacementConflict`, and the driver
adds the specialization advice to it (`placement.specialize.advice`: the
fully specialized module placed once, here; the diagnosis never places).

`specialize()` is a wrapper above the driver: it hands the driver, options
bound, to the search of `placement.specialize.search`, which places trial
modules through it and never imports this module.

Progress: the library reports its long stages to a listener
(`vdplace.ir.progress`), never to a display of its own.

The garbage collector is paused while the pipeline runs: it builds hundreds
of thousands of small acyclic objects, and the collections they trigger cost
more than the walk itself (measured at 100k bindings, CPU time of place():
chain 0.47 s paused vs 1.31 s with the collector running; transformer-like
0.61 s vs 1.81 s).  It is re-enabled before `place` returns, and what it
tracks moves to its oldest generation first (`ir.collector`): the placed
module is long-lived, and scanning its objects as young ones, once on the
first allocation after `place` and again a few thousand allocations later,
cost a fifth of `place` (a second at a million bindings).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

from vdplace.ir.collector import collector_paused
from vdplace.ir.module import IRModule
from vdplace.ir.sizes import Sizes
from vdplace.placement.bytes_objective import Bytes
from vdplace.placement.cost.cost_objective import Cost
from vdplace.placement.cost.model import CostModel
from vdplace.placement.diagnose import Diagnosis
from vdplace.placement.errors import PlacementConflict, PlacementInternalError
from vdplace.placement.extract.extract import extract
from vdplace.placement.model.constraints import ConstraintSet
from vdplace.placement.model.entry import loaded_bytes, uploaded_bytes
from vdplace.placement.objective import COMMON_OPTIONS, Decision, Objective, Settings
from vdplace.placement.result import PHASES, Placement, Stats
from vdplace.placement.rewrite.module_pass import module_pass
from vdplace.placement.rewrite.realize import Copy, realize
from vdplace.placement.solve.backend import Backend, resolve_backend
from vdplace.placement.solve.check import check
from vdplace.placement.specialize.advice import advise
from vdplace.placement.specialize.search import place_specialized

__all__ = ["PHASES", "Driver", "Placement", "Stats", "bind", "place", "realize_vdevice", "specialize"]


def place(
    mod: IRModule,
    *,
    objective: Objective | None = None,
    strict_hints: bool = False,
    default: str = "none",
    backend: Backend | str | None = None,
    propagate: bool = True,
    time_limit_s: float | None = None,
    specialize: bool = False,
    cost: CostModel | None = None,
    dims: Mapping[str, int] | None = None,
) -> Placement:
    """Place every tensor of `mod` on a vdevice under `objective`, or raise `PlacementConflict`.

    objective     what to minimize: ``Bytes()`` (the default: the bytes copies move),
                  ``Cost(model, memory=...)`` (estimated time within memory limits),
                  ``Time(model, memory=...)`` (the makespan of a schedule, docs/schedule.md), or any
                  `placement.objective.Objective`; `Placement.report` is what it reports
    backend       what decides what the objective's own exact steps leave: a
                  `placement.solve.backend.Backend` or a registered name deciding the
                  objective's problems (``"z3"``, ``"z3-enum"``, ``"z3-bv"`` under `Bytes`;
                  ``"highs"``, ``"z3"``, ``"mincut"`` under `Cost`, and under `Time` for the cost
                  plan its search starts from); None: the objective's default
    propagate     run the objective's exact steps first (False: the backend decides everything
                  constrained; the same answer, slower)
    time_limit_s  a limit for the backend's search, past which its best answer so far is used
                  (it still satisfies every hard constraint); None: the objective's default
                  (no limit under `Bytes`, 60 s under `Cost` and `Time`)
    strict_hints  (`Bytes`) make every ``hint_on_device`` a hard equality (no copy allowed)
    default       (`Bytes`) ``"none"`` leaves sites nothing constrains unplaced (TVM),
                  ``"first"`` puts them on the first vdevice,
                  ``"host"`` on the host (the last CPU entry, else the last entry;
                  a module that declares no vdevice gets ``ir.fill_vdevice.HOST_VDEVICE``
                  added to its list, so every site is placed there)
    specialize    (`Bytes`) `specialize(mod, ...)`: when no placement exists, clone functions per
                  device signature their call sites need (`Placement.clones` lists them)
    cost          a `placement.CostModel`: shorthand for ``objective=Cost(cost)``
    dims          sizes of symbolic dims, ``{"n": 1024}``: every byte and time figure weighs them so; a dim
                  not given takes its function's ``tir_var_upper_bound``, else ``ir.sizes.DEFAULT_DIM`` with a
                  warning naming it (`ir.sizes`); `Stats.dims` says what the figures assumed

    An option the objective cannot use is a `ValueError`, never ignored.
    """
    driver = bind(
        objective=objective,
        strict_hints=strict_hints,
        default=default,
        backend=backend,
        propagate=propagate,
        time_limit_s=time_limit_s,
        specialize=specialize,
        cost=cost,
        dims=dims,
    )
    return driver(mod)


def specialize(
    mod: IRModule,
    *,
    objective: Objective | None = None,
    strict_hints: bool = False,
    default: str = "none",
    backend: Backend | str | None = None,
    propagate: bool = True,
    time_limit_s: float | None = None,
    dims: Mapping[str, int] | None = None,
) -> Placement:
    """`place(mod, ...)`, or, when `mod` has no placement, `mod` with functions cloned per call-site
    device signature and placed (`Placement.clones`; docs/placement.md, "Specialization").

    The options are `place`'s.  Raises the `PlacementConflict` of `mod` itself when specialization
    cannot remove it.
    """
    return place(
        mod,
        objective=objective,
        strict_hints=strict_hints,
        default=default,
        backend=backend,
        propagate=propagate,
        time_limit_s=time_limit_s,
        specialize=True,
        dims=dims,
    )


def bind(
    *,
    objective: Objective | None = None,
    strict_hints: bool = False,
    default: str = "none",
    backend: Backend | str | None = None,
    propagate: bool = True,
    time_limit_s: float | None = None,
    specialize: bool = False,
    cost: CostModel | None = None,
    dims: Mapping[str, int] | None = None,
) -> Driver:
    """The driver with `place`'s options checked against the objective and bound (see `place`)."""
    chosen = _objective(objective, cost)
    given = {"strict_hints": strict_hints, "default": default != "none", "specialize": specialize}
    refused = [name for name, on in given.items() if on and name not in chosen.options]
    if refused:
        usable = ", ".join([*COMMON_OPTIONS, *sorted(chosen.options)])
        raise ValueError(f"the {chosen.name} objective takes no {' or '.join(refused)} option (it uses {usable})")
    if time_limit_s is not None and not (
        isinstance(time_limit_s, int | float)
        and not isinstance(time_limit_s, bool)
        and math.isfinite(time_limit_s)
        and time_limit_s > 0
    ):
        raise ValueError(f"time_limit_s must be a positive number of seconds, not {time_limit_s!r}")
    decider = resolve_backend(
        chosen.default_backend if backend is None else backend, chosen.problem_kind, chosen.backend_noun
    )
    limit = chosen.default_time_limit_s if time_limit_s is None else float(time_limit_s)
    settings = Settings(strict_hints, default, decider, propagate, limit, None if dims is None else dict(dims))
    return Driver(chosen, settings, specialize=specialize)


class Driver:
    """The pipeline with its options bound (`bind`): ``driver(mod)`` places one module.

    `specialize`: through `placement.specialize.search.place_specialized`, which places its
    trials with `quiet` (no specialization, no advice: they only ask whether a module places).
    `advise` says whether a conflict gets the specialization advice.
    """

    __slots__ = ("objective", "settings", "specialize", "advise")

    def __init__(
        self, objective: Objective, settings: Settings, *, specialize: bool = False, advise: bool = True
    ) -> None:
        self.objective = objective
        self.settings = settings
        self.specialize = specialize
        self.advise = advise

    def quiet(self) -> Driver:
        """This driver placing one module as it is, without advice (what specialization's trials use)."""
        return Driver(self.objective, self.settings, advise=False)

    def __call__(self, mod: IRModule) -> Placement:
        if not isinstance(mod, IRModule):
            raise TypeError(f"place() takes an IRModule, not {type(mod).__name__}")
        if self.specialize:
            return place_specialized(mod, self.quiet())
        objective, settings = self.objective, self.settings.starting()
        stats = Stats()
        phase = _Phases(stats.times)
        with collector_paused():
            mod = objective.prepare(mod, settings)
            sizes = Sizes(mod, settings.dims)
            with phase("extract"):
                ex = extract(mod, strict_hints=settings.strict_hints, sizes=sizes, settle=objective.settles_copies)
            with phase("collapse"):
                problem = objective.collapse(ex, settings)
            try:
                with phase("solve"):
                    decision = objective.solve(problem, ex, settings)
            except PlacementConflict as err:
                if self.advise and "specialize" in objective.options:
                    self._offer_advice(err, mod, objective.conflict_functions(problem, ex))
                raise
            del problem, ex  # the classes or units (an entry per site): freed before the placed module is built
            cs = decision.extraction.constraints
            with phase("check"):
                _check(cs, decision.assignment)
            with phase("realize"):
                placed, copies = realize(decision.extraction, decision.assignment)
            with phase("verify"):
                report = objective.verify(decision, placed, copies)
                placed = objective.finish(placed, report)
        _mark_inserted(copies, decision.inserted, objective.name)
        _fill_stats(stats, cs, decision, copies)
        _fill_moves(stats, mod, placed, sizes)
        return Placement(placed, decision.assignment, cs, copies, stats, objective, report)

    def _offer_advice(self, err: PlacementConflict, mod: IRModule, through: frozenset[str]) -> None:
        """Give a conflict's diagnosis the specialization advice: the full specialization placed once, when
        a function whose signature the conflicts involve (`through`) is reached by two call chains."""
        explanation = err.explanation
        if isinstance(explanation, Diagnosis) and through:
            advice = advise(mod, self.quiet(), through)
            if advice is not None:
                explanation.offer(advice)


@module_pass("RealizeVDevice")
def realize_vdevice(mod: IRModule, **options: Any) -> IRModule:
    """The RealizeVDevice pass: `place(mod, **options).module` (the options as `ModulePass` forwards them)."""
    return place(mod, **options).module


def _objective(objective: Objective | None, cost: CostModel | None) -> Objective:
    """The objective `place` was given: `objective`, ``Cost(cost)``, or `Bytes()`."""
    if cost is not None:
        if objective is not None:
            raise ValueError("place() takes objective= or its shorthand cost=, not both")
        return Cost(cost)
    if objective is None:
        return Bytes()
    if not isinstance(objective, Objective):
        raise TypeError(f"objective must be a placement.Objective (Bytes(), Cost(model)), not {objective!r}")
    return objective


class _Phases:
    """``with phase("name"):`` records the block's wall time as ``times["name"]``."""

    __slots__ = ("times", "name", "start")

    def __init__(self, times: dict[str, float]) -> None:
        self.times = times
        self.name = ""
        self.start = 0.0

    def __call__(self, name: str) -> _Phases:
        self.name = name
        return self

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.times[self.name] = time.perf_counter() - self.start


def _check(cs: ConstraintSet, assignment: list[int | None]) -> None:
    """The independent checker's verdict: a violated constraint is a bug in placement, never the user's."""
    violations = check(cs, assignment)
    if violations:
        shown = "; ".join(why if c is None else f"{c!r}: {why}" for c, why in violations[:5])
        raise PlacementInternalError(f"placement failed its own check ({len(violations)} violations): {shown}")


def _mark_inserted(copies: list[Copy], inserted: frozenset[str], objective: str) -> None:
    """The copies the objective wrote into the module say so (`Copy.why`)."""
    if inserted:
        for copy in copies:
            if copy.var in inserted:
                copy.inserted, copy.why = True, f"chosen by the {objective} plan"


def _fill_stats(stats: Stats, cs: ConstraintSet, decision: Decision, copies: list[Copy]) -> None:
    """The sizes of the problem, the backend's figures and the copies' (`Stats` says what each means)."""
    stats.sites = len(cs.sites)
    stats.classes = decision.classes
    stats.constraints = cs.num_constraints
    stats.pins = len(cs.pins)
    stats.equals = len(cs.equals)
    stats.prefers = len(cs.prefers)
    stats.domains = len(cs.domains)
    stats.backend = decision.backend
    stats.variables = decision.variables
    stats.soft = decision.soft
    stats.status = decision.status
    stats.starts = len(cs.starts)
    stats.copies = len(copies)
    stats.bytes_copied = sum(c.nbytes for c in copies if c.physical)


def _fill_moves(stats: Stats, mod: IRModule, placed: IRModule, sizes: Sizes) -> None:
    """What the placed module moves besides its copies, read from it: the entry functions' runtime inputs
    uploaded off the host, their weights loaded per vdevice, and the dims those figures assume."""
    stats.bytes_uploaded = uploaded_bytes(mod, placed, sizes)
    stats.bytes_loaded = loaded_bytes(placed, sizes)
    stats.dims = dict(sizes.assumed)
