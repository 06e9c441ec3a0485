"""Position-finding ops: ``R.nonzero(x)`` and ``R.bucketize(input_tensor, boundaries, out_int32=False, right=False)``.

``R.nonzero(x)`` gives the int64 coordinates of `x`'s nonzero (true) entries,
one column per entry in row-major order: shape (rank, count), the count known
only at run time, so inference gives an int64 tensor of rank 2 and no shape.
A 0-d `x` counts as a 1-d tensor of one entry (shape (1, 0 or 1)), as in TVM.

``R.bucketize`` gives, for each entry v of `input_tensor`, the number of
entries of the sorted 1-d `boundaries` below v (``right=False``: the first i
with v <= boundaries[i]) or at most v (``right=True``), as int64 or, with
`out_int32`, int32; the shape is `input_tensor`'s.  A NaN entry gets 0, as TVM's
binary search gives it.  The two tensors need not share a dtype; bool tensors
are an inference error (TVM's build rejects them).

Work: nonzero one FLOP per input element; bucketize ceil(log2(B + 1))
comparisons per entry for B boundaries.  No torch kernels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, Param, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo
from .common import as_bool, expect_ndim


def _infer_nonzero(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    expect_tensor("nonzero", args, 0)
    return TensorStructInfo(None, "int64", 2)


def _nonzero(x: np.ndarray) -> np.ndarray:
    coords = np.nonzero(np.atleast_1d(x))
    return np.stack(coords).astype(np.int64).reshape(len(coords), -1)


def _nonzero_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    return Work(elements(args[0]), data_bytes(args), data_bytes((out,)))


register_op(
    "nonzero",
    [Param("x")],
    _infer_nonzero,
    _nonzero,
    work=_nonzero_work,
    doc="The int64 coordinates of x's nonzero entries, shape (rank, count).",
)


def _infer_bucketize(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    x = expect_tensor("bucketize", args, 0)
    bounds = expect_tensor("bucketize", args, 1)
    expect_ndim("bucketize", "boundaries", bounds, 1)
    for what, t in (("input_tensor", x), ("boundaries", bounds)):
        if t.dtype == "bool":
            raise InferenceError(f"R.bucketize: {what} must be a number tensor, got dtype bool")
    out_int32 = as_bool("bucketize", "out_int32", attrs["out_int32"])
    as_bool("bucketize", "right", attrs["right"])
    return TensorStructInfo(x.shape, "int32" if out_int32 else "int64", x.ndim)


def _bucketize(input_tensor: np.ndarray, boundaries: np.ndarray, out_int32: bool, right: bool) -> np.ndarray:
    found = np.searchsorted(boundaries, input_tensor, side="right" if right else "left")
    if input_tensor.dtype.kind == "f":
        found = np.where(np.isnan(input_tensor), 0, found)
    return np.asarray(found).astype(np.int32 if out_int32 else np.int64)


def _bucketize_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    bounds = args[1]
    count = bounds.shape[0] if isinstance(bounds, TensorStructInfo) and bounds.shape else 1
    depth = max(math.ceil(math.log2(count + 1)), 1) if isinstance(count, int) else 1
    return Work(elements(out) * depth, data_bytes(args), data_bytes((out,)))


register_op(
    "bucketize",
    [Param("input_tensor"), Param("boundaries"), Param("out_int32", ATTR, False), Param("right", ATTR, False)],
    _infer_bucketize,
    _bucketize,
    work=_bucketize_work,
    doc="The bucket of each entry among the sorted 1-d boundaries (int64, or int32 with out_int32).",
)
