"""The ops a sweep of TVM 0.27's PyTorch frontend found missing: trig, numeric, xor, slice_scatter, search, median.

Kernel cases are in tests/cases_misc.py.  The values pinned here are what
apache-tvm 0.27.0.post1 computed for the same calls, compiled for llvm.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_ops import T, infer, run
from vdplace import placement, runtime
from vdplace.ir import InferenceError, get_op, parse, script, structural_equal
from vdplace.ir.op import Work
from vdplace.ir.struct_info import PrimStructInfo, TupleStructInfo

I64 = "int64"


def P(value: int) -> PrimStructInfo:
    return PrimStructInfo(I64, value)


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


# -- slice_scatter ----------------------------------------------------------------------------


def test_slice_scatter_inference_and_errors():
    x, src = T((2, 3, 4)), T((2, 3, 2))
    assert infer("slice_scatter", x, src, P(0), P(4), P(2), axis=2) == x
    assert infer("slice_scatter", x, src, P(1), P(5), P(2), axis=-1) == x
    assert infer("slice_scatter", x, T((2, 3, "k")), PrimStructInfo(I64), P(4), P(2), axis=2) == x
    for args, attrs, message in [
        ((x, T((2, 3, 3)), P(0), P(4), P(2)), {"axis": 2}, "src has 3 entries along axis 2, the slice selects 2"),
        ((x, T((2, 2, 2)), P(0), P(4), P(2)), {"axis": 2}, r"differs from input_tensor shape \(2, 3, 4\) at axis 1"),
        ((x, T((2, 3, 2), I64), P(0), P(4), P(2)), {"axis": 2}, "dtypes float32 and int64 differ"),
        ((x, src, P(0), P(4), P(0)), {"axis": 2}, "step must be at least 1, got 0"),
        ((x, T((2, 3, 0)), P(3), P(1), P(1)), {"axis": 2}, "start 3 is greater than end 1"),
        ((x, src, P(0), P(4), P(2)), {"axis": 3}, "axis 3"),
        ((x, src, PrimStructInfo("float32", 0.0), P(4), P(2)), {"axis": 2}, "start must be an integer prim value"),
    ]:
        with pytest.raises(InferenceError, match=r"R\.slice_scatter: .*" + message):
            infer("slice_scatter", *args, **attrs)


def test_slice_scatter_takes_positions_as_written_as_tvm_does():
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    src = -np.ones((2, 2), np.float32)
    out = run("slice_scatter", x, src, np.int64(1), np.int64(5), np.int64(2), axis=1)  # positions 1 and 3
    np.testing.assert_array_equal(out, [[0, -1, 2, -1], [4, -1, 6, -1]])
    same = run("slice_scatter", x, src, np.int64(-3), np.int64(-1), np.int64(1), axis=1)  # no position in [0, 4)
    np.testing.assert_array_equal(same, x)


SLICE_SCATTER_SOURCE = """
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

    @R.function
    def main(x: R.Tensor((2, 3, 10), "float32"), s: R.Tensor((2, 3, 4), "float32")):
        y = R.slice_scatter(x, s, 1, 9, 2, axis=2)
        return y
"""


def test_slice_scatter_parses_prints_and_runs():
    mod = parse(SLICE_SCATTER_SOURCE)
    text = script(mod)
    assert "= R.slice_scatter(x, s, " in text and "axis=2)" in text
    assert structural_equal(parse(text), mod)
    x, s = np.zeros((2, 3, 10), np.float32), np.ones((2, 3, 4), np.float32)
    vm = runtime.VirtualMachine(runtime.compile(placement.place(mod, default="host").module))
    out = vm.run("main", x, s)
    assert out[0, 0].tolist() == [0, 1, 0, 1, 0, 1, 0, 1, 0, 0]


# -- nonzero and bucketize --------------------------------------------------------------------


def test_nonzero_knows_only_the_rank_and_counts_a_0d_tensor_as_1d():
    assert infer("nonzero", T((2, "n"), "bool")) == T(None, I64, ndim=2)
    assert run("nonzero", np.array(3.0, np.float32)).tolist() == [[0]]
    assert run("nonzero", np.array(0.0, np.float32)).shape == (1, 0)
    np.testing.assert_array_equal(run("nonzero", np.int32([[[0, 1], [1, 0]]])), [[0, 0], [0, 1], [1, 0]])


def test_bucketize_inference_errors_and_tvm_values():
    assert infer("bucketize", T(("n", 4)), T((3,)), out_int32=True) == T(("n", 4), "int32")
    with pytest.raises(InferenceError, match="R.bucketize: boundaries must have rank 1"):
        infer("bucketize", T((4,)), T((1, 2)))
    with pytest.raises(InferenceError, match="R.bucketize: input_tensor must be a number tensor, got dtype bool"):
        infer("bucketize", T((4,), "bool"), T((2,)))
    v = np.float32([[-2, -1, -0.5, 0], [0.5, 1, 2, np.nan]])
    b = np.float32([-1.0, 0.0, 1.0])
    np.testing.assert_array_equal(run("bucketize", v, b), [[0, 0, 1, 1], [2, 2, 3, 0]])
    np.testing.assert_array_equal(run("bucketize", v, b, right=True), [[0, 1, 1, 2], [2, 3, 3, 0]])


def test_bucketize_work_is_a_binary_search_per_entry():
    assert get_op("bucketize").work([T((10,)), T((7,))], T((10,), I64), {}) == Work(30, 68, 80)


# -- median -----------------------------------------------------------------------------------


def test_median_inference():
    both = TupleStructInfo([T((2,)), T((2,), I64)])
    assert infer("median", T((2, 4)), axis=[-1]) == both
    assert infer("median", T((2, 4)), axis=1) == both
    assert infer("median", T((2, 4)), axis=[0], keepdims=True) == TupleStructInfo([T((1, 4)), T((1, 4), I64)])
    assert infer("median", T((2, 4), "int32")) == T((), "int32")
    assert infer("median", T((2, 4)), keepdims=True) == T((1, 1))
    assert infer("median", T(None, ndim=3), axis=0) == TupleStructInfo([T(None, ndim=2), T(None, I64, ndim=2)])
    for args, attrs, message in [
        ((T((2, 4)),), {"axis": [0, 1]}, "axis must name exactly one axis, got \\[0, 1\\]"),
        ((T((2, 4)),), {"axis": 2}, "axis 2"),
        ((T((2, 4), "bool"),), {}, "expects a float or integer tensor, got dtype bool"),
    ]:
        with pytest.raises(InferenceError, match="R.median: " + message):
            infer("median", *args, **attrs)


def test_median_is_the_lower_one_at_its_stable_position_as_in_tvm():
    md = np.float32([[3, 1, 2, 4], [5, 5, 1, 0]])
    values, index = run("median", md, axis=[-1])
    assert values.tolist() == [2, 1] and index.tolist() == [2, 2]
    values, index = run("median", md, axis=[0], keepdims=True)
    assert values.tolist() == [[3, 1, 1, 0]] and index.tolist() == [[0, 0, 1, 1]]
    values, index = run("median", np.float32([[5, 1, 5, 5], [2, 2, 2, 2], [1, np.nan, 0, 2]]), axis=1)
    assert values.tolist() == [5, 2, 1] and index.tolist() == [0, 1, 0]
    assert run("median", md).item() == 2.0


def test_median_work_sorts_the_reduced_axis():
    out = TupleStructInfo([T((2,)), T((2,), I64)])
    assert get_op("median").work([T((2, 8))], out, {"axis": [1], "keepdims": False}) == Work(48, 64, 24)
