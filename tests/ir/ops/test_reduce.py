"""The reductions and scans (ir/ops/reduce.py, median.py): inference, errors, kernels and work.

min, prod, argmax, argmin, variance, std, cumsum and cumprod (with exclusive), and median (its
lower middle at a stable position, as TVM computes it).  Kernel cases are in
tests/ir/ops/test_kernels.py's KERNEL_CASES and tests/ir/ops/cases_misc.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ir.ops.test_kernels import T, infer, run
from vdplace.ir import InferenceError, get_op
from vdplace.ir.op import Work
from vdplace.ir.struct_info import TupleStructInfo

I64 = "int64"


# -- reductions and scans -------------------------------------------------------------------------------


def test_argmax_inference_and_errors():
    assert infer("argmax", T(("n", 4)), axis=1) == T(("n",), "int64")
    assert infer("argmin", T(("n", 4)), keepdims=True) == T((1, 1), "int64")
    with pytest.raises(InferenceError, match=r"R\.argmax: axis must be an integer"):
        infer("argmax", T((2, 3)), axis=[0, 1])
    with pytest.raises(InferenceError, match=r"R\.argmin: the minimum over an empty axis"):
        infer("argmin", T((2, 0)), axis=1)


def test_min_prod_variance_inference():
    assert infer("min", T(("n", 4)), axis=-1) == T(("n",))
    assert infer("prod", T((2, 3), "int32"), keepdims=True) == T((1, 1), "int32")
    assert infer("variance", T(("n", 4)), axis=[0]) == T((4,))
    assert get_op("std").work([T((2, 3))], T(())) == Work(24, 24, 4)


def test_cumsum_inference_and_errors():
    assert infer("cumsum", T(("n", 4), "int32")) == T(("n * 4",), "int32")
    assert infer("cumsum", T(("n", 4), "int32"), axis=1, dtype="int64") == T(("n", 4), "int64")
    assert infer("cumprod", T(None, ndim=2), axis=0) == T(None, ndim=2)
    with pytest.raises(InferenceError, match=r"R\.cumsum: axis 2 is out of range"):
        infer("cumsum", T((2, 3)), axis=2)
    with pytest.raises(InferenceError, match=r"R\.cumsum: exclusive must be True or False"):
        infer("cumsum", T((2, 3)), exclusive=1)


def test_cumsum_exclusive_shifts_along_the_axis():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    np.testing.assert_array_equal(run("cumsum", x, axis=1, exclusive=True), [[0, 1, 3], [0, 4, 9]])
    np.testing.assert_array_equal(run("cumsum", x, axis=0, exclusive=True), [[0, 0, 0], [1, 2, 3]])
    np.testing.assert_array_equal(run("cumprod", x, axis=1, exclusive=True), [[1, 1, 2], [1, 4, 20]])
    assert run("cumsum", np.zeros((2, 0), np.float32), axis=1, exclusive=True).shape == (2, 0)
    half = run("cumsum", np.full(3000, 1.0, np.float16), dtype="float32")
    assert half[-1] == 3000.0
    assert run("cumsum", np.array([True, False, True]), dtype="int32").tolist() == [1, 1, 2]


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
