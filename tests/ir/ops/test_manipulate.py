# ruff: noqa: E501  (the TVMScript texts keep the lines TVM printed)
"""The manipulation ops (ir/ops/manipulate.py) as TVM 0.27's PyTorch frontend prints them: R.stack, R.astype to bfloat16.

Each repro module is the frontend's printout (trimmed): it must parse, place
and run, and give what NumPy (and torch, where it is installed) computes for
the same inputs.  Kernel cases are in tests/ir/ops/cases_probe.py; R.assert_op and
R.print (bare statements) are in tests/ir/test_bare_statements.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ir.ops.cases_probe import bfloat16_ref
from tests.ir.ops.helpers import P, _torch, run_module
from tests.ir.ops.test_kernels import T, infer, rand
from vdplace.ir import InferenceError, get_op, parse, script
from vdplace.ir.op import Work
from vdplace.ir.struct_info import TupleStructInfo

# -- stack ------------------------------------------------------------------------------------

STACK = """
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4, 3), dtype="float32"), b: R.Tensor((4, 3), dtype="float32")) -> R.Tensor((4, 2, 3), dtype="float32"):
        with R.dataflow():
            lv27: R.Tensor((4, 2, 3), dtype="float32") = R.stack((a, b), axis=1)
            R.output(lv27)
        return lv27
"""


def test_stack_repro_runs_as_numpy_stack():
    a, b = rand(4, 3), rand(4, 3)
    np.testing.assert_array_equal(run_module(STACK, a, b), np.stack((a, b), axis=1))
    assert "R.stack((a, b), axis=1)" in script(parse(STACK))
    torch = _torch()
    if torch is not None:
        want = torch.stack((torch.from_numpy(a), torch.from_numpy(b)), dim=1).numpy()
        np.testing.assert_array_equal(run_module(STACK, a, b), want)


def test_stack_inference():
    tup = TupleStructInfo
    assert infer("stack", tup([T((4, 3)), T((4, 3))]), axis=1) == T((4, 2, 3))
    assert infer("stack", tup([T((4, 3)), T((4, 3))]), axis=-1) == T((4, 3, 2))
    assert infer("stack", tup([T((4, 3)), T((4, 3))]), axis=2) == T((4, 3, 2))
    assert infer("stack", tup([T(("n", 3), "int64")] * 3)) == T((3, "n", 3), "int64")
    assert infer("stack", tup([T((5,))]), axis=None) == T((1, 5))
    # A symbolic dim that may differ from the other tensor's: only the rank is known, as in TVM.
    assert infer("stack", tup([T(("n", 3)), T((4, 3))])) == T(None, ndim=3)
    assert infer("stack", tup([T(None, ndim=2), T((4, 3))]), axis=-3) == T(None, ndim=3)
    assert infer("stack", tup([T(None), T(None)])) == T(None, ndim=-1)
    assert get_op("stack").work([tup([T((4, 3)), T((4, 3))])], T((4, 2, 3))) == Work(0, 96, 96)


@pytest.mark.parametrize(
    "tensors, axis, message",
    [
        ([T((4, 3)), T((4, 3), "float16")], 0, "R.stack: tensors have different dtypes float16, float32"),
        ([T((4, 3)), T((4,))], 0, r"R.stack: tensors have different ranks \[1, 2\]"),
        ([T((4, 3)), T((4, 2))], 0, r"R.stack: tensors must have one shape; \(4, 3\) and \(4, 2\) differ at axis 1"),
        ([T((4, 3)), T((4, 3))], 3, "R.stack: axis 3 is out of range for a tensor of rank 3"),
        ([T((4, 3)), T((4, 3))], -4, "R.stack: axis -4 is out of range"),
        ([], 0, "R.stack: needs at least one tensor, got an empty tuple"),
        ([T((4, 3)), P("int64", 1)], 0, "R.stack: field 1 of tensors must be a tensor"),
    ],
)
def test_stack_errors_name_the_mismatch(tensors, axis, message):
    with pytest.raises(InferenceError, match=message):
        infer("stack", TupleStructInfo(tensors), axis=axis)


def test_stack_of_a_non_tuple_is_an_error():
    with pytest.raises(InferenceError, match="R.stack: tensors must be a tuple of tensors"):
        infer("stack", T((4, 3)))


# -- bfloat16 ------------------------------------------------------------------------------------

BF16 = """
@I.ir_module
class Module:
    @R.function
    def main(a_0: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4,), dtype="bfloat16") = R.astype(a_0, dtype="bfloat16")
            lv2: R.Tensor((4,), dtype="float32") = R.astype(lv, dtype="float32")
            R.output(lv2)
        return lv2
"""


def test_astype_to_bfloat16_and_back_rounds_like_torch():
    x = np.float32([0.12573022, -0.13210486, 1.00390625, 8.0625])  # 1.00390625 is a tie: even is 1.0
    out = run_module(BF16, x)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [bfloat16_ref(float(v)) for v in x])
    np.testing.assert_array_equal(out, [0.1259765625, -0.1318359375, 1.0, 8.0625])
    torch = _torch()
    if torch is not None:
        np.testing.assert_array_equal(out, torch.from_numpy(x).bfloat16().float().numpy())


def test_bfloat16_rounding_of_every_kind_of_value():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 2**32, size=4096, dtype=np.uint64).astype(np.uint32).view(np.float32)
    specials = [0.0, -0.0, np.inf, -np.inf, 3.4028235e38, -3.3961776e38, 1e-45, -1e-40, 1.17549435e-38, 2.0**-133]
    x = np.concatenate([x, np.float32(specials)])
    out = get_op("astype").kernel(x, dtype="bfloat16")
    finite = ~np.isnan(x)
    assert np.isnan(out[~finite]).all()
    np.testing.assert_array_equal(out[finite], [bfloat16_ref(float(v)) for v in x[finite]])
    torch = _torch()
    if torch is not None:
        want = torch.from_numpy(x).bfloat16().float().numpy()
        np.testing.assert_array_equal(out[finite], want[finite])
