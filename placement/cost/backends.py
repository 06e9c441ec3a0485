"""The backends that decide `PlanProblem`s, registered into the one registry (`placement.solve.backend`).

* ``"highs"``: `milp.solve_milp`, a mixed-integer linear program for HiGHS
  (`scipy.optimize.milp`): LP-based branch and bound with a proved dual
  bound at the time limit; the default of `Cost`.  Its LP bound is at least
  the Lagrangian one, so the Lagrangian gets 1/32 of the time limit first
  (for its quick proofs and plans only).
* ``"z3"``: `exact.solve_exact`, Z3's weighted MaxSAT with pseudo-Boolean
  memory limits (the name also decides the bytes objective's `Problem`s:
  `placement.solve.z3_backend`); the Lagrangian gets a quarter first.
* ``"mincut"``: `mincut.solve_mincut`, exact and polynomial for two
  vdevices and no memory limit; any other problem is a `ValueError` saying
  so.  `Cost` takes this step itself where it applies (unless
  ``propagate=False``), so naming it only rules the other solvers out.

Importing this module registers them; `solve.solve_cost` does.
"""

from __future__ import annotations

from vdplace.placement.cost.exact import solve_exact
from vdplace.placement.cost.milp import solve_milp
from vdplace.placement.cost.mincut import solve_mincut
from vdplace.placement.cost.objective import plan_cost
from vdplace.placement.cost.plan_problem import PlanProblem, PlanResult
from vdplace.placement.solve.backend import register_backend


class HighsBackend:
    """HiGHS through `scipy.optimize.milp` (module docstring)."""

    name = "highs"
    problem_kinds = (PlanProblem,)
    method = "milp"
    lagrange_share = 1 / 32

    def solve(self, problem: PlanProblem) -> PlanResult:
        return solve_milp(problem.cost, problem.time_limit_s, problem.hint)


class MaxSatBackend:
    """Z3's weighted MaxSAT (module docstring)."""

    name = "z3"
    problem_kinds = (PlanProblem,)
    method = "maxsat"
    lagrange_share = 1 / 4

    def solve(self, problem: PlanProblem) -> PlanResult:
        return solve_exact(problem.cost, problem.time_limit_s, problem.hint)


class MinCutBackend:
    """A minimum s-t cut: two vdevices, no memory limit (module docstring)."""

    name = "mincut"
    problem_kinds = (PlanProblem,)
    method = "mincut"
    lagrange_share = 0.0

    def solve(self, problem: PlanProblem) -> PlanResult:
        p = problem.cost
        if p.num_devices != 2 or any(limit is not None for limit in p.limits):
            limited = sum(limit is not None for limit in p.limits)
            raise ValueError(
                f"the mincut backend decides two vdevices with no memory limit; this problem has "
                f"{p.num_devices} vdevices and {limited} limits: use highs or z3"
            )
        plan, value = solve_mincut(p)
        return PlanResult(plan, True, min(value, plan_cost(p, plan).total))


for _backend in (HighsBackend, MaxSatBackend, MinCutBackend):
    register_backend(_backend.name, _backend, _backend.problem_kinds)
