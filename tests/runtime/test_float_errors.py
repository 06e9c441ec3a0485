# ruff: noqa: E501  (the TVMScript text keeps TVM's printed lines)
"""Kernels are silent where torch and TVM are: ``log(0)``, ``0 / 0`` and casts of ``-inf`` under ``-W error``.

The module is T5's relative-position bucketing, as TVM's PyTorch frontend
writes it: ``log(|i - j| / max_exact)`` is ``log(0) = -inf`` on the diagonal,
its cast to int64 is int64's minimum there, and ``R.where`` keeps the exact
bucket for small distances, so the answer holds no trace of either.  NumPy
reports both as `RuntimeWarning`s; the runtime runs its kernels without those
reports (`vdplace.runtime.float_errors`) and gives torch's values.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from vdplace import ir, placement, runtime

T5_BUCKETS = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), dtype="float32")) -> R.Tuple(R.Tensor((6, 6), dtype="int64"), R.Tensor((6, 6), dtype="int64"), R.Tensor((6,), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((6,), dtype="int64") = R.arange(0, 6, 1, dtype="int64")
            lv1: R.Tensor((1, 6), dtype="int64") = R.expand_dims(lv, axis=[0])
            lv2: R.Tensor((6, 1), dtype="int64") = R.expand_dims(lv, axis=[1])
            lv3: R.Tensor((6, 6), dtype="int64") = R.subtract(lv1, lv2)
            lv4: R.Tensor((6, 6), dtype="int64") = R.abs(lv3)
            lv5: R.Tensor((6, 6), dtype="bool") = R.less(lv4, R.const(2, "int64"))
            lv6: R.Tensor((6, 6), dtype="float32") = R.astype(lv4, dtype="float32")
            lv7: R.Tensor((6, 6), dtype="float32") = R.divide(lv6, R.const(2.0, "float32"))
            lv8: R.Tensor((6, 6), dtype="float32") = R.log(lv7)
            lv9: R.Tensor((6, 6), dtype="float32") = R.divide(lv8, R.const(1.3862943611198906, "float32"))
            lv10: R.Tensor((6, 6), dtype="float32") = R.multiply(lv9, R.const(2.0, "float32"))
            lv11: R.Tensor((6, 6), dtype="int64") = R.astype(lv10, dtype="int64")
            lv12: R.Tensor((6, 6), dtype="int64") = R.add(lv11, R.const(2, "int64"))
            lv13: R.Tensor((6, 6), dtype="int64") = R.minimum(lv12, R.const(3, "int64"))
            lv14: R.Tensor((6, 6), dtype="int64") = R.where(lv5, lv4, lv13)
            lv15: R.Tensor((6,), dtype="float32") = R.divide(x, x)
            gv: R.Tuple(R.Tensor((6, 6), dtype="int64"), R.Tensor((6, 6), dtype="int64"), R.Tensor((6,), dtype="float32")) = (lv14, lv11, lv15)
            R.output(gv)
        return gv
"""

X = np.array([0.0, 1.0, 2.0, 0.0, -3.0, 4.0], "float32")  # x / x: 0 / 0 is nan twice


def _expected_buckets() -> np.ndarray:
    """T5's bucket of |i - j| (max_exact 2, 4 buckets, max distance 8), computed without NumPy."""
    out = np.zeros((6, 6), "int64")
    for i in range(6):
        for j in range(6):
            rel = abs(j - i)
            out[i, j] = rel if rel < 2 else min(2 + int(math.log(rel / 2) / math.log(4) * 2), 3)
    return out


def _check(buckets: np.ndarray, cast: np.ndarray, ratio: np.ndarray) -> None:
    np.testing.assert_array_equal(buckets, _expected_buckets())
    # the cast of -inf (the diagonal) gives int64's minimum, as torch's and TVM's CPU kernels give
    assert (np.diag(cast) == np.iinfo(np.int64).min).all()
    assert np.isnan(ratio[[0, 3]]).all() and (ratio[[1, 2, 4, 5]] == 1).all()


@pytest.mark.filterwarnings("error")
def test_the_vm_runs_log_of_zero_and_a_cast_of_minus_inf_silently():
    placed = placement.place(ir.parse(T5_BUCKETS), default="host").module
    vm = runtime.VirtualMachine(runtime.compile(placed), devices="cpu")
    _check(*vm.run("main", X))


@pytest.mark.filterwarnings("error")
def test_the_reference_interpreter_runs_them_silently():
    _check(*runtime.run_reference(ir.parse(T5_BUCKETS), "main", X))


def test_torch_gives_the_same_cast_of_minus_inf():
    torch = pytest.importorskip("torch")
    values = torch.tensor([-math.inf, math.inf, math.nan])
    for dtype in ("int32", "int64"):
        with np.errstate(invalid="ignore"):
            ours = np.array([-math.inf, math.inf, math.nan], "float32").astype(dtype)
        np.testing.assert_array_equal(values.to(getattr(torch, dtype)).numpy(), ours)


def test_the_command_line_under_python_w_error(tmp_path):
    path = tmp_path / "t5_buckets.py"
    path.write_text(T5_BUCKETS)
    proc = subprocess.run(
        # Every warning an error, but the DeprecationWarnings old releases of dependencies raise on import.
        [sys.executable, "-W", "error", "-W", "ignore::DeprecationWarning", "-m", "vdplace", "run", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Warning" not in proc.stderr
