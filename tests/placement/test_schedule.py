"""The time objective (`place(mod, objective=Time(model))`): the schedule's invariants, checked independently.

Random small programs (hypothesis) on llvm:0 + cuda:0, with kernel and copy
times drawn per op and per link direction.  Every check reads the placed
module and the schedule's events only (not the solver's task graph):

* every event lasts what the model says; no two events overlap on a device
  or a link direction; an op starts after each operand is on its device;
* `peak_memory` is what the events imply (liveness recomputed here from the
  placed module); `lower_bound <= makespan`; the limits hold;
* for up to 6 op calls, an exhaustive search written here (every placement,
  every order of every task, branch and bound) finds nothing faster than the
  makespan, and when `optimal` is claimed the makespan is what it finds.

About half the programs have *sender's shares* (`CostModel.send`): a copy
holds its source's device from its start for a drawn latency plus bytes
over a drawn bandwidth, at most the copy's time; the checks and the
exhaustive search count that time on the source's device too.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vdplace import ir
from vdplace.placement import CostModel, PlacementConflict, Time, place

pytest.importorskip("ortools")

DEVICES = ("llvm", "cuda")
NAMES = {"llvm": "llvm:0:global", "cuda": "cuda:0:global"}
HOST = "llvm"
BANDWIDTH = 25e9
TIMES = (0.0, 1e-6, 2e-6, 3e-6, 5e-6, 8e-6, 1.3e-5)
LATENCIES = (1e-6, 4e-6, 1e-5)
SEND_LATENCIES = (0.0, 2e-6, 6e-6, 2e-5)  # the last is over every copy's latency: the share is the whole copy
SEND_BANDWIDTHS = (10e9, 50e9)
REL = 1e-9


@dataclass
class Program:
    side: int
    params: list[str]
    num_input: int
    ops: list[tuple[str, str, tuple[str, ...]]]  # (name, op, operands)
    times: dict[tuple[str, str], float | None]
    latency: dict[tuple[str, str], float]
    limits: dict[str, int] = field(default_factory=dict)
    pins: dict[str, str] = field(default_factory=dict)
    send: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)  # (latency, bandwidth)

    @property
    def nbytes(self) -> int:
        return self.side * self.side * 4

    def text(self) -> str:
        def ann(p: str) -> str:
            pin = f', "{self.pins[p]}"' if p in self.pins else ""
            return f'R.Tensor(({self.side}, {self.side}), "float32"{pin})'

        params = ", ".join(f"{p}: {ann(p)}" for p in self.params)
        lines = [
            "@I.ir_module",
            "class M:",
            '    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})',
            "    @R.function",
            f'    def main({params}) -> R.Tensor(({self.side}, {self.side}), "float32"):',
            f'        R.func_attr({{"num_input": {self.num_input}}})',
        ]
        for name, op, args in self.ops:
            lines.append(f"        {name} = R.{op}({', '.join(args)})")
        lines.append(f"        return {self.ops[-1][0]}")
        return "\n".join(lines) + "\n"

    def model(self) -> CostModel:
        def kernel(op, vdevice: str) -> float | None:
            return self.times[op.name, vdevice.split(":")[0]]

        def copy(nbytes: int, src: str, dst: str) -> float:
            return self.latency[src.split(":")[0], dst.split(":")[0]] + nbytes / BANDWIDTH

        def send(nbytes: int, src: str, dst: str) -> float:
            latency, bandwidth = self.send[src.split(":")[0], dst.split(":")[0]]
            return latency + nbytes / bandwidth

        return CostModel(kernel, copy, send_time=send if self.send else None)

    def copy_seconds(self, src: str, dst: str) -> float:
        return self.latency[src, dst] + self.nbytes / BANDWIDTH

    def send_seconds(self, src: str, dst: str) -> float:
        """The sender's share of a copy from device kind src to dst: the drawn share, at most the copy."""
        if not self.send:
            return 0.0
        latency, bandwidth = self.send[src, dst]
        return min(latency + self.nbytes / bandwidth, self.copy_seconds(src, dst))


