# ruff: noqa: E501  (the TVMScript text keeps TVM's printed lines)
"""Constructs TVM's PyTorch frontend prints: ``R.func_attr`` naming metadata, and what stays unsupported."""

from __future__ import annotations

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.ir.metadata import MetadataRef

FRONTEND_MLP = """
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 10), dtype="float32"), p_fc1_weight: R.Tensor((32, 10), dtype="float32"), p_fc1_bias: R.Tensor((32,), dtype="float32")) -> R.Tuple(R.Tensor((1, 32), dtype="float32")):
        R.func_attr({"num_input": 1, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1]]})
        with R.dataflow():
            lv: R.Tensor((10, 32), dtype="float32") = R.permute_dims(p_fc1_weight, axes=None)
            lv1: R.Tensor((1, 32), dtype="float32") = R.matmul(x, lv, out_dtype="void")
            lv2: R.Tensor((1, 32), dtype="float32") = R.add(lv1, p_fc1_bias)
            lv3: R.Tensor((1, 32), dtype="float32") = R.nn.relu(lv2)
            gv: R.Tuple(R.Tensor((1, 32), dtype="float32")) = (lv3,)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show this content.
"""


def test_func_attr_with_metadata_references_parses_prints_back_and_runs():
    mod = ir.parse(FRONTEND_MLP, filename="mlp.py")
    attrs = mod["main"].attrs
    assert attrs["num_input"] == 1
    assert attrs["params"] == [MetadataRef("ffi.Tensor", 0), MetadataRef("ffi.Tensor", 1)]
    printed = ir.script(mod)
    assert 'R.func_attr({"num_input": 1, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1]]})' in printed
    assert ir.structural_equal(ir.parse(printed), mod)
    assert not ir.structural_equal(ir.parse(printed.replace('"ffi.Tensor"][1]', '"ffi.Tensor"][2]')), mod)
    x, w, b = (
        np.linspace(-1, 1, n, dtype="float32").reshape(s) for n, s in ((10, (1, 10)), (320, (32, 10)), (32, (32,)))
    )
    (got,) = runtime.VirtualMachine(runtime.compile(mod)).run("main", x, w, b)
    np.testing.assert_allclose(np.asarray(got), np.maximum(x @ w.T + b, 0), rtol=1e-5, atol=1e-6)


def test_metadata_is_only_a_literal_inside_func_attr():
    text = FRONTEND_MLP.replace("axes=None", 'axes=metadata["ffi.Tensor"][0]')
    with pytest.raises(ir.ParseError, match=r"^mlp.py:\d+:\d+: "):
        ir.parse(text, filename="mlp.py")


def test_typed_ints_in_attribute_lists_read_as_ints():
    text = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 6), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="float32") = R.strided_slice(x, axes=[0, 1], begin=[T.int64(0), 1], end=[T.int64(2), T.int32(4)], strides=[1, 1], assume_inbound=False)
            R.output(lv)
        return lv
"""
    mod = ir.parse(text)
    call = mod["main"].body.blocks[0].bindings[0].value
    assert list(call.attrs["begin"]) == [0, 1] and list(call.attrs["end"]) == [2, 4]
    assert ir.structural_equal(ir.parse(ir.script(mod)), mod)
    x = np.arange(24, dtype="float32").reshape(4, 6)
    got = runtime.VirtualMachine(runtime.compile(mod)).run("main", x)
    np.testing.assert_array_equal(np.asarray(got), x[0:2, 1:4])
    with pytest.raises(ir.ParseError, match=r"^<string>:\d+:\d+: "):
        ir.parse(text.replace("T.int64(0)", "T.int64(n)"))


DYNAMIC = """
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

s77 = TypeVar("s77")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((s77, 3, 2), dtype="float32")) -> R.Tuple(R.Tensor((s77, s77), dtype="float32"), R.Tensor(("s77 * 3", 2), dtype="float32")):
        R.func_attr({"tir_var_lower_bound": {"s77": 2}, "tir_var_upper_bound": {"s77": 64}})
        with R.dataflow():
            lv: R.Tensor((s77, 3, 2), dtype="float32") = R.clip(x, 0, 6)
            lv1: R.Tensor((s77, 6), dtype="float32") = R.reshape(lv, R.shape([s77, 6]))
            lv2: R.Tensor((6, s77), dtype="float32") = R.permute_dims(lv1, axes=[1, 0])
            lv3: R.Tensor((s77, s77), dtype="float32") = R.matmul(lv1, lv2, out_dtype="float32")
            lv4: R.Tensor((s77,), dtype="int64") = R.arange(0, s77, 1, dtype="int64")
            lv5: R.Tensor((1, s77), dtype="int64") = R.expand_dims(lv4, axis=[-2])
            lv7: R.Tensor((s77, 1), dtype="int64") = R.expand_dims(lv4, axis=[-1])
            lv8: R.Tensor((s77, s77), dtype="int64") = R.subtract(lv5, lv7)
            lv9: R.Tensor((s77, s77), dtype="bool") = R.less_equal(lv8, R.const(1, "int64"))
            lv10: R.Tensor((), dtype="float32") = R.const(0.0, "float32")
            lv11: R.Tensor((s77, s77), dtype="float32") = R.where(lv9, lv3, lv10)
            lv12: R.Tensor((s77, s77), dtype="float32") = R.clip(lv11, T.float64(-0.5), T.float64(0.5))
            lv13: R.Tensor((s77 * 3, 2), dtype="float32") = R.reshape(lv1, R.shape([s77 * 3, 2]))
            lv14: R.Tensor(("s77 * 3",), dtype="int64") = R.arange(0, s77 * 3, 1, dtype="int64")
            gv: R.Tuple(R.Tensor((s77, s77), dtype="float32"), R.Tensor((s77 * 3, 2), dtype="float32")) = lv12, lv13
            R.output(gv)
        return gv
