"""The front door of the cost solvers: pick the algorithm for a `CostProblem`, within a time limit.

* one vdevice: nothing to decide;
* two vdevices and no memory limit: `mincut.solve_mincut`, exact at any size;
* two vdevices with memory limits: first `lagrange.lagrangian` (min cuts
  with the limits priced in: a proved lower bound, and plans; a plan that
  meets the bound is optimal) for up to a share of the time limit
  (`Backend.lagrange_share`);
* otherwise, or when a gap is left: an exact solver (`SOLVERS`): by default
  `milp.solve_milp` (a MILP for HiGHS: LP-based branch and bound with a
  proved dual bound at the time limit), or ``solver="z3"``:
  `exact.solve_exact` (Z3 weighted MaxSAT with pseudo-Boolean memory
  constraints); given the best plan so far (the baselines' plans are the
  first candidates, so a plan is never worse than theirs), stopped by the
  time limit: proved optimal, or the best plan found, with the best lower
  bound proved (the solver's or the Lagrangian one).

`CostSolution.infeasible` says the memory limits admit no plan (proved);
`plan` is then None.  A plan that is returned always satisfies every limit
and every unit's allowed devices.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

from vdplace.placement.cost.baselines import greedy, prefer_device
from vdplace.placement.cost.exact import ExactResult, solve_exact
from vdplace.placement.cost.lagrange import lagrangian
from vdplace.placement.cost.milp import solve_milp
from vdplace.placement.cost.mincut import solve_mincut
from vdplace.placement.cost.objective import PlanCost, allowed, plan_cost
from vdplace.placement.cost.problem import CostProblem
from vdplace.placement.cost.repair import fit, improve

ExactSolver = Callable[[CostProblem, float, Sequence[int] | None], ExactResult]


class Backend(NamedTuple):
    """An exact solver, its name in `CostSolution.method`, and the share of the time limit the Lagrangian gets first.

    HiGHS's LP bound is at least the Lagrangian one (the same relaxation, solved exactly), so it gets
    the Lagrangian for its quick proofs and plans only; Z3 needs the Lagrangian's bound.
    """

    solve: ExactSolver
    method: str
    lagrange_share: float


SOLVERS: dict[str, Backend] = {
    "highs": Backend(solve_milp, "milp", 1 / 32),
    "z3": Backend(solve_exact, "maxsat", 1 / 4),
}


class CostSolution:
    """A plan (device per unit) with its `cost`, whether it is proved `optimal`, and a proved `lower_bound`.

    method  ``"trivial"``, ``"mincut"``, ``"lagrange"`` (two vdevices with limits: the Lagrangian bound
            met the plan), ``"milp"`` or ``"maxsat"`` (the exact solver, `SOLVERS`), prefixed
            ``"lagrange+"`` after a Lagrangian bound
    status  ``"optimal"``, ``"time limit"`` (best found, gap open), ``"infeasible"``,
            or ``"unknown"`` (no plan that fits was found within the limit)
    """

    __slots__ = ("plan", "cost", "optimal", "lower_bound", "method", "status", "seconds")

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


def solve_cost(p: CostProblem, time_limit_s: float = 60.0, solver: str = "highs") -> CostSolution:
    """The best plan for `p` within `time_limit_s` (see the module docstring); every unit must have a device.

    `solver` names the exact solver in `SOLVERS` (``"highs"`` or ``"z3"``).
    """
    if time_limit_s <= 0:
        raise ValueError(f"time_limit_s must be positive, not {time_limit_s!r}")
    if solver not in SOLVERS:
        raise ValueError(f"unknown cost solver {solver!r}; use one of {', '.join(SOLVERS)}")
    start = time.perf_counter()
    out = _solve(p, time_limit_s, SOLVERS[solver])
    out.seconds = time.perf_counter() - start
    return out


def _polished(p: CostProblem, plan: list[int], seconds: float) -> list[int]:
    """`plan` made to fit the limits if it does not (when `repair.fit` can), then improved by single moves."""
    deadline = time.perf_counter() + seconds
    fitted = plan if plan_cost(p, plan).feasible else fit(p, plan, deadline)
    return plan if fitted is None else improve(p, fitted, deadline)


def _solve(p: CostProblem, time_limit_s: float, solver: Backend) -> CostSolution:
    if any(not allowed(p, u) for u in range(p.num_units)):
        raise ValueError("a unit has no device it can go on: report it before solving")
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
    deadline = time.perf_counter() + time_limit_s
    starts = [greedy(p)] + [prefer_device(p, t) for t in dict.fromkeys(v.device_type for v in p.vdevices)]
    candidates = sorted(((plan_cost(p, plan), plan) for plan in starts), key=lambda c: (not c[0].feasible, c[0].total))
    first = candidates[0][1]
    lower = 0.0
    method = solver.method
    if p.num_devices == 2:
        lag = lagrangian(p, time_limit_s * solver.lagrange_share, start=(first, candidates[0][0]))
        lower, method = lag.lower_bound, "lagrange+" + method
        if lag.plan is not None:
            candidates.append((lag.cost, lag.plan))  # type: ignore[arg-type]
            if lag.cost.total <= lower * (1 + 1e-9):  # type: ignore[union-attr]
                return CostSolution(lag.plan, lag.cost, True, lag.cost.total, "lagrange", "optimal")  # type: ignore
    hint = _polished(p, min(candidates, key=lambda c: (not c[0].feasible, c[0].total))[1], time_limit_s / 8)
    candidates.append((plan_cost(p, hint), hint))
    result = solver.solve(p, max(0.001, deadline - time.perf_counter()), hint)
    if result.infeasible:
        return CostSolution(None, None, True, float("inf"), method, "infeasible")
    if result.plan is not None:
        candidates.insert(0, (plan_cost(p, result.plan), result.plan))
    fitting = [c for c in candidates if c[0].feasible]
    if not fitting:
        return CostSolution(None, None, False, max(lower, result.lower_bound), method, "unknown")
    cost, plan = min(fitting, key=lambda c: c[0].total)
    if result.optimal:
        return CostSolution(plan, cost, True, cost.total, method, "optimal")
    lower = min(max(lower, result.lower_bound), cost.total)
    optimal = cost.total <= lower * (1 + 1e-9)
    return CostSolution(plan, cost, optimal, lower, method, "optimal" if optimal else "time limit")
