"""Stays that cannot share a limited vdevice: the relaxation's row over them and CP-SAT's no-overlap.

Two values of more than half a vdevice's limit are never on it at once, so
the ops that read or make one there and the copies of one into it run one
after another (`lp_memory.add_apart`), and their stays there do not overlap
(`cpsat_memory._apart`).  Random programs of small activations (1 x n) and
large weights (n x n), read by matmuls directly or through transposes (views,
as TVM's frontend prints a linear layer), on llvm:0 + cuda:0 with cuda:0
limited to one to two weights' bytes (every weight is big there):

* under random placements, orders and delays, every plan that fits the
  limit satisfies the relaxation's row (the makespan at least its sum, the
  copy variables at the least their rows allow);
* CP-SAT's optimum is the same with the no-overlap and without it;
* the memory rows hold there too (`test_schedule_memory_rows.check_rows`),
  where a big weight's readers include its views' readers
  (`lp_memory._view_readers`);
* by hand: weights streamed through a GPU that holds one at a time, where
  the row lifts the integer relaxation's bound above what it proves
  without; and a weight read through views on both sides of an op, held
  across it only when its views' readers count.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.placement import test_schedule_memory_rows
from vdplace import ir
from vdplace.placement import CostModel, Time, place

pytest.importorskip("ortools")

SIDE = 16
WEIGHT_BYTES = SIDE * SIDE * 4
CPU_TIMES = (5e-6, 1.3e-5)
GPU_TIMES = (1e-6, 2e-6)


@dataclass
class Program:
    weights: list[str]
    lines: list[str]
    result: str
    times: dict[tuple[str, str], float]
    limit: int

    def text(self) -> str:
        act, mat = f'R.Tensor((1, {SIDE}), "float32")', f'R.Tensor(({SIDE}, {SIDE}), "float32")'
        params = ", ".join([f"x: {act}", *(f"{w}: {mat}" for w in self.weights)])
        return "\n".join(
            [
                "@I.ir_module",
                "class M:",
                '    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})',
                "    @R.function",
                f"    def main({params}) -> {act}:",
                '        R.func_attr({"num_input": 1})',
                *("        " + line for line in self.lines),
                f"        return {self.result}",
            ]
        )

    def model(self) -> CostModel:
        return CostModel(lambda op, vdevice: self.times[op.name, vdevice.split(":")[0]], _link)

    def module(self) -> ir.IRModule:
        return ir.parse(self.text(), filename="prog.py")


def _link(nbytes: int, src: str, dst: str) -> float:
    return 2e-6 + nbytes / 25e9


@st.composite
def programs(draw) -> Program:
    """Matmuls of activations by weights (some through a transpose each), adds and relus of activations."""
    weights = [f"w{k}" for k in range(draw(st.integers(1, 3)))]
    acts, lines, times = ["x"], [], {}

    def bind(name: str, rhs: str, view: bool = False) -> None:
        lines.append(f"{name} = {rhs}")
        times[name, "llvm"] = 0.0 if view else draw(st.sampled_from(CPU_TIMES))
        times[name, "cuda"] = 0.0 if view else draw(st.sampled_from(GPU_TIMES))

    for i in range(draw(st.integers(2, 6))):
        kind = draw(st.sampled_from(("mm", "mm_t", "mm_t", "add", "relu")))
        a, b = draw(st.sampled_from(acts)), draw(st.sampled_from(acts))
        w = draw(st.sampled_from(weights))
        if kind == "mm":
            bind(f"a{i}", f"R.matmul({a}, {w})")
        elif kind == "mm_t":
            bind(f"t{i}", f"R.permute_dims({w}, axes=[1, 0])", view=True)
            bind(f"a{i}", f"R.matmul({a}, t{i})")
        elif kind == "add":
            bind(f"a{i}", f"R.add({a}, {b})")
        else:
            bind(f"a{i}", f"R.nn.relu({a})")
        acts.append(f"a{i}")
    text = " ".join(line.split(" = ", 1)[1] for line in lines).replace("(", " ").replace(",", " ").replace(")", " ")
    read = set(text.split())
    last = acts[-1]
    for k, w in enumerate(w for w in weights if w not in read):
        bind(f"r{k}", f"R.matmul({last}, {w})")
        last = f"r{k}"
    limit = int(WEIGHT_BYTES * draw(st.sampled_from((1.1, 1.4, 1.9))))
    return Program(weights, lines, last, times, limit)


def _graph(prog: Program, limit: int | None):
    from vdplace.placement.cost.problem import coarsen
    from vdplace.placement.extract.extract import extract
    from vdplace.placement.schedule.graph import build_graph

    model = prog.model()
    g = build_graph(coarsen(extract(prog.module()), model), model)
    g.limits = [None, limit]
    return g


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.data())
def test_the_apart_row_holds_for_every_plan_that_fits(prog: Program, data) -> None:
    from vdplace.placement.schedule import lp_bound, lp_memory
    from vdplace.placement.schedule.liveness import peak_bytes
    from vdplace.placement.schedule.simulate import ready_order, required_copies, run_order

    g = _graph(prog, prog.limit)
    allowed = g.allowed
    lp = lp_bound._LP()
    T = lp.var(1.0, time=True)
    x = [{d: lp.var(1.0) for d in allowed[u]} for u in range(g.num_units)]
    lp_memory.add_apart(g, x, lp, T)
    placement = [data.draw(st.sampled_from(a)) for a in allowed]
    tasks = [("op", i) for i in range(g.num_ops)] + [("copy", key) for key in required_copies(g, placement)]
    order = ready_order(g, placement, data.draw(st.permutations(tasks)))
    delays = {t: data.draw(st.sampled_from((0.0, 0.0, 1e-6, 7e-6))) for t in tasks}
    timing = run_order(g, placement, order, delays)
    if peak_bytes(g, timing)[1] > prog.limit:
        event("over the limit")
        return
    value = [0.0] * len(lp.ub)
    for u, row in enumerate(x):
        for d, var in row.items():
            value[var] = float(placement[u] == d)
    apart = [terms for terms, _ in lp.rows if terms.get(T) == -1.0]
    for terms, rhs in lp.rows:  # the copy variables: z >= x[w][d] - x[home][d], each at its least
        if T in terms:
            continue
        (z,) = [j for j, a in terms.items() if a == -1.0 and not any(j in row.values() for row in x)]
        value[z] = max(value[z], sum(a * value[j] for j, a in terms.items() if j != z) - rhs)
    for terms in apart:
        counted = sum(a * value[j] for j, a in terms.items() if j != T)
        event("counted" if counted else "nothing counted")
        assert counted <= timing.makespan * (1 + 1e-9), f"{counted!r} > makespan {timing.makespan!r}; {placement=}"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_cpsat_proves_the_same_optimum_with_and_without_the_no_overlap(prog: Program) -> None:
    from vdplace.placement import PlacementConflict
    from vdplace.placement.schedule import cpsat_memory

    def solved():
        try:
            return place(prog.module(), objective=Time(prog.model(), memory={"cuda:0": prog.limit}), time_limit_s=20)
        except PlacementConflict:
            return None

    with_it = solved()
    original = cpsat_memory._apart
    cpsat_memory._apart = lambda *args: None
    try:
        without = solved()
    finally:
        cpsat_memory._apart = original
    assert (with_it is None) == (without is None)
    if with_it is None or without is None:
        return
    a, b = with_it.schedule, without.schedule
    if a.optimal and b.optimal:
        assert abs(a.makespan - b.makespan) <= max(a.tolerance, b.tolerance)


def _bounds_with_and_without(prog: Program, monkeypatch, rows: str, stub: object) -> tuple[float, float, float]:
    """The integer relaxation's bound of `prog` capped, with `lp_memory`'s function `rows` and with it replaced
    by `stub`, and the capped plan's makespan (the upper bound both are given)."""
    from vdplace.placement.schedule import bounds, lp_bound, lp_memory

    plan = place(prog.module(), objective=Time(prog.model(), memory={"cuda:0": prog.limit}), time_limit_s=20)
    g = _graph(prog, prog.limit)
    allowed = bounds.effective_allowed(g)
    ht = bounds.heads_tails(g, allowed)
    makespan = plan.schedule.makespan
    with_rows = lp_bound.integer_bound(g, allowed, ht, makespan, 5.0).bound
    monkeypatch.setattr(lp_memory, rows, stub)
    if hasattr(lp_bound, rows):
        monkeypatch.setattr(lp_bound, rows, stub)
    return with_rows, lp_bound.integer_bound(g, allowed, ht, makespan, 5.0).bound, makespan


