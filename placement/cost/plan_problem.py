"""`PlanProblem` and `PlanResult`: what a backend decides for an objective over units, and its answer.

The second kind of problem of the one backend registry
(`placement.solve.backend`; the first is the bytes objective's `Problem`).
`cost` is a `problem.CostProblem`: a vdevice per unit to choose, each
unit's compute per vdevice (None where it cannot go), the values copied
between units and their copy times, memory per unit and a limit per vdevice.
`time_limit_s` is the time left (building an encoding counts against it);
`hint` the best plan the caller has (it may only scale or seed the search).

The answer is a `PlanResult`: `plan` (a vdevice per unit with every limit
holding, or None when none was found in time), `optimal` (proved),
`lower_bound` (seconds, proved) and `infeasible` (proved: no plan fits).
Answers are deterministic.  A plan backend may name its plans (`method`,
default its name) and take the share `lagrange_share` of the time limit
that the Lagrangian bound gets before it on two vdevices with limits
(`solve.solve_cost`; default 1/4).
"""

from __future__ import annotations

from collections.abc import Sequence

from vdplace.placement.cost.problem import CostProblem


class PlanProblem:
    """A vdevice per unit to decide (module docstring)."""

    __slots__ = ("cost", "time_limit_s", "hint")

    def __init__(self, cost: CostProblem, time_limit_s: float, hint: Sequence[int] | None = None) -> None:
        self.cost = cost
        self.time_limit_s = time_limit_s
        self.hint = hint


class PlanResult:
    """`plan` (None: none within the limit), `optimal`, `lower_bound` (seconds), `infeasible` (proved)."""

    __slots__ = ("plan", "optimal", "lower_bound", "infeasible")

    def __init__(self, plan: list[int] | None, optimal: bool, lower_bound: float, infeasible: bool = False) -> None:
        self.plan = plan
        self.optimal = optimal
        self.lower_bound = lower_bound
        self.infeasible = infeasible