"""


def test_dynamic_frontend_output_type_vars_bare_and_symbolic_prim_values():
    """What TVM prints for a torch.export with a dynamic batch: TypeVar dims, R.clip(x, 0, 6), R.arange(0, n, 1)."""
    mod = ir.parse(DYNAMIC, filename="dyn.py")
    clip = next(b.value for b in ir.iter_bindings(mod["main"]) if b.var.name == "lv")
    assert [(a.value, a.dtype) for a in clip.args[1:]] == [(0, "int64"), (6, "int64")]
    lv14 = next(b.value for b in ir.iter_bindings(mod["main"]) if b.var.name == "lv14")
    assert (lv14.args[1].value, lv14.args[1].dtype) == ("s77 * 3", "int64")
    printed = ir.script(mod)
    assert "s77 = T.int64()" in printed and "R.prim_value(s77 * 3)" in printed
    assert ir.structural_equal(ir.parse(printed), mod)
    x = np.random.default_rng(0).standard_normal((5, 3, 2)).astype("float32")
    y = np.clip(x, 0, 6).reshape(5, 6)
    placed = placement.place(mod, default="host").module
    for got in (runtime.VirtualMachine(runtime.compile(placed)).run("main", x), runtime.run_reference(mod, "main", x)):
        np.testing.assert_allclose(np.asarray(got[0]), np.clip(np.tril(y @ y.T, 1), -0.5, 0.5), rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(np.asarray(got[1]), y.reshape(-1, 2))


def test_a_type_var_must_name_itself_and_undeclared_bare_names_are_errors():
    with pytest.raises(ir.ParseError, match=r"^dyn.py:6:1: the top level of a file holds imports"):
        ir.parse(DYNAMIC.replace('s77 = TypeVar("s77")', 's77 = TypeVar("n")'), filename="dyn.py")
    with pytest.raises(ir.ParseError, match=r"undefined variable 'k'"):
        ir.parse(DYNAMIC.replace("R.arange(0, s77, 1", "R.arange(0, k, 1"), filename="dyn.py")
    with pytest.raises(ir.ParseError, match="a symbolic prim value is an int64"):
        ir.parse(DYNAMIC.replace("R.arange(0, s77, 1", "R.arange(0, T.float32(s77), 1"), filename="dyn.py")


def test_one_hint_on_a_module_without_vdevices_declares_its_device_and_the_host():
    """What TVM's users do to the frontend's output: add one R.hint_on_device, then place and run."""
    text = FRONTEND_MLP.replace(
        'lv3: R.Tensor((1, 32), dtype="float32") = R.nn.relu(lv2)',
        'lv2b = R.hint_on_device(lv2, R.device(2, 1))\n            lv3: R.Tensor((1, 32), dtype="float32") = R.nn.relu(lv2b)',
    )
    mod = ir.parse(text, filename="mlp.py")
    assert [(v.kind, v.vdevice_id, v.memory_scope) for v in mod.vdevices] == [
        ("cuda", 1, "global"),
        ("llvm", 0, "global"),
    ]
    placed = placement.place(mod, default="host").module
    assert 'I.vdevice("cuda", 1, "global"), I.vdevice("llvm", 0, "global")' in ir.script(placed)
    assert ir.structural_equal(ir.parse(ir.script(placed)), placed)
    x, w, b = (
        np.linspace(-1, 1, n, dtype="float32").reshape(s) for n, s in ((10, (1, 10)), (320, (32, 10)), (32, (32,)))
    )
    vm = runtime.VirtualMachine(runtime.compile(placed), simulate_missing=True)
    (got,) = vm.run("main", x, w, b)
    np.testing.assert_allclose(np.asarray(got), np.maximum(x @ w.T + b, 0), rtol=1e-5, atol=1e-6)
    hinted_cpu = text.replace("R.device(2, 1)", "R.device(1, 0)")
    assert [v.kind for v in ir.parse(hinted_cpu).vdevices] == ["llvm"]


SHAPE_FLOW = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 6), "float32"), y: R.Tensor(("n", 2, 3), "float32"), s: R.Shape(["n", 3, 2])):
        with R.dataflow():
            sh = R.shape_of(y)
            a = R.reshape(x, sh)
            b = R.reshape(x, s)
            c = R.add(a, R.permute_dims(b, axes=[0, 2, 1]))
            z = R.zeros(sh, "float32")
            d = R.add(c, z)
            R.output(d)
        return d
"""


