"""The front door of the cost solvers: pick the algorithm for a `CostProblem`, within a time limit.

Its own exact steps come first (unless ``propagate=False``):

* one vdevice: nothing to decide;
* two vdevices and no memory limit: `mincut.solve_mincut`, exact at any size;
* two vdevices with memory limits: first `lagrange.lagrangian` (min cuts
  with the limits priced in: a proved lower bound, and plans; a plan that
  meets the bound is optimal) for up to a share of the time limit (the
  backend's `lagrange_share`).

Otherwise, or when a gap is left, the backend (`placement.solve.backend`,
a `plan_problem.PlanProblem`, `backends`): by default ``"highs"`` (`milp.solve_milp`: LP-based branch
and bound with a proved dual bound at the time limit), or ``"z3"``
(`exact.solve_exact`: Z3 weighted MaxSAT with pseudo-Boolean memory
constraints); given the best plan so far (the baselines' plans are the first
candidates, so a plan is never worse than theirs), stopped by the time
limit: proved optimal, or the best plan found, with the best lower bound
proved (the backend's or the Lagrangian one).  ``propagate=False`` hands
the backend every problem with at least one unit, skipping the steps above
(the same optimum, found slower; the tests check the two agree).

`CostSolution.infeasible` says the memory limits admit no plan (proved);
`plan` is then None.  A plan that is returned always satisfies every limit
and every unit's allowed devices.
"""

from __future__ import annotations

import time
from typing import TypeAlias

from vdplace.placement.cost import backends  # noqa: F401 - importing it registers the plan backends
from vdplace.placement.cost.baselines import greedy, prefer_device
from vdplace.placement.cost.lagrange import lagrangian
from vdplace.placement.cost.mincut import solve_mincut
from vdplace.placement.cost.objective import PlanCost, allowed, plan_cost
from vdplace.placement.cost.plan_problem import PlanProblem, PlanResult
from vdplace.placement.cost.problem import CostProblem
from vdplace.placement.cost.repair import fit, improve
from vdplace.placement.solve.backend import Backend, resolve_backend

PlanBackend: TypeAlias = Backend[PlanProblem, PlanResult]

DEFAULT_LAGRANGE_SHARE = 1 / 4


class CostSolution:
    """A plan (device per unit) with its `cost`, whether it is proved `optimal`, and a proved `lower_bound`.

    method   ``"trivial"``, ``"mincut"``, ``"lagrange"`` (two vdevices with limits: the Lagrangian bound
             met the plan), or the backend's `method` (``"milp"``, ``"maxsat"``), prefixed
             ``"lagrange+"`` after a Lagrangian bound
    status   ``"optimal"``, ``"time limit"`` (best found, gap open), ``"infeasible"``,
             or ``"unknown"`` (no plan that fits was found within the limit)
    backend  the name of the backend asked, or ``""`` when the steps before it decided
    """

    __slots__ = ("plan", "cost", "optimal", "lower_bound", "method", "status", "seconds", "backend")

    def __init__(
        self,
        plan: list[int] | None,
        cost: PlanCost | None,
        optimal: bool,
        lower_bound: float,
        method: str,
        status: str,
    ) -> None:
        self.plan = plan
        self.cost = cost
        self.optimal = optimal
        self.lower_bound = lower_bound
        self.method = method
        self.status = status
        self.seconds = 0.0
        self.backend = ""

    @property
    def infeasible(self) -> bool:
        return self.status == "infeasible"

    @property
    def gap(self) -> float:
        """Relative distance of the plan's cost above the lower bound (0 when proved optimal)."""
        if self.cost is None or self.optimal:
            return 0.0
        total = self.cost.total
        return 0.0 if total <= 0 else max(0.0, (total - self.lower_bound) / total)


