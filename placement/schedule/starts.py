"""The placement search's start plans and the search from them (`solve.solve_time`, steps 1-2).

The start plans, in the order the search compares them: the cost objective's
plans (`cost.solve.solve_cost`, by the caller's backend) where its solver is
deterministic (min cut, or proved optimal), without the memory limits and
with them as static limits; HEFT's and every unit on each vdevice
(`search.start_plans`); the weight rules' best (`weight_rules`); the best
contiguous split (`splits`).  A static count holds every value placed or
copied on a vdevice for the whole run, so the cost objective's plan under
the limits fits them by liveness too: the search's plan is never slower than
its list schedule, the plan ``place(mod, cost=model)`` returns with the same
limits.

That plan is solved before the search's budget and wall clock start
(`limited_cost_plan`): its solve can take seconds (1.9 s on
onnx_gru_unrolled with cuda:0 capped), which would otherwise come out of the
search's window and of the weight rules' clock.
"""

from __future__ import annotations

import copy
import time

from vdplace.placement.cost.problem import Coarsened
from vdplace.placement.cost.solve import PlanBackend, solve_cost
from vdplace.placement.schedule.graph import TaskGraph
from vdplace.placement.schedule.search import Budget, Plan, search, start_plans
from vdplace.placement.schedule.splits import best_split
from vdplace.placement.schedule.weight_rules import weight_rule_plans

# Share of the time limit for the cost objective's plans (each, at most a quarter of what is left).
COST_SHARE = 0.1


def cost_seconds(time_limit_s: float, deadline: float) -> float:
    """Seconds a cost objective's plan may take: `COST_SHARE` of the limit, at most a quarter of the time to
    `deadline` (a ``time.perf_counter()``)."""
    return min(time_limit_s * COST_SHARE, (deadline - time.perf_counter()) / 4)


def cost_plan(
    co: Coarsened,
    limits: list[int | None],
    seconds: float,
    backend: PlanBackend | str = "highs",
    propagate: bool = True,
) -> list[int] | None:
    """The cost objective's plan of `co` under `limits` (static: bytes per vdevice, or None) within `seconds`,
    or None where its solver is not deterministic (neither min cut nor proved optimal) or found none."""
    if seconds <= 0:
        return None
    p = copy.copy(co.problem)
    p.limits = list(limits)
    solution = solve_cost(p, max(0.01, seconds), backend, propagate)
    if solution.plan is None or not (solution.optimal or solution.method in ("trivial", "mincut")):
        return None
    return list(solution.plan)


def limited_cost_plan(
    co: Coarsened, g: TaskGraph, total: Budget, seconds: float, backend: PlanBackend | str, propagate: bool
) -> list[int] | None:
    """`cost_plan` under `g`'s limits; None without limits, or when `total` cannot pay one list schedule (the
    search does not run)."""
    if total.ops < g.num_ops or all(lim is None for lim in g.limits):
        return None
    return cost_plan(co, g.limits, seconds, backend, propagate)


def searched(
    co: Coarsened,
    g: TaskGraph,
    budget: Budget,
    seconds: float,
    backend: PlanBackend | str,
    propagate: bool,
    limited: list[int] | None,
) -> Plan:
    """The search's best plan from the start plans (module docstring) within `budget`; the cost objective's
    plan without limits gets at most `seconds`; `limited` is its plan under them (`limited_cost_plan`)."""
    began = time.perf_counter()
    free = cost_plan(co, [None] * g.num_devices, seconds, backend, propagate)
    ruled = weight_rule_plans(g, co.problem, budget, backend, propagate, time.perf_counter() - began)
    split = best_split(g, budget)
    starts: list[list[int] | Plan] = [plan for plan in (free, limited) if plan is not None]
    starts += start_plans(g) + [plan for plan in (ruled, split) if plan is not None]
    return search(g, starts, budget)
