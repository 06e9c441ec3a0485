"""Two vdevices with memory limits: lower bounds and plans from the Lagrangian relaxation of the limits.

Each limit ``mem_d(plan) <= limit_d`` moves into the objective with a price
``lam_d >= 0`` per byte: ``L(lam) = min over plans of cost(plan) + sum_d
lam_d (mem_d(plan) - limit_d)``.  Memory is linear in what the min-cut graph
already decides (a unit on d holds its bytes there; a value copied into d,
its gadget edge cut, holds its bytes there), so each ``L(lam)`` is one
minimum cut (`mincut.solve_mincut` with the prices added to the capacities)
and, by weak duality, a proved lower bound of the constrained optimum.

`lagrangian` maximizes ``L`` by projected subgradient steps (Polyak's step
toward the best plan that fits), keeps the best lower bound, and keeps the
best of the minimizers that fit the limits and of those `repair.fit` makes
fit (near the best prices they are near-optimal: only a few units need to
move).  When the
best plan's cost meets the bound, the plan is proved optimal.
"""

from __future__ import annotations

import time

from vdplace.placement.cost.mincut import solve_mincut
from vdplace.placement.cost.objective import PlanCost, plan_cost
from vdplace.placement.cost.problem import CostProblem
from vdplace.placement.cost.repair import fit, relink


class LagrangeResult:
    """`lower_bound` (seconds, proved), the best plan that fits and its cost (or None), and the iterations."""

    __slots__ = ("lower_bound", "plan", "cost", "iterations")

    def __init__(self, lower_bound: float, plan: list[int] | None, cost: PlanCost | None, iterations: int) -> None:
        self.lower_bound = lower_bound
        self.plan = plan
        self.cost = cost
        self.iterations = iterations


def lagrangian(
    p: CostProblem,
    seconds: float,
    start: tuple[list[int], PlanCost] | None = None,
    max_iterations: int = 60,
) -> LagrangeResult:
    """The best Lagrangian lower bound and plan found within `seconds` (see the module docstring)."""
    deadline = time.perf_counter() + seconds
    limits = p.limits
    lam = [0.0] * p.num_devices
    best_plan, best_cost = (start[0], start[1]) if start is not None and start[1].feasible else (None, None)
    lower = 0.0
    last_fit: list[int] | None = best_plan
    last_over: list[int] | None = None
    step_scale = 1.0
    stall = 0
    iterations = 0
    while iterations < max_iterations:
        iterations += 1
        plan, value = solve_mincut(p, prices=lam)
        bound = value - sum(lam[d] * lim for d, lim in enumerate(limits) if lim is not None)
        if bound > lower * (1 + 1e-12):
            lower, stall = bound, 0
        else:
            stall += 1
            if stall >= 5:
                step_scale, stall = step_scale / 2, 0
        cost = plan_cost(p, plan)
        if cost.feasible:
            last_fit = plan
        else:
            last_over = plan
        for found in (plan if cost.feasible else fit(p, plan, deadline), _relinked(p, last_fit, last_over, deadline)):
            if found is not None:
                found_cost = plan_cost(p, found)
                if found_cost.feasible and (best_cost is None or found_cost.total < best_cost.total):
                    best_plan, best_cost = found, found_cost
        if best_cost is not None and best_cost.total <= lower * (1 + 1e-9):
            break
        grad = [0.0 if lim is None else cost.memory[d] - lim for d, lim in enumerate(limits)]
        norm = sum(g * g for g in grad)
        if norm == 0 or time.perf_counter() > deadline:
            break
        target = best_cost.total if best_cost is not None else max(cost.total, bound) * 1.5 + 1e-12
        step = step_scale * max(target - bound, 1e-15) / norm
        lam = [max(0.0, x + step * g) for x, g in zip(lam, grad, strict=True)]
    return LagrangeResult(lower, best_plan, best_cost, iterations)


def _relinked(p: CostProblem, fits: list[int] | None, over: list[int] | None, deadline: float) -> list[int] | None:
    return None if fits is None or over is None else relink(p, fits, over, deadline)
