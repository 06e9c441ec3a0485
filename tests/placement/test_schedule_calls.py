"""The time objective schedules a call of a module function as its callee's body at that call site.

Random small programs (hypothesis): a function ``f`` of one or two
parameters and one to three op calls, called once or twice from ``main``
between ``main``'s own op calls, on llvm:0 + cuda:0 with kernel and copy
times drawn per op and per link direction.  Every check reads the placed
module and the schedule's events only (not the solver's task graph):

* every event lasts what the model says, no two overlap on a device or a link
  direction (`test_schedule.check_events`); each call site's op calls are
  events of ``f`` told apart by `Event.call`;
* an op starts once each operand is on its device, following the placed
  module through its calls (a parameter is its argument as passed; a call's
  result is the callee's returned value);
* `peak_memory` is what the events imply, by liveness recomputed here from
  the placed module (an argument lives until the call returns: the end of
  the callee's last op or copy there, as the VM's caller holds what it
  passes; a weight passed to a call is loaded, read or not; an input is on its
  parameter's vdevice from the start; the run's entry holds every
  parameter at once);
* for at most 6 op calls in all, an exhaustive search written here (every
  placement of ``main``'s and ``f``'s values, ``f`` placed once for all its
  call sites; every order of every op, copy and upload) finds nothing
  faster, and `optimal` is claimed.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.placement.test_schedule import (
    BANDWIDTH,
    DEVICES,
    HOST,
    LATENCIES,
    NAMES,
    REL,
    TIMES,
    _best_order,
    _longest_chain,
    check_events,
)
from vdplace import ir
from vdplace.ir.expr import Call, GlobalVar, Var
from vdplace.placement import CostModel, PlacementConflict, PlacementError, Time, place

pytest.importorskip("ortools")


@dataclass
class Program:
    side: int
    params: list[str]
    num_input: int
    f_params: list[str]
    f_ops: list[tuple[str, str, tuple[str, ...]]]  # (name, op, operands), in f
    ops: list[tuple[str, str, tuple[str, ...]]]  # (name, op or "f", operands), in main
    times: dict[tuple[str, str], float | None]
    latency: dict[tuple[str, str], float]
    pins: dict[str, str] = field(default_factory=dict)
    limits: dict[str, int] = field(default_factory=dict)

    @property
    def nbytes(self) -> int:
        return self.side * self.side * 4

    def send_seconds(self, src: str, dst: str) -> float:
        """The sender's share of a copy (`check_events`): these programs draw none (test_schedule's do)."""
        return 0.0

    @property
    def op_calls(self) -> int:
        calls = sum(1 for _, op, _ in self.ops if op == "f")
        return len(self.ops) - calls + calls * len(self.f_ops)

    def text(self) -> str:
        t = f'R.Tensor(({self.side}, {self.side}), "float32"'

        def ann(p: str) -> str:
            return t + (f', "{self.pins[p]}")' if p in self.pins else ")")

        lines = [
            "@I.ir_module",
            "class M:",
            '    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})',
            "    @R.function",
            f"    def f({', '.join(f'{p}: {t})' for p in self.f_params)}) -> {t}):",
        ]
        lines += [f"        {name} = R.{op}({', '.join(args)})" for name, op, args in self.f_ops]
        lines += [f"        return {self.f_ops[-1][0]}", "    @R.function"]
        lines.append(f"    def main({', '.join(f'{p}: {ann(p)}' for p in self.params)}) -> {t}):")
        lines.append(f'        R.func_attr({{"num_input": {self.num_input}}})')
        for name, op, args in self.ops:
            callee = "M.f" if op == "f" else f"R.{op}"
            lines.append(f"        {name} = {callee}({', '.join(args)})")
        lines.append(f"        return {self.ops[-1][0]}")
        return "\n".join(lines) + "\n"

    def model(self) -> CostModel:
        def kernel(op, vdevice: str) -> float | None:
            return self.times[op.name, vdevice.split(":")[0]]

        def copy(nbytes: int, src: str, dst: str) -> float:
            return self.latency[src.split(":")[0], dst.split(":")[0]] + nbytes / BANDWIDTH

        return CostModel(kernel, copy)


def _draw_ops(draw, prefix: str, values: list[str], count: int, unread: set[str]) -> list:
    ops = []
    for i in range(count):
        op = draw(st.sampled_from(["add", "multiply", "nn.relu"]))
        arity = 1 if op == "nn.relu" else 2
        args = tuple(
            draw(st.sampled_from(sorted(unread) or values)) if k == 0 else draw(st.sampled_from(values))
            for k in range(arity)
        )
        unread -= set(args)
        ops.append((f"{prefix}{i}", op, args))
        values.append(f"{prefix}{i}")
    return ops


@st.composite
def programs(draw, max_ops: int = 6) -> Program:
    f_params = [f"x{i}" for i in range(draw(st.integers(1, 2)))]
    f_ops = _draw_ops(draw, "f", list(f_params), draw(st.integers(1, 2)), set(f_params))
    calls = draw(st.integers(1, 2 if 2 * len(f_ops) < max_ops else 1))
    room = max_ops - calls * len(f_ops)
    params = [f"p{i}" for i in range(draw(st.integers(1, 2)))]
    num_input = draw(st.integers(0, len(params)))
    values = list(params)
    ops: list[tuple[str, str, tuple[str, ...]]] = []
    unread = set(params)
    own = draw(st.integers(0, room))
    where = sorted(draw(st.lists(st.integers(0, own), min_size=calls, max_size=calls)))
    k = 0
    for slot in range(own + 1):
        while k < calls and where[k] == slot:
            args = tuple(draw(st.sampled_from(sorted(unread) or values)) for _ in f_params)
            unread -= set(args)
            ops.append((f"c{k}", "f", args))
            values.append(f"c{k}")
            k += 1
        if slot < own:
            ops += _draw_ops(draw, f"v{slot}_", values, 1, unread)
    if unread and len(ops) - calls + calls * len(f_ops) < max_ops:
        ops.append(("last", "add", (ops[-1][0], sorted(unread)[0])))
        unread.discard(sorted(unread)[0])
    prog_params = [p for p in params if p not in unread]  # every parameter of main is read
    times: dict[tuple[str, str], float | None] = {}
    for name, _, _ in f_ops + [o for o in ops if o[1] != "f"]:
        times[name, "llvm"] = draw(st.sampled_from(TIMES))
        times[name, "cuda"] = draw(st.sampled_from((*TIMES, None)))
    latency = {(a, b): draw(st.sampled_from(LATENCIES)) for a in DEVICES for b in DEVICES if a != b}
    pins = {p: draw(st.sampled_from(DEVICES)) + ":0" for p in prog_params if draw(st.integers(0, 3)) == 0}
    side = draw(st.sampled_from([4, 64, 256]))
    num_input = min(num_input, len(prog_params))
    return Program(side, prog_params, num_input, f_params, f_ops, ops, times, latency, pins)


def solve(prog: Program):
    mod = ir.parse(prog.text(), filename="prog.py")
    return mod, place(mod, objective=Time(prog.model(), memory=prog.limits), time_limit_s=20)


# -- the placed module's run, from its text and the events ------------------------------------------------


class Run:
    """The placed module's run through its calls: each tensor's stay (device, start, end) and when it is ready.

    A variable names a tensor; a parameter of ``f`` names its argument's tensor, a call's variable the
    tensor ``f`` returns (the same list object), so a read through a call extends the caller's stay.
    """

    def __init__(self, prog: Program, result) -> None:
        self.prog = prog
        self.placed = result.module
        self.makespan = result.schedule.makespan
        self.events: dict[tuple, object] = {}
        for e in result.schedule.events:
            key = (e.function, e.call, e.name)
            assert key not in self.events, f"two events {key}"
            self.events[key] = e
        self.stays: list[list] = []  # [device, start, end, ready]
        self.entry = dict.fromkeys(NAMES.values(), 0)  # bytes held as the run starts
        self.used: set[tuple] = set()
        main = self.placed["main"]
        env: dict[str, list] = {}
        named = {
            a.name for block in main.body.blocks for b in block.bindings for a in b.value.args if isinstance(a, Var)
        }
        for i, p in enumerate(main.params):
            # an input is on its parameter's vdevice from the start (an upload comes from the caller's memory);
            # a weight the whole run where anything names it, a call that passes it on included (the run loads
            # it there, read or not), else never
            dev = NAMES[p.struct_info.vdevice.kind]
            if i >= prog.num_input and p.name not in named:
                continue
            self.entry[dev] += prog.nbytes
            ready = 0.0
            if i < prog.num_input and p.struct_info.vdevice.kind != HOST:
                ready = self.event("main", (), p.name).end
            env[p.name] = self.stay(dev, 0.0, self.makespan if i >= prog.num_input else 0.0, ready)
        out = self.run("main", (), env)
        out[2] = self.makespan
        assert self.used == set(self.events), f"events with no binding: {set(self.events) - self.used}"

    def event(self, function: str, call: tuple, name: str):
        self.used.add((function, call, name))
        return self.events[function, call, name]

    def stay(self, device: str, start: float, end: float, ready: float) -> list:
        s = [device, start, end, ready]
        self.stays.append(s)
        return s

    def run(self, function: str, call: tuple, env: dict[str, list]) -> list:
        func = self.placed[function]
        for block in func.body.blocks:
            for b in block.bindings:
                value, var = b.value, b.var
                assert type(value) is Call
                args = [env[a.name] for a in value.args if isinstance(a, Var)]
                if type(value.op) is GlobalVar:
                    callee = self.placed[value.op.name]
                    inner = {p.name: a for p, a in zip(callee.params, args, strict=True)}
                    for p, a in zip(callee.params, args, strict=True):
                        assert NAMES[p.struct_info.vdevice.kind] == a[0], "an argument is passed on its device"
                    site = (*call, f"{function}:{var.name}")
                    env[var.name] = self.run(value.op.name, site, inner)
                    returns = max((e.end for e in self.events.values() if e.call[: len(site)] == site), default=0.0)
                    for a in args:  # the caller holds what it passes until the call returns
                        a[2] = max(a[2], returns)
                    continue
                e = self.event(function, call, var.name)
                dev = e.device[1] if e.kind == "copy" else e.device
                assert NAMES[var.struct_info.vdevice.kind] == dev
                for a in args:
                    assert a[3] <= e.start * (1 + 1e-12) + 1e-18, f"{function}:{var.name} starts before its operand"
                    if e.kind == "op":
                        assert a[0] == dev, "an op reads its operands on its device"
                    else:
                        assert a[0] == e.device[0], "a copy reads its source there"
                    a[2] = max(a[2], e.end)
                env[var.name] = self.stay(dev, e.start, e.end, e.end)
        return env[func.body.body.name]

    def peaks(self) -> dict[str, int]:
        peaks = dict(self.entry)  # the run's entry: a moment before anything at time 0
        for dev in peaks:
            points = []
            for d, start, end, _ in self.stays:
                if d == dev and end > start:
                    points += [(start, 1, self.prog.nbytes), (end, 0, -self.prog.nbytes)]
            current = 0
            for _, _, delta in sorted(points):
                current += delta
                peaks[dev] = max(peaks[dev], current)
        return peaks


# -- the exhaustive search ----------------------------------------------------------------------------------


def exhaustive_better(prog: Program, bound: float) -> float | None:
    """A makespan below `bound` (relative 1e-9) over every placement and task order that keeps the limits,
    or None if there is none.

    Units: ``main``'s parameters and op results, ``f``'s parameters and op results (one placement for
    every call site); a call's result is on ``f``'s returned value's device.  A tensor is copied once per
    scope (a call site of ``f``, or ``main``) and destination, from its home, after it is there; an
    argument is copied to its parameter's device at the call when that differs from its home.
    """
    f_names = {name for name, _, _ in prog.f_ops}
    units = prog.params + [n for n, op, _ in prog.ops if op != "f"] + prog.f_params + sorted(f_names)
    target = bound * (1 - 1e-9)
    best: float | None = None
    for choice in itertools.product(DEVICES, repeat=len(units)):
        home = dict(zip(units, choice, strict=True))
        if any(home[p] != prog.pins[p].split(":")[0] for p in prog.pins):
            continue
        if any(prog.times[n, home[n]] is None for n in f_names | {n for n, op, _ in prog.ops if op != "f"}):
            continue
        tasks, stays = _tasks(prog, home)
        if _longest_chain(tasks) >= target or any(
            sum(secs for res, secs, _ in tasks.values() if res == r) >= target for r in {t[0] for t in tasks.values()}
        ):
            continue
        fits = None
        if prog.limits:

            def fits(starts, ends, span, stays=stays) -> bool:
                return _fits(prog, stays, starts, ends, span)

        found = _best_order(tasks, target, fits)
        if found is not None:
            target = found * (1 - 1e-9)
            best = found
    return best


class _Stay:
    """A tensor on a device: from `start` (a task's start, or a time) to the end of its last reader."""

    def __init__(self, device: str, start: str | float) -> None:
        self.device = device
        self.start = start
        self.readers: list[str] = [start] if isinstance(start, str) else []
        self.to_end = False
        self.entry = False  # held at the run's entry (a parameter of main)


def _tasks(prog: Program, home: dict[str, str]) -> tuple[dict[str, tuple[tuple, float, list[str]]], list[_Stay]]:
    """name -> (resource, seconds, predecessors) of every task of one placement, and every stay
    (`exhaustive_better`); a parameter of ``f`` is its argument's tensor there, a call's result ``f``'s."""
    tasks: dict[str, tuple[tuple, float, list[str]]] = {}
    stays: list[_Stay] = []
    secs = {(a, b): prog.latency[a, b] + prog.nbytes / BANDWIDTH for a in DEVICES for b in DEVICES if a != b}
    # a tensor in a scope: (its device, the task that puts it there or None, its stay there)
    origin: dict[tuple[str, str], tuple[str, str | None, _Stay]] = {}

    def stay(device: str, start: str | float) -> _Stay:
        stays.append(_Stay(device, start))
        return stays[-1]

    def at(scope: str, name: str, d: str) -> tuple[str | None, _Stay]:
        where, ready, held = origin[scope, name]
        if where == d:
            return ready, held
        key = f"copy:{scope}:{name}:{d}"
        if key not in tasks:
            tasks[key] = (("link", where, d), secs[where, d], [ready] if ready else [])
            held.readers.append(key)
            origin[scope, f"{name}@{d}"] = (d, key, stay(d, key))
        return key, origin[scope, f"{name}@{d}"][2]

    for i, p in enumerate(prog.params):  # every parameter is an argument (`programs`): held from the start
        ready = None
        if i < prog.num_input and home[p] != HOST:
            tasks["up:" + p] = (("link", HOST, home[p]), secs[HOST, home[p]], [])
            ready = "up:" + p
        origin["main", p] = (home[p], ready, stay(home[p], 0.0))
        origin["main", p][2].to_end = i >= prog.num_input
        origin["main", p][2].entry = True

    def op(scope: str, name: str, args: tuple[str, ...]) -> None:
        task = f"op:{scope}:{name}"
        preds = []
        for a in dict.fromkeys(args):
            ready, held = at(scope, a, home[name])
            held.readers.append(task)
            if ready and ready not in preds:
                preds.append(ready)
        tasks[task] = (("dev", home[name]), prog.times[name, home[name]], preds)
        origin[scope, name] = (home[name], task, stay(home[name], task))

    for name, kind, args in prog.ops:
        if kind != "f":
            op("main", name, args)
            continue
        scope = "f@" + name
        for x, a in zip(prog.f_params, args, strict=True):
            origin[scope, x] = (home[x], *at("main", a, home[x]))
        for fname, _, fargs in prog.f_ops:
            op(scope, fname, fargs)
        inside = [t for t in tasks if t.split(":")[1] == scope]
        for x in prog.f_params:  # the caller holds what it passes until the call returns
            origin[scope, x][2].readers += inside
        origin["main", name] = origin[scope, prog.f_ops[-1][0]]
    origin["main", prog.ops[-1][0]][2].to_end = True
    return tasks, stays


def _fits(prog: Program, stays: list[_Stay], starts, ends, span) -> bool:
    """The stays' peaks within `prog.limits` under one timing (docs/schedule.md's liveness)."""
    for dev, limit in prog.limits.items():
        if sum(prog.nbytes for s in stays if s.entry and NAMES[s.device] == dev) > limit:
            return False  # the run's entry: every parameter at once
        points = []
        for s in stays:
            if NAMES[s.device] != dev:
                continue
            start = starts[s.start] if isinstance(s.start, str) else s.start
            end = span if s.to_end else max([ends[r] for r in s.readers], default=start)
            if end > start:
                points += [(start, 1, prog.nbytes), (end, 0, -prog.nbytes)]
        current = 0
        for _, _, delta in sorted(points):
            current += delta
            if current > limit:
                return False
    return True


# -- the tests ------------------------------------------------------------------------------------------------


# Without limits: f reads only x0, so v1_0 (a reader of c0) runs on cuda:0 right after f0, while v0_0 (x1's
# argument, 4 us on llvm only) waits for p0's copy: the optimum, 14.0026 us, has v1_0 wait for nothing else.
UNREAD_ARGUMENT = Program(
    side=4,
    params=["p0"],
    num_input=0,
    f_params=["x0", "x1"],
    f_ops=[("f0", "nn.relu", ("x0",))],
    ops=[("v0_0", "nn.relu", ("p0",)), ("c0", "f", ("p0", "v0_0")), ("v1_0", "add", ("p0", "c0"))],
    times={
        ("v0_0", "llvm"): 4e-06,
        ("v0_0", "cuda"): None,
        ("f0", "llvm"): 1e-06,
        ("f0", "cuda"): 1e-06,
        ("v1_0", "llvm"): 1e-06,
        ("v1_0", "cuda"): 1e-06,
    },
    latency={("llvm", "cuda"): 1e-05, ("cuda", "llvm"): 1e-05},
    pins={"p0": "cuda:0"},
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
@example(UNREAD_ARGUMENT)
def test_calls_schedule_as_their_bodies_and_the_optimum_is_exhaustive(prog: Program) -> None:
    _, result = solve(prog)
    check_events(prog, result)
    s = result.schedule
    calls = {e.call for e in s.events if e.function == "f"}
    assert calls == {("main:" + name,) for name, op, _ in prog.ops if op == "f"}
    assert len([e for e in s.events if e.kind == "op"]) == prog.op_calls
    run = Run(prog, result)
    assert s.peak_memory == run.peaks()
    better = exhaustive_better(prog, s.makespan - s.tolerance)
    assert better is None, f"the exhaustive search found {better!r} < {s.makespan!r}"
    assert s.optimal, "CP-SAT proves these small programs optimal"
    assert s.lower_bound <= s.makespan


@st.composite
def limited(draw) -> Program:
    prog = draw(programs(max_ops=5))
    cap = draw(st.integers(2, 2 + prog.op_calls))
    prog.limits = {NAMES[draw(st.sampled_from(DEVICES))]: cap * prog.nbytes}
    return prog


# Under a limit (found by hypothesis): ``f`` reads only x0, so v2_0 (a reader of c0) runs on cuda at once and v0_0
# (x1's argument) on llvm after p0's copy there, 1.0026 us within the limit: a reader of a call's result waits for
# what the callee returns, not for the call's arguments.
CALL_UNDER_LIMIT = Program(
    side=4,
    params=["p0", "p1"],
    num_input=0,
    f_params=["x0", "x1"],
    f_ops=[("f0", "nn.relu", ("x0",))],
    ops=[
        ("v0_0", "add", ("p0", "p0")),
        ("v1_0", "add", ("p1", "v0_0")),
        ("c0", "f", ("p0", "v0_0")),
        ("v2_0", "add", ("p0", "c0")),
    ],
    times={
        **{(name, device): 0.0 for name in ("f0", "v0_0", "v1_0") for device in ("llvm", "cuda")},
        ("v2_0", "llvm"): 2e-06,
        ("v2_0", "cuda"): 1e-06,
    },
    latency={("llvm", "cuda"): 1e-06, ("cuda", "llvm"): 1e-06},
    limits={"cuda:0:global": 192},
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(limited())
@example(CALL_UNDER_LIMIT)
def test_memory_limits_with_calls_hold_or_conflict(prog: Program) -> None:
    try:
        _, result = solve(prog)
    except PlacementConflict as err:
        assert "memory limit" in err.message or "no placement" in err.message
        if "(proved)" in err.message and prog.op_calls <= 4:
            assert exhaustive_better(prog, math.inf) is None
        return
    check_events(prog, result)
    s = result.schedule
    assert s.peak_memory == Run(prog, result).peaks()
    for dev, limit in prog.limits.items():
        assert s.peak_memory[dev] <= limit
    if s.optimal:
        better = exhaustive_better(prog, s.makespan - s.tolerance)
        assert better is None, f"claimed optimal at {s.makespan!r}, but {better!r} fits the limits"


def test_two_call_sites_share_the_callee_placement_and_differ_by_call() -> None:
    prog = Program(
        64,
        ["p0"],
        1,
        ["x0"],
        [("f0", "multiply", ("x0", "x0"))],
        [("c0", "f", ("p0",)), ("v0", "nn.relu", ("c0",)), ("c1", "f", ("v0",))],
        {("f0", "llvm"): 8e-6, ("f0", "cuda"): 1e-6, ("v0", "llvm"): 1e-6, ("v0", "cuda"): None},
        {("llvm", "cuda"): 1e-6, ("cuda", "llvm"): 1e-6},
    )
    _, result = solve(prog)
    s = result.schedule
    f_events = [e for e in s.events if e.function == "f" and e.kind == "op"]
    assert sorted(e.call for e in f_events) == [("main:c0",), ("main:c1",)]
    assert len({e.device for e in f_events}) == 1  # f is placed once
    assert [e.as_dict()["call"] for e in f_events] == [list(e.call) for e in f_events]
    Run(prog, result)
    assert exhaustive_better(prog, s.makespan - s.tolerance) is None and s.optimal


def test_an_argument_lives_until_the_callees_last_reader() -> None:
    # f reads x last in its second op, its last: the argument p0's copy on f's device lives to its end (the call's)
    prog = Program(
        64,
        ["p0"],
        0,
        ["x0"],
        [("f0", "nn.relu", ("x0",)), ("f1", "add", ("f0", "x0"))],
        [("c0", "f", ("p0",))],
        {("f0", "llvm"): 9e-6, ("f0", "cuda"): 1e-6, ("f1", "llvm"): 9e-6, ("f1", "cuda"): 1e-6},
        {("llvm", "cuda"): 1e-6, ("cuda", "llvm"): 1e-6},
    )
    _, result = solve(prog)
    s = result.schedule
    f1 = next(e for e in s.events if e.name == "f1")
    assert f1.device == NAMES["cuda"]
    x_on_gpu = [live for live in s.lives if live.vdevice == NAMES["cuda"] and live.label.startswith("main:p0")]
    assert x_on_gpu and math.isclose(max(live.end for live in x_on_gpu), f1.end, rel_tol=REL)
    assert s.peak_memory == Run(prog, result).peaks()


def test_recursion_and_uncalled_functions_are_located_errors() -> None:
    head = """
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})
    @R.function
    def g(x: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        y = M.h(x)
        return y
    @R.function
    def h(x: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        y = M.g(x)
        return y
"""
    main = """    @R.function
    def main(x: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        y = R.nn.relu(x)
        return y
"""
    model = CostModel(lambda op, d: 1e-6, lambda n, s, d: 1e-6)
    with pytest.raises(PlacementError) as err:  # nothing calls g and h
        place(ir.parse(head + main, filename="m.py"), objective=Time(model))
    assert "m.py:6:" in str(err.value) and "never calls 'g'" in str(err.value)
    with pytest.raises(PlacementError) as err:  # mutual recursion, refused at the call that closes the cycle
        place(ir.parse(head + main.replace("R.nn.relu(x)", "M.g(x)"), filename="m.py"), objective=Time(model))
    assert "m.py:11:" in str(err.value) and "main -> g -> h -> g" in str(err.value)


def test_cli_schedules_the_example_with_calls(capsys, tmp_path) -> None:
    """`vdplace place examples/schedule_calls.py --objective time --json`: each call site's events of `layer`."""
    from pathlib import Path

    from vdplace.cli import main

    example = Path(__file__).resolve().parents[2] / "examples" / "schedule_calls.py"
    status = main(["place", str(example), "--objective", "time", "--cost", "roofline", "--json"])
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    events = document["schedule"]["events"]
    assert status == 0 and document["schedule"]["makespan"] > 0
    layer = [e for e in events if e["function"] == "layer" and e["kind"] == "op"]
    assert sorted((e["name"], tuple(e["call"])) for e in layer) == sorted(
        (name, (f"main:{site}",)) for name in ("m", "y") for site in ("a1", "a2", "a3")
    )
    assert len({e["device"] for e in layer}) == 1  # `layer` is placed once for its three call sites
    assert all(e["call"] == [] for e in events if e["function"] == "main")
    report = tmp_path / "out.html"
    status = main(["place", str(example), "--objective", "time", "--cost", "roofline", "--report", str(report)])
    err = capsys.readouterr().err
    assert status == 0 and "# makespan" in err and "proved optimal" in err
    assert "layer:m at main:a2" in report.read_text()  # the picture's tooltips name the call site


NESTED = """
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})
    @R.function
    def g(x: R.Tensor((64, 64), "float32")) -> R.Tensor((64, 64), "float32"):
        a = R.exp(x)
        return a
    @R.function
    def f(x: R.Tensor((64, 64), "float32")) -> R.Tensor((64, 64), "float32"):
        a = M.g(x)
        b = R.nn.relu(a)
        c = M.g(b)
        return c
    @R.function
    def main(x: R.Tensor((64, 64), "float32"), w: R.Tensor((64, 64), "float32")) -> R.Tensor((64, 64), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y = R.matmul(x, w)
            z = M.f(y)
            u = R.add(z, y)
            R.output(u)
        return u
"""


@pytest.mark.parametrize("cap", [None, 2 * 64 * 64 * 4])
def test_nested_calls_run_at_their_call_paths(cap) -> None:
    # exp runs on the CPU only, everything else is 10x faster on the GPU: values cross at every level
    def kernel(op, vdevice: str) -> float | None:
        if vdevice.startswith("cuda"):
            return None if op.op == "exp" else 1e-6
        return 1e-5

    limits = {} if cap is None else {NAMES["cuda"]: cap}
    mod = ir.parse(NESTED, filename="nested.py")
    result = place(mod, objective=Time(CostModel(kernel, lambda n, s, d: 2e-6), memory=limits), time_limit_s=20)
    s = result.schedule
    paths = sorted((e.function, e.name, e.call) for e in s.events if e.kind == "op")
    assert paths == [
        ("f", "b", ("main:z",)),
        ("g", "a", ("main:z", "f:a")),
        ("g", "a", ("main:z", "f:c")),
        ("main", "u", ()),
        ("main", "y", ()),
    ]
    assert any(e.kind == "copy" and e.call for e in s.events)  # a copy inside a call
    shim = Program(64, ["x", "w"], 1, [], [], [], {}, {})
    assert s.peak_memory == Run(shim, result).peaks()
    for dev, limit in limits.items():
        assert s.peak_memory[dev] <= limit
    assert s.optimal and s.lower_bound <= s.makespan


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_the_placement_search_alone_schedules_calls_soundly(prog: Program) -> None:
    """Without the exact solver: HEFT, the start plans and group moves (a callee's parameters a group of
    their own) give a schedule the placed module runs, no faster than the optimum."""
    mod = ir.parse(prog.text(), filename="prog.py")
    result = place(mod, objective=Time(prog.model(), exact=False), time_limit_s=5)
    check_events(prog, result)
    s = result.schedule
    assert s.peak_memory == Run(prog, result).peaks()
    assert s.lower_bound <= s.makespan
    best = exhaustive_better(prog, math.inf)
    assert best is not None and best <= s.makespan * (1 + 1e-9)
    if s.optimal:
        assert math.isclose(best, s.makespan, rel_tol=1e-6)


def test_a_layer_called_at_many_sites_is_scheduled_past_the_exact_solver() -> None:
    """100 calls of a 4-op layer: 400 op calls, more than CP-SAT takes; the list scheduler and the search."""
    calls = "\n".join(f"        h{k + 1} = M.layer(h{k}, w)" for k in range(100))
    text = f"""
@I.ir_module
class M:
    I.module_global_infos({{"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]}})
    @R.function
    def layer(x: R.Tensor((64, 64), "float32"), w: R.Tensor((64, 64), "float32")) -> R.Tensor((64, 64), "float32"):
        m = R.matmul(x, w)
        r = R.nn.relu(m)
        e = R.exp(r)
        y = R.add(e, x)
        return y
    @R.function
    def main(h0: R.Tensor((64, 64), "float32"), w: R.Tensor((64, 64), "float32")) -> R.Tensor((64, 64), "float32"):
        R.func_attr({{"num_input": 1}})
{calls}
        return h100
"""

    def kernel(op, vdevice: str) -> float | None:
        if op.op == "exp":
            return 2e-6 if vdevice.startswith("llvm") else None
        return 1e-6 if vdevice.startswith("cuda") else 8e-6

    result = place(
        ir.parse(text, filename="many.py"),
        objective=Time(CostModel(kernel, lambda n, s, d: 1e-6)),
        time_limit_s=10,
    )
    s = result.schedule
    assert s.method == "list" and len([e for e in s.events if e.kind == "op"]) == 400
    assert len({e.call for e in s.events if e.function == "layer"}) == 100
    assert s.lower_bound <= s.makespan
    # a chain: each call runs m and r on the GPU (1 us each), copies r to the CPU (1 us), runs exp there (2 us),
    # copies e back (1 us) and adds on the GPU (1 us): 7 us a call, plus the upload of h0: the critical path
    assert s.optimal and s.makespan == pytest.approx(100 * 7e-6 + 1e-6, rel=1e-9)


def test_a_memory_conflict_in_a_callee_names_its_call_site() -> None:
    text = """
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})
    @R.function
    def f(x: R.Tensor((64, 64), "float32")) -> R.Tensor((64, 64), "float32"):
        a = R.nn.relu(x)
        b = R.nn.relu(a)
        return b
    @R.function
    def main(
        x: R.Tensor((64, 64), "float32", "cuda:0"), w: R.Tensor((64, 64), "float32", "cuda:0")
    ):
        R.func_attr({"num_input": 1})
        y = M.f(x)
        z = M.f(y)
        u = R.nn.relu(z)
        return (u, w)
"""

    def gpu_only(op, vdevice: str) -> float | None:
        return 1e-6 if vdevice.startswith("cuda") else None

    # the weight w (returned: a weight nothing reads or returns is never loaded) stays on cuda:0 the whole run:
    # with x and a at f's first op, three tensors where two fit
    model = CostModel(gpu_only, lambda n, s, d: 1e-6)
    with pytest.raises(PlacementConflict) as err:
        place(ir.parse(text, filename="m.py"), objective=Time(model, memory={"cuda:0": 2 * 64 * 64 * 4}))
    assert "while f:a runs there (m.py:7, called at main:y)" in err.value.message
    assert "(proved)" in err.value.message


def test_constant_arguments_are_the_callers_tensors() -> None:
    text = """
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})
    @R.function
    def f(x: R.Tensor((64, 64), "float32"), c: R.Tensor((), "float32")) -> R.Tensor((64, 64), "float32"):
        a = R.add(x, c)
        b = R.exp(a)
        d = R.multiply(b, c)
        return d
    @R.function
    def main(x: R.Tensor((64, 64), "float32")) -> R.Tensor((64, 64), "float32"):
        y = M.f(x, R.const(2.0, "float32"))
        z = M.f(y, R.const(3.0, "float32"))
        return z
"""

    def kernel(op, vdevice: str) -> float | None:
        if op.op == "exp":
            return 1e-6 if vdevice.startswith("llvm") else None
        return 1e-6 if vdevice.startswith("cuda") else 5e-6

    result = place(ir.parse(text, filename="m.py"), objective=Time(CostModel(kernel, lambda n, s, d: 1e-6)))
    s = result.schedule
    # x up to the GPU, then per call: add there, a to the CPU, exp, b back, multiply: 1 + 2 * 5 us
    assert s.optimal and s.makespan == pytest.approx(11e-6, rel=1e-9)
    # on the GPU at most three 16 KiB tensors at once (at d: the argument, held by main until f returns, b's
    # copy and d; the VM measures the same), and both scalar constants (held the whole run)
    assert s.peak_memory[NAMES["cuda"]] == 3 * 64 * 64 * 4 + 2 * 4
