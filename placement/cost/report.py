"""`PlacementCost`: what a cost-aware plan costs, and how sure vdplace is that it is the best.

`Placement.cost` under the `Cost` objective: built by `Cost.verify` from the
placed module's own cost (`evaluate.evaluate`) and the solver's claims
(`solve.CostSolution`), once the two agree.
"""

from __future__ import annotations

from vdplace.ir.units import format_bytes
from vdplace.placement.cost.evaluate import Evaluation, Transfer
from vdplace.placement.cost.solve import CostSolution

# The plan on a terminal lists this many copies, then sums the rest on one line.
SHOWN_TRANSFERS = 20


class PlacementCost:
    """What a cost-aware plan costs, and how sure vdplace is that it is the best.

    total, compute, transfer   seconds (one stream, no overlap: total = compute + transfer)
    device_compute             seconds of kernels per vdevice name
    memory                     bytes per vdevice name (values placed there plus copies into it)
    limits                     the memory limits, bytes per vdevice name
    transfers                  every copy (`evaluate.Transfer`), in program order
    optimal                    the plan is proved optimal
    lower_bound                seconds no plan can beat (proved); equals `total` when optimal
    method, status             the solver (`solve.CostSolution.method`: ``"mincut"``, ``"milp"``, ...) and how it ended
    solve_seconds              the solver's wall time
    """

    __slots__ = (
        "total",
        "compute",
        "transfer",
        "device_compute",
        "memory",
        "limits",
        "transfers",
        "optimal",
        "lower_bound",
        "method",
        "status",
        "solve_seconds",
    )

    def __init__(self, ev: Evaluation, solution: CostSolution, limits: dict[str, int]) -> None:
        self.total = ev.total
        self.compute = ev.compute
        self.transfer = ev.transfer
        self.device_compute = dict(ev.device_compute)
        self.memory = dict(ev.memory)
        self.limits = limits
        self.transfers: list[Transfer] = list(ev.transfers)
        self.optimal = solution.optimal
        self.lower_bound = min(solution.lower_bound, ev.total)
        self.method = solution.method
        self.status = solution.status
        self.solve_seconds = solution.seconds

    @property
    def gap(self) -> float:
        """How far above the lower bound the plan may be, relative to its total (0 when optimal)."""
        if self.optimal or self.total <= 0:
            return 0.0
        return max(0.0, (self.total - self.lower_bound) / self.total)

    def describe(self) -> str:
        """The plan for a terminal: time per device, transfers, memory per device, proved optimal or the gap."""
        lines = [f"estimated time {_s(self.total)} = compute {_s(self.compute)} + transfers {_s(self.transfer)}"]
        for name, seconds in self.device_compute.items():
            limit = self.limits.get(name)
            cap = f" of {format_bytes(limit)} limit" if limit is not None else ""
            lines.append(f"  {name}: compute {_s(seconds)}, memory {format_bytes(self.memory.get(name, 0))}{cap}")
        for t in self.transfers[:SHOWN_TRANSFERS]:
            lines.append(f"  copy {t.function}:{t.var}: {t.src} -> {t.dst}, {format_bytes(t.nbytes)}, {_s(t.seconds)}")
        if len(self.transfers) > SHOWN_TRANSFERS:
            rest = self.transfers[SHOWN_TRANSFERS:]
            moved = sum(t.nbytes for t in rest)
            lines.append(f"  … {len(rest)} more copies, {format_bytes(moved)}, {_s(sum(t.seconds for t in rest))}")
        if self.optimal:
            lines.append(f"proved optimal ({self.method}, {self.solve_seconds:.2f} s)")
        else:
            lines.append(
                f"best found within the time limit ({self.method}); lower bound {_s(self.lower_bound)}, "
                f"gap {self.gap:.1%}"
            )
        return "\n".join(lines) + "\n"

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {name: getattr(self, name) for name in self.__slots__ if name != "transfers"}
        out["gap"] = self.gap
        out["transfers"] = [{name: getattr(t, name) for name in Transfer.__slots__} for t in self.transfers]
        return out

    def __repr__(self) -> str:
        return f"PlacementCost(total={self.total:.6g}s, optimal={self.optimal}, lower_bound={self.lower_bound:.6g}s)"


def _s(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"
