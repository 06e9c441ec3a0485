"""The time objective's placed module runs in its schedule's order (`placement/schedule/order.py`).

Random small programs on llvm:0 + cuda:0 (ops, tuples and their items,
aliases; plain or dataflow blocks; kernel and copy times drawn), placed
with `Time`.  From the placed module and the events alone:

* the module is well formed (it prints, parses back and compiles) and is a
  reordering of what the schedule describes (every event is a binding);
* on each device the op calls come in the order of their starts;
* a copy comes after every op of its sender that starts before it and
  before every op of its sender that starts after it; before every op of its
  receiver that starts at or after its end, and after one that starts
  earlier only where an op of the sender starts in between (the copy goes
  before that op);
* the VM's instructions run the bindings in that order, and its measured
  peak on each device is at most the schedule's.

A tuple here holds one value twice: the schedule follows tuple leaves one
by one, while the IR builds a tuple once all its fields are made and keeps
them until the tuple is dead, so a tuple of two values made far apart ties
its reader to both and keeps the earlier alive longer: an order cannot undo
that (docs/schedule.md, "What the run follows").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vdplace import ir, runtime
from vdplace.bench.step import measure_step
from vdplace.ir.expr import Call, Tuple, TupleGetItem, Var
from vdplace.placement import CostModel, Time, place
from vdplace.placement.schedule.order import schedule_order
from vdplace.runtime.instructions import Call as CallInstr
from vdplace.runtime.instructions import DeviceCopy

pytest.importorskip("ortools")

DEVICES = ("llvm", "cuda")
TIMES = (1e-6, 2e-6, 3e-6, 5e-6, 8e-6, 1.3e-5)
LATENCIES = (1e-6, 4e-6, 1e-5)
BANDWIDTH = 25e9


@dataclass
class Program:
    side: int
    params: list[str]
    num_input: int
    lines: list[str]  # the body's statements, ending with the returned variable's
    result: str
    times: dict[tuple[str, str], float | None]
    latency: dict[tuple[str, str], float]
    dataflow: bool

    def text(self) -> str:
        tensor = f'R.Tensor(({self.side}, {self.side}), "float32")'
        params = ", ".join(f"{p}: {tensor}" for p in self.params)
        head = [
            "@I.ir_module",
            "class M:",
            '    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})',
            "    @R.function",
            f"    def main({params}) -> {tensor}:",
            f'        R.func_attr({{"num_input": {self.num_input}}})',
        ]
        if self.dataflow:
            body = ["        with R.dataflow():"] + [f"            {s}" for s in self.lines]
            body.append(f"            R.output({self.result})")
        else:
            body = [f"        {s}" for s in self.lines]
        return "\n".join([*head, *body, f"        return {self.result}"]) + "\n"

    def model(self) -> CostModel:
        def kernel(op, vdevice: str) -> float | None:
            return self.times[op.name, vdevice.split(":")[0]]

        def copy(nbytes: int, src: str, dst: str) -> float:
            return self.latency[src.split(":")[0], dst.split(":")[0]] + nbytes / BANDWIDTH

        return CostModel(kernel, copy)


@st.composite
def programs(draw, max_ops: int = 8) -> Program:
    """Ops over two or three parameters; now and then a tuple of two values read back by item, or an alias."""
    params = [f"p{i}" for i in range(draw(st.integers(2, 3)))]
    values = list(params)
    lines: list[str] = []
    times: dict[tuple[str, str], float | None] = {}
    for i in range(draw(st.integers(2, max_ops))):
        name = f"v{i}"
        kind = draw(st.sampled_from(["add", "multiply", "nn.relu", "matmul", "tuple", "alias"]))
        if kind == "tuple":  # of one value twice (module docstring)
            a = draw(st.sampled_from(values))
            lines += [f"t{i} = ({a}, {a})", f"{name} = t{i}[{draw(st.integers(0, 1))}]"]
        elif kind == "alias":
            lines.append(f"{name} = {draw(st.sampled_from(values))}")
        else:
            args = [draw(st.sampled_from(values)) for _ in range(1 if kind == "nn.relu" else 2)]
            lines.append(f"{name} = R.{kind}({', '.join(args)})")
            times[name, "llvm"] = draw(st.sampled_from(TIMES))
            times[name, "cuda"] = draw(st.sampled_from((*TIMES, None)))
        values.append(name)
    # every value reaches the result: a chain of adds over the values nothing else reads
    rhs = [line.split(" = ", 1)[1] for line in lines]
    read = {w for r in rhs for w in r.replace("(", " ").replace(")", " ").replace(",", " ").replace("[", " ").split()}
    last = values[-1]
    for k, v in enumerate(v for v in values[:-1] if v not in read and not v.startswith("t")):
        name = f"j{k}"
        lines.append(f"{name} = R.add({last}, {v})")
        times[name, "llvm"], times[name, "cuda"] = draw(st.sampled_from(TIMES)), draw(st.sampled_from(TIMES))
        last = name
    if not any(line.startswith(f"{last} = R.") for line in lines):  # the result is made by an op
        lines.append(f"out = R.nn.relu({last})")
        times["out", "llvm"], times["out", "cuda"] = TIMES[0], TIMES[0]
        last = "out"
    latency = {(a, b): draw(st.sampled_from(LATENCIES)) for a in DEVICES for b in DEVICES if a != b}
    return Program(
        draw(st.sampled_from([8, 64])),
        params,
        draw(st.integers(0, len(params))),
        lines,
        last,
        times,
        latency,
        draw(st.booleans()),
    )


def solve(prog: Program):
    mod = ir.parse(prog.text(), filename="prog.py")
    return place(mod, objective=Time(prog.model()), time_limit_s=20)


def bindings(mod) -> list:
    return [b for block in mod["main"].body.blocks for b in block.bindings]


def physical(name: str) -> str:
    return name.split(":")[0]


def check_order(result) -> None:
    placed, schedule = result.module, result.schedule
    # well formed: every operand bound before it is read; the text reads back; it compiles
    bound = {p.name for p in placed["main"].params}
    for b in bindings(placed):
        for var in operands(b.value):
            assert var.name in bound, f"{b.var.name} reads {var.name} before it is bound"
        bound.add(b.var.name)
    assert ir.script(ir.parse(ir.script(placed))) == ir.script(placed)
    runtime.compile(placed)
    position = {b.var.name: i for i, b in enumerate(bindings(placed))}
    params = {p.name for p in placed["main"].params}
    ops = [e for e in schedule.events if e.kind == "op"]
    copies = [e for e in schedule.events if e.kind == "copy" and e.name not in params]
    assert all(e.name in position for e in ops + copies)
    for device in {physical(e.device) for e in ops}:
        mine = sorted((e for e in ops if physical(e.device) == device), key=lambda e: position[e.name])
        starts = [e.start for e in mine]
        assert starts == sorted(starts), (device, [(e.name, e.start) for e in mine])
    for c in copies:
        src, dst = (physical(d) for d in c.device)
        at = position[c.name]
        sender = [e for e in ops if physical(e.device) == src]
        for x in sender:
            if x.start < c.start:
                assert position[x.name] < at, (c, x)
            elif x.start > c.start:
                assert position[x.name] > at, (c, x)
        for y in (e for e in ops if physical(e.device) == dst):
            if y.start >= c.end:
                assert position[y.name] > at, (c, y)
            elif position[y.name] > at:  # y runs while the copy is in flight: only behind a send
                assert any(c.start <= x.start <= y.start for x in sender), (c, y)


def operands(value) -> list[Var]:
    if isinstance(value, Var):
        return [value]
    if isinstance(value, Call):
        return [v for a in value.args for v in operands(a)]
    if isinstance(value, Tuple):
        return [v for f in value.fields for v in operands(f)]
    if isinstance(value, TupleGetItem):
        return operands(value.tuple_value)
    return []


def check_vm(result) -> None:
    """The VM's calls and copies come in binding order; its peak per device is at most the schedule's."""
    placed = result.module
    exe = runtime.compile(placed)
    timed = {e.name for e in result.schedule.events}
    ran = [
        i.origin.variable
        for i in exe["main"].instructions
        if isinstance(i, CallInstr | DeviceCopy) and i.origin is not None and i.origin.variable in timed
    ]
    assert ran == [b.var.name for b in bindings(placed) if b.var.name in set(ran)]
    inputs = runtime.random_inputs(placed, "main", rng=np.random.default_rng(0))
    measured = measure_step(placed, inputs, runs=1, warmup=0)
    for name, peak in result.schedule.peak_memory.items():
        assert measured.peak_bytes[name] <= peak, (name, measured.peak_bytes, result.schedule.peak_memory)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_the_placed_module_follows_the_schedule(prog: Program) -> None:
    result = solve(prog)
    check_order(result)
    check_vm(result)


def test_two_branches_interleave_and_copies_go_before_the_senders_next_op() -> None:
    """examples/schedule_branches.py: the text as written runs branch a, then branch b; the schedule
    runs them side by side, and the placed module says so."""
    mod = ir.parse_file("examples/schedule_branches.py")
    result = place(mod, objective=Time(CostModel.roofline(), memory={"cuda:0": "13MiB"}))
    check_order(result)
    check_vm(result)
    names = [b.var.name for b in bindings(result.module)]
    assert names.index("mb1") < names.index("ma3") and names.index("ma1") < names.index("b3")  # interleaved
    assert names != [b.var.name for b in bindings(mod)]
    assert ir.script(mod) == ir.script(ir.parse_file("examples/schedule_branches.py"))  # the input is untouched


def test_the_pass_is_pure_keeps_spans_and_is_idempotent() -> None:
    mod = ir.parse_file("examples/schedule_branches.py")
    result = place(mod, objective=Time(CostModel.roofline(), memory={"cuda:0": "13MiB"}))
    placed = result.module
    before = ir.script(placed)
    again = schedule_order(placed, result.schedule)
    assert again is not placed and ir.script(again) == before and ir.script(placed) == before
    spans = {b.var.name: b.span for b in bindings(placed)}
    line = open("examples/schedule_branches.py").read().splitlines().index("        ma1 = R.matmul(x, wa1)") + 1
    assert spans["ma1"] is not None and spans["ma1"].line == line
    assert {b.var.name: b.span for b in bindings(again)} == spans


def test_barriers_keep_their_place_and_nothing_crosses_them() -> None:
    """A match_cast binds dims later bindings name: what is before it stays before it, what is after, after."""
    text = """
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})
    @R.function
    def main(x: R.Tensor((8, 8), "float32"), y: R.Tensor((8, 8), "float32")) -> R.Tensor((8, 8), "float32"):
        R.func_attr({"num_input": 2})
        a = R.add(x, x)
        b = R.multiply(y, y)
        m = R.match_cast(b, R.Tensor((8, 8), "float32"))
        c = R.add(m, m)
        d = R.multiply(a, a)
        e = R.add(c, d)
        return e
