"""The search ops (ir/ops/search.py): nonzero and bucketize, inference, TVM 0.27's values and work.

Kernel cases are in tests/ir/ops/cases_misc.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ir.ops.test_kernels import T, infer, run
from vdplace.ir import InferenceError, get_op
from vdplace.ir.op import Work

I64 = "int64"


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
