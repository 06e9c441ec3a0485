"""The objective of a `CostProblem` for a given plan (one device per unit): the solvers' common yardstick.

`plan_cost` is what every solver and baseline is compared by; it is
recomputed independently from the placed module by `evaluate.py` (which
never sees the problem) and the two must agree.
"""

from __future__ import annotations

from collections.abc import Sequence

from vdplace.placement.cost.problem import CostProblem

INF = float("inf")


class PlanCost:
    """Seconds of compute and transfer, and bytes per device, of one plan; `feasible` under the limits."""

    __slots__ = ("compute", "transfer", "memory", "feasible")

    def __init__(self, compute: float, transfer: float, memory: list[int], feasible: bool) -> None:
        self.compute = compute
        self.transfer = transfer
        self.memory = memory
        self.feasible = feasible

    @property
    def total(self) -> float:
        return self.compute + self.transfer

    def __repr__(self) -> str:
        return f"PlanCost(total={self.total:.6g}, feasible={self.feasible})"


def copy_targets(p: CostProblem, plan: Sequence[int], v: int) -> set[int]:
    """The devices value v is copied to under `plan`: where its consumers are, its home excluded."""
    value = p.values[v]
    home = plan[value.unit]
    return {plan[c] for c in value.consumers} - {home}


def plan_cost(p: CostProblem, plan: Sequence[int]) -> PlanCost:
    """The cost of `plan`; a unit on a device where it cannot go makes the compute infinite."""
    compute = 0.0
    memory = [0] * p.num_devices
    for u, d in enumerate(plan):
        t = p.compute[u][d]
        compute += INF if t is None else t
        memory[d] += p.memory[u]
    transfer = 0.0
    for v, value in enumerate(p.values):
        dests = copy_targets(p, plan, v)
        if dests:
            transfer += p.transfer_time(v, plan[value.unit], dests)
            for d in dests:
                memory[d] += value.nbytes
    feasible = compute < INF and all(lim is None or memory[d] <= lim for d, lim in enumerate(p.limits))
    return PlanCost(compute, transfer, memory, feasible)


def allowed(p: CostProblem, u: int) -> list[int]:
    """The devices unit u may go on."""
    return [d for d, t in enumerate(p.compute[u]) if t is not None]


def allowed_times(p: CostProblem, u: int) -> dict[int, float]:
    """The devices unit u may go on (in order), each with the seconds of u's ops there."""
    return {d: t for d, t in enumerate(p.compute[u]) if t is not None}
