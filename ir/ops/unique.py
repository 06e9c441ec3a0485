"""``R.unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False, axis=None)``.

The distinct entries of `x` (flattened when `axis` is None, else distinct
slices along `axis`), ascending when `sorted`, else in the order they first
occur; then, as each flag asks, the int64 index of each one's first
occurrence, the index into them of each entry, and how often each occurs:
one tensor, or a tuple when a flag is set, as TVM gives them (checked against
TVM 0.27's build).  The count is known only at run time: inference gives
rank-1 tensors (rank of `x` for the values along an axis) with no shape, and
TVM's frontends follow the call with ``R.match_cast`` to name it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, Param, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo, TupleStructInfo

_FLAGS = ("return_index", "return_inverse", "return_counts")


def _infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    x = expect_tensor("unique", args, 0)
    axis = attrs["axis"]
    if axis is not None and (type(axis) is not int or (x.ndim >= 0 and not -x.ndim <= axis < x.ndim)):
        raise InferenceError(f"R.unique: axis {axis!r} is out of range for a tensor of rank {x.ndim}")
    for flag in ("sorted", *_FLAGS):
        if type(attrs[flag]) is not bool:
            raise InferenceError(f"R.unique: {flag} must be True or False, got {attrs[flag]!r}")
    values = TensorStructInfo(None, x.dtype, 1 if axis is None else x.ndim)
    extra = [TensorStructInfo(None, "int64", 1) for flag in _FLAGS if attrs[flag]]
    return TupleStructInfo([values, *extra]) if extra else values


def _unique(
    x: np.ndarray,
    *,
    sorted: bool,  # noqa: A002 - TVM's name
    return_index: bool,
    return_inverse: bool,
    return_counts: bool,
    axis: int | None,
) -> Any:
    x = np.asarray(x)
    values, index, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    inverse = inverse.reshape(-1)
    if not sorted:  # in the order of first occurrence
        order = np.argsort(index, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        values = np.take(values, order, axis=0 if axis is None else axis)
        index, counts, inverse = index[order], counts[order], rank[inverse]
    wanted = (return_index, return_inverse, return_counts)
    extra = [a.astype(np.int64) for a, on in zip((index, inverse, counts), wanted, strict=True) if on]
    return (values, *extra) if extra else values


def _work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    n = max(elements(args[0]), 2.0)
    return Work(n * np.log2(n), data_bytes(args), data_bytes((out,)))


register_op(
    "unique",
    [
        Param("x"),
        Param("sorted", ATTR, True),
        Param("return_index", ATTR, False),
        Param("return_inverse", ATTR, False),
        Param("return_counts", ATTR, False),
        Param("axis", ATTR, None),
    ],
    _infer,
    _unique,
    work=_work,
    doc="distinct entries (sorted or in first-occurrence order), with first indices, inverse and counts on request",
)
