"""Depth that Python's stack must not decide (issue 15, items 1 and 2).

Tuples nested by thousands of bindings stop at the documented struct-info
limit (`MAX_NESTING`) with a located error, and anything up to the limit
parses, places, prints and runs with room to spare on Python's stack; a
5,000-function call chain runs (callers wait on the VM's heap stack); a
program that recurses without end stops at the VM's call-depth limit with
an error naming the cycle.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.cli import main as cli_main
from vdplace.ir.struct_info import MAX_NESTING, TensorStructInfo, TupleStructInfo

HEADER = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n"
X = 'x: R.Tensor((2, 3), "float32")'
RET = ' -> R.Tensor((2, 3), "float32")'


def nested_tuples(depth: int) -> str:
    """``t_i = (t_{i-1},)`` for i = 1..depth, returned."""
    lines = [f"    @R.function\n    def main({X}):", "        t0 = R.add(x, x)"]
    lines += [f"        t{i} = (t{i - 1},)" for i in range(1, depth + 1)]
    return HEADER + "\n".join(lines) + f"\n        return t{depth}\n"


def call_chain(length: int) -> str:
    """main -> f0 -> f1 -> ... -> f{length-1}, the last one adds."""
    parts = []
    for i in range(length):
        body = f"y = Module.f{i + 1}(x)" if i + 1 < length else "y = R.add(x, x)"
        parts.append(f"    @R.function\n    def f{i}({X}){RET}:\n        {body}\n        return y\n")
    parts.append(f"    @R.function\n    def main({X}){RET}:\n        y = Module.f0(x)\n        return y\n")
    return HEADER + "".join(parts)


@contextmanager
def recursion_limit(limit: int):
    """Python's recursion limit lowered to `limit` frames above the current depth, restored after."""
    old = sys.getrecursionlimit()
    depth = len(__import__("inspect").stack(0))
    sys.setrecursionlimit(depth + limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def run_placed(mod: ir.IRModule, **vm_options) -> tuple:
    placed = placement.place(mod, default="host").module
    vm = runtime.VirtualMachine(runtime.compile(placed), simulate_missing=True, **vm_options)
    x = np.arange(6, dtype="float32").reshape(2, 3)
    return placed, vm, vm.run("main", x), x


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 3_000, 10_000])
def test_tuples_nested_past_the_limit_are_a_located_parse_error(depth):
    with pytest.raises(ir.ParseError, match=rf":{9 + MAX_NESTING}:9: tuples nested {MAX_NESTING + 1} levels deep"):
        ir.parse(nested_tuples(depth))


def test_tuples_nested_to_the_limit_parse_place_print_and_run_with_stack_to_spare():
    text = nested_tuples(MAX_NESTING)
    with recursion_limit(300):  # a third of Python's default: every walker is far from it
        mod = ir.parse(text)
        assert ir.structural_equal(ir.parse(ir.script(mod)), mod)
        placed, _, out, x = run_placed(mod)
        assert ir.structural_equal(ir.parse(ir.script(placed)), placed)
        ref = runtime.run_reference(mod, "main", x)
    for _ in range(MAX_NESTING):
        assert isinstance(out, tuple) and len(out) == 1
        out, ref = out[0], ref[0]
    np.testing.assert_array_equal(out, x + x)
    np.testing.assert_array_equal(ref, x + x)


def test_struct_infos_built_deeper_than_the_limit_raise():
    sinfo = TensorStructInfo((2,), "float32")
    for _ in range(MAX_NESTING):
        sinfo = TupleStructInfo([sinfo])
    assert sinfo.nesting == MAX_NESTING
    with pytest.raises(ir.InferenceError, match="at most"):
        TupleStructInfo([sinfo])


def test_the_cli_exits_2_on_nesting_past_the_limit(tmp_path, capsys):
    path = tmp_path / "deep.py"
    path.write_text(nested_tuples(3_000))
    assert cli_main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert "tuples nested" in err and "Traceback" not in err


def test_a_5000_function_chain_places_and_runs_without_python_recursion():
    mod = ir.parse(call_chain(5_000))
    with recursion_limit(200):  # the VM's depth does not touch Python's stack
        _, vm, out, x = run_placed(mod)
        np.testing.assert_array_equal(out, x + x)
        vm.run("main", x, profile=True)
    assert vm.profile.by_kind["Invoke"][0] == 5_000


def test_the_call_depth_limit_is_configurable_and_names_the_chain():
    mod = ir.parse(call_chain(30))
    _, vm, _, x = run_placed(mod, max_call_depth=30)  # main + 30 nested calls: exactly the limit
    vm29 = runtime.VirtualMachine(vm.executable, simulate_missing=True, max_call_depth=29)
    with pytest.raises(runtime.CallDepthError, match=r"call depth 29 exceeded calling f29 \(line \d+\)") as info:
        vm29.run("main", x)
    assert info.value.chain[:2] == ["main", "f0"] and len(info.value.chain) == 31
    assert all(d.stats.live == 0 for d in vm29.devices)  # every register released
    with pytest.raises(ValueError, match="max_call_depth"):
        runtime.VirtualMachine(vm.executable, max_call_depth=-1)


MUTUAL = HEADER + (
    f"    @R.function\n    def f({X}){RET}:\n        y = R.add(x, x)\n        z = Module.g(y)\n        return z\n"
    f"    @R.function\n    def g({X}){RET}:\n        z = Module.f(x)\n        return z\n"
    f"    @R.function\n    def main({X}){RET}:\n        y = Module.f(x)\n        return y\n"
)
SELF = HEADER + (
    f"    @R.function\n    def f({X}){RET}:\n        z = Module.f(x)\n        return z\n"
    f"    @R.function\n    def main({X}){RET}:\n        y = Module.f(x)\n        return y\n"
)


@pytest.mark.parametrize(("text", "line", "cycle"), [(SELF, 8, "f -> f"), (MUTUAL, 9, "f -> g -> f")])
def test_recursion_without_a_base_case_stops_at_the_limit_with_its_cycle(text, line, cycle):
    mod = ir.parse(text)
    placed = placement.place(mod, default="host").module
    vm = runtime.VirtualMachine(runtime.compile(placed), max_call_depth=500)
    x = np.zeros((2, 3), "float32")
    message = rf"call depth 500 exceeded in f \(line {line}\): recursion with no base case\? \(the calls cycle {cycle};"
    with pytest.raises(runtime.CallDepthError, match=message) as info:
        vm.run("main", x)
    assert info.value.function == "f" and info.value.depth == 500
    assert all(d.stats.live == 0 for d in vm.devices)
    with pytest.raises(runtime.CallDepthError, match=f"call depth {runtime.reference.MAX_CALL_DEPTH} exceeded in f"):
        runtime.run_reference(mod, "main", x)


def test_the_cli_reports_runaway_recursion_in_one_line(tmp_path, capsys):
    path = tmp_path / "rec.py"
    path.write_text(MUTUAL)
    with np.errstate(over="ignore"):
        assert cli_main(["run", str(path)]) == 1
    err = capsys.readouterr().err
    assert "call depth 10000 exceeded in f (line 9): recursion with no base case?" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