def test_a_shape_argument_may_be_a_shape_variable():
    """R.shape_of(x) feeding R.reshape (and R.zeros), as the frontend prints it; shapes tie no device."""
    mod = ir.parse(SHAPE_FLOW)
    binding = {b.var.name: b for b in ir.iter_bindings(mod["main"])}
    assert binding["a"].var.struct_info == ir.TensorStructInfo(("n", 2, 3), "float32")
    assert binding["b"].var.struct_info == ir.TensorStructInfo(("n", 3, 2), "float32")
    assert ir.structural_equal(ir.parse(ir.script(mod)), mod)
    assert "R.reshape(x, sh)" in ir.script(mod)
    placed = placement.place(mod, default="host").module
    x, y = _rand(4, 6), _rand(4, 2, 3)
    vm = runtime.VirtualMachine(runtime.compile(placed))
    got = vm.run("main", x, y, (4, 3, 2))
    want = x.reshape(4, 2, 3) + x.reshape(4, 3, 2).transpose(0, 2, 1)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    np.testing.assert_allclose(runtime.run_reference(mod, "main", x, y, (4, 3, 2)), want, rtol=1e-6)


def test_a_shape_argument_must_be_a_shape():
    with pytest.raises(
        ir.InferenceError, match=r"R.reshape: shape must be a shape .* got R.Tensor|argument 'shape' must be a shape"
    ):
        ir.parse(SHAPE_FLOW.replace("R.reshape(x, sh)", "R.reshape(x, y)"))


def _rand(*shape: int) -> np.ndarray:
    return np.random.default_rng(3).standard_normal(shape).astype("float32")


def test_non_finite_typed_prim_values_as_the_frontend_prints_hardswish():
    text = FRONTEND_MLP.replace("R.nn.relu(lv2)", 'R.clip(lv2, 0, T.float64("inf"))')
    mod = ir.parse(text)
    assert 'R.prim_value(T.float64("inf"))' in ir.script(mod)
    assert ir.structural_equal(ir.parse(ir.script(mod)), mod)
    x, w, b = (
        np.linspace(-1, 1, n, dtype="float32").reshape(s) for n, s in ((10, (1, 10)), (320, (32, 10)), (32, (32,)))
    )
    (got,) = runtime.run_reference(mod, "main", x, w, b)
    np.testing.assert_allclose(got, np.maximum(x @ w.T + b, 0), rtol=1e-5, atol=1e-6)
    with pytest.raises(ir.ParseError, match="takes a number or a bool"):
        ir.parse(text.replace('T.float64("inf")', 'T.int64("inf")'))


def test_shape_to_tensor_as_the_onnx_frontend_prints_gather_on_a_shape():
    text = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 5, 8), dtype="float32")) -> R.Tensor((), dtype="int64"):
        with R.dataflow():
            lv: R.Shape([1, 5, 8]) = R.shape_of(x)
            lv1: R.Tensor((3,), dtype="int64") = R.shape_to_tensor(lv)
            lv3: R.Tensor((), dtype="int64") = R.take(lv1, R.const(1, "int64"), axis=0, mode="wrap")
            R.output(lv3)
        return lv3
"""
    mod = ir.parse(text)
    assert ir.structural_equal(ir.parse(ir.script(mod)), mod)
    placed = placement.place(mod, default="host").module
    x = np.zeros((1, 5, 8), "float32")
    assert int(np.asarray(runtime.VirtualMachine(runtime.compile(placed)).run("main", x))) == 5


@pytest.mark.parametrize(("index", "expected"), [(10**18, 5), (-(10**18), 8), (-1, 8)])
def test_take_wraps_a_huge_index_at_once(index, expected):
    """Found by the fuzzer: NumPy's own "wrap" mode subtracts the axis length until an index of 1e18 fits."""
    text = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="int64")) -> R.Tensor((), dtype="int64"):
        y: R.Tensor((), dtype="int64") = R.take(x, R.const(INDEX, "int64"), axis=0, mode="wrap")
        return y
""".replace("INDEX", str(index))
    placed = placement.place(ir.parse(text), default="host").module
    x = np.array([1, 5, 8], "int64")
    assert int(np.asarray(runtime.VirtualMachine(runtime.compile(placed)).run("main", x))) == expected


def test_a_prim_value_out_of_its_dtype_range_is_a_located_error():
    """Found by the fuzzer: R.arange(..., R.prim_value(2**63)) placed, then crashed the compiler."""
    text = FRONTEND_MLP.replace("R.nn.relu(lv2)", "R.clip(lv2, 0, 9223372036854775808)")
    with pytest.raises(ir.ParseError, match=r"^mlp.py:\d+:\d+: 9223372036854775808 does not fit in int64"):
        ir.parse(text, filename="mlp.py")
    with pytest.raises(ir.ParseError, match="300 does not fit in int8"):
        ir.parse(FRONTEND_MLP.replace("R.nn.relu(lv2)", "R.clip(lv2, 0, T.int8(300))"))