def solve_cost(
    p: CostProblem, time_limit_s: float = 60.0, backend: PlanBackend | str = "highs", propagate: bool = True
) -> CostSolution:
    """The best plan for `p` within `time_limit_s` (see the module docstring); every unit must have a device.

    `backend` decides what the exact steps leave (a registered name or a `Backend` deciding `PlanProblem`s).
    """
    if time_limit_s <= 0:
        raise ValueError(f"time_limit_s must be positive, not {time_limit_s!r}")
    solver = resolve_backend(backend, PlanProblem, "cost solver")
    if any(not allowed(p, u) for u in range(p.num_units)):
        raise ValueError("a unit has no device it can go on: report it before solving")
    start = time.perf_counter()
    out = _decided(p) if propagate else None
    if out is None:
        out = _solve(p, time_limit_s, solver, propagate)
        out.backend = solver.name
    out.seconds = time.perf_counter() - start
    return out


def _decided(p: CostProblem) -> CostSolution | None:
    """The plan when the exact steps decide it alone: one vdevice, no unit, or a minimum cut; else None."""
    if p.num_devices == 1 or p.num_units == 0:
        plan = [0] * p.num_units
        cost = plan_cost(p, plan)
        if not cost.feasible:
            return CostSolution(None, None, True, float("inf"), "trivial", "infeasible")
        return CostSolution(plan, cost, True, cost.total, "trivial", "optimal")
    if p.num_devices == 2 and all(lim is None for lim in p.limits):
        plan, value = solve_mincut(p)
        cost = plan_cost(p, plan)
        return CostSolution(plan, cost, True, min(value, cost.total), "mincut", "optimal")
    return None


def _polished(p: CostProblem, plan: list[int], seconds: float) -> list[int]:
    """`plan` made to fit the limits if it does not (when `repair.fit` can), then improved by single moves."""
    deadline = time.perf_counter() + seconds
    fitted = plan if plan_cost(p, plan).feasible else fit(p, plan, deadline)
    return plan if fitted is None else improve(p, fitted, deadline)


def _solve(p: CostProblem, time_limit_s: float, solver: PlanBackend, propagate: bool) -> CostSolution:
    deadline = time.perf_counter() + time_limit_s
    starts = [greedy(p)] + [prefer_device(p, t) for t in dict.fromkeys(v.device_type for v in p.vdevices)]
    candidates = sorted(((plan_cost(p, plan), plan) for plan in starts), key=lambda c: (not c[0].feasible, c[0].total))
    lower = 0.0
    method: str = getattr(solver, "method", solver.name)
    if p.num_devices == 2 and propagate:
        share = getattr(solver, "lagrange_share", DEFAULT_LAGRANGE_SHARE)
        lag = lagrangian(p, time_limit_s * share, start=(candidates[0][1], candidates[0][0]))
        lower, method = lag.lower_bound, "lagrange+" + method
        if lag.plan is not None and lag.cost is not None:
            candidates.append((lag.cost, lag.plan))
            if lag.cost.total <= lower * (1 + 1e-9):
                return CostSolution(lag.plan, lag.cost, True, lag.cost.total, "lagrange", "optimal")
    hint = _polished(p, min(candidates, key=lambda c: (not c[0].feasible, c[0].total))[1], time_limit_s / 8)
    candidates.append((plan_cost(p, hint), hint))
    result = solver.solve(PlanProblem(p, max(0.001, deadline - time.perf_counter()), hint))
    if result.infeasible:
        return CostSolution(None, None, True, float("inf"), method, "infeasible")
    if result.plan is not None:
        candidates.insert(0, (plan_cost(p, result.plan), result.plan))
    return _best(candidates, result.optimal, max(lower, result.lower_bound), method)


def _best(candidates: list[tuple[PlanCost, list[int]]], optimal: bool, lower: float, method: str) -> CostSolution:
    """The cheapest candidate that fits, proved optimal when the backend said so or the bound meets it."""
    fitting = [c for c in candidates if c[0].feasible]
    if not fitting:
        return CostSolution(None, None, False, lower, method, "unknown")
    cost, plan = min(fitting, key=lambda c: c[0].total)
    if optimal:
        return CostSolution(plan, cost, True, cost.total, method, "optimal")
    lower = min(lower, cost.total)
    proved = cost.total <= lower * (1 + 1e-9)
    return CostSolution(plan, cost, proved, lower, method, "optimal" if proved else "time limit")