"""
    llvm = {"b": 9e-6, "m": 1e-6, "c": 1e-6, "e": 1e-6}  # b, m, c, e only on the CPU, a and d only on the GPU
    cuda = {"a": 1e-6, "d": 2e-6}

    def kernel(op, vdevice: str) -> float | None:
        return (llvm if vdevice.startswith("llvm") else cuda).get(op.name)

    result = place(ir.parse(text), objective=Time(CostModel(kernel, lambda n, s, d: 1e-6)))
    starts = {e.name: e.start for e in result.schedule.events}
    assert result.schedule.optimal and starts["d"] < starts["m"]  # the schedule runs d before the match_cast
    names = [b.var.name for b in bindings(result.module)]
    assert [n for n in names if n in "abmcde"] == ["b", "a", "m", "d", "c", "e"]  # d stays after it


def test_a_schedule_of_another_module_is_refused() -> None:
    mod = ir.parse_file("examples/schedule_branches.py")
    result = place(mod, objective=Time(CostModel.roofline(), memory={"cuda:0": "13MiB"}))
    other = ir.parse(ir.script(result.module).replace("mb3", "mc3"))
    with pytest.raises(ValueError, match=r"the schedule's event Event\(op main:mb3 .*names no binding of main"):
        schedule_order(other, result.schedule)
