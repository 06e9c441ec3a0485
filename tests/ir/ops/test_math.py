# ruff: noqa: E501  (the TVMScript texts keep the lines TVM printed)
"""The elementwise math and logic ops (ir/ops/common.py, math.py, trig.py, numeric.py, xor.py).

Inference, errors, kernels and work of the unary math (rsqrt, erf, trig), logic and xor ops,
isnan/isinf/isfinite, atan2, arithmetic on bool masks (add as or, multiply as and) and clip (its
bounds converted to the tensor's dtype, saturating, infinite bounds on integer tensors as TVM's
frontend prints them).  Kernel cases are in tests/ir/ops/cases_misc.py and cases_probe.py; the
values pinned here are what apache-tvm 0.27.0.post1 computed for the same calls, compiled for llvm.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.ir.ops.helpers import P, _torch, run_module
from tests.ir.ops.test_kernels import T, infer, rand, run
from vdplace.ir import InferenceError, get_op
from vdplace.ir.op import Work

I64 = "int64"


@pytest.mark.parametrize(
    "name, params",
    [
        ("atan2", [("x1", None), ("x2", None)]),
        ("isfinite", [("x", None)]),
        ("logical_xor", [("x1", None), ("x2", None)]),
        (
            "slice_scatter",
            [("input_tensor", None), ("src", None), ("start", None), ("end", None), ("step", None), ("axis", 0)],
        ),
        ("nonzero", [("x", None)]),
        ("bucketize", [("input_tensor", None), ("boundaries", None), ("out_int32", False), ("right", False)]),
        ("median", [("x", None), ("axis", None), ("keepdims", False)]),
    ],
)
def test_parameter_names_order_and_defaults_follow_tvm(name, params):
    got = get_op(name).params
    assert [p.name for p in got] == [n for n, _ in params]
    for p, (_, default) in zip(got, params, strict=True):
        if default is not None:
            assert p.default == default


# -- elementwise ------------------------------------------------------------------------------


def test_elementwise_inference_and_errors():
    assert infer("tan", T(("n", 3), "float16")) == T(("n", 3), "float16")
    assert infer("atan2", T((2, 1)), T((4,))) == T((2, 4))
    assert infer("isnan", T((2, "n"))) == T((2, "n"), "bool")
    assert infer("isinf", T((3,), I64)) == T((3,), "bool")
    assert infer("trunc", T((3,), "bool")) == T((3,), "bool")
    assert infer("bitwise_xor", T((2, 3), "int32"), T((3,), "int32")) == T((2, 3), "int32")
    assert infer("logical_xor", T(None, "bool", ndim=2), T((3,), "bool")) == T(None, "bool", ndim=2)
    for op, args, message in [
        ("asin", (T((3,), I64),), "R.asin: expects a float tensor, got dtype int64"),
        ("atan2", (T((3,), "int32"), T((3,), "int32")), "R.atan2: expects a float tensor, got dtype int32"),
        ("atan2", (T((3,)), T((3,), "float16")), "R.atan2: dtypes float32 and float16 differ"),
        ("isfinite", (T((3,), "bool"),), "R.isfinite: expects a float or integer tensor, got dtype bool"),
        ("bitwise_xor", (T((3,)), T((3,))), "R.bitwise_xor: expects a bool or integer tensor, got dtype float32"),
    ]:
        with pytest.raises(InferenceError, match=message):
            infer(op, *args)


def test_elementwise_values_match_tvm():
    f = np.float32([-2.5, -0.5, 0.0, 0.3, 1.5, np.inf, -np.inf, np.nan])
    np.testing.assert_allclose(run("acos", f)[:5], [np.nan, 2.0943952, 1.5707964, 1.2661036, np.nan], rtol=1e-6)
    np.testing.assert_allclose(run("atanh", f)[:5], [np.nan, -0.54930615, 0.0, 0.3095196, np.nan], rtol=1e-6)
    np.testing.assert_array_equal(run("trunc", f), [-2, -0.0, 0, 0, 1, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(run("isfinite", f), [1, 1, 1, 1, 1, 0, 0, 0])
    flip = f[::-1].copy()
    want = [np.nan, -3.1415927, 0.0, 0.19739556, 1.3734008, 1.5707964, -1.5707964, np.nan]
    np.testing.assert_allclose(run("atan2", f, flip), want, rtol=1e-6)
    i = np.int64([-3, 0, 2, 7])
    np.testing.assert_array_equal(run("logical_xor", i, i[::-1].copy()), [-6, 2, 2, -6])  # bitwise, as TVM lowers it


def test_trig_ops_count_four_flops_per_element():
    assert get_op("cosh").work([T((2, 3))], T((2, 3)), {}) == Work(24, 24, 24)


# -- unary math and logic ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["rsqrt", "erf", "sin", "cos", "log1p"])
def test_float_only_math_rejects_integer_tensors(name):
    with pytest.raises(InferenceError, match=rf"R\.{name}: expects a float tensor, got dtype int32"):
        infer(name, T((2,), "int32"))


@pytest.mark.parametrize("name", ["logical_and", "bitwise_or"])
def test_logic_ops_reject_floats_and_broadcast(name):
    with pytest.raises(InferenceError, match=rf"R\.{name}: expects a bool or integer tensor, got dtype float32"):
        infer(name, T((2,), "bool"), T((2,), "float32"))
    assert infer(name, T(("n", 1), "bool"), T((3,), "bool")) == T(("n", 3), "bool")


def test_erf_is_accurate_in_float32_and_float16():
    import math

    x = np.linspace(-4, 4, 4001)
    expected = np.vectorize(math.erf)(x)
    np.testing.assert_allclose(run("erf", x.astype(np.float32)), expected, rtol=2e-7, atol=1e-30)
    np.testing.assert_allclose(run("erf", np.array([-1e-20, 1e-20])), [-1.1283791670955126e-20, 1.1283791670955126e-20])
    np.testing.assert_allclose(run("erf", x.astype(np.float16)), expected, rtol=1e-3)
    assert np.isnan(run("erf", np.array([np.nan], np.float32))[0])


# -- bool masks ---------------------------------------------------------------------------------

BOOL_ARITH = """
@I.ir_module
class Module:
    @R.function
    def main(a_0: R.Tensor((3, 4), dtype="float32"), a_1: R.Tensor((3, 4), dtype="bool"), a_2: R.Tensor((3, 4), dtype="bool")) -> R.Tuple(R.Tensor((3, 4), dtype="bool"), R.Tensor((3, 4), dtype="bool")):
        R.func_attr({"num_input": 3, "params": []})
        with R.dataflow():
            lv: R.Tensor((3, 4), dtype="float32") = R.abs(a_0)
            lv1: R.Tensor((3, 4), dtype="bool") = R.not_equal(lv, R.const("inf", "float32"))
            lv2: R.Tensor((3, 4), dtype="bool") = R.equal(a_0, a_0)
            lv3: R.Tensor((3, 4), dtype="bool") = R.multiply(lv2, lv1)
            lv5: R.Tensor((3, 4), dtype="bool") = R.add(a_1, a_2)
            gv: R.Tuple(R.Tensor((3, 4), dtype="bool"), R.Tensor((3, 4), dtype="bool")) = lv3, lv5
            R.output(gv)
        return gv