@st.composite
def programs(draw, max_ops: int = 6, limits: bool = False) -> Program:
    n_params = draw(st.integers(1, 2 if max_ops > 5 else 3))
    params = [f"p{i}" for i in range(n_params)]
    num_input = draw(st.integers(0, n_params))
    values = list(params)
    ops = []
    unread = set(params)
    for i in range(draw(st.integers(1, max_ops))):
        name = f"v{i}"
        op = draw(st.sampled_from(["add", "multiply", "nn.relu"]))
        arity = 1 if op == "nn.relu" else 2
        args = tuple(
            draw(st.sampled_from(sorted(unread) or values)) if k == 0 else draw(st.sampled_from(values))
            for k in range(arity)
        )
        unread -= set(args)
        ops.append((name, op, args))
        values.append(name)
    if unread:  # every parameter is read: the last op reads what is left
        name = f"v{len(ops)}"
        first = ops[-1][0]
        for k, p in enumerate(sorted(unread)):
            ops.append((f"{name}_{k}", "add", (first, p)))
            first = f"{name}_{k}"
    times: dict[tuple[str, str], float | None] = {}
    for name, _, _ in ops:
        cpu = draw(st.sampled_from(TIMES))
        gpu = draw(st.sampled_from((*TIMES, None)))
        times[name, "llvm"], times[name, "cuda"] = cpu, gpu
    latency = {(a, b): draw(st.sampled_from(LATENCIES)) for a in DEVICES for b in DEVICES if a != b}
    side = draw(st.sampled_from([4, 64, 256]))
    pins = {}
    for p in params:
        if draw(st.booleans()) and draw(st.booleans()):
            pins[p] = draw(st.sampled_from(DEVICES)) + ":0"
    send = {}
    if draw(st.booleans()):
        send = {
            (a, b): (draw(st.sampled_from(SEND_LATENCIES)), draw(st.sampled_from(SEND_BANDWIDTHS)))
            for a in DEVICES
            for b in DEVICES
            if a != b
        }
    prog = Program(side, params, num_input, ops, times, latency, pins=pins, send=send)
    if limits:
        cap = draw(st.integers(2, 2 + len(ops)))
        prog.limits = {NAMES[draw(st.sampled_from(DEVICES))]: cap * prog.nbytes}
    return prog


def solve(prog: Program):
    mod = ir.parse(prog.text(), filename="prog.py")
    return mod, place(mod, objective=Time(prog.model(), memory=prog.limits), time_limit_s=20)


# -- the checks, from the placed module and the events alone -----------------------------------------------


def _device_kind(name: str) -> str:
    return name.split(":")[0]


def check_events(prog: Program, result) -> None:
    s = result.schedule
    for e in s.events:
        assert e.end >= e.start
        if e.kind == "op":
            want = prog.times[e.name, _device_kind(e.device)]
        else:
            src, dst = (_device_kind(x) for x in e.device)
            want = prog.latency[src, dst] + e.nbytes / BANDWIDTH
            assert e.nbytes == prog.nbytes
            share = prog.send_seconds(src, dst)
            assert math.isclose(e.send, share, rel_tol=REL, abs_tol=1e-18), (e, e.send, share)
        assert want is not None and math.isclose(e.end - e.start, want, rel_tol=REL, abs_tol=1e-18), (e, want)
    ops = [(e.start, e.end, e) for e in s.events if e.kind == "op"]
    sends = [(e.start, e.start + e.send, e) for e in s.events if e.kind == "copy" and e.send]
    copies = [(e.start, e.end, e) for e in s.events if e.kind == "copy"]
    on_device = [
        [x for x in ops if x[2].device == d] + [x for x in sends if x[2].device[0] == d] for d in NAMES.values()
    ]
    for group in on_device + [[x for x in copies if x[2].device == pair] for pair in {x[2].device for x in copies}]:
        group.sort(key=lambda x: (x[0], x[1]))
        for a, b in itertools.pairwise(group):
            if a[1] > a[0] and b[1] > b[0]:
                assert b[0] >= a[1] * (1 - 1e-12), (a, b)
    assert math.isclose(s.makespan, max((e.end for e in s.events), default=0.0), rel_tol=REL)
    assert s.lower_bound <= s.makespan * (1 + 1e-12)


