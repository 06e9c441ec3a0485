"""``@T.prim_func`` + ``R.call_tir``: parsing, printing, running, placing.

The modules in tests/tir/ are what TVM 0.27 printed for TOPI computes (the
``bb.emit_te`` calls of its ONNX frontend and common TOPI ops), each with
the inputs it was run on and the outputs of TVM's own llvm build (.npz).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.ir import ParseError
from vdplace.ir.expr import Call
from vdplace.ir.op import provide_kernel
from vdplace.ir.tir import PrimFunc, prim_func_from_text, prim_func_lines
from vdplace.runtime.errors import KernelError
from vdplace.runtime.tir import IRRuntimeError, call_tir_kernel, run_prim_func

CASES = sorted(p.stem for p in (Path(__file__).parents[1] / "tir").glob("*.py"))


def _case(name: str):
    folder = Path(__file__).parents[1] / "tir"
    data = np.load(folder / f"{name}.npz")
    ins = [data[f"in{i}"] for i in range(sum(k.startswith("in") for k in data))]
    outs = [data[f"out{i}"] for i in range(sum(k.startswith("out") for k in data))]
    return ir.parse((folder / f"{name}.py").read_text(), filename=f"{name}.py"), ins, outs


def _flat(value) -> list[np.ndarray]:
    return [np.asarray(v) for v in value] if isinstance(value, tuple) else [np.asarray(value)]


def _close(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=2e-5 if w.dtype.itemsize >= 4 else 2e-3, atol=1e-6)


def _prim_funcs(mod) -> list[tuple[PrimFunc, int]]:
    """Each TIR function the module calls, and how many arguments its call passes."""
    found = []
    for func in mod.functions.values():
        for b in ir.iter_bindings(func):
            if isinstance(b.value, Call) and isinstance(b.value.attrs.get("gvar"), PrimFunc):
                found.append((b.value.attrs["gvar"], len(b.value.args[0].struct_info.fields)))
    return found


@pytest.mark.parametrize("name", CASES)
def test_tvm_printed_module_round_trips_and_runs_as_tvm_built_it(name):
    mod, ins, outs = _case(name)
    assert ir.structural_equal(ir.parse(ir.script(mod)), mod)
    placed = placement.place(mod, default="host").module
    _close(_flat(runtime.VirtualMachine(runtime.compile(placed)).run("main", *ins)), outs)


@pytest.mark.parametrize("name", ["einsum_bmm", "softmax", "argmax", "pad_const", "layer_norm", "cumsum"])
def test_array_form_equals_running_one_iteration_at_a_time(name):
    mod, ins, _ = _case(name)
    for func, count in _prim_funcs(mod):
        rng = np.random.default_rng(3)
        inputs = [rng.standard_normal(b.shape).astype(b.dtype) for b in func.params[:count]]
        if func.params[0].dtype.startswith("int"):
            inputs[0] = rng.integers(0, 3, func.params[0].shape).astype(func.params[0].dtype)
        kept = [a.copy() for a in inputs]
        array_form = run_prim_func(func, inputs)
        one_at_a_time = run_prim_func(func, inputs, vectorize=False)
        for a, b in zip(array_form, one_at_a_time, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
        assert all(np.array_equal(a, b) for a, b in zip(inputs, kept, strict=True))  # inputs are not written


_MODULE = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})

    @T.prim_func(private=True, s_tir=True)
    def scale(x: T.Buffer((T.int64(4),), "float32"), y: T.Buffer((T.int64(4),), "float32")):
        for i in T.grid(T.int64(4)):
            with T.sblock("y"):
                v = T.axis.remap("S", [i])
                y[v] = x[v] * T.float32(2.0) + T.Cast("float32", v)

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        h = R.hint_on_device(x, R.device(device_type=2, index=0))
        a = R.call_tir(cls.scale, (h,), out_sinfo=R.Tensor((4,), dtype="float32"))
        b = R.call_tir(cls.scale, (a,), out_ty=R.Tensor((4,), dtype="float32"))
        c = R.add(b, x)
        return c
"""