"""


def test_bool_masks_add_as_or_and_multiply_as_and():
    x = rand(3, 4)
    x[0, 0], x[1, 1], x[2, 2] = np.inf, -np.inf, np.nan
    m1, m2 = rand(3, 4) > 0, rand(3, 4) > 0
    finite, either = run_module(BOOL_ARITH, x, m1, m2)
    assert finite.dtype == either.dtype == np.bool_
    np.testing.assert_array_equal(finite, np.isfinite(x))
    np.testing.assert_array_equal(either, m1 | m2)
    torch = _torch()
    if torch is not None:
        tx, t1, t2 = (torch.from_numpy(v) for v in (x, m1, m2))
        np.testing.assert_array_equal(finite, torch.isfinite(tx).numpy())
        np.testing.assert_array_equal(either, (t1 + t2).numpy())
        np.testing.assert_array_equal(
            run_module(BOOL_ARITH, x, m1, m2)[0], ((tx == tx) * (tx.abs() != math.inf)).numpy()
        )


def test_bool_arithmetic_inference():
    assert infer("add", T((3, 1), "bool"), T((4,), "bool")) == T((3, 4), "bool")
    assert infer("multiply", T(("n",), "bool"), T(("n",), "bool")) == T(("n",), "bool")
    with pytest.raises(InferenceError, match="R.multiply: dtypes bool and int32 differ"):
        infer("multiply", T((3,), "bool"), T((3,), "int32"))
    with pytest.raises(InferenceError, match="R.subtract: arithmetic on bool tensors .* R.logical_xor"):
        infer("subtract", T((3,), "bool"), T((3,), "bool"))
    with pytest.raises(InferenceError, match="R.negative: arithmetic on bool tensors"):
        infer("negative", T((3,), "bool"))


# -- clip of an integer tensor ---------------------------------------------------------------------

CLIP = """
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3,), dtype="int64")) -> R.Tuple(R.Tensor((3,), dtype="int64"), R.Tensor((3,), dtype="int64")):
        with R.dataflow():
            lv: R.Tensor((3,), dtype="int64") = R.clip(a, 0, T.float64("inf"))
            lv1: R.Tensor((3,), dtype="int64") = R.clip(a, T.float64("-inf"), 1)
            gv: R.Tuple(R.Tensor((3,), dtype="int64"), R.Tensor((3,), dtype="int64")) = (lv, lv1)
            R.output(gv)
        return gv