def check_operands_ready(prog: Program, mod, result) -> None:
    """Each op starts after each operand is on its device: from the placed module's bindings."""
    placed = result.module
    func = placed["main"]
    events = {e.name: e for e in result.schedule.events}
    params = [p.name for p in func.params]
    for block in func.body.blocks:
        for b in block.bindings:
            start = events[b.var.name].start
            for arg in b.value.args:
                name = arg.name
                if name in params:
                    index = params.index(name)
                    if index < prog.num_input and _device_kind(str(arg.struct_info.vdevice.kind)) != HOST:
                        assert events[name].end <= start * (1 + 1e-12) + 1e-18
                    continue
                assert events[name].end <= start * (1 + 1e-12) + 1e-18, (name, b.var.name)
                # the operand is on the reader's device
                assert arg.struct_info.vdevice == b.var.struct_info.vdevice or b.value.op.name == "to_vdevice"


def module_peaks(prog: Program, result) -> dict[str, int]:
    """Peak live bytes per vdevice from the placed module and the events (docs/schedule.md's rules)."""
    placed = result.module
    func = placed["main"]
    events = {e.name: e for e in result.schedule.events}
    makespan = result.schedule.makespan
    stays: dict[str, list[list]] = {}  # var -> [device, start, end, bytes]
    peaks = dict.fromkeys(NAMES.values(), 0)
    read = {arg.name for block in func.body.blocks for b in block.bindings for arg in b.value.args}
    for i, p in enumerate(func.params):
        # an input is on its parameter's vdevice from the start (an upload comes from the caller's memory), a
        # weight the whole run (one nothing reads: never); at the entry every parameter is held at once, an
        # input nothing reads too
        if i >= prog.num_input and p.name not in read:
            continue
        dev = NAMES[p.struct_info.vdevice.kind]
        stays[p.name] = [dev, 0.0, makespan if i >= prog.num_input else 0.0]
        peaks[dev] += prog.nbytes
    for block in func.body.blocks:
        for b in block.bindings:
            e = events[b.var.name]
            stays[b.var.name] = [NAMES[b.var.struct_info.vdevice.kind], e.start, e.end]
            for arg in b.value.args:
                stays[arg.name][2] = max(stays[arg.name][2], e.end)
    stays[func.body.body.name][2] = makespan
    for dev in peaks:
        points = []
        for d, start, end in stays.values():
            if d == dev and end > start:
                points += [(start, 1, prog.nbytes), (end, 0, -prog.nbytes)]
        current = 0
        for _, _, delta in sorted(points):
            current += delta
            peaks[dev] = max(peaks[dev], current)
    return peaks


# -- the exhaustive search ----------------------------------------------------------------------------------


def exhaustive_better(prog: Program, bound: float) -> float | None:
    """A makespan below `bound` (relative 1e-9) over every placement and task order, or None if there is none.

    Tasks: ops on their device's stream, copies (one per value and destination device, from the value's
    home, after it is there) and uploads of inputs placed off the host, each on its link direction and, for
    its sender's share, on its source's stream from its start; each task as early as its predecessors and
    the last task on each of its resources allow (every order is tried).
    """
    ops = {name: (op, args) for name, op, args in prog.ops}
    units = prog.params + [name for name, _, _ in prog.ops]
    target = bound * (1 - 1e-9)
    best: float | None = None
    for choice in itertools.product(DEVICES, repeat=len(units)):
        home = dict(zip(units, choice, strict=True))
        if any(home[p] != prog.pins[p].split(":")[0] for p in prog.pins):
            continue
        if any(prog.times[name, home[name]] is None for name in ops):
            continue
        # name -> (resource, seconds, predecessors, (the source's stream, the sender's share) or None)
        tasks: dict[str, tuple[tuple, float, list[str], tuple | None]] = {}
        ready: dict[str, str | None] = {}  # value -> the task that puts it at its home
        for i, p in enumerate(prog.params):
            ready[p] = None
            if i < prog.num_input and home[p] != HOST:
                share = _share(prog, HOST, home[p])
                tasks["up:" + p] = (("link", HOST, home[p]), prog.copy_seconds(HOST, home[p]), [], share)
                ready[p] = "up:" + p
        for name in ops:
            ready[name] = name
        for name, (_, args) in ops.items():
            preds = []
            for a in dict.fromkeys(args):
                if home[a] == home[name]:
                    if ready[a] is not None:
                        preds.append(ready[a])
                    continue
                copy = f"copy:{a}:{home[name]}"
                if copy not in tasks:
                    secs = prog.copy_seconds(home[a], home[name])
                    share = _share(prog, home[a], home[name])
                    tasks[copy] = (("link", home[a], home[name]), secs, [ready[a]] if ready[a] else [], share)
                preds.append(copy)
            tasks[name] = (("dev", home[name]), prog.times[name, home[name]], preds, None)
        resources = {t[0] for t in tasks.values()}
        if _longest_chain(tasks) >= target or any(
            sum(secs for res, secs, _, _ in tasks.values() if res == r) >= target for r in resources
        ):
            continue  # no order of this placement ends before the target
        fits = None
        if prog.limits:

            def fits(starts, ends, span, home=home, tasks=tasks) -> bool:
                return _fits(prog, home, tasks, starts, ends, span)

        found = _best_order(tasks, target, fits)
        if found is not None:
            target = found * (1 - 1e-9)
            best = found
    return best