def test_call_tir_is_placed_with_its_arguments_and_runs_on_a_simulated_gpu():
    mod = ir.parse(_MODULE)
    result = placement.place(mod)
    text = ir.script(result.module)
    assert text.count("def scale(") == 1  # one function, printed once for both calls
    assert text.count("R.call_tir(cls.scale, (") == 2
    for b in ir.iter_bindings(result.module["main"]):
        if b.var.name in ("a", "b"):
            assert b.var.struct_info.vdevice.kind == "cuda"
    x = np.arange(4, dtype="float32")
    vm = runtime.VirtualMachine(runtime.compile(result.module), simulate_missing=True)
    want = (x * 2 + np.arange(4)) * 2 + np.arange(4) + x
    np.testing.assert_allclose(vm.run("main", x), want)


def test_prim_funcs_sharing_a_name_print_under_unique_names():
    first = prim_func_from_text(
        "@T.prim_func\ndef f(a: T.Buffer((2,), 'float32'), b: T.Buffer((2,), 'float32')):\n"
        "    for i in range(2):\n        b[i] = a[i] + 1.0\n"
    )
    second = prim_func_from_text(
        "@T.prim_func\ndef f(a: T.Buffer((2,), 'float32'), b: T.Buffer((2,), 'float32')):\n"
        "    for i in range(2):\n        b[i] = a[i] * 3.0\n"
    )
    mb = ir.ModuleBuilder([])
    fb = mb.function("main", [("x", ir.tensor((2,)))])
    (x,) = fb.params
    y = fb.emit("call_tir", fb.tuple(x), gvar=first, out_ty=ir.tensor((2,)), name="y")
    z = fb.emit("call_tir", fb.tuple(y), gvar=second, out_ty=ir.tensor((2,)), name="z")
    fb.finish(z)
    mod = mb.get()
    text = ir.script(mod)
    assert "def f(" in text and "def f_1(" in text
    again = ir.parse(text)
    assert ir.structural_equal(again, mod)
    vm = runtime.VirtualMachine(runtime.compile(again))
    np.testing.assert_allclose(vm.run("main", np.float32([1, 2])), np.float32([6, 9]))


def _error(text: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        ir.parse(text)
    return info.value


def _with_body(body: str, call: str = "R.call_tir(cls.f, (x,), out_ty=R.Tensor((4,), dtype='float32'))") -> str:
    return (
        "@I.ir_module\nclass Module:\n    @T.prim_func\n"
        "    def f(x: T.Buffer((4,), 'float32'), y: T.Buffer((4,), 'float32')):\n"
        + "".join(f"        {line}\n" for line in body.splitlines())
        + "    @R.function\n    def main(x: R.Tensor((4,), 'float32')):\n        cls = Module\n"
        + f"        y = {call}\n        return y\n"
    )


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        ('T.call_packed("tvm.contrib.sort", x)', 5, "runtime library"),
        ("for i in T.grid(n):\n    y[i] = x[i]", 5, "unknown name 'n'"),
        ("for i in range(4):\n    y[i] = T.frobnicate(x[i])", 6, "not a TIR intrinsic"),
        ("for i in range(4):\n    y[i] = x[i] + i", 6, "dtypes float32 and int32"),
        ("for i in range(4):\n    y[i, i] = x[i]", 6, "has 1 dims, indexed with 2"),
        ('for i in range(4):\n    with T.sblock("b"):\n        T.where(i < 2)\n        y[i] = x[i]', 7, "T.where"),
        ("T.evaluate(0)", 5, "not read"),
    ],
)
def test_tir_outside_the_subset_is_a_located_error(body, line, words):
    err = _error(_with_body(body))
    assert err.span.line == line and words in str(err)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        ("R.call_tir(cls.f, (x, x), out_ty=R.Tensor((4,), dtype='float32'))", "takes 2 parameters"),
        ("R.call_tir(cls.f, (x,), out_ty=R.Tensor((5,), dtype='float32'))", "takes buffer 'y'"),
        ("R.call_tir(cls.g, (x,), out_ty=R.Tensor((4,), dtype='float32'))", "cls.g is not defined"),
        ("R.call_tir(cls.main, (x,), out_ty=R.Tensor((4,), dtype='float32'))", "an @R.function"),
        ("cls.f(x)", "is a TIR function: call it with R.call_tir"),
    ],
)
def test_a_wrong_call_tir_is_a_located_error(call, words):
    err = _error(_with_body("for i in range(4):\n    y[i] = x[i]", call))
    assert err.span.line == 10 and words in str(err)


