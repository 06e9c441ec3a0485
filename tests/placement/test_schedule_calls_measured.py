"""Calls in the time objective's memory model: the predicted peak is the measured one, exactly.

The VM's caller holds what it passes to a call until the call returns (its
register's last use is the call instruction, released once the callee
returns), and the run loads a weight passed to a call where the caller
passes it, read by the callee or not; a callee's constant is loaded once.
Random programs of `test_schedule_calls.programs` (a function ``f`` called
once or twice from ``main``, inputs, weights, pins), with every op taking
time, placed with `Time` on llvm:0 + cuda:0 and run by the VM with the
weights bound as constants (`bench.step.measure_step`): its measured peak
on each device equals the schedule's ``peak_memory`` where the VM runs the
schedule as it is: no two events at once, and the op calls in the VM's
order (a callee's bindings keep their program order at every call site,
and a call is a barrier: `placement/schedule/order.py`).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.placement.test_schedule_calls import NESTED, Program, programs
from tests.placement.test_schedule_tuples import sequential
from vdplace import ir, runtime
from vdplace.bench.step import measure_step
from vdplace.ir.expr import Call, GlobalVar
from vdplace.placement import CostModel, Time, place

pytest.importorskip("ortools")


def vm_order(mod) -> list[tuple[str, tuple[str, ...], str]]:
    """``(function, call, name)`` of every op call in the order the VM runs them: program order, each call of
    a module function expanded into its callee's body (copies aside)."""
    out: list[tuple[str, tuple[str, ...], str]] = []

    def run(function: str, call: tuple[str, ...]) -> None:
        for block in mod[function].body.blocks:
            for b in block.bindings:
                value = b.value
                if type(value) is Call and type(value.op) is GlobalVar:
                    run(value.op.name, (*call, f"{function}:{b.var.name}"))
                elif type(value) is Call and value.op.name not in ("to_vdevice", "hint_on_device"):
                    out.append((function, call, b.var.name))

    run("main", ())
    return out


def measured_and_predicted(mod, model: CostModel, num_input: int) -> tuple[dict, dict, bool]:
    """The VM's peaks and the schedule's per vdevice of `mod` placed with `Time(model)`, and whether the VM
    runs the schedule as it is (module docstring)."""
    result = place(mod, objective=Time(model), time_limit_s=20)
    values = runtime.random_inputs(result.module, "main", rng=np.random.default_rng(0))
    names = [p.name for p in result.module["main"].params]
    weights = dict(zip(names[num_input:], values[num_input:], strict=True))
    measured = measure_step(result.module, values[:num_input], weights=weights, runs=1, warmup=0)
    ops = sorted((e for e in result.schedule.events if e.kind == "op"), key=lambda e: (e.start, e.end))
    as_is = sequential(result.schedule) and [(e.function, e.call, e.name) for e in ops] == vm_order(result.module)
    return measured.peak_bytes, dict(result.schedule.peak_memory), as_is


@st.composite
def timed_programs(draw) -> Program:
    """`programs` with every op taking time (a stay of no length is no moment of the VM's run)."""
    prog = draw(programs())
    prog.times = {k: (1e-6 if t == 0.0 else t) for k, t in prog.times.items()}
    return prog


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(timed_programs())
def test_the_measured_peak_with_calls_is_the_predicted_peak(prog: Program) -> None:
    mod = ir.parse(prog.text(), filename="prog.py")
    measured, predicted, as_is = measured_and_predicted(mod, prog.model(), prog.num_input)
    if as_is:  # else the VM runs another order, or devices work side by side: no claim here
        assert measured == predicted, (measured, predicted, prog.text())


def _host_only(text: str, num_input: int) -> tuple[dict, dict, bool]:
    def kernel(op, vdevice: str) -> float | None:
        return 1e-6 if vdevice.startswith("llvm") else None

    model = CostModel(kernel, lambda nbytes, src, dst: 1e-6)
    return measured_and_predicted(ir.parse(text, filename="m.py"), model, num_input)


HEAD = """
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})
    @R.function
    def f(x: R.Tensor((4, 4), "float32"), w: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
"""


def test_an_argument_is_held_until_the_call_returns() -> None:
    """x's last reader in f is a, but main holds x until f returns: at c, x, b and c (192 bytes; the calls
    branch's rule, x gone after a, said 128)."""
    text = (
        HEAD
        + """        a = R.nn.relu(x)
        b = R.nn.relu(a)
        c = R.nn.relu(b)
        return c
    @R.function
    def main(x: R.Tensor((4, 4), "float32"), w: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        R.func_attr({"num_input": 1})
        y = M.f(x, w)
        z = R.nn.relu(y)
        return z
"""
    )
    measured, predicted, in_order = _host_only(text, 1)
    # w, passed to f and read by no one, is loaded all the same (on either vdevice): with x, b and c at c
    assert in_order and measured == predicted and sum(predicted.values()) == 4 * 64


def test_a_weight_read_only_in_a_callee_and_a_callees_constant() -> None:
    """w is read only in f (through its parameter): loaded; f's constant is one tensor for both calls."""
    text = (
        HEAD
        + """        a = R.multiply(x, w)
        b = R.add(a, R.const(2.0, "float32"))
        return b
    @R.function
    def main(x: R.Tensor((4, 4), "float32"), w: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        R.func_attr({"num_input": 1})
        y = M.f(x, w)
        z = M.f(y, w)
        return z
"""
    )
    measured, predicted, in_order = _host_only(text, 1)
    assert in_order and measured == predicted
    # at the second call's b: w, the constant (4 bytes), y (held by main), a and b
    assert predicted["llvm:0:global"] == 4 * 64 + 4


def test_nested_calls_measure_as_predicted() -> None:
    """`test_schedule_calls.NESTED` (main -> f -> g twice), every op on the host."""
    text = NESTED.replace("(64, 64)", "(4, 4)")
    measured, predicted, in_order = _host_only(text, 1)
    assert in_order and measured == predicted
