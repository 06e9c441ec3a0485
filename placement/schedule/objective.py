"""`Time(cost_model, memory=...)`: place to minimize the makespan of a schedule, memory by liveness.

``place(mod, objective=Time(model))`` decides a vdevice for every unpinned
value, as the cost objective does, and the schedule of the run it predicts
(docs/schedule.md); `Placement.schedule` holds it.  `memory` adds limits
(vdevice name -> bytes or ``"2GiB"``) to the model's own, the lower one
winning where both name a vdevice; `exact=False` skips the exact solver
(CP-SAT), leaving the placement search and its proved lower bound.

A `cost.units.UnitObjective`: the driver (`placement.api`) coarsens the
module, `plan` asks `solve.solve_time` for a vdevice per unit (or raises
the `conflict.schedule_conflict` of limits no plan fits), the driver writes
the plan's copies into the module, checks and realizes it, and `verify`
names the schedule's copies by the bindings of that module and checks the
schedule against the placed module alone (`place.check_schedule`), then,
under a model whose devices slow each other (`CostModel.contention`),
re-times it for that (`contention.contended`: what `Placement.schedule`
reports);
`finish` puts the placed module's bindings in the schedule's order
(`order.schedule_order`), so the VM and the Ray actors run them so.

The driver's options mean here: ``time_limit_s`` the limit of the whole
call (60 s when None), from extraction to the ordered placed module,
honoured within a second where the program's fixed work fits it, else
warned about (`deadline`); ``backend`` and ``propagate`` those of
the cost objective's plans, which the placement search starts from
(`solve.solve_time`).  ``strict_hints``, ``default`` and ``specialize`` are
refused (`ValueError`), as under `Cost`.
"""

from __future__ import annotations

from collections.abc import Mapping

from vdplace.ir.module import IRModule
from vdplace.ir.vdevice import vdevice_name
from vdplace.placement.cost.model import CostModel, parse_bytes
from vdplace.placement.cost.problem import Coarsened
from vdplace.placement.cost.units import UnitObjective, UnitPlan
from vdplace.placement.errors import PlacementError
from vdplace.placement.objective import Decision, Settings
from vdplace.placement.rewrite.realize import Copy
from vdplace.placement.schedule.conflict import schedule_conflict
from vdplace.placement.schedule.contention import contended
from vdplace.placement.schedule.events import Schedule
from vdplace.placement.schedule.order import schedule_order
from vdplace.placement.schedule.place import check_schedule, copy_names
from vdplace.placement.schedule.solve import TimeSolution, solve_time


class Time(UnitObjective):
    """The time objective: `model` (a `CostModel`), `memory` (bytes per vdevice name), `exact`."""

    name = "time"
    report_name = "schedule"
    default_backend = "highs"
    backend_noun = "cost solver"

    def __init__(
        self, cost_model: CostModel, memory: Mapping[str, int | str] | None = None, *, exact: bool = True
    ) -> None:
        if not isinstance(cost_model, CostModel):
            raise TypeError(f"Time() takes a placement.CostModel, not {type(cost_model).__name__}")
        super().__init__(cost_model)  # `memory` is the schedule's limits by liveness, kept apart from the model's
        self.memory: dict[str, int] = {name: parse_bytes(size) for name, size in (memory or {}).items()}
        self.exact = bool(exact)

    def prepare(self, mod: IRModule, settings: Settings) -> IRModule:
        """`UnitObjective.prepare`, and every limit of `memory` names a vdevice of `mod`."""
        mod = super().prepare(mod, settings)
        try:
            extra = CostModel(memory=self.memory)
            for v in mod.vdevices:
                extra.limit(v, mod.vdevices)
        except ValueError as err:
            raise PlacementError(str(err)) from None
        return mod

    def plan(self, co: Coarsened, settings: Settings) -> UnitPlan:
        assert settings.time_limit_s is not None  # `default_time_limit_s` stands in for None
        sol = solve_time(
            co,
            self.model,
            self.memory,
            settings.time_limit_s,
            self.exact,
            settings.backend,
            settings.propagate,
            started=settings.started,
        )
        if sol.plan is None:
            raise schedule_conflict(sol, co, co.ex.module)
        return UnitPlan(sol.plan, (sol, co), "", sol.status)

    def verify(self, decision: Decision, placed: IRModule, copies: list[Copy]) -> Schedule:
        sol: TimeSolution
        co: Coarsened
        sol, co = decision.outcome
        assert sol.plan is not None
        names = copy_names(sol.graph, sol.plan, decision.extraction.module, co, {c.var for c in copies})
        schedule = sol.make_schedule(names)
        check_schedule(schedule, placed, copies, self, co.ex.sizes)
        if not self.model.contention:
            return schedule
        vds = list(placed.vdevices)
        by_name = {vdevice_name(vds, v): v for v in vds}
        return contended(schedule, lambda a, b: self.model.slowdown(by_name[a], by_name[b], vds))

    def finish(self, placed: IRModule, report: object) -> IRModule:
        """`placed` with its bindings in the schedule's order (`order.schedule_order`): what the VM and Ray run."""
        assert isinstance(report, Schedule)
        return schedule_order(placed, report)

    def __repr__(self) -> str:
        return f"Time(memory={self.memory!r}, exact={self.exact})"
