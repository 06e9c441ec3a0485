# ruff: noqa: E501  (the TVMScript texts keep the lines TVM printed)
"""R.quantize / R.dequantize (ir/ops/qdq.py) as TVM 0.27's ONNX frontend prints QDQ models.

Each module below is ``tvm.relax.frontend.onnx.from_onnx(model).script()`` of
a small ONNX QuantizeLinear/DequantizeLinear model built with onnx.helper.
The expected results were computed by TVM 0.27 (``tvm.compile(mod,
target="llvm")`` on a ``relax.VirtualMachine``) and by onnxruntime 1.32 on the
same inputs; the two agreed exactly, and so must vdplace.  The metadata
constants are the models' initializers.  Kernel cases are in tests/ir/ops/cases_qdq.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ir.ops.helpers import run_module
from tests.ir.ops.test_kernels import T, infer
from vdplace import ir, placement, runtime
from vdplace.ir import InferenceError, get_op, parse, script, structural_equal
from vdplace.ir.op import Work

# -- opset 13: per-tensor uint8 (no axis given: TVM prints axis=1), then per-axis int8 along axis 1 --

QDQ_PER_AXIS = """
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 3, 4), dtype="uint8"), R.Tensor((2, 3, 4), dtype="float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((2, 3, 4), dtype="uint8") = R.quantize(x, R.const(0.5, "float32"), metadata["ir.GenericConst"][0], out_dtype="uint8", axis=1)
            lv1: R.Tensor((2, 3, 4), dtype="float32") = R.dequantize(lv, R.const(0.5, "float32"), metadata["ir.GenericConst"][0], out_dtype="float32", axis=1)
            lv2: R.Tensor((2, 3, 4), dtype="int8") = R.quantize(lv1, metadata["ir.GenericConst"][1], metadata["ir.GenericConst"][2], out_dtype="int8", axis=1)
            lv3: R.Tensor((2, 3, 4), dtype="float32") = R.dequantize(lv2, metadata["ir.GenericConst"][1], metadata["ir.GenericConst"][2], out_dtype="float32", axis=1)
            gv: R.Tuple(R.Tensor((2, 3, 4), dtype="uint8"), R.Tensor((2, 3, 4), dtype="float32")) = lv, lv3
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
"""
PER_AXIS_CONSTS = {
    "ir.GenericConst:0": np.asarray(128, np.uint8),
    "ir.GenericConst:1": np.float32([0.25, 1.0, 4.0]),
    "ir.GenericConst:2": np.int8([0, -3, 5]),
}
PER_AXIS_X = np.float32(np.arange(24).reshape(2, 3, 4) * 3.25 - 40.75)
PER_AXIS_Q = np.uint8(
    [
        [[46, 53, 60, 66], [72, 79, 86, 92], [98, 105, 112, 118]],
        [[124, 131, 138, 144], [150, 157, 164, 170], [176, 183, 190, 196]],
    ]
)
PER_AXIS_Y = np.float32(
    [
        [[-32.0, -32.0, -32.0, -31.0], [-28.0, -24.0, -21.0, -18.0], [-16.0, -12.0, -8.0, -4.0]],
        [[-2.0, 1.5, 5.0, 8.0], [11.0, 14.0, 18.0, 21.0], [24.0, 28.0, 32.0, 32.0]],
    ]
)

# -- opset 19: float16 per-tensor int8 (dequantized to float16), an int32 tensor without zero point --

QDQ_FLOAT16 = """
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(h: R.Tensor((6,), dtype="float16"), i: R.Tensor((2, 3), dtype="int32")) -> R.Tuple(R.Tensor((6,), dtype="int8"), R.Tensor((6,), dtype="float16"), R.Tensor((2, 3), dtype="float32")):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            lv: R.Tensor((6,), dtype="int8") = R.quantize(h, R.const(0.5, "float16"), R.const(-2, "int8"), out_dtype="int8", axis=0)
            lv1: R.Tensor((6,), dtype="float16") = R.dequantize(lv, R.const(0.5, "float16"), R.const(-2, "int8"), out_dtype="float16", axis=0)
            lv2: R.Tensor((2, 3), dtype="float32") = R.dequantize(i, R.const(0.125, "float32"), R.const(0, "int32"), out_dtype="float32", axis=1)
            gv: R.Tuple(R.Tensor((6,), dtype="int8"), R.Tensor((6,), dtype="float16"), R.Tensor((2, 3), dtype="float32")) = lv, lv1, lv2
            R.output(gv)
        return gv
"""
FLOAT16_H = np.float16([0.25, 0.75, -1.25, 70.0, -70.0, 3.0])
FLOAT16_I = np.int32([[-7, 0, 5], [100, -1000, 123456]])
FLOAT16_Q = np.int8([-2, 0, -4, 127, -128, 4])  # ties to even, then saturated
FLOAT16_Y = np.float16([0.0, 1.0, -1.0, 64.5, -63.0, 3.0])
FLOAT16_IY = np.float32([[-0.875, 0.0, 0.625], [12.5, -125.0, 15432.0]])

# -- opset 21: int16 per-axis along axis 0 --

QDQ_INT16 = """
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 5), dtype="float32")) -> R.Tuple(R.Tensor((2, 5), dtype="int16"), R.Tensor((2, 5), dtype="float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((2, 5), dtype="int16") = R.quantize(x, metadata["ir.GenericConst"][0], metadata["ir.GenericConst"][1], out_dtype="int16", axis=0)
            lv1: R.Tensor((2, 5), dtype="float32") = R.dequantize(lv, metadata["ir.GenericConst"][0], metadata["ir.GenericConst"][1], out_dtype="float32", axis=0)
            gv: R.Tuple(R.Tensor((2, 5), dtype="int16"), R.Tensor((2, 5), dtype="float32")) = lv, lv1
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
"""
INT16_CONSTS = {"ir.GenericConst:0": np.float32([0.5, 0.001]), "ir.GenericConst:1": np.int16([10, -20])}
INT16_X = np.float32([[2.25, -2.25, 1e6, -1e6, 0.75], [0.0005, 0.0015, 40.0, -40.0, 0.0]])
INT16_Q = np.int16([[14, 6, 32767, -32768, 12], [-20, -18, 32767, -32768, -20]])
INT16_Y = np.float32(
    [[2.0, -2.0, 16378.5, -16389.0, 1.0], [0.0, 0.0020000000949949026, 32.78700256347656, -32.74800109863281, 0.0]]
)


def _run_with_consts(text: str, consts: dict[str, np.ndarray], *inputs: np.ndarray) -> list[np.ndarray]:
    """Parse, check the print round trip, place on the host and run `main` with the constants bound."""
    mod = parse(text)
    printed = script(mod)
    assert script(parse(printed)) == printed
    assert structural_equal(parse(printed), mod)
    placed = placement.place(mod, default="host").module
    out = runtime.VirtualMachine(runtime.compile(placed, params=consts)).run("main", *inputs)
    ref = runtime.run_reference(mod, "main", *inputs, params=consts)
    for got, want in zip(out, ref, strict=True):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    return [np.asarray(o) for o in out]


def _assert_same(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_per_tensor_and_per_axis_qdq_runs_as_tvm_and_onnxruntime():
    q, y = _run_with_consts(QDQ_PER_AXIS, PER_AXIS_CONSTS, PER_AXIS_X)
    _assert_same(q, PER_AXIS_Q)
    _assert_same(y, PER_AXIS_Y)


def test_float16_qdq_and_an_int32_dequantize_run_as_tvm_and_onnxruntime():
    q, y, iy = (np.asarray(v) for v in run_module(QDQ_FLOAT16, FLOAT16_H, FLOAT16_I))
    _assert_same(q, FLOAT16_Q)
    _assert_same(y, FLOAT16_Y)
    _assert_same(iy, FLOAT16_IY)


def test_int16_per_axis_qdq_saturates_as_tvm_and_onnxruntime():
    q, y = _run_with_consts(QDQ_INT16, INT16_CONSTS, INT16_X)
    _assert_same(q, INT16_Q)
    _assert_same(y, INT16_Y)


def test_calls_print_with_keywords_in_tvms_python_order():
    printed = script(parse(QDQ_PER_AXIS))
    assert (
        'R.quantize(x, R.const(0.5, "float32"), metadata["ir.GenericConst"][0], axis=1, out_dtype="uint8")' in printed
    )
    assert "R.dequantize(lv2, metadata[" in printed
    # a positional call binds as TVM's relax.op.quantize(data, scale, zero_point, axis, out_dtype)
    positional = QDQ_INT16.replace('out_dtype="int16", axis=0)', '0, "int16")', 1)
    assert structural_equal(parse(positional), parse(QDQ_INT16))


def test_placed_module_keeps_the_calls():
    placed = placement.place(ir.bind_constants(parse(QDQ_INT16), INT16_CONSTS), default="host").module
    assert (
        'R.quantize(x, metadata["ir.GenericConst"][0], metadata["ir.GenericConst"][1], axis=0, out_dtype="int16")'
        in script(placed)
    )


# -- inference -------------------------------------------------------------------------------


def test_inference_gives_the_data_shape_in_out_dtype():
    s, z = T((), "float32"), T((), "int8")
    assert infer("quantize", T((2, 3)), s, z, axis=1, out_dtype="uint8") == T((2, 3), "uint8")
    assert infer("quantize", T((2, 3)), s, z) == T((2, 3), "int8")  # TVM's defaults: axis=-1, int8
    assert infer("quantize", T(("n", 3), "float16"), T((3,)), T((1,), "uint8"), out_dtype="int16") == T(
        ("n", 3), "int16"
    )
    assert infer("quantize", T(("n", 3)), T(("n",)), T((), "int8"), axis=0) == T(("n", 3), "int8")
    assert infer("quantize", T(None, ndim=2), T((4,)), T((4,), "int8"), axis=1) == T(None, "int8", ndim=2)
    assert infer("quantize", T(None), T((4,)), T((4,), "int8"), axis=5) == T(None, "int8")
    assert infer("quantize", T(()), T((1,)), T((), "uint8"), axis=0) == T((), "int8")
    assert infer("dequantize", T((2, 3), "int8"), s, z) == T((2, 3), "float32")
    assert infer(
        "dequantize", T((2, 3), "int32"), T((2,), "float16"), T((2,), "int32"), axis=0, out_dtype="float16"
    ) == T((2, 3), "float16")
    assert infer("dequantize", T((4,), "float16"), s, T((), "float16")) == T((4,), "float32")


@pytest.mark.parametrize(
    "op, data, scale, zp, attrs, message",
    [
        (
            "quantize",
            T((2, 3), "int8"),
            T(()),
            T((), "int8"),
            {},
            "R.quantize: data's dtype must be one of float16, float32; got int8",
        ),
        (
            "quantize",
            T((2, 3), "float64"),
            T(()),
            T((), "int8"),
            {},
            "data's dtype must be one of float16, float32; got float64",
        ),
        (
            "quantize",
            T((2, 3)),
            T((), "float64"),
            T((), "int8"),
            {},
            "R.quantize: scale's dtype must be one of float16, float32; got float64",
        ),
        (
            "quantize",
            T((2, 3)),
            T(()),
            T((), "int64"),
            {},
            "R.quantize: zero_point's dtype must be one of int8, uint8, int16, uint16, int32, uint32, float16; got int64",
        ),
        (
            "quantize",
            T((2, 3)),
            T(()),
            T((), "int8"),
            {"out_dtype": "int32"},
            "R.quantize: out_dtype must be one of int8, uint8, int16, uint16; got 'int32'",
        ),
        ("quantize", T((2, 3)), T(()), T((), "int8"), {"out_dtype": "float8_e4m3fn"}, "vdplace has no float8 dtypes"),
        (
            "quantize",
            T((2, 3), "float16"),
            T((), "float16"),
            T((), "uint16"),
            {"out_dtype": "uint16"},
            "R.quantize: uint16 from float16 data and a float16 scale",
        ),
        (
            "quantize",
            T((2, 3)),
            T((2,)),
            T((), "int8"),
            {"axis": 1},
            r"R.quantize: scale has 2 entries but data has 3 along axis 1 \(shape \(2, 3\)\); it must be a scalar, or have 1 or 3 entries",
        ),
        (
            "quantize",
            T((2, 3)),
            T((3,)),
            T((4,), "int8"),
            {"axis": -1},
            "R.quantize: zero_point has 4 entries but data has 3 along axis 1",
        ),
        (
            "quantize",
            T((2, "n")),
            T((3,)),
            T((), "int8"),
            {"axis": 1},
            "scale has 3 entries but data has n along axis 1",
        ),
        (
            "quantize",
            T((2, 3)),
            T((1, 3)),
            T((), "int8"),
            {},
            r"R.quantize: scale must be a scalar or a 1-D tensor, got rank 2 \(shape \(1, 3\)\)",
        ),
        (
            "quantize",
            T((2, 3)),
            T(()),
            T((), "int8"),
            {"axis": 2},
            r"R.quantize: axis 2 is out of range for data of rank 2 \(use -2..1\)",
        ),
        (
            "quantize",
            T((2, 3)),
            T(()),
            T((), "int8"),
            {"axis": -3},
            "R.quantize: axis -3 is out of range for data of rank 2",
        ),
        ("quantize", T(()), T(()), T((), "int8"), {"axis": 1}, "R.quantize: axis 1 is out of range for rank-0 data"),
        ("quantize", T(()), T((3,)), T((), "int8"), {}, r"R.quantize: scale of shape \(3,\) does not fit rank-0 data"),
        ("quantize", T((2, 3)), T(()), T((), "int8"), {"axis": 1.0}, "R.quantize: axis must be an integer"),
        (
            "dequantize",
            T((2, 3), "int64"),
            T(()),
            T((), "int8"),
            {},
            "R.dequantize: data's dtype must be one of int8, uint8, int16, uint16, int32, float16, float32; got int64",
        ),
        (
            "dequantize",
            T((2, 3), "int8"),
            T((), "int8"),
            T((), "int8"),
            {},
            "R.dequantize: scale's dtype must be one of float16, float32; got int8",
        ),
        (
            "dequantize",
            T((2, 3), "int8"),
            T(()),
            T((), "float32"),
            {},
            "R.dequantize: zero_point's dtype must be one of",
        ),
        (
            "dequantize",
            T((2, 3), "int8"),
            T(()),
            T((), "int8"),
            {"out_dtype": "int8"},
            "R.dequantize: out_dtype must be one of float32, float16; got 'int8'",
        ),
        (
            "dequantize",
            T((2, 3), "int8"),
            T((3,)),
            T((), "int8"),
            {"axis": 0},
            "R.dequantize: scale has 3 entries but data has 2 along axis 0",
        ),
    ],
)
def test_inference_errors_name_the_mismatch(op, data, scale, zp, attrs, message):
    with pytest.raises(InferenceError, match=message):
        infer(op, data, scale, zp, **attrs)


def test_a_mismatch_only_the_run_reveals_is_a_kernel_error():
    kernel = get_op("quantize").kernel
    with pytest.raises(ValueError, match=r"R.quantize: scale has 3 entries but data has shape \(2, 4\) \(axis 1\)"):
        kernel(np.zeros((2, 4), np.float32), np.float32([1, 2, 3]), np.asarray(0, np.int8), axis=1)


def test_kernels_saturate_and_round_half_to_even():
    quantize, dequantize = get_op("quantize").kernel, get_op("dequantize").kernel
    x = np.float32([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1e9, -1e9, np.inf, -np.inf, np.nan])
    got = quantize(x, np.asarray(1, np.float32), np.asarray(0, np.int8), out_dtype="int8")
    np.testing.assert_array_equal(got, np.int8([0, 2, 2, 0, -2, -2, 127, -128, 127, -128, 127]))  # as TVM: NaN -> max
    # float16 working precision: the int16 bound 32767 becomes 32768, which wraps as in TVM's build
    h = quantize(np.float16([100, 40000]), np.asarray(1, np.float16), np.asarray(0, np.int16), out_dtype="int16")
    np.testing.assert_array_equal(h, np.int16([100, -32768]))
    big = dequantize(np.int32([2**31 - 1, 5]), np.asarray(1, np.float32), np.asarray(-1, np.int32))
    np.testing.assert_array_equal(big, np.float32([-(2.0**31), 6]))  # the int32 subtraction wraps
    half = dequantize(np.int8([127, -128]), np.asarray(1000, np.float32), np.asarray(0, np.int8), out_dtype="float16")
    np.testing.assert_array_equal(half, np.float16([65504, -65504]))


def test_work_counts_four_and_two_flops_per_element():
    s, z = T((), "float32"), T((), "int8")
    assert get_op("quantize").work([T((4, 5)), s, z], T((4, 5), "int8")) == Work(80.0, 80 + 4 + 1, 20.0)
    assert get_op("dequantize").work([T((4, 5), "int8"), s, z], T((4, 5))) == Work(40.0, 20 + 4 + 1, 80.0)
