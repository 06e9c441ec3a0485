"""`Cost(model, memory=...)`: the least estimated time (kernels plus copies, one stream), within memory limits.

A `units.UnitObjective`: a vdevice per unit of the coarsened problem.  The
plan is `solve.solve_cost`'s (its own exact steps, then the backend:
``"highs"`` by default, ``"z3"``); no plan within the limits is a
`PlacementConflict` naming the vdevice and what must live there
(`conflict.memory_conflict`).  `verify` recomputes the placed module's cost
from the module alone (`evaluate.evaluate`): it must equal the solver's, or
the result is never returned (`PlacementInternalError`).  The report is a
`report.PlacementCost`, read as `Placement.cost`.
"""

from __future__ import annotations

import math

from vdplace.ir.module import IRModule
from vdplace.ir.vdevice import vdevice_name
from vdplace.placement.cost.conflict import memory_conflict
from vdplace.placement.cost.evaluate import Evaluation, evaluate
from vdplace.placement.cost.problem import Coarsened
from vdplace.placement.cost.report import PlacementCost
from vdplace.placement.cost.solve import CostSolution, solve_cost
from vdplace.placement.cost.units import UnitObjective, UnitPlan
from vdplace.placement.errors import PlacementInternalError
from vdplace.placement.objective import Decision, Settings
from vdplace.placement.rewrite.realize import Copy


class Cost(UnitObjective):
    """The least estimated time under `model` within its memory limits (module docstring)."""

    name = "cost"
    report_name = "cost"
    default_backend = "highs"
    backend_noun = "cost solver"

    def plan(self, co: Coarsened, settings: Settings) -> UnitPlan:
        assert settings.time_limit_s is not None  # `default_time_limit_s` stands in for None
        solution = solve_cost(co.problem, settings.time_limit_s, settings.backend, settings.propagate)
        if solution.plan is None:
            raise memory_conflict(co, co.ex.module, proved=solution.infeasible)
        return UnitPlan(solution.plan, solution, solution.backend, solution.status)

    def verify(self, decision: Decision, placed: IRModule, copies: list[Copy]) -> PlacementCost:
        ev = evaluate(placed, self.model, decision.extraction.sizes)
        solution: CostSolution = decision.outcome
        _check_cost(solution, ev)
        vdevices = placed.vdevices
        limits = {vdevice_name(vdevices, v): self.model.limit(v, vdevices) for v in vdevices}
        return PlacementCost(ev, solution, {k: v for k, v in limits.items() if v is not None})


def _check_cost(solution: CostSolution, ev: Evaluation) -> None:
    """The solver's cost must be the placed module's, recomputed from it alone."""
    solved = solution.cost
    if solved is None:
        raise PlacementInternalError("the cost plan has no cost")
    if not math.isclose(solved.total, ev.total, rel_tol=1e-9, abs_tol=1e-15):
        raise PlacementInternalError(
            f"the cost plan counted {solved.total!r} s but the placed module costs {ev.total!r} s "
            f"(compute {solved.compute!r} vs {ev.compute!r}, transfer {solved.transfer!r} vs {ev.transfer!r})"
        )
    if solved.memory != list(ev.memory.values()):
        raise PlacementInternalError(f"the cost plan's memory {solved.memory} is not the placed module's {ev.memory}")
