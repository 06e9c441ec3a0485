"""Local moves on a plan: make it fit the memory limits, then improve it one unit at a time.

A move puts one unit on another device; its effect is local: the unit's
compute and memory, and the copies of the values it is the home or a
consumer of (`_Moves.local`).  `fit` moves units off a device over its
limit, cheapest extra seconds per byte freed first (lazy greedy over a heap);
`improve` applies every move that lowers the cost and keeps the limits
until none is left or the time is up.  Both only ever return plans that keep
every unit on a device it may go on; `fit` returns None when it cannot make
the plan fit.  Heuristics: they give the exact solvers' bounds something to
meet, and the time-limited result a good plan; they prove nothing.
"""

from __future__ import annotations

import heapq
import time

from vdplace.placement.cost.objective import allowed, plan_cost
from vdplace.placement.cost.problem import CostProblem


class _Moves:
    def __init__(self, p: CostProblem, plan: list[int]) -> None:
        self.p = p
        self.plan = list(plan)
        self.touching: list[set[int]] = [set() for _ in range(p.num_units)]
        for v, value in enumerate(p.values):
            self.touching[value.unit].add(v)
            for c in value.consumers:
                self.touching[c].add(v)
        self.allowed = [allowed(p, u) for u in range(p.num_units)]
        self.used = plan_cost(p, plan).memory

    def local(self, u: int) -> tuple[float, list[int]]:
        """Seconds and bytes per device that depend on unit u's device, under the current plan."""
        p, plan = self.p, self.plan
        memory = [0] * p.num_devices
        d = plan[u]
        seconds = p.compute[u][d] or 0.0
        memory[d] += p.memory[u]
        for v in self.touching[u]:
            value = p.values[v]
            home = plan[value.unit]
            dests = {plan[c] for c in value.consumers} - {home}
            if dests:
                seconds += p.transfer_time(v, home, dests)
                for e in dests:
                    memory[e] += value.nbytes
        return seconds, memory

    def delta(self, u: int, d: int) -> tuple[float, list[int]]:
        """The change in seconds and bytes per device if unit u moved to d."""
        before = self.local(u)
        old, self.plan[u] = self.plan[u], d
        after = self.local(u)
        self.plan[u] = old
        return after[0] - before[0], [a - b for a, b in zip(after[1], before[1], strict=True)]

    def fits_after(self, change: list[int]) -> bool:
        return all(lim is None or self.used[e] + change[e] <= lim for e, lim in enumerate(self.p.limits))

    def apply(self, u: int, d: int, change: list[int]) -> None:
        self.plan[u] = d
        self.used = [a + b for a, b in zip(self.used, change, strict=True)]

    def best_off(self, u: int, over: int) -> tuple[float, int, list[int]] | None:
        """The move of u off device `over` with the least extra seconds per byte freed there."""
        best = None
        for d in self.allowed[u]:
            if d == self.plan[u]:
                continue
            dt, change = self.delta(u, d)
            freed = -change[over]
            if freed <= 0:
                continue
            score = dt / freed
            if best is None or score < best[0]:
                best = (score, d, change)
        return best


def fit(p: CostProblem, plan: list[int], deadline: float) -> list[int] | None:
    """`plan` changed until every memory limit holds, or None (see the module docstring)."""
    m = _Moves(p, plan)
    for over, limit in enumerate(p.limits):
        if limit is None:
            continue
        heap = []
        for u in range(p.num_units):
            if m.plan[u] == over and len(m.allowed[u]) > 1:
                best = m.best_off(u, over)
                if best is not None:
                    heap.append((best[0], u))
        heapq.heapify(heap)
        while m.used[over] > limit and heap:
            if time.perf_counter() > deadline:
                return None
            _, u = heapq.heappop(heap)
            if m.plan[u] != over:
                continue
            best = m.best_off(u, over)
            if best is None:
                continue
            if heap and best[0] > heap[0][0]:
                heapq.heappush(heap, (best[0], u))
                continue
            m.apply(u, best[1], best[2])
    if any(lim is not None and m.used[d] > lim for d, lim in enumerate(p.limits)):
        return None
    return m.plan


def improve(p: CostProblem, plan: list[int], deadline: float, rounds: int = 3) -> list[int]:
    """`plan` after every single-unit move that lowers the cost and keeps the limits (see the docstring)."""
    m = _Moves(p, plan)
    for _ in range(rounds):
        moved = False
        for u in range(p.num_units):
            if time.perf_counter() > deadline:
                return m.plan
            for d in m.allowed[u]:
                if d == m.plan[u]:
                    continue
                dt, change = m.delta(u, d)
                if dt < -1e-15 and m.fits_after(change):
                    m.apply(u, d, change)
                    moved = True
        if not moved:
            break
    return m.plan


def relink(p: CostProblem, fits: list[int], over: list[int], deadline: float) -> list[int] | None:
    """The best plan that fits among those taking a prefix or a suffix (in unit order) of `over`'s
    changes to `fits` (the longest that fits, by bisection), or None.

    Near the best Lagrangian prices, one minimizer fits and the next does not; plans in between
    (a chain's segment on the GPU, not all of it or none) are what the limits want, and cuts
    rarely return them, as they tie at those prices.
    """
    changed = [u for u in range(p.num_units) if fits[u] != over[u]]
    best: tuple[float, list[int]] | None = None
    for order in (changed, changed[::-1]):
        lo, hi = 0, len(order)  # lo: a count known to fit (0: `fits` itself)
        while lo < hi and time.perf_counter() < deadline:
            mid = (lo + hi + 1) // 2
            plan = list(fits)
            for u in order[:mid]:
                plan[u] = over[u]
            if plan_cost(p, plan).feasible:
                lo = mid
            else:
                hi = mid - 1
        plan = list(fits)
        for u in order[:lo]:
            plan[u] = over[u]
        cost = plan_cost(p, plan)
        if cost.feasible and (best is None or cost.total < best[0]):
            best = (cost.total, plan)
    return None if best is None else best[1]
