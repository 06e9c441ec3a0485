"""``R.median(x, axis=None, keepdims=False)``: the lower median, with its position when an axis is given.

With `axis` (one int, or a list of one int) the result is the tuple (values,
indices): along that axis, the entry at position (n - 1) // 2 of a stable
ascending sort (for an even n the lower of the two middle entries, as in
PyTorch and TVM), and its int64 position in `x`; equal entries keep their
input order, so the position is the one a stable sort puts there.  NaN sorts
above every number.  Without an axis the result is one tensor, the median of
all entries: 0-d, or with `keepdims` of shape (1, ..., 1) as TVM's inference
gives it.  `keepdims` keeps the reduced axis with length 1.  Float and integer
tensors; bool is an inference error (TVM's build rejects it), and so is more
than one axis (TVM's kernel returns garbage for it).

Work: a comparison sort of each reduced line, about log2(n) comparisons per
element.  No torch kernel.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, Param, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from .common import as_bool, normalize_axis

_OP = "median"


def _one_axis(axis: Any) -> int | None:
    """The reduced axis as written (None for all), or an InferenceError."""
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        if len(axis) != 1:
            raise InferenceError(f"R.{_OP}: axis must name exactly one axis, got {list(axis)}")
        axis = axis[0]
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise InferenceError(f"R.{_OP}: axis must be an int or a list of one int, got {axis!r}")
    return axis


def _infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    x = expect_tensor(_OP, args, 0)
    if x.dtype == "bool":
        raise InferenceError(f"R.{_OP}: expects a float or integer tensor, got dtype bool")
    keep = as_bool(_OP, "keepdims", attrs["keepdims"])
    axis = _one_axis(attrs["axis"])
    if axis is None:
        if not keep:
            return TensorStructInfo((), x.dtype)
        return TensorStructInfo(None if x.ndim < 0 else (1,) * x.ndim, x.dtype, x.ndim)
    if x.ndim < 0:
        out_ndim = -1
        shape = None
    else:
        ax = normalize_axis(_OP, axis, x.ndim)
        out_ndim = x.ndim if keep else x.ndim - 1
        shape = None
        if x.shape is not None:
            rest = (1,) if keep else ()
            shape = (*x.shape[:ax], *rest, *x.shape[ax + 1 :])
    return TupleStructInfo([TensorStructInfo(shape, x.dtype, out_ndim), TensorStructInfo(shape, "int64", out_ndim)])


def _median(x: np.ndarray, axis: Any, keepdims: bool) -> Any:
    ax = _one_axis(axis)
    if ax is None:
        flat = np.asarray(x).reshape(-1)
        value = flat[np.argsort(flat, kind="stable")[(flat.size - 1) // 2]]
        return np.full((1,) * x.ndim if keepdims else (), value, dtype=x.dtype)
    ax %= x.ndim
    pos = np.argsort(x, axis=ax, kind="stable")
    middle = np.take(pos, [(x.shape[ax] - 1) // 2], axis=ax)
    values = np.take_along_axis(x, middle, ax)
    if not keepdims:
        values, middle = np.squeeze(values, ax), np.squeeze(middle, ax)
    return np.asarray(values), np.asarray(middle).astype(np.int64)


def _work(args: Sequence[StructInfo], out: StructInfo, attrs: dict[str, Any]) -> Work:
    """ceil(log2(n)) comparisons per element, n the reduced length (every element without an axis)."""
    x = args[0]
    n = elements(x)
    axis = attrs.get("axis")
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    if isinstance(x, TensorStructInfo) and x.shape and isinstance(axis, int) and -len(x.shape) <= axis < len(x.shape):
        d = x.shape[axis]
        n = d if isinstance(d, int) else 1
    depth = math.ceil(math.log2(n)) if n > 1 else 1
    return Work(elements(x) * depth, data_bytes(args), data_bytes((out,)))


register_op(
    _OP,
    [Param("x"), Param("axis", ATTR, None), Param("keepdims", ATTR, False)],
    _infer,
    _median,
    work=_work,
    doc="The lower median along one axis (values and int64 positions), or of all entries.",
)
