# ruff: noqa: E501  (the TVMScript text keeps TVM's printed lines)
"""Constructs TVM's PyTorch frontend prints: ``R.func_attr`` naming metadata, and what stays unsupported."""

from __future__ import annotations

import numpy as np
import pytest

from vdplace import ir, runtime
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


def test_metadata_constant_in_an_expression_is_a_clear_error():
    text = FRONTEND_MLP.replace("R.add(lv1, p_fc1_bias)", 'R.add(lv1, metadata["relax.expr.Constant"][0])')
    with pytest.raises(
        ir.ParseError,
        match=r'^mlp.py:\d+:\d+: metadata\["relax.expr.Constant"\]\[0\] is a constant whose value is not in the text',
    ):
        ir.parse(text, filename="mlp.py")


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
