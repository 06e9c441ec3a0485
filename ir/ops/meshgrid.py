"""``R.meshgrid(tensors, indexing="ij")``: coordinate grids from 1-D tensors.

`tensors` is a tuple of k 1-D tensors (a 0-d one counts as length 1) of one
dtype, of lengths n1 ... nk; the result is a tuple of k tensors of one shape:
(n1, ..., nk) for ``indexing="ij"``, (n2, n1, n3, ..., nk) for ``"xy"`` (the
first two axes swapped), where grid i repeats tensor i along the other axes,
as ``numpy.meshgrid`` and ``torch.meshgrid`` define it and as TVM's compiled
kernel computes it.  (TVM 0.27's struct-info inference gives ``"xy"`` the
shape of ``"ij"``; a TVM-printed ``"xy"`` binding with n1 != n2 is therefore
annotated with a shape its own computation does not have, and vdplace reports
that annotation as a mismatch at its line.)  Work: a copy, no arithmetic.
No torch kernel: a torch device runs it on the host.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, TENSORS, Param, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo, TupleStructInfo
from .common import copy_work, joined_tensors

_INDEXING = ("ij", "xy")


def _lengths(args: Sequence[StructInfo]) -> tuple[list[Dim] | None, str, int]:
    """Each tensor's length (None when one is unknown), their one dtype and how many tensors there are."""
    fields, dtype = joined_tensors("meshgrid", args[0])
    lengths: list[Dim] | None = []
    for i, f in enumerate(fields):
        if f.ndim > 1:
            raise InferenceError(f"R.meshgrid: field {i} must be a 1-D (or 0-d) tensor, got rank {f.ndim}")
        if lengths is not None:
            lengths = None if f.shape is None else [*lengths, f.shape[0] if f.shape else 1]
    return lengths, dtype, len(fields)


def _infer_meshgrid(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    lengths, dtype, count = _lengths(args)
    if attrs["indexing"] not in _INDEXING:
        raise InferenceError(f"R.meshgrid: indexing must be 'ij' or 'xy', got {attrs['indexing']!r}")
    if lengths is None:
        return TupleStructInfo([TensorStructInfo(None, dtype, count)] * count)
    if attrs["indexing"] == "xy" and count >= 2:
        lengths[0], lengths[1] = lengths[1], lengths[0]
    return TupleStructInfo([TensorStructInfo(tuple(lengths), dtype) for _ in range(count)])


def _meshgrid(tensors: tuple[np.ndarray, ...], indexing: Literal["ij", "xy"]) -> tuple[np.ndarray, ...]:
    """The grids; `indexing` as inference checked it."""
    flat = [np.reshape(t, -1) for t in tensors]
    return tuple(np.ascontiguousarray(g) for g in np.meshgrid(*flat, indexing=indexing))


register_op(
    "meshgrid",
    [Param("tensors", TENSORS), Param("indexing", ATTR, "ij")],
    _infer_meshgrid,
    _meshgrid,
    work=copy_work,
    doc="Coordinate grids of 1-D tensors: tensor i repeated along the other axes ('ij' or 'xy' order).",
)