def test_a_store_outside_its_buffer_fails_the_run_naming_the_buffer():
    mod = ir.parse(_with_body("for i in range(4):\n    y[i + 1] = x[i]"))
    vm = runtime.VirtualMachine(runtime.compile(mod))
    with pytest.raises(KernelError, match=r"index 4 is outside buffer 'y'"):
        vm.run("main", np.zeros(4, "float32"))


def test_a_load_outside_its_buffer_reads_nan_where_tvm_reads_garbage():
    """Undefined in TVM; TOPI's slice_scatter reads out of bounds and masks the value away."""
    func = prim_func_from_text(
        "@T.prim_func\ndef f(x: T.Buffer((3,), 'float32'), i: T.Buffer((3,), 'int64'), y: T.Buffer((3,), 'float32')):\n"
        "    for k in range(3):\n        y[k] = T.Select(k < 2, x[i[k]], T.float32(0))\n"
    )
    for vectorize in (True, False):
        (y,) = run_prim_func(func, [np.float32([1, 2, 3]), np.int64([2, -1, 7])], vectorize=vectorize)
        assert y[0] == 3 and np.isnan(y[1]) and y[2] == 0


def test_a_loop_extent_may_name_an_enclosing_loop_variable():
    func = prim_func_from_text(
        "@T.prim_func\ndef prefix(x: T.Buffer((4,), 'float32'), y: T.Buffer((4,), 'float32')):\n"
        "    for i in range(4):\n        for j in range(i + 1):\n            y[i] = y[i] + x[j]\n"
    )
    for vectorize in (True, False):
        (y,) = run_prim_func(func, [np.float32([1, 2, 3, 4])], vectorize=vectorize)
        assert y.tolist() == [1, 3, 6, 10]


_SEARCH = """@T.prim_func
def searchsorted(a: T.Buffer((5,), "float32"), v: T.Buffer((3,), "float32"), out: T.Buffer((3,), "int64")):
    for k in T.parallel(3):
        lo = T.alloc_local((1,), "int64")
        hi = T.alloc_local((1,), "int64")
        lo[0] = T.int64(0)
        hi[0] = T.int64(5)
        while lo[0] < hi[0]:
            if a[lo[0] + (hi[0] - lo[0] >> T.int64(1))] < v[k]:
                lo[0] = lo[0] + (hi[0] - lo[0] >> T.int64(1)) + T.int64(1)
            else:
                hi[0] = lo[0] + (hi[0] - lo[0] >> T.int64(1))
        out[k] = lo[0]
"""


def test_if_while_and_local_buffers_run_as_tvm_s_searchsorted_writes_them():
    func = prim_func_from_text(_SEARCH)
    assert prim_func_from_text("\n".join(prim_func_lines(func, "searchsorted", ""))) == func
    (out,) = run_prim_func(func, [np.float32([1, 2, 3, 4, 5]), np.float32([0, 2.5, 9])])
    assert out.tolist() == [0, 2, 5]


def test_the_work_of_a_call_of_searchsorted_counts_its_if_and_while_once_each():
    """A call's work (profiles, the cost model) once failed on any if, while or local buffer.

    Per search: two stores of constants (1 each), the while's condition (1) plus the if's condition (4)
    and its longer branch (4), then the result's store (1): 12, three searches.
    """
    from vdplace.ir.op import get_op
    from vdplace.ir.struct_info import TensorStructInfo, TupleStructInfo

    func = prim_func_from_text(_SEARCH)
    args = TupleStructInfo([TensorStructInfo((5,), "float32"), TensorStructInfo((3,), "float32")])
    out = TensorStructInfo((3,), "int64")
    work = get_op("call_tir").work([args], out, {"gvar": func, "out_ty": out})
    assert (work.flops, work.bytes_read, work.bytes_written) == (36.0, 32.0, 24.0)


