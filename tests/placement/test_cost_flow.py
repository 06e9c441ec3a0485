"""`placement.cost.flow`: the min-cut solver's maximum flow, against networkx's on graphs of float capacities."""

from __future__ import annotations

import math
import random

import networkx as nx
import pytest

from vdplace.placement.cost import flow
from vdplace.placement.cost.flow import TOLERANCE, FlowGraph


def _cut_capacity(edges: list[tuple[int, int, float]], side: list[bool]) -> float:
    return math.fsum(c for u, v, c in edges if side[u] and not side[v])


def _both(n: int, edges: list[tuple[int, int, float]], s: int, t: int) -> tuple[float, list[bool], float]:
    """Ours (value, source side) and networkx's minimum cut value on the same graph."""
    g = FlowGraph(n)
    nxg = nx.DiGraph()
    nxg.add_nodes_from(range(n))
    for u, v, c in edges:
        g.add(u, v, c)
        if u == v or c <= 0:
            continue
        if nxg.has_edge(u, v):
            nxg[u][v]["capacity"] += c
        else:
            nxg.add_edge(u, v, capacity=c)
    for _, _, data in nxg.edges(data=True):
        if data["capacity"] == math.inf:
            del data["capacity"]  # networkx: no capacity is an infinite one
    value, side = g.min_cut(s, t)
    try:
        want = nx.minimum_cut_value(nxg, s, t)
    except nx.NetworkXUnbounded:
        want = math.inf
    return value, side, want


@pytest.mark.parametrize("seed", range(40))
def test_the_cut_is_a_minimum_one_on_random_graphs_of_times_from_nanoseconds_to_hours(seed):
    rng = random.Random(seed)
    n = rng.randint(3, 40)
    edges = []
    for _ in range(rng.randint(n, 6 * n)):
        u, v = rng.randrange(n), rng.randrange(n)
        c = math.inf if rng.random() < 0.1 else 10 ** rng.uniform(-9, 4)
        edges.append((u, v, c))
        if rng.random() < 0.3:
            edges.append((v, u, 10 ** rng.uniform(-9, 4)))  # both directions, as the solver's graphs have
    s, t = 0, n - 1
    value, side, want = _both(n, edges, s, t)
    if want == math.inf:
        assert value == math.inf
        return
    assert side[s] and not side[t]
    assert value == pytest.approx(want, rel=TOLERANCE, abs=1e-300)
    cut = _cut_capacity(edges, side)
    assert value <= cut * (1 + 1e-15) and cut <= want * (1 + TOLERANCE)


def test_a_cut_of_many_edges_takes_several_phases_and_still_meets_the_tolerance(monkeypatch):
    rng = random.Random(7)
    k = 3000  # s -> a_i -> t with the cut on the first edge, each a time no integer unit divides
    edges = []
    for i in range(k):
        edges.append((0, 2 + i, rng.uniform(1e-6, 1e-3)))
        edges.append((2 + i, 1, rng.uniform(2e-3, 1.0)))
    phases = []
    real = flow._Network.phase

    def counted(self, *args):
        phases.append(args)
        return real(self, *args)

    monkeypatch.setattr(flow._Network, "phase", counted)
    value, side, want = _both(k + 2, edges, 0, 1)
    assert len(phases) >= 2
    assert value == pytest.approx(want, rel=TOLERANCE)
    assert side == [True] + [False] * (k + 1)
    assert value == pytest.approx(math.fsum(c for u, _, c in edges if u == 0), rel=TOLERANCE)


def test_a_path_of_infinite_edges_is_an_infinite_flow():
    g = FlowGraph(4)
    g.add(0, 2, FlowGraph.INF)
    g.add(2, 1, FlowGraph.INF)
    g.add(0, 3, 5.0)
    g.add(3, 1, 2.0)
    value, side = g.min_cut(0, 1)
    assert value == math.inf and side[0]


def test_parallel_edges_add_up_and_empty_graphs_carry_nothing():
    g = FlowGraph(3)
    for _ in range(3):
        g.add(0, 2, 0.25)
    g.add(2, 1, 10.0)
    g.add(2, 2, 4.0)  # a loop carries nothing
    g.add(2, 1, 0.0)
    assert g.min_cut(0, 1) == (0.75, [True, False, False])
    assert FlowGraph(2).min_cut(0, 1) == (0.0, [True, False])