def _share(prog: Program, src: str, dst: str) -> tuple | None:
    """The sender's share of a copy from src to dst as an extra resource use: (src's stream, seconds)."""
    seconds = prog.send_seconds(src, dst)
    return (("dev", src), seconds) if seconds else None


def _longest_chain(tasks) -> float:
    ends: dict[str, float] = {}

    def end(t: str) -> float:
        if t not in ends:
            _, secs, preds, *_ = tasks[t]
            ends[t] = max((end(p) for p in preds), default=0.0) + secs
        return ends[t]

    return max((end(t) for t in tasks), default=0.0)


def _best_order(tasks, target: float, fits=None) -> float | None:
    """The least makespan below `target` over the orders of `tasks`, or None (branch and bound).

    `tasks`: name -> (resource, seconds, predecessors[, share]): `share` (a resource, seconds) or None is a
    second resource the task holds from its start; `fits(starts, ends, span)`: whether a complete schedule
    keeps the memory limits (None: no limits)."""
    names = list(tasks)
    best: list[float | None] = [None]
    limit = [target]

    def dfs(done: dict[str, float], starts: dict[str, float], free: dict, span: float) -> None:
        if len(done) == len(names):
            if fits is None or fits(starts, done, span):
                best[0], limit[0] = span, span * (1 - 1e-9)
            return
        for t in names:
            if t in done:
                continue
            resource, secs, preds, *share_given = tasks[t]
            share = share_given[0] if share_given else None
            if any(p not in done for p in preds):
                continue
            uses = [(resource, secs)] + ([share] if share else [])
            start = max([free.get(r, 0.0) for r, _ in uses] + [done[p] for p in preds])
            end = start + secs
            if max(span, end) >= limit[0]:
                continue
            done[t], starts[t] = end, start
            before = [(r, free.get(r)) for r, _ in uses]
            for r, held in uses:
                free[r] = start + held
            dfs(done, starts, free, max(span, end))
            del done[t], starts[t]
            for r, was in reversed(before):
                if was is None:
                    del free[r]
                else:
                    free[r] = was

    dfs({}, {}, {}, 0.0)
    return best[0]


def _fits(prog: Program, home, tasks, starts, ends, span) -> bool:
    """The schedule's liveness peaks within `prog.limits` (the rules of docs/schedule.md)."""
    stays = []
    ops = {name: args for name, _, args in prog.ops}
    read = {a for args in ops.values() for a in args}
    held = [p for i, p in enumerate(prog.params) if i < prog.num_input or p in read]  # an unread weight: never
    for i, p in enumerate(prog.params):  # on its vdevice from the start, an uploaded input too
        if p in held:
            stays.append([home[p], 0.0, span if i >= prog.num_input else 0.0, p, home[p]])
    for name in ops:
        stays.append([home[name], starts[name], ends[name], name, home[name]])
    for t in tasks:
        if t.startswith("copy:"):
            _, v, d = t.split(":")
            stays.append([d, starts[t], ends[t], v, d])
            for s in stays:
                if len(s) > 3 and s[3] == v and s[4] == home[v]:
                    s[2] = max(s[2], ends[t])
    for name, args in ops.items():
        for a in args:
            for s in stays:
                if len(s) > 3 and s[3] == a and s[4] == home[name]:
                    s[2] = max(s[2], ends[name])
    last = prog.ops[-1][0]
    for s in stays:
        if len(s) > 3 and s[3] == last and s[4] == home[last]:
            s[2] = span
    for dev, limit in ((NAMES[d], prog.limits.get(NAMES[d])) for d in DEVICES):
        if limit is None:
            continue
        if sum(prog.nbytes for p in held if NAMES[home[p]] == dev) > limit:
            return False  # the run's entry: every parameter at once
        points = []
        for s in stays:
            if NAMES[s[0]] == dev and s[2] > s[1]:
                points += [(s[1], 1, prog.nbytes), (s[2], 0, -prog.nbytes)]
        current = 0
        for _, _, delta in sorted(points):
            current += delta
            if current > limit:
                return False
    return True


