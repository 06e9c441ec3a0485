"""Sorting ops: ``R.sort``, ``R.argsort`` and ``R.topk``.

Parameters follow TVM's ``relax.op``: ``R.sort(x, axis=-1,
descending=False)``, ``R.argsort(data, axis=-1, descending=False,
dtype="int32")`` and ``R.topk(data, k=1, axis=-1, ret_type="both",
largest=True, dtype="int32")``.  topk returns the tuple (values, indices) for
``ret_type="both"`` and one tensor for ``"values"`` or ``"indices"``; a `k`
below 1 takes the whole axis and a larger `k` than the axis is cut to its
length, as TVM's inference does (for a symbolic axis the result has `k`
entries, as in TVM).  Indices have `dtype` (TVM allows any, floats included).

Ties keep their order in the input, ascending and descending alike: the
sorts are stable, as TVM's are, so argsort and topk give the first of equal
entries first.  NaN sorts above every number (last ascending, first
descending, as in PyTorch); TVM's order with NaNs is not defined.  Bool
tensors sort too (TVM's CPU kernel rejects them).

Work: a comparison sort, about log2(L) comparisons per input element, where L
is the tensor's longest axis (the work estimate sees shapes, not the axis).
No torch kernels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dtype import to_numpy
from ..errors import InferenceError
from ..op import ATTR, Param, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo, TupleStructInfo
from .common import as_bool, as_dtype, as_int, normalize_axis

_RET_TYPES = ("both", "values", "indices")


def _sort_work(args: Sequence[StructInfo], out: StructInfo, attrs: dict[str, Any]) -> Work:
    """ceil(log2(L)) comparisons per input element, L the length of the sorted axis (1 when unknown)."""
    x = args[0]
    length = 1
    if isinstance(x, TensorStructInfo) and x.shape:
        axis = attrs.get("axis", -1)
        if isinstance(axis, int) and -len(x.shape) <= axis < len(x.shape):
            d = x.shape[axis]
            length = d if isinstance(d, int) else 1
    depth = math.ceil(math.log2(length)) if length > 1 else 1
    return Work(elements(x) * depth, data_bytes(args), data_bytes((out,)))


def stable_argsort(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Positions that sort `x` along `axis`; equal entries keep their input order, NaN counts as largest."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    # A stable ascending sort of the reversed axis, read backwards: descending, ties still in input order.
    reverse = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.flip(x.shape[axis] - 1 - reverse, axis)


def _sort_infer(op: str, with_dtype: bool):
    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        x = expect_tensor(op, args, 0)
        normalize_axis(op, as_int(op, "axis", attrs["axis"]), x.ndim)
        as_bool(op, "descending", attrs["descending"])
        dtype = as_dtype(op, "dtype", attrs["dtype"]) if with_dtype else x.dtype
        return TensorStructInfo(x.shape, dtype, x.ndim)

    return infer


def _sort(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    ax = axis % x.ndim
    return np.take_along_axis(x, stable_argsort(x, ax, descending), ax)


def _argsort(data: np.ndarray, axis: int, descending: bool, dtype: str) -> np.ndarray:
    return stable_argsort(data, axis % data.ndim, descending).astype(to_numpy(dtype))


register_op(
    "sort",
    [Param("x"), Param("axis", ATTR, -1), Param("descending", ATTR, False)],
    _sort_infer("sort", with_dtype=False),
    _sort,
    work=_sort_work,
    doc="Sort along `axis` (stable; NaN largest).",
)

register_op(
    "argsort",
    [Param("data"), Param("axis", ATTR, -1), Param("descending", ATTR, False), Param("dtype", ATTR, "int32")],
    _sort_infer("argsort", with_dtype=True),
    _argsort,
    work=_sort_work,
    doc="The positions that sort `data` along `axis`, as `dtype` (stable: ties in input order).",
)


# -- topk ---------------------------------------------------------------------------------


def _topk_extent(k: int, length: Dim) -> Dim:
    if k < 1:
        return length
    return min(k, length) if isinstance(length, int) else k


def _infer_topk(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "topk"
    x = expect_tensor(op, args, 0)
    k = as_int(op, "k", attrs["k"])
    ret_type = attrs["ret_type"]
    if ret_type not in _RET_TYPES:
        raise InferenceError(f"R.{op}: ret_type must be one of {', '.join(_RET_TYPES)}; got {ret_type!r}")
    as_bool(op, "largest", attrs["largest"])
    dtype = as_dtype(op, "dtype", attrs["dtype"])
    axis = normalize_axis(op, as_int(op, "axis", attrs["axis"]), x.ndim)
    shape = None
    if x.shape is not None:
        shape = (*x.shape[:axis], _topk_extent(k, x.shape[axis]), *x.shape[axis + 1 :])
    values = TensorStructInfo(shape, x.dtype, x.ndim)
    indices = TensorStructInfo(shape, dtype, x.ndim)
    return {"both": TupleStructInfo([values, indices]), "values": values, "indices": indices}[ret_type]


def _topk(data: np.ndarray, k: int, axis: int, ret_type: str, largest: bool, dtype: str) -> Any:
    """The k largest (or smallest) entries along `axis`, in order, and their positions."""
    ax = axis % data.ndim
    extent = _topk_extent(k, data.shape[ax])
    order = np.take(stable_argsort(data, ax, largest), np.arange(extent), axis=ax)
    values = np.take_along_axis(data, order, ax)
    indices = order.astype(to_numpy(dtype))
    return {"both": (values, indices), "values": values, "indices": indices}[ret_type]


register_op(
    "topk",
    [
        Param("data"),
        Param("k", ATTR, 1),
        Param("axis", ATTR, -1),
        Param("ret_type", ATTR, "both"),
        Param("largest", ATTR, True),
        Param("dtype", ATTR, "int32"),
    ],
    _infer_topk,
    _topk,
    work=_sort_work,
    doc="The k largest (or smallest) entries along `axis` and their positions; a tuple for ret_type 'both'.",
)
