"""``R.matmul(x1, x2, out_dtype=None)`` with NumPy's semantics, and ``R.outer(x1, x2)``.

1-D operands are promoted (a leading 1 for x1, a trailing 1 for x2) and the
added axis removed from the result; leading batch axes broadcast.  Without
`out_dtype` both operands must share a dtype (as in TVM); with it, the
operands are converted to `out_dtype` before multiplying, so int8 inputs can
accumulate in int32.

The torch kernel computes float16 in float32 on the CPU (as the NumPy kernel
does) and falls back to NumPy for integer results: CUDA has no integer matmul.
``R.outer`` takes two 1-D tensors of one dtype (n,) and (m,) and gives (n, m);
one FLOP per result element.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dtype import to_numpy, torch_dtype
from ..errors import InferenceError
from ..op import ATTR, Fallback, Param, TorchContext, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo
from .common import broadcast_shapes, optional_dtype, same_dtype
from .special import work_dtype


def _result_ndim(n1: int, n2: int) -> int:
    if n1 == 1 and n2 == 1:
        return 0
    if n1 == 1:
        return n2 - 1
    if n2 == 1:
        return n1 - 1
    return max(n1, n2)


def _infer_matmul(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    a = expect_tensor("matmul", args, 0)
    b = expect_tensor("matmul", args, 1)
    out_dtype = optional_dtype("matmul", "out_dtype", attrs["out_dtype"])
    dtype = out_dtype or same_dtype("matmul", a, b)
    for i, t in enumerate((a, b)):
        if t.ndim == 0:
            raise InferenceError(f"R.matmul: operand {i} is a scalar (rank 0); matmul needs rank >= 1")
    if a.shape is None or b.shape is None:
        ndim = _result_ndim(a.ndim, b.ndim) if a.ndim > 0 and b.ndim > 0 else -1
        return TensorStructInfo(None, dtype, ndim)
    sa = (1, *a.shape) if a.ndim == 1 else a.shape
    sb = (*b.shape, 1) if b.ndim == 1 else b.shape
    ka, kb = sa[-1], sb[-2]
    if isinstance(ka, int) and isinstance(kb, int) and ka != kb:
        raise InferenceError(
            f"R.matmul: reduction dims differ: x1 {a.shape} has {ka} columns, x2 {b.shape} has {kb} rows"
        )
    shape: tuple[Dim, ...] = broadcast_shapes("matmul", sa[:-2], sb[:-2])
    if a.ndim > 1:
        shape += (sa[-2],)
    if b.ndim > 1:
        shape += (sb[-1],)
    return TensorStructInfo(shape, dtype)


def _matmul(x1: np.ndarray, x2: np.ndarray, out_dtype: str | None) -> np.ndarray:
    dtype = optional_dtype("matmul", "out_dtype", out_dtype)
    result = to_numpy(dtype) if dtype else np.result_type(x1, x2)
    acc = work_dtype(result)
    out = np.matmul(x1.astype(acc, copy=False), x2.astype(acc, copy=False))
    return np.asarray(out).astype(result, copy=False)


def _torch_matmul(t: TorchContext, x1: Any, x2: Any, out_dtype: str | None) -> Any:
    torch = t.torch
    dtype = optional_dtype("matmul", "out_dtype", out_dtype)
    result = torch_dtype(torch, dtype) if dtype else torch.result_type(x1, x2)
    if not result.is_floating_point:
        raise Fallback  # CUDA has no integer matmul
    acc = torch.float32 if result == torch.float16 and x1.device.type == "cpu" else result
    return torch.matmul(x1.to(acc), x2.to(acc)).to(result)


def _matmul_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """2 * batch * M * N * K FLOPs (the result's elements times 2K); both operands read, the result written."""
    a = args[0]
    k = a.shape[-1] if isinstance(a, TensorStructInfo) and a.shape else 1
    return Work(2.0 * elements(out) * (k if isinstance(k, int) else 1), data_bytes(args), data_bytes((out,)))


register_op(
    "matmul",
    [Param("x1"), Param("x2"), Param("out_dtype", ATTR, None)],
    _infer_matmul,
    _matmul,
    torch_kernel=_torch_matmul,
    work=_matmul_work,
    doc="Matrix product with NumPy semantics: batch broadcasting, 1-D operands.",
)


def _infer_outer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    a = expect_tensor("outer", args, 0)
    b = expect_tensor("outer", args, 1)
    dtype = same_dtype("outer", a, b)
    for i, t in enumerate((a, b)):
        if t.ndim not in (-1, 1):
            raise InferenceError(f"R.outer: operand {i} must be a 1-D tensor, got rank {t.ndim}")
    if a.shape is None or b.shape is None:
        return TensorStructInfo(None, dtype, 2)
    return TensorStructInfo((a.shape[0], b.shape[0]), dtype)


def _outer(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    dtype = np.result_type(x1, x2)
    return np.asarray(np.multiply.outer(x1, x2)).astype(dtype, copy=False)


register_op(
    "outer",
    [Param("x1"), Param("x2")],
    _infer_outer,
    _outer,
    doc="The outer product of two 1-D tensors of one dtype: result[i, j] = x1[i] * x2[j].",
)