# -- the tests ------------------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_schedule_invariants_and_exhaustive_optimum(prog: Program) -> None:
    mod, result = solve(prog)
    check_events(prog, result)
    check_operands_ready(prog, mod, result)
    assert result.schedule.peak_memory == module_peaks(prog, result)
    s = result.schedule
    better = exhaustive_better(prog, s.makespan - s.tolerance)
    assert better is None, f"the exhaustive search found {better!r} < {s.makespan!r}"
    assert s.optimal, "CP-SAT proves these small programs optimal"
    assert s.lower_bound <= s.makespan
    assert s.gap == 0.0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(max_ops=5, limits=True))
def test_memory_limits_hold_or_conflict(prog: Program) -> None:
    try:
        mod, result = solve(prog)
    except PlacementConflict as err:
        text = err.message
        assert "memory limit" in text or "no placement" in text
        # proved: the exhaustive search finds no left-shifted schedule that fits either (small programs: the
        # search without a bound to prune by tries every order)
        if "(proved)" in text and len(prog.ops) <= 4:
            assert exhaustive_better(prog, math.inf) is None
        return
    check_events(prog, result)
    check_operands_ready(prog, mod, result)
    peaks = result.schedule.peak_memory
    assert peaks == module_peaks(prog, result)
    for dev, limit in prog.limits.items():
        assert peaks[dev] <= limit
    s = result.schedule
    if s.optimal:
        better = exhaustive_better(prog, s.makespan - s.tolerance)
        assert better is None, f"claimed optimal at {s.makespan!r}, but {better!r} fits the limits"


def _task_graph(prog: Program):
    """The time objective's task graph of `prog` (its coarsened units, the limits of `prog.limits`)."""
    from vdplace.placement.cost.problem import coarsen
    from vdplace.placement.extract.extract import extract
    from vdplace.placement.schedule.graph import build_graph
    from vdplace.placement.schedule.solve import with_limits

    model = prog.model()
    co = coarsen(extract(ir.parse(prog.text(), filename="prog.py")), model)
    g = build_graph(co, model)
    with_limits(g, prog.limits)
    return g


def check_bounds_below_optimum(prog: Program) -> None:
    """Every proved bound of `bounds` and `lp_bound` (the linear relaxation, the integer one) is at most the
    exhaustive optimum: no schedule is faster than any of them."""
    from vdplace.placement.schedule import bounds, lp_bound

    g = _task_graph(prog)
    allowed = bounds.effective_allowed(g)
    if allowed is None:  # proved infeasible: nothing fits
        assert exhaustive_better(prog, math.inf) is None
        return
    ht = bounds.heads_tails(g, allowed)
    upper = exhaustive_better(prog, math.inf)
    if upper is None:  # no left-shifted schedule fits: CP-SAT's schedules are not checked here
        return
    found = {"lower_bound": bounds.lower_bound(g), "with upper": bounds.lower_bound(g, upper)}
    found["relaxation"] = lp_bound.relaxation_bound(g, allowed, ht, upper)
    found["integer"] = lp_bound.integer_bound(g, allowed, ht, upper, 5.0)[0]
    if all(lim is None for lim in g.limits):
        found["serial"] = lp_bound.relaxation_bound(g, allowed, ht, bounds.serial_total(g, allowed))
    for name, lb in found.items():
        better = exhaustive_better(prog, lb)
        assert better is None, f"{name} bound {lb!r} is above a schedule of {better!r}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_relaxation_bounds_below_exhaustive_optimum(prog: Program) -> None:
    check_bounds_below_optimum(prog)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(max_ops=5, limits=True))
def test_relaxation_bounds_below_exhaustive_optimum_with_limits(prog: Program) -> None:
    check_bounds_below_optimum(prog)
