"""Two vdevices, no memory limits: the optimal plan is a minimum s-t cut (exact, polynomial).

Source side = device 0, sink side = device 1.  A unit u pays its compute on
the side it ends on: an edge s -> u of capacity ``compute[u][1]`` (cut when u
is on device 1) and u -> t of ``compute[u][0]``; a device it cannot go on is
an infinite capacity.  A value with home unit u and consumer units C pays
``copy(0 -> 1)`` once when u is on 0 and any consumer on 1: a gadget node g
with u -> g of that capacity and g -> c infinite for every c in C (g must
join the sink side as soon as one consumer does, and then u -> g is cut
exactly once, however many consumers there are); symmetrically a node h
with h -> u of ``copy(1 -> 0)`` and c -> h infinite.  A value with a single
consumer needs no gadget: u -> c and c -> u carry the two copy costs.

The max-flow is `flow.FlowGraph` (scipy's, in phases of finer integer units; a certified cut).
"""

from __future__ import annotations

from collections.abc import Sequence

from vdplace.placement.cost.flow import FlowGraph
from vdplace.placement.cost.problem import CostProblem


def solve_mincut(p: CostProblem, prices: Sequence[float] | None = None) -> tuple[list[int], float]:
    """The optimal plan of a two-device problem and its cost (the cut's value).

    Without `prices` the problem must have no memory limit.  With them (seconds per byte on each
    device, `lagrange.lagrangian`), every byte a plan holds on device d costs ``prices[d]`` more and
    the limits are ignored: the value is then the priced cost.
    """
    if p.num_devices != 2 or (prices is None and any(lim is not None for lim in p.limits)):
        raise ValueError("the min-cut solver takes two vdevices and no memory limits")
    lam0, lam1 = prices if prices is not None else (0.0, 0.0)
    n = p.num_units
    g = FlowGraph(n + 2 + 2 * len(p.values))
    s, t = n, n + 1
    inf = g.INF
    for u, (c0, c1) in enumerate(p.compute):
        held = p.memory[u]
        g.add(s, u, inf if c1 is None else c1 + lam1 * held)
        g.add(u, t, inf if c0 is None else c0 + lam0 * held)
    extra = n + 2
    for v, value in enumerate(p.values):
        u = value.unit
        a = p.copy[v][0][1] + lam1 * value.nbytes
        b = p.copy[v][1][0] + lam0 * value.nbytes
        if len(value.consumers) == 1:
            c = value.consumers[0]
            g.add(u, c, a)
            g.add(c, u, b)
            continue
        if a > 0:
            g.add(u, extra, a)
            for c in value.consumers:
                g.add(extra, c, inf)
        if b > 0:
            g.add(extra + 1, u, b)
            for c in value.consumers:
                g.add(c, extra + 1, inf)
        extra += 2
    cut, source_side = g.min_cut(s, t)
    return [0 if source_side[u] else 1 for u in range(n)], cut
