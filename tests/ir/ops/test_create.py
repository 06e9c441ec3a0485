# ruff: noqa: E501  (the TVMScript texts keep the lines TVM printed)
"""The creation ops (ir/ops/create.py): zeros_like, ones_like, full_like and hamming_window.

hamming_window's repro module is what TVM 0.27's PyTorch frontend printed: it must parse, place
and run, and give what the definition (and torch, where it is installed) computes.  Kernel cases
are in tests/ir/ops/test_kernels.py's KERNEL_CASES and tests/ir/ops/cases_probe.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ir.ops.cases_probe import hamming_ref
from tests.ir.ops.helpers import P, _torch, run_module
from tests.ir.ops.test_kernels import T, infer, rand
from vdplace.ir import InferenceError, get_op, parse, script
from vdplace.ir.op import Work

# -- *_like ---------------------------------------------------------------------------------------


def test_like_creation_inference_and_work():
    assert infer("zeros_like", T(("n", 3), "float16")) == T(("n", 3), "float16")
    assert infer("ones_like", T(("n",), "float16"), dtype="int32") == T(("n",), "int32")
    assert infer("full_like", T((2, 3), "int32"), T((), "float32")) == T((2, 3), "int32")
    with pytest.raises(InferenceError, match=r"R\.full_like: fill_value must be a scalar"):
        infer("full_like", T((2, 3)), T((3,)))
    assert get_op("zeros_like").work([T((2, 3))], T((2, 3))) == Work(0, 0, 24)
    assert get_op("full_like").work([T((2, 3)), T(())], T((2, 3))) == Work(0, 4, 24)


# -- hamming_window ---------------------------------------------------------------------------

HAMMING = """
@I.ir_module
class Module:
    @R.function
    def main(a_0: R.Tensor((2, 8), dtype="float32")) -> R.Tuple(R.Tensor((2, 8), dtype="float32")):
        R.func_attr({"num_input": 1, "params": []})
        with R.dataflow():
            lv: R.Tensor((8,), dtype="float32") = R.hamming_window(8, True, T.float64(0.54000000000000004), T.float64(0.46000000000000002), dtype="float32")
            lv1: R.Tensor((2, 8), dtype="float32") = R.multiply(a_0, lv)
            gv: R.Tuple(R.Tensor((2, 8), dtype="float32")) = (lv1,)
            R.output(gv)
        return gv
"""


def test_hamming_window_repro_matches_torch():
    a = rand(2, 8)
    (out,) = run_module(HAMMING, a)
    window = np.float32(hamming_ref(8, True, 0.54, 0.46))
    np.testing.assert_allclose(out, a * window, rtol=1e-6, atol=1e-7)
    torch = _torch()
    if torch is not None:
        want = (torch.from_numpy(a) * torch.hamming_window(8)).numpy()
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-7)
    text = script(parse(HAMMING))
    assert "R.hamming_window(R.prim_value(8), R.prim_value(True), R.prim_value(0.54), R.prim_value(0.46)" in text


@pytest.mark.parametrize("n, periodic", [(1, True), (2, False), (7, False), (16, True), (33, True)])
def test_hamming_window_values_match_the_definition_and_torch(n, periodic):
    kernel = get_op("hamming_window").kernel
    out = kernel(np.int64(n), np.bool_(periodic), np.float64(0.54), np.float64(0.46), dtype="float64")
    np.testing.assert_allclose(out, hamming_ref(n, periodic, 0.54, 0.46), rtol=1e-12, atol=1e-15)
    torch = _torch()
    if torch is not None:
        want = torch.hamming_window(n, periodic, 0.54, 0.46, dtype=torch.float64).numpy()
        np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-15)


def test_hamming_window_inference_and_errors():
    args = (P("int64", 8), P("bool", True), P("float64", 0.54), P("float64", 0.46))
    assert infer("hamming_window", *args, dtype="float32") == T((8,), "float32")
    assert infer("hamming_window", P("int64", "n"), *args[1:], dtype="float16") == T(("n",), "float16")
    assert infer("hamming_window", P("int64", None), *args[1:], dtype="float16") == T(None, "float16", ndim=1)
    for sinfos, dtype, message in [
        (args, "int32", "R.hamming_window: dtype must be a float type, got int32"),
        (args, "bool", "R.hamming_window: dtype must be a float type, got bool"),
        ((P("int64", 0), *args[1:]), "float32", "R.hamming_window: window_size must be at least 1, got 0"),
        ((P("float64", 8.0), *args[1:]), "float32", "R.hamming_window: window_size must be an integer"),
        ((T((8,)), *args[1:]), "float32", "R.hamming_window: window_size must be a prim value"),
        ((*args[:2], P("int64", "n"), args[3]), "float32", "R.hamming_window: alpha must be a number"),
    ]:
        with pytest.raises(InferenceError, match=message):
            infer("hamming_window", *sinfos, dtype=dtype)