"""


def test_clip_of_an_integer_tensor_with_infinite_bounds():
    a = np.int64([3, -2, 2**62])
    with np.errstate(invalid="raise", over="raise"):
        low, high = run_module(CLIP, a)
    np.testing.assert_array_equal(low, [3, 0, 2**62])
    np.testing.assert_array_equal(high, [1, -2, 1])
    torch = _torch()
    if torch is not None:
        t = torch.from_numpy(a)
        np.testing.assert_array_equal(low, torch.clamp(t, min=0).numpy())
        np.testing.assert_array_equal(high, torch.clamp(t, max=1).numpy())


def test_clip_bounds_saturate_instead_of_wrapping():
    kernel = get_op("clip").kernel
    np.testing.assert_array_equal(kernel(np.int8([-100, 5, 100]), np.int64(-1000), np.int64(3)), [-100, 3, 3])
    np.testing.assert_array_equal(kernel(np.uint8([0, 5, 200]), np.int64(-5), np.int64(300)), [0, 5, 200])
    with np.errstate(over="raise"):
        np.testing.assert_array_equal(kernel(np.float16([1, -6e4]), np.float64(-1e10), np.float64(1e10)), [1, -6e4])
    with pytest.raises(InferenceError, match="R.clip: max is NaN, which bounds no int64 value"):
        infer("clip", T((3,), "int64"), P("int64", 0), P("float64", math.nan))
    with pytest.raises(ValueError, match="R.clip: a NaN bound on a int32 tensor"):
        kernel(np.int32([1]), np.float64(math.nan), np.int64(2))


def test_clip_converts_its_bounds_to_the_tensor_dtype():
    x = np.array([-3, 0, 2, 9], np.int32)
    np.testing.assert_array_equal(run("clip", x, np.float64(-1.5), np.float64(2.5)), [-1, 0, 2, 2])
    assert np.isnan(run("clip", np.array([np.nan], np.float32), np.float64(0), np.float64(1))[0])