def test_a_parallel_binary_search_runs_its_lanes_side_by_side(monkeypatch):
    """100,000 searches of 10 steps each: as lanes, 10 steps of arrays; one lane at a time would be refused."""
    monkeypatch.setattr("vdplace.runtime.tir.run._MAX_STEPS", 1000)
    text = _SEARCH.replace("(5,)", "(1000,)").replace("T.int64(5)", "T.int64(1000)")
    func = prim_func_from_text(text.replace("(3,)", "(100000,)").replace("T.parallel(3)", "T.parallel(100000)"))
    rng = np.random.default_rng(0)
    a = np.sort(rng.standard_normal(1000).astype("float32"))
    v = rng.standard_normal(100_000).astype("float32")
    (out,) = run_prim_func(func, [a, v])
    np.testing.assert_array_equal(out, np.searchsorted(a, v))
    with pytest.raises(IRRuntimeError, match="over 1000 loop iterations one at a time"):
        run_prim_func(func, [a, v], vectorize=False)


_BRANCHY = """@T.prim_func
def branchy(x: T.Buffer((64,), "int64"), y: T.Buffer((64,), "int64"), z: T.Buffer((4,), "int64")):
    for k in T.parallel(64):
        n = T.alloc_local((1,), "int64")
        n[0] = x[k]
        if n[0] % T.int64(2) == T.int64(0):
            acc = T.alloc_local((2,), "int64")
            for j in range(T.int64(3)):
                acc[j % T.int64(2)] = acc[j % T.int64(2)] + n[0] * j
            y[k] = acc[0] - acc[1]
        while n[0] > T.int64(1):
            if n[0] % T.int64(2) == T.int64(1):
                n[0] = n[0] * T.int64(3) + T.int64(1)
            else:
                n[0] = n[0] // T.int64(2)
            y[k] = y[k] + T.int64(1)
    for i in range(4):
        z[i] = y[i] + y[i + 60]
"""


def test_if_while_and_local_buffers_in_lanes_do_what_one_lane_at_a_time_does():
    func = prim_func_from_text(_BRANCHY)
    x = np.random.default_rng(1).integers(1, 50, 64)
    lanes, one_by_one = (run_prim_func(func, [x], vectorize=v) for v in (True, False))
    for got, want in zip(lanes, one_by_one, strict=True):
        np.testing.assert_array_equal(got, want)
    steps = [0 if n % 2 else n for n in x]  # acc = [0 + 2n, n]: acc[0] - acc[1] = n, then the Collatz steps
    collatz = []
    for n in x:
        count = 0
        while n > 1:
            n = 3 * n + 1 if n % 2 else n // 2
            count += 1
        collatz.append(count)
    np.testing.assert_array_equal(lanes[0], np.array(steps) + np.array(collatz))


def test_a_while_loop_that_never_ends_fails_the_run(monkeypatch):
    monkeypatch.setattr("vdplace.runtime.tir.run._MAX_WHILE", 1000)  # 2**20 by default
    func = prim_func_from_text(
        "@T.prim_func\ndef spin(x: T.Buffer((1,), 'int64'), y: T.Buffer((1,), 'int64')):\n"
        "    while x[0] < T.int64(1):\n        y[0] = y[0] + T.int64(1)\n"
    )
    with pytest.raises(IRRuntimeError, match="while loop ran"):
        run_prim_func(func, [np.int64([0])])


