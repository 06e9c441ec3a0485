"""Scatters: scatter_elements, scatter_nd, index_put.

Parameters follow TVM's ``relax.op``: ``R.scatter_elements(data, indices,
updates, axis=0, reduction="update")``, ``R.scatter_nd(data, indices, updates,
reduction="update")`` and ``R.index_put(data, indices, values,
accumulate=False)`` with a tuple of index tensors, one per axis of `data` (as
TVM requires; the PyTorch frontend emits it for ``x.index_put_((i, j), v)``).

Each returns a copy of `data` with the updates applied one at a time in the
row-major order of the indices, as TVM's kernels apply them: with
``"update"`` the last update of an entry wins; ``"add"``, ``"mul"``,
``"min"``, ``"max"`` combine the entry (its original value included) with each
update in turn; scatter_elements' ``"mean"`` is TVM's running average,
``entry = (entry + update) / 2`` per update, not the mean of the values (TVM
cannot compile it for integer data, so inference rejects that).
scatter_nd has no ``"mean"`` (TVM's kernel rejects it).  Arithmetic stays in
the data's dtype, step by step, as in TVM.

Indices count from the end when negative, as TVM's scatter_elements and
index_put do (TVM's scatter_nd writes outside the tensor instead); one outside
``[-n, n)`` is an error of the run.  index_put broadcasts its index tensors and
`values` as NumPy does (TVM's legalization mishandles index tensors of
different ranks).  scatter_elements follows ONNX: update ``(i, j)`` of an axis-1
scatter goes to ``data[i, indices[i, j]]``, so `indices` may be smaller than
`data` in every axis (TVM's kernel is right only when the other axes match).

Work: one FLOP per update (a reduction step or a store), every argument read
once and the result written.  No torch kernels.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from ..dtype import is_float
from ..errors import InferenceError
from ..op import ATTR, TENSORS, Param, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo
from .common import as_bool, as_int, broadcast_shapes, normalize_axis, same_dtype
from .gather import INTEGER, dims_conflict, expect_indices, tensor_fields, wrap_indices

_D = TypeVar("_D", bound=Dim)  # a shape's dims: int (a kernel's concrete shape) or Dim (inference's)

_STEPS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "update": lambda entry, update: update,
    "add": np.add,
    "mul": np.multiply,
    "min": np.minimum,
    "max": np.maximum,
    "mean": lambda entry, update: (entry + update) / entry.dtype.type(2),
}


def _scatter_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """One FLOP per update; data, indices and updates read once, the result written once."""
    return Work(elements(args[-1]), data_bytes(args), data_bytes((out,)))


def _reduction(op: str, value: Any, allowed: Sequence[str], data: TensorStructInfo) -> str:
    if value not in allowed:
        raise InferenceError(f"R.{op}: reduction must be one of {', '.join(allowed)}; got {value!r}")
    if value == "mean" and data.dtype and not is_float(data.dtype):
        raise InferenceError(f"R.{op}: reduction 'mean' needs float data, got dtype {data.dtype}")
    return value


def scatter_into(data: np.ndarray, dest: np.ndarray, updates: np.ndarray, reduction: str) -> np.ndarray:
    """A copy of `data` with ``updates[i]`` combined into ``flat[dest[i]]`` for i = 0, 1, ... in order.

    `dest` (flat positions) and `updates` are 1-D and of one length.  Updates of
    distinct entries are applied together, round by round: round r applies
    each entry's r-th update, so every entry sees its updates in order.
    """
    out = data.copy().reshape(-1)
    updates = updates.astype(data.dtype, copy=False)
    order = np.argsort(dest, kind="stable")
    dest, updates = dest[order], updates[order]
    starts = np.r_[True, dest[1:] != dest[:-1]] if dest.size else np.zeros(0, bool)
    rank = np.arange(dest.size) - np.maximum.accumulate(np.where(starts, np.arange(dest.size), 0))
    step = _STEPS[reduction]
    for r in range(int(rank.max()) + 1 if rank.size else 0):
        pick = rank == r
        d = dest[pick]
        out[d] = step(out[d], updates[pick])
    return out.reshape(data.shape)


# -- scatter_elements -----------------------------------------------------------------


def _infer_scatter_elements(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "scatter_elements"
    data = expect_tensor(op, args, 0)
    idx = expect_tensor(op, args, 1)
    upd = expect_tensor(op, args, 2)
    expect_indices(op, "indices", idx, INTEGER)
    same_dtype(op, data, upd)
    _reduction(op, attrs["reduction"], tuple(_STEPS), data)
    for t, what in ((idx, "indices"), (upd, "updates")):
        if data.ndim >= 0 and t.ndim >= 0 and t.ndim != data.ndim:
            raise InferenceError(f"R.{op}: data has rank {data.ndim} but {what} rank {t.ndim}; they must be equal")
    axis = normalize_axis(op, as_int(op, "axis", attrs["axis"]), data.ndim)
    if idx.shape is not None and upd.shape is not None:
        if idx.ndim != upd.ndim or any(dims_conflict(a, b) for a, b in zip(idx.shape, upd.shape, strict=True)):
            raise InferenceError(f"R.{op}: indices shape {idx.shape} and updates shape {upd.shape} must be equal")
    if data.shape is not None and idx.shape is not None:
        for i, (d, n) in enumerate(zip(data.shape, idx.shape, strict=True)):
            if i != axis and isinstance(d, int) and isinstance(n, int) and n > d:
                raise InferenceError(f"R.{op}: indices shape {idx.shape} exceeds data shape {data.shape} at axis {i}")
    return TensorStructInfo(data.shape, data.dtype, data.ndim)


def _scatter_elements(
    data: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: int, reduction: str
) -> np.ndarray:
    """updates[i][j] goes to data[i][indices[i][j]] (for axis 1), combined by `reduction`."""
    op = "scatter_elements"
    if indices.shape != updates.shape:
        raise ValueError(f"R.{op}: indices shape {indices.shape} and updates shape {updates.shape} differ")
    ax = axis % data.ndim
    axes: tuple[np.ndarray, ...] = np.indices(indices.shape, sparse=True)
    coords = [np.broadcast_to(c, indices.shape) for c in axes]
    coords[ax] = wrap_indices(op, indices, data.shape[ax])
    dest = np.ravel_multi_index(tuple(coords), data.shape).reshape(-1)
    return scatter_into(data, dest, updates.reshape(-1), reduction)


register_op(
    "scatter_elements",
    [Param("data"), Param("indices"), Param("updates"), Param("axis", ATTR, 0), Param("reduction", ATTR, "update")],
    _infer_scatter_elements,
    _scatter_elements,
    work=_scatter_work,
    doc="Write (or combine) `updates` into a copy of `data` at `indices` along `axis`.",
)


# -- scatter_nd -------------------------------------------------------------------------


def _infer_scatter_nd(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "scatter_nd"
    data = expect_tensor(op, args, 0)
    idx = expect_tensor(op, args, 1)
    upd = expect_tensor(op, args, 2)
    expect_indices(op, "indices", idx, INTEGER)
    same_dtype(op, data, upd)
    _reduction(op, attrs["reduction"], ("update", "add", "mul", "min", "max"), data)
    if idx.ndim == 0:
        raise InferenceError(f"R.{op}: indices must have rank 1 or more, got rank 0")
    depth = idx.shape[-1] if idx.shape is not None else None
    if isinstance(depth, int) and data.ndim >= 0:
        if depth > data.ndim:
            raise InferenceError(f"R.{op}: indices hold {depth} coordinates for data of rank {data.ndim}")
        if upd.ndim >= 0 and upd.ndim != idx.ndim - 1 + data.ndim - depth:
            raise InferenceError(
                f"R.{op}: updates must have rank {idx.ndim - 1 + data.ndim - depth} "
                f"(indices.shape[:-1] + data.shape[{depth}:]), got rank {upd.ndim}"
            )
        if data.shape is not None and idx.shape is not None and upd.shape is not None:
            want = (*idx.shape[:-1], *data.shape[depth:])
            if any(dims_conflict(a, b) for a, b in zip(want, upd.shape, strict=True)):
                raise InferenceError(
                    f"R.{op}: updates shape {upd.shape} must be indices.shape[:-1] + data.shape[{depth}:] = {want}"
                )
    return TensorStructInfo(data.shape, data.dtype, data.ndim)


def _scatter_nd(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, reduction: str) -> np.ndarray:
    """updates[m..., r...] goes to data[indices[m..., 0], ..., indices[m..., K-1], r...]."""
    op, k = "scatter_nd", indices.shape[-1]
    inner = data.shape[k:]
    if updates.shape != (*indices.shape[:-1], *inner):
        raise ValueError(f"R.{op}: updates shape {updates.shape} is not indices.shape[:-1] + data.shape[{k}:]")
    ix = indices.reshape(int(np.prod(indices.shape[:-1], dtype=np.int64)), k)
    coords = [wrap_indices(op, ix[:, j], data.shape[j]) for j in range(k)]
    size = int(np.prod(inner, dtype=np.int64))
    base = np.ravel_multi_index(tuple(coords), data.shape[:k]) if k else np.zeros(len(ix), np.int64)
    dest = (base[:, None] * size + np.arange(size)).reshape(-1)
    return scatter_into(data, dest, updates.reshape(-1), reduction)


register_op(
    "scatter_nd",
    [Param("data"), Param("indices"), Param("updates"), Param("reduction", ATTR, "update")],
    _infer_scatter_nd,
    _scatter_nd,
    work=_scatter_work,
    doc="Write (or combine) slices of `updates` into a copy of `data` at the coordinates in indices' last axis.",
)


# -- index_put ------------------------------------------------------------------------------


def _infer_index_put(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "index_put"
    data = expect_tensor(op, args, 0)
    idxs = tensor_fields(op, "indices", args[1])
    values = expect_tensor(op, args, 2)
    as_bool(op, "accumulate", attrs["accumulate"])
    for i, t in enumerate(idxs):
        expect_indices(op, f"index {i}", t, INTEGER)
    same_dtype(op, data, values)
    if data.ndim >= 0 and len(idxs) != data.ndim:
        raise InferenceError(f"R.{op}: {len(idxs)} index tensors for data of rank {data.ndim}; one per axis needed")
    if values.shape is not None and all(t.shape is not None for t in idxs):
        target: tuple[Dim, ...] = ()
        for t in idxs:
            assert t.shape is not None
            target = broadcast_shapes(op, target, t.shape)
        shape = _drop_leading_ones(values.shape, len(target))
        if broadcast_shapes(op, target, shape) != target:
            raise InferenceError(f"R.{op}: values of shape {values.shape} do not broadcast to the indexed {target}")
    return TensorStructInfo(data.shape, data.dtype, data.ndim)


def _drop_leading_ones(shape: Sequence[_D], rank: int) -> tuple[_D, ...]:
    """`shape` without the leading length-1 axes beyond `rank` (as NumPy assignment and TVM allow)."""
    extra = 0
    while len(shape) - extra > rank and shape[extra] == 1:
        extra += 1
    return tuple(shape[extra:])


def _index_put(data: np.ndarray, indices: Sequence[np.ndarray], values: np.ndarray, accumulate: bool) -> np.ndarray:
    """A copy of data with ``data[i0, i1, ...] = values`` (``+=`` each value in turn when accumulating)."""
    op = "index_put"
    if len(indices) != data.ndim:
        raise ValueError(f"R.{op}: {len(indices)} index tensors for data of rank {data.ndim}")
    coords = np.broadcast_arrays(*(wrap_indices(op, ix, n) for ix, n in zip(indices, data.shape, strict=True)))
    dest = np.ravel_multi_index(tuple(coords), data.shape).reshape(-1)
    values = values.reshape(_drop_leading_ones(values.shape, coords[0].ndim))
    vals = np.broadcast_to(values, coords[0].shape).reshape(-1)
    return scatter_into(data, dest, vals, "add" if accumulate else "update")


register_op(
    "index_put",
    [Param("data"), Param("indices", TENSORS), Param("values"), Param("accumulate", ATTR, False)],
    _infer_index_put,
    _index_put,
    work=_scatter_work,
    doc="A copy of `data` with data[i0, i1, ...] = values (or += when accumulate), one index tensor per axis.",
)
