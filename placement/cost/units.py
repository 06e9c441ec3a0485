"""`UnitObjective`: the objectives that choose a vdevice per unit of the coarsened problem.

`Cost` (the estimated time as a sum) is one; an objective that schedules the
same units (the makespan) is another.  Each supplies ``plan`` and ``verify``;
the steps of the `placement.objective.Objective` contract around them are
written once here:

* prepare: the module must declare its vdevices, and every memory limit must
  name one of them (`PlacementError` otherwise);
* collapse: `problem.coarsen` under the objective's `CostModel` (its memory
  limits included: constraints of the problem, `CostProblem.limits`);
* solve: a unit no vdevice can take is refused (`conflict.no_device_error`);
  ``plan(coarsened, settings)`` gives a device per unit (or raises the
  `PlacementConflict` of limits no plan fits); the plan's copies are
  written into the module (`rewrite.rewrite`), that module is extracted, and
  every site gets its unit's device: the `Decision` the driver checks and
  realizes.  A site that no op and no pin decides (a constant that
  ``R.shape_of`` reads) goes to the host, so the placed module is fully
  placed.
"""

from __future__ import annotations

import copy
from abc import abstractmethod
from collections.abc import Mapping

from vdplace.ir.module import IRModule
from vdplace.ir.normalize import host_vdevice
from vdplace.placement.cost.conflict import no_device_error
from vdplace.placement.cost.model import CostModel, parse_bytes
from vdplace.placement.cost.plan_problem import PlanProblem
from vdplace.placement.cost.problem import Coarsened, coarsen
from vdplace.placement.cost.rewrite import rewrite, site_devices
from vdplace.placement.errors import PlacementError
from vdplace.placement.extract.extract import extract
from vdplace.placement.extract.extraction import Extraction
from vdplace.placement.model.classes import collapse
from vdplace.placement.model.constraints import pin_columns
from vdplace.placement.objective import Decision, Objective, Settings


class UnitPlan:
    """A vdevice per unit (`plan`), the solver's `outcome` for `verify`, the `backend` asked and the `status`."""

    __slots__ = ("plan", "outcome", "backend", "status")

    def __init__(self, plan: list[int], outcome: object, backend: str = "", status: str = "optimal") -> None:
        self.plan = plan
        self.outcome = outcome
        self.backend = backend
        self.status = status


class UnitObjective(Objective):
    """An objective over the units of `problem.coarsen` (module docstring).

    `model` is the `CostModel`; `memory` adds or replaces its memory limits
    (``{"cuda:0": "2GiB"}``, keyed by vdevice names as `CostModel.memory` is).
    """

    problem_kind = PlanProblem
    settles_copies = False
    default_time_limit_s = 60.0

    def __init__(self, model: CostModel, memory: Mapping[str, int | str] | None = None) -> None:
        if not isinstance(model, CostModel):
            raise TypeError(f"cost must be a placement.CostModel, not {type(model).__name__}")
        self.model = _with_memory(model, memory) if memory else model

    def prepare(self, mod: IRModule, settings: Settings) -> IRModule:
        if not mod.vdevices:
            raise PlacementError(
                "cost-aware placement needs the module to declare its vdevices: add "
                "I.module_global_infos({'vdevice': [...]}) to it, or pass them as mod.replace(vdevices=[...]) "
                "(on the command line: --vdevice llvm:0 --vdevice cuda:0)"
            )
        try:
            for v in mod.vdevices:
                self.model.limit(v, mod.vdevices)
        except ValueError as err:
            raise PlacementError(str(err)) from None
        return mod

    def collapse(self, ex: Extraction, settings: Settings) -> Coarsened:
        return coarsen(ex, self.model)

    def solve(self, problem: Coarsened, ex: Extraction, settings: Settings) -> Decision:
        p = problem.problem
        stuck = [u for u in range(p.num_units) if all(t is None for t in p.compute[u])]
        if stuck:
            raise no_device_error(problem, stuck, ex.module)
        chosen = self.plan(problem, settings)
        out = plan_decision(problem, chosen.plan)
        out.backend, out.status, out.outcome = chosen.backend, chosen.status, chosen.outcome
        return out

    @abstractmethod
    def plan(self, co: Coarsened, settings: Settings) -> UnitPlan:
        """A vdevice per unit of `co.problem`, or the `PlacementConflict` of limits no plan fits."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model!r})"


def plan_decision(co: Coarsened, plan: list[int]) -> Decision:
    """The `Decision` of a plan: its copies written into the module, that module extracted, every site's device."""
    placed_input, inserted = rewrite(co, plan)
    ex = extract(placed_input, sizes=co.ex.sizes, settle=False)  # the plan's copies as the solver priced them
    cs = ex.constraints
    known = site_devices(co, plan, ex.var_sites)
    for site, device in zip(*pin_columns(cs.pins), strict=True):
        known.setdefault(site, device)
    classes = collapse(len(cs.sites), cs.equals)
    host = host_vdevice(list(placed_input.vdevices))
    by_class: list[int | None] = [None if host is None else placed_input.vdevices.index(host)] * len(classes)
    for site, device in known.items():
        by_class[classes.of[site]] = device
    out = Decision(ex, classes.expand(by_class), co.problem.num_units)
    out.inserted = frozenset(inserted)
    return out


def _with_memory(model: CostModel, memory: Mapping[str, int | str]) -> CostModel:
    """A shallow copy of `model` whose memory limits are its own with `memory`'s added or replacing them."""
    out = copy.copy(model)
    out.memory = {**model.memory, **{name: parse_bytes(size) for name, size in memory.items()}}
    return out
