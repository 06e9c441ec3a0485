"""The memory rows of the placement relaxation (`lp_memory.add_memory`) against the liveness of actual plans.

Every row of an op i says that what it counts is on its vdevice d at once
while i runs: the weights held there, the values live across i (`_through`,
and those two readers on d straddle: `_live_across`), and i's working set
when i runs on d.  So for any placement and any order of its tasks, with
the auxiliary variables at the least values the rows allow for that
placement, a row's left side is at most the bytes live on d (`liveness`)
at the start of i when i takes time there, and at most d's peak otherwise.
Random programs of `test_schedule` (weights, inputs, pins, shares),
`test_schedule_views` (views of weights and values) and
`test_schedule_calls` (callees' parameters) and `test_schedule_devices`
(two GPUs, two scopes of one GPU: relays), each under random placements
and random orders (`simulate.ready_order`) with random delays.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.placement import test_schedule, test_schedule_calls, test_schedule_devices, test_schedule_views
from vdplace import ir

pytest.importorskip("ortools")

HUGE = 10**15  # a limit on every vdevice: every memory row is built, none binds


def _graph(prog):
    """The task graph of `prog` (its coarsened units) with a limit on every vdevice."""
    from vdplace.placement.cost.problem import coarsen
    from vdplace.placement.extract.extract import extract
    from vdplace.placement.schedule.graph import build_graph

    model = prog.model()
    co = coarsen(extract(ir.parse(prog.text(), filename="prog.py")), model)
    g = build_graph(co, model)
    g.limits = [HUGE] * g.num_devices
    return g


def _rows(g, allowed):
    """The memory rows over fresh placement variables: the program and its placement variables."""
    from vdplace.placement.schedule import lp_bound, lp_memory

    lp = lp_bound._LP()
    x = lp.x = [{d: lp.var(1.0) for d in allowed[u]} for u in range(g.num_units)]
    lp_memory.add_memory(g, allowed, x, lp)
    return lp, x


def _least(lp, x, placement) -> list[float]:
    """Every variable's value: x from `placement`, each auxiliary one the least its rows allow (each is bounded
    below by rows made before the rows that read it: one pass in order)."""
    value = [0.0] * len(lp.ub)
    fixed = set()
    for u, row in enumerate(x):
        for d, var in row.items():
            value[var] = 1.0 if placement[u] == d else 0.0
            fixed.add(var)
    memory = {r for _, _, r in lp.memory}
    for r, (terms, rhs) in enumerate(lp.rows):
        if r in memory:
            continue
        free = [j for j, a in terms.items() if a < 0 and j not in fixed]
        assert len(free) == 1, "an auxiliary row bounds one variable from below"
        j = free[0]
        rest = sum(a * value[k] for k, a in terms.items() if k != j)
        value[j] = max(value[j], min(1.0, (rest - rhs) / -terms[j]))
    return value


def _live_at(g, timing, d: int, moment: float) -> int:
    from vdplace.placement.schedule.liveness import stays

    return sum(g.val_bytes[v] for v, e, s, t in stays(g, timing) if e == d and s <= moment < t and t > s)


def check_rows(g, data) -> int:
    """Check every memory row of `g` under one drawn placement and order; the number of straddle terms that
    were 1 (rows that `_live_across` made count more)."""
    from vdplace.placement.schedule.liveness import peak_bytes
    from vdplace.placement.schedule.simulate import ready_order, required_copies, run_order

    allowed = g.allowed
    if any(not a for a in allowed):
        return 0
    lp, x = _rows(g, allowed)
    placement = [data.draw(st.sampled_from(a)) for a in allowed]
    tasks = [("op", i) for i in range(g.num_ops)] + [("copy", key) for key in required_copies(g, placement)]
    order = ready_order(g, placement, data.draw(st.permutations(tasks)))
    delays = {t: data.draw(st.sampled_from((0.0, 0.0, 1e-6, 7e-6))) for t in tasks}
    timing = run_order(g, placement, order, delays)
    peaks = peak_bytes(g, timing)
    value = _least(lp, x, placement)
    counted = 0
    xs = {var for row in x for var in row.values()}
    for d, i, r in lp.memory:
        terms, _ = lp.rows[r]
        lhs = sum(a * value[j] for j, a in terms.items())
        counted += sum(1 for j in terms if j not in xs and value[j] > 0)
        if i is not None and timing.op_end[i] > timing.op_start[i]:
            live = _live_at(g, timing, d, timing.op_start[i])
            where = f"at the start of op {g.op_name[i]} ({timing.op_start[i]!r})"
        else:
            live, where = peaks[d], "at its peak"
        assert lhs <= live, f"row {r} on {g.names[d]} counts {lhs} bytes, {live} live {where}; {placement=}"
    return counted


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(test_schedule.programs(max_ops=6), st.data())
def test_memory_rows_hold_for_random_plans(prog, data) -> None:
    check_rows(_graph(prog), data)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(test_schedule_views.programs(), st.data())
def test_memory_rows_hold_for_random_plans_with_views(prog, data) -> None:
    check_rows(_graph(prog), data)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(test_schedule_calls.programs(max_ops=5), st.data())
def test_memory_rows_hold_for_random_plans_with_calls(prog, data) -> None:
    check_rows(_graph(prog), data)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["gpus", "scopes"]).flatmap(test_schedule_devices.programs), st.data())
def test_memory_rows_hold_for_random_plans_on_three_vdevices(prog, data) -> None:
    check_rows(_graph(prog), data)


def test_a_weight_read_on_both_sides_of_an_op_is_held_across_it() -> None:
    """w is read by v0 and v2 on cuda, so it is there while v1 runs (copied or not): with v1's working set (v0,
    q, v1) that is 4 tensors, over a cap of 3, so not everything runs on cuda.  The rows of one op alone (3
    tensors each) allowed it: the integer relaxation proved no more than the uncapped optimum.  With the rows
    across v1 its bound is above that optimum, and still at most the capped one (the exhaustive search)."""
    import math

    from vdplace.placement.schedule import bounds, lp_bound

    ops = [("v0", "add", ("p0", "w")), ("v1", "add", ("v0", "q")), ("v2", "add", ("v1", "w"))]
    times = {(name, dev): 1.3e-5 if dev == "llvm" else 1e-6 for name, _, _ in ops for dev in ("llvm", "cuda")}
    prog = test_schedule.Program(64, ["p0", "w", "q"], 1, ops, times, {("llvm", "cuda"): 1e-6, ("cuda", "llvm"): 1e-6})
    free = test_schedule.exhaustive_better(prog, math.inf)
    prog.limits = {"cuda:0:global": 3 * prog.nbytes}
    optimum = test_schedule.exhaustive_better(prog, math.inf)
    g = test_schedule._task_graph(prog)
    allowed = bounds.effective_allowed(g)
    bound = lp_bound.integer_bound(g, allowed, bounds.heads_tails(g, allowed), optimum, 5.0)[0]
    assert free * 1.5 < bound <= optimum
