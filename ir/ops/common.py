"""Shared inference helpers for the op library: broadcasting, dtype checks."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InferenceError
from ..struct_info import Dim, StructInfo, TensorStructInfo
from ..op import expect_tensor


def broadcast_shapes(op: str, a: Sequence[Dim], b: Sequence[Dim]) -> tuple[Dim, ...]:
    """NumPy broadcasting; symbolic dims must be equal or meet a 1."""
    out: list[Dim] = []
    for i in range(max(len(a), len(b))):
        da = a[len(a) - 1 - i] if i < len(a) else 1
        db = b[len(b) - 1 - i] if i < len(b) else 1
        if da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        elif isinstance(da, str) or isinstance(db, str):
            # Unknown at compile time: keep the symbolic one, checked at run time.
            out.append(da if isinstance(da, str) else db)
        else:
            raise InferenceError(f"R.{op}: shapes {tuple(a)} and {tuple(b)} do not broadcast")
    return tuple(reversed(out))


def same_dtype(op: str, a: TensorStructInfo, b: TensorStructInfo) -> str:
    if a.dtype and b.dtype and a.dtype != b.dtype:
        raise InferenceError(f"R.{op}: dtypes {a.dtype} and {b.dtype} differ")
    return a.dtype or b.dtype


def binary_infer(op: str, result_dtype: str | None = None):
    """Inference for an elementwise binary op (result dtype fixed or the operands')."""

    def infer(args: Sequence[StructInfo], attrs: dict) -> StructInfo:
        a = expect_tensor(op, args, 0)
        b = expect_tensor(op, args, 1)
        dtype = same_dtype(op, a, b)
        if a.shape is not None and b.shape is not None:
            shape: tuple[Dim, ...] | None = broadcast_shapes(op, a.shape, b.shape)
            return TensorStructInfo(shape, result_dtype or dtype)
        ndim = max(a.ndim, b.ndim) if a.ndim >= 0 and b.ndim >= 0 else -1
        return TensorStructInfo(None, result_dtype or dtype, ndim)

    return infer


def unary_infer(op: str, result_dtype: str | None = None):
    def infer(args: Sequence[StructInfo], attrs: dict) -> StructInfo:
        a = expect_tensor(op, args, 0)
        return TensorStructInfo(a.shape, result_dtype or a.dtype, a.ndim)

    return infer


def normalize_axis(op: str, axis: int, ndim: int) -> int:
    if ndim < 0:
        return axis
    if not -ndim <= axis < ndim:
        raise InferenceError(f"R.{op}: axis {axis} is out of range for a tensor of rank {ndim}")
    return axis % ndim
