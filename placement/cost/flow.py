"""A maximum flow / minimum s-t cut on flat arrays (Dinic's algorithm), for the min-cut solver.

Capacities are non-negative floats, ``FlowGraph.INF`` for an edge that must
never be cut.  Residual capacities below `eps` (a millionth of a millionth of
the largest finite capacity) count as saturated, so rounding in the sums of
floats never leaves an augmenting path of nothing.  `min_cut` returns the
flow's value and, per node, whether it is on the source side of a minimum
cut (reachable from s in the residual graph).

Written for `mincut.py` instead of networkx's max-flow: on the graphs of
100k-binding modules the arrays and one level graph per phase are several
times faster than networkx's dict-of-dicts (benchmarks/bench_cost.py).
"""

from __future__ import annotations

from collections import deque


class FlowGraph:
    """A directed graph of `n` nodes; `add` an edge at a time, then `min_cut` once."""

    INF = float("inf")

    def __init__(self, n: int) -> None:
        self.n = n
        self.head = [-1] * n
        self.to: list[int] = []
        self.cap: list[float] = []
        self.nxt: list[int] = []
        self.largest = 0.0

    def add(self, u: int, v: int, capacity: float) -> None:
        """An edge u -> v (and its residual twin); a capacity of 0 adds nothing."""
        if capacity <= 0 or u == v:
            return
        if capacity != self.INF and capacity > self.largest:
            self.largest = capacity
        to, cap, nxt, head = self.to, self.cap, self.nxt, self.head
        to.append(v)
        cap.append(capacity)
        nxt.append(head[u])
        head[u] = len(to) - 1
        to.append(u)
        cap.append(0.0)
        nxt.append(head[v])
        head[v] = len(to) - 1

    def min_cut(self, s: int, t: int) -> tuple[float, list[bool]]:
        """The maximum flow's value and the source side of a minimum cut."""
        eps = self.largest * 1e-12
        total = 0.0
        while True:
            level = self._levels(s, eps)
            if level[t] < 0:
                break
            total += self._blocking(s, t, level, eps)
        level = self._levels(s, eps)
        return total, [lv >= 0 for lv in level]

    def _levels(self, s: int, eps: float) -> list[int]:
        level = [-1] * self.n
        level[s] = 0
        head, to, cap, nxt = self.head, self.to, self.cap, self.nxt
        queue = deque([s])
        while queue:
            u = queue.popleft()
            nl = level[u] + 1
            e = head[u]
            while e >= 0:
                v = to[e]
                if level[v] < 0 and cap[e] > eps:
                    level[v] = nl
                    queue.append(v)
                e = nxt[e]
        return level

    def _blocking(self, s: int, t: int, level: list[int], eps: float) -> float:
        """Augment along shortest paths until none is left in this level graph (iterative DFS)."""
        arc = list(self.head)
        to, cap, nxt = self.to, self.cap, self.nxt
        pushed = 0.0
        path: list[int] = []  # edges from s to the current node
        u = s
        while True:
            if u == t:
                flow = min(cap[e] for e in path)
                for e in path:
                    cap[e] -= flow
                    cap[e ^ 1] += flow
                pushed += flow
                path.clear()
                u = s
                continue
            e = arc[u]
            while e >= 0 and not (cap[e] > eps and level[to[e]] == level[u] + 1):
                e = nxt[e]
            arc[u] = e
            if e >= 0:
                path.append(e)
                u = to[e]
                continue
            if u == s:
                return pushed
            level[u] = -1  # a dead end: never visited again in this phase
            e = path.pop()
            u = to[e ^ 1]
            arc[u] = nxt[arc[u]]