def test_a_store_reading_its_own_buffer_elsewhere_runs_in_loop_order():
    func = prim_func_from_text(
        "@T.prim_func\ndef scan(x: T.Buffer((5,), 'int64'), y: T.Buffer((5,), 'int64')):\n"
        "    y[0] = x[0]\n    for i in range(4):\n        y[i + 1] = y[i] * 2 + x[i + 1]\n"
    )
    (y,) = run_prim_func(func, [np.arange(5, dtype="int64")])
    assert y.tolist() == [0, 1, 4, 11, 26]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("for i in range(4):\n    v: T.let[T.int64] = b[0]\n    b[i] = a[i]\n    a[i] = v", "after a store"),
        ("for i in range(4):\n    v: T.let[T.int64] = a[i]\n    b[i] = v\nfor j in range(4):\n    b[j] = v", "'v'"),
    ],
)
def test_a_let_is_used_only_in_its_scope_and_before_its_buffers_change(body, words):
    head = "@T.prim_func\ndef f(a: T.Buffer((4,), 'int64'), b: T.Buffer((4,), 'int64')):\n"
    with pytest.raises(ParseError, match=words):
        prim_func_from_text(head + "".join(f"    {line}\n" for line in body.splitlines()))


_SYMBOLIC = prim_func_from_text(
    "@T.prim_func\ndef twice(var_x: T.handle, var_y: T.handle):\n"
    "    n = T.int64()\n"
    "    x = T.match_buffer(var_x, (n,), 'float32')\n"
    "    y = T.match_buffer(var_y, (n * T.int64(2),), 'float32')\n"
    "    for i in T.grid(n * T.int64(2)):\n"
    "        with T.sblock('y'):\n"
    "            v = T.axis.remap('S', [i])\n"
    "            y[v] = x[v % n] + T.Cast('float32', n)\n"
)


def test_a_symbolic_dim_is_bound_by_the_argument_and_sizes_the_output():
    (y,) = run_prim_func(_SYMBOLIC, [np.float32([1, 2, 3])])
    assert y.tolist() == [4, 5, 6, 4, 5, 6]
    assert prim_func_from_text("\n".join(prim_func_lines(_SYMBOLIC, "twice", ""))) == _SYMBOLIC


def test_a_symbol_no_argument_binds_fails_the_run():
    with pytest.raises(IRRuntimeError, match=r"symbol 'n' is bound by no argument"):
        run_prim_func(_SYMBOLIC, [])
    with pytest.raises(IRRuntimeError, match=r"buffer 'x' has 1 dims, the argument 2"):
        run_prim_func(_SYMBOLIC, [np.zeros((2, 2), "float32")])


def test_a_symbolic_module_prints_its_body_dims_bare_as_tvm_reads_them():
    mod, ins, outs = _case("onnx_relu6_dynamic_batch")
    text = ir.script(placement.place(mod, default="host").module)
    assert 'def main(x: R.Tensor(("batch", 3, 4)' in text  # a signature declares the symbol by quoting it
    assert "        batch = T.int64()\n" in text  # the body declares it before using it bare
    assert 'R.Tensor((batch, 3, 4), dtype="float32"' in text and '"batch"' not in text.split("batch = T.int64()")[1]
    assert "var_x: T.handle" in text and "T.match_buffer(var_x, (batch, T.int64(3), T.int64(4))" in text
    assert ir.structural_equal(ir.parse(text), placement.place(mod, default="host").module)


@pytest.mark.parametrize(
    ("dtype", "value", "x", "want"),
    [
        ("bool", "~x[i]", [True, False], [False, True]),  # bitwise not of a bool: logical not
        ("int32", "T.Div(x[i], 2)", [-3, 3], [-1, 1]),  # truncates toward zero
        ("int32", "x[i] // 2", [-3, 3], [-2, 1]),  # floors
        ("int32", "T.truncmod(x[i], 2)", [-3, 3], [-1, 1]),
        ("int32", "x[i] % 2", [-3, 3], [1, 1]),
        ("float32", "T.Cast('float32', T.Cast('int32', x[i]))", [-1.5, 2.7], [-1.0, 2.0]),  # casts truncate
        ("float32", "T.round(x[i])", [0.5, 1.5], [0.0, 2.0]),  # half to even, as TVM's nearbyint
        ("float32", "T.if_then_else(i < 1, x[i], x[i - 1])", [1.0, 2.0], [1.0, 1.0]),  # x[-1] is never read
    ],
)
def test_expressions_compute_what_tvm_computes(dtype, value, x, want):
    func = prim_func_from_text(
        f"@T.prim_func\ndef f(x: T.Buffer((2,), '{dtype}'), y: T.Buffer((2,), '{dtype}')):\n"
        f"    for i in range(2):\n        y[i] = {value}\n"
    )
    for vectorize in (True, False):
        (y,) = run_prim_func(func, [np.array(x, dtype)], vectorize=vectorize)
        assert y.tolist() == want