def test_weights_streamed_one_at_a_time_lift_the_bound(monkeypatch) -> None:
    """x @ w0.T @ w1.T @ w0.T @ w1.T, each transpose its own view: cuda:0 holds one weight at a time, so a
    matmul there waits for its weight's copy, and the next copy for that matmul's end.  The row sees it; the
    relaxation without it proves less, and neither more than the capped plan."""
    lines, times = [], {}
    last = "x"
    for i, w in enumerate(("w0", "w1", "w0", "w1")):
        lines += [f"t{i} = R.permute_dims({w}, axes=[1, 0])", f"a{i} = R.matmul({last}, t{i})"]
        times[f"t{i}", "llvm"] = times[f"t{i}", "cuda"] = 0.0
        times[f"a{i}", "llvm"], times[f"a{i}", "cuda"] = 1.3e-5, 1e-6
        last = f"a{i}"
    prog = Program(["w0", "w1"], lines, last, times, int(1.5 * WEIGHT_BYTES))
    lifted, plain, makespan = _bounds_with_and_without(prog, monkeypatch, "add_apart", lambda *args: None)
    assert plain * 1.1 < lifted <= makespan * (1 + 1e-9)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.data())
def test_the_memory_rows_hold_with_weights_read_through_views(prog: Program, data) -> None:
    """The memory rows (`test_schedule_memory_rows.check_rows`) where weights are big: their views' readers
    are their readers too (`lp_memory._view_readers`)."""
    test_schedule_memory_rows.check_rows(_graph(prog, prog.limit), data)


