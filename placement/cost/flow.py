"""A maximum flow / minimum s-t cut of float capacities, for the min-cut solver, through scipy's integer max-flow.

Capacities are non-negative floats (seconds), ``FlowGraph.INF`` for an edge
that must never be cut.  `FlowGraph.min_cut` returns a flow's value and, per
node, whether it is on the source side of the cut it found.  The value is a
lower bound on every cut (any flow's is) and the cut's capacity is within a
relative `TOLERANCE` (1e-10) of it, so the cut is a minimum one to that
precision, ten times finer than the 1e-9 at which the cost solver calls any
plan optimal (`solve.py`, `lagrange.py`): a certificate, where the Dinic's
written in Python before it counted residuals under 1e-12 of the largest
capacity as saturated, on each of a cut's thousands of edges.

`scipy.sparse.csgraph.maximum_flow` (Dinic's, in C) takes int32 capacities
only, too coarse for times spanning microseconds to seconds in one graph, so
the flow is found in phases, each on the residual graph the previous ones
left, with a finer unit:

* ``gap``, an upper bound on the flow still to push, is known: at first the
  capacity of the cut around s, around t, or of all finite edges, whichever
  is smallest; after a phase, the capacity of that phase's cut (summed
  exactly, `math.fsum`) minus the flow found so far;
* each residual capacity is clipped at ``clip``, a little more than
  ``gap`` (no edge carries more than the whole flow, so clipping changes no
  maximum flow and puts no clipped edge in a minimum cut; an infinite
  capacity needs no number), and becomes ``floor(residual / unit)`` with
  ``unit = clip / 2**29``: an integer that fits, with its reverse edge's
  flow added, in int32.  Rounding down keeps the integer flow feasible for
  the real capacities: the flow found so far stays a lower bound (up to
  float rounding, some 1e-16 of the cut);
* scipy's flow is a maximum one of those integers, and the nodes reachable
  from s in its residual graph a minimum cut of them: the cut's m edges
  each lost less than a unit to rounding, so the next gap is below
  ``m * unit``, ``m / 2**29`` of this one (2e-4 on the 100k-binding graphs
  of benchmarks/bench_flow.py, whose cuts have some 10**5 edges).

The phases stop once the gap is at most `TOLERANCE` of the cut: three on
those graphs.  The figures against the Python Dinic's are in docs/scaling.md.
"""

from __future__ import annotations

import math
from array import array

import numpy as np
from scipy.sparse import csr_array
from scipy.sparse.csgraph import breadth_first_order, maximum_flow

# The most units an edge gets: scipy's max-flow computes in int32, and the residual capacity of an edge is its
# capacity plus the flow on its reverse edge.
_UNITS = 2**29
# How far above `gap` an edge's capacity is clipped: far more than the float rounding in `gap` (1e-6 of it at most).
_MARGIN = 1 + 2**-10
# The relative gap between the cut and the flow at which the phases stop (see the module docstring).
TOLERANCE = 1e-10
# More phases than the gap, shrinking to m / 2**29 of itself at each, can need to reach `TOLERANCE`.
_MAX_PHASES = 64


class FlowGraph:
    """A directed graph of `n` nodes; `add` an edge at a time, then `min_cut` once."""

    INF = float("inf")

    def __init__(self, n: int) -> None:
        self.n = n
        self._tails = array("q")
        self._heads = array("q")
        self._caps = array("d")

    def add(self, u: int, v: int, capacity: float) -> None:
        """An edge u -> v; a capacity of 0 adds nothing (parallel edges add up)."""
        if capacity <= 0 or u == v:
            return
        self._tails.append(u)
        self._heads.append(v)
        self._caps.append(capacity)

    def min_cut(self, s: int, t: int) -> tuple[float, list[bool]]:
        """A maximum flow's value and the source side of a minimum cut (see the module docstring).

        The value is infinite when a path of infinite edges joins s to t.
        """
        net = _Network(self.n, self._tails, self._heads, self._caps)
        gap = net.first_bound(s, t)
        pushed: list[float] = []  # each phase's flow value, in seconds
        for phase in range(_MAX_PHASES):
            clip = gap * _MARGIN if gap > 0 else 1.0
            unit = clip / _UNITS
            units, side = net.phase(s, t, unit, clip)
            pushed.append(units * unit)
            if phase == 0 and pushed[0] > gap:  # more than any finite cut holds: a path of infinite edges
                return math.inf, side.tolist()
            value = math.fsum(pushed)
            cut = net.cut(side)
            gap = cut - value
            if gap <= TOLERANCE * cut:
                return value, side.tolist()
        raise RuntimeError(f"the max-flow phases did not converge (gap {gap!r} after {_MAX_PHASES})")


class _Network:
    """The capacities and the net flow found so far, as sparse matrices (``flow[u, v] == -flow[v, u]``)."""

    def __init__(self, n: int, tails: array, heads: array, caps: array) -> None:
        rows, cols = np.frombuffer(tails, dtype=np.int64), np.frombuffer(heads, dtype=np.int64)
        self.capacity = csr_array((np.frombuffer(caps, dtype=np.float64), (rows, cols)), shape=(n, n))
        self.capacity.sum_duplicates()  # parallel edges add up
        self.rows = np.repeat(np.arange(n), np.diff(self.capacity.indptr))
        self.flow = csr_array((n, n), dtype=np.float64)
        self.n = n

    def first_bound(self, s: int, t: int) -> float:
        """An upper bound on the maximum flow, if it is finite: the smallest of the cuts around s, around t, and
        of every finite capacity."""
        cap = self.capacity
        finite = cap.data[np.isfinite(cap.data)]
        candidates = [math.fsum(finite.tolist())]
        for side in (cap.data[cap.indptr[s] : cap.indptr[s + 1]], cap.data[cap.indices == t]):
            if np.isfinite(side).all():
                candidates.append(math.fsum(side.tolist()))
        return min(candidates)

    def phase(self, s: int, t: int, unit: float, clip: float) -> tuple[int, np.ndarray]:
        """Push a maximum flow of the residual capacities in whole `unit`s (each clipped at `clip`); returns the
        units pushed and the source side of the integer graph's minimum cut.

        scipy's graph routines read an explicit zero as an edge: every matrix given them has none.
        """
        residual = self.capacity - self.flow  # u -> v: capacity(u, v) - flow(u, v); the reverse edges included
        residual.data = np.minimum(np.floor(np.clip(residual.data, 0.0, clip) / unit), _UNITS)
        units = residual.astype(np.int32)
        units.eliminate_zeros()
        # scipy before 1.15 takes only int32 index arrays; sums of sparse matrices may give int64 ones.
        units.indices, units.indptr = units.indices.astype(np.int32), units.indptr.astype(np.int32)
        result = maximum_flow(units, s, t)
        pushed = result.flow
        self.flow = self.flow + pushed.astype(np.float64) * unit
        left = units - pushed  # the integer residual graph
        left.data = (left.data > 0).astype(np.int8)
        left.eliminate_zeros()
        side = np.zeros(self.n, dtype=bool)
        side[breadth_first_order(left, s, directed=True, return_predecessors=False)] = True
        return int(result.flow_value), side

    def cut(self, side: np.ndarray) -> float:
        """The capacity of the cut whose source side is `side`, summed exactly."""
        cap = self.capacity
        crossing = side[self.rows] & ~side[cap.indices]
        return math.fsum(cap.data[crossing].tolist())