def test_bfloat16_is_computed_in_float32_and_rounded_where_cast_and_stored():
    """As TVM's bfloat16 legalization does (TVM 0.27's llvm build gives the same for exp of a cast)."""
    from vdplace.ir.ops.special import round_bfloat16

    func = prim_func_from_text(
        "@T.prim_func\ndef f(x: T.Buffer((4,), 'float32'), y: T.Buffer((4,), 'bfloat16')):\n"
        "    for i in range(4):\n        y[i] = T.exp(T.Cast('bfloat16', x[i])) * T.bfloat16(3.0)\n"
    )
    x = np.float32([1.0039, 0.3, 2.5, -1.7])
    (y,) = run_prim_func(func, [x])
    np.testing.assert_array_equal(y, round_bfloat16(np.exp(round_bfloat16(x)) * np.float32(3)))


@pytest.mark.parametrize("name", ["einsum_bmm", "softmax", "layer_norm", "conv2d_nchw"])
def test_a_nest_run_in_chunks_gives_what_it_gives_in_one_go(name, monkeypatch):
    mod, _, _ = _case(name)
    for func, count in _prim_funcs(mod):
        rng = np.random.default_rng(5)
        inputs = [rng.standard_normal(b.shape).astype(b.dtype) for b in func.params[:count]]
        whole = run_prim_func(func, inputs)
        monkeypatch.setattr("vdplace.runtime.tir.run.MAX_GRID", 5)  # every nest in chunks, some one iteration at a time
        chunked = run_prim_func(func, inputs)
        monkeypatch.undo()
        for a, b in zip(whole, chunked, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_a_run_too_long_for_the_numpy_runner_is_refused_not_left_running(monkeypatch):
    huge = prim_func_from_text(
        "@T.prim_func\ndef f(x: T.Buffer((1,), 'float32'), y: T.Buffer((1,), 'float32')):\n"
        "    for i, j in T.grid(T.int64(1048576), T.int64(1048576)):\n        y[0] = y[0] + x[0]\n"
    )
    with pytest.raises(IRRuntimeError, match=r"a loop nest of 1099511627776 iterations"):
        run_prim_func(huge, [np.float32([1])])
    monkeypatch.setattr("vdplace.runtime.tir.run._MAX_STEPS", 10)  # 2**24 by default
    scan = prim_func_from_text(
        "@T.prim_func\ndef f(x: T.Buffer((20,), 'float32'), y: T.Buffer((20,), 'float32')):\n"
        "    for i in range(19):\n        y[i + 1] = y[i] + x[i]\n"
    )
    with pytest.raises(IRRuntimeError, match=r"over 10 loop iterations one at a time"):
        run_prim_func(scan, [np.zeros(20, "float32")])


def test_call_tir_gets_its_kernel_from_the_runtime_and_keeps_it():
    code = (
        "from vdplace.ir import get_op; op = get_op('call_tir'); assert op.kernel is None; "
        "from vdplace import runtime; assert op.kernel is runtime.tir.call_tir_kernel"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    op = ir.get_op("call_tir")
    assert provide_kernel("call_tir", call_tir_kernel) is op and op.kernel is call_tir_kernel  # again: no change
    with pytest.raises(ValueError, match="op 'call_tir' already has a kernel"):
        provide_kernel("call_tir", lambda *args, **attrs: None)