def test_a_big_weight_read_through_views_on_both_sides_of_an_op_is_held_across_it(monkeypatch) -> None:
    """x @ w.T @ q @ w.T, each transpose of w its own view (as TVM's frontend prints a linear layer): read on
    cuda by both outer matmuls, through transposes made there, w is on cuda while the middle one runs, and with
    its working set (a0, q, a1) that is over the cap of one and a half weights.  Counting only the transposes
    (which nothing precedes) as w's readers, the integer relaxation proves less; counting their readers, more,
    and still at most the capped plan."""
    lines = [
        "t0 = R.permute_dims(w, axes=[1, 0])",
        "a0 = R.matmul(x, t0)",
        "a1 = R.matmul(a0, q)",
        "t1 = R.permute_dims(w, axes=[1, 0])",
        "a2 = R.matmul(a1, t1)",
    ]
    times = {}
    for line in lines:
        name = line.split(" = ")[0]
        times[name, "llvm"], times[name, "cuda"] = (0.0, 0.0) if name.startswith("t") else (1.3e-5, 1e-6)
    prog = Program(["w", "q"], lines, "a2", times, int(1.5 * WEIGHT_BYTES))
    seen, unseen, makespan = _bounds_with_and_without(prog, monkeypatch, "_view_readers", lambda *args: [])
    assert unseen * 1.1 < seen <= makespan * (1 + 1e-9)
