"""Gathers and lookups: gather_elements, gather_nd, index_tensor, one_hot, dynamic_strided_slice.

Parameters follow TVM's ``relax.op``: ``R.gather_elements(data, indices,
axis=0)``, ``R.gather_nd(data, indices, batch_dims=0)``,
``R.index_tensor(data, indices)`` with a tuple of index tensors (what the
PyTorch frontend emits for ``x[i, j]``), ``R.one_hot(indices, on_value,
off_value, depth, axis=-1)`` whose on/off values are prim values
(``R.one_hot(i, 1, 0, depth=6, axis=-1)``, ``T.float64(1.0)``) and
``R.dynamic_strided_slice(x, begin, end, strides)`` with 1-D int64 tensors.

Index dtypes are TVM's: gather_elements and index_tensor take signed integer
indices, gather_nd int64 only, one_hot any integer.  Indices count from the
end when negative (``-1`` is the last entry, as in NumPy and PyTorch); one
outside ``[-n, n)`` is an error of the run (`ValueError`).  TVM's compiled
gathers do not wrap negative indices (they read outside the tensor), so
where TVM's result is defined ours is the same.  one_hot is the exception:
as in TVM, an index outside ``[0, depth)`` (negative ones included) gives a
row of `off_value`.

gather_nd follows TVM (and ONNX): the last axis of `indices` holds
coordinates into `data` after its first `batch_dims` axes, which `indices`
shares.  dynamic_strided_slice slices as Python does (begin/end clamped, a
negative stride walking backwards; TVM raises on a slice with begin past end,
here it is empty); its result shape depends on the values, so inference
knows only the rank (and the shape ``()`` of a rank-0 slice).

Work: the gathers and the slice read the bytes they copy plus the indices
and write the result, with no arithmetic; one_hot has the default work.
None of these ops has a torch kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, TENSORS, Param, Work, data_bytes, expect_tensor, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo, TupleStructInfo
from .common import as_int, broadcast_shapes, copy_work, expect_prim, normalize_axis

SIGNED = ("int",)
INTEGER = ("int", "uint")

# -- shared by the index ops (also used by scatter.py) --------------------------------


def expect_indices(op: str, what: str, t: TensorStructInfo, kinds: Sequence[str]) -> None:
    """`t` has an index dtype: one of `kinds`, each a dtype or a prefix (``"int"``, ``"uint"``)."""
    if not t.dtype:
        return
    ok = any(t.dtype == k or (k in INTEGER and t.dtype.startswith(k) and t.dtype[len(k) :].isdigit()) for k in kinds)
    if not ok:
        names = {"int": "a signed integer", "uint": "an unsigned integer"}
        wanted = " or ".join(names.get(k, f"an {k}") for k in kinds)
        raise InferenceError(f"R.{op}: {what} must be {wanted} tensor, got dtype {t.dtype}")


def tensor_fields(op: str, what: str, sinfo: StructInfo) -> list[TensorStructInfo]:
    """The fields of a non-empty tuple of tensors (a TENSORS argument)."""
    if not isinstance(sinfo, TupleStructInfo):
        raise InferenceError(f"R.{op}: {what} must be a tuple of tensors, got {sinfo!r}")
    if not sinfo.fields:
        raise InferenceError(f"R.{op}: {what} must hold at least one tensor, got an empty tuple")
    fields: list[TensorStructInfo] = []
    for i, f in enumerate(sinfo.fields):
        if not isinstance(f, TensorStructInfo):
            raise InferenceError(f"R.{op}: field {i} of {what} must be a tensor, got {f!r}")
        fields.append(f)
    return fields


def dims_conflict(a: Dim, b: Dim) -> bool:
    """Two dims known to differ (both integers); a symbolic one may match at run time."""
    return isinstance(a, int) and isinstance(b, int) and a != b


def wrap_indices(op: str, indices: np.ndarray, length: int) -> np.ndarray:
    """Indices into an axis of `length` as int64 in ``[0, length)``; negatives count from the end."""
    idx = np.asarray(indices).astype(np.int64, copy=False)
    if idx.size:
        low, high = int(idx.min()), int(idx.max())
        if low < -length or high >= length:
            bad = low if low < -length else high
            raise ValueError(f"R.{op}: index {bad} is out of range for an axis of length {length}")
    return np.where(idx < 0, idx + length, idx)


def gather_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """No arithmetic; the gathered bytes (the result's) and the index tensors read, the result written."""
    size = data_bytes((out,))
    return Work(0.0, size + data_bytes(args[1:]), size)


# -- gather_elements ----------------------------------------------------------------


def _infer_gather_elements(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "gather_elements"
    data = expect_tensor(op, args, 0)
    idx = expect_tensor(op, args, 1)
    expect_indices(op, "indices", idx, SIGNED)
    if data.ndim >= 0 and idx.ndim >= 0 and data.ndim != idx.ndim:
        raise InferenceError(f"R.{op}: data has rank {data.ndim} but indices rank {idx.ndim}; they must be equal")
    ndim = data.ndim if data.ndim >= 0 else idx.ndim
    axis = normalize_axis(op, as_int(op, "axis", attrs["axis"]), ndim)
    if data.shape is not None and idx.shape is not None:
        for i, (d, n) in enumerate(zip(data.shape, idx.shape, strict=True)):
            if i != axis and isinstance(d, int) and isinstance(n, int) and n > d:
                raise InferenceError(f"R.{op}: indices shape {idx.shape} exceeds data shape {data.shape} at axis {i}")
    return TensorStructInfo(idx.shape, data.dtype, ndim)


def _gather_elements(data: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray:
    """out[i][j][k] = data[i][indices[i][j][k]][k] (for axis 1)."""
    ax = axis % data.ndim
    coords: list[np.ndarray] = list(np.indices(indices.shape, sparse=True))
    coords[ax] = wrap_indices("gather_elements", indices, data.shape[ax])
    return np.asarray(data[tuple(coords)], order="C")


register_op(
    "gather_elements",
    [Param("data"), Param("indices"), Param("axis", ATTR, 0)],
    _infer_gather_elements,
    _gather_elements,
    work=gather_work,
    doc="Pick entries along `axis` at `indices` (of the data's rank); the result has the indices' shape.",
)


# -- gather_nd --------------------------------------------------------------------------


def _check_gather_nd(op: str, data: TensorStructInfo, idx: TensorStructInfo, batch: int) -> None:
    if batch < 0:
        raise InferenceError(f"R.{op}: batch_dims must not be negative, got {batch}")
    if idx.ndim >= 0 and batch > idx.ndim - 1:
        raise InferenceError(f"R.{op}: batch_dims {batch} needs indices of rank {batch + 1} or more, got {idx.ndim}")
    if data.shape is not None and idx.shape is not None:
        for i in range(batch):
            if dims_conflict(data.shape[i], idx.shape[i]):
                raise InferenceError(
                    f"R.{op}: the first {batch} axes of data {data.shape} and indices {idx.shape} must match"
                )


def _infer_gather_nd(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "gather_nd"
    data = expect_tensor(op, args, 0)
    idx = expect_tensor(op, args, 1)
    expect_indices(op, "indices", idx, ("int64",))
    batch = as_int(op, "batch_dims", attrs["batch_dims"])
    _check_gather_nd(op, data, idx, batch)
    depth = idx.shape[-1] if idx.shape is not None else None
    if not isinstance(depth, int) or data.ndim < 0:
        return TensorStructInfo(None, data.dtype, -1)
    if depth > data.ndim - batch:
        raise InferenceError(
            f"R.{op}: indices of shape {idx.shape} hold {depth} coordinates, "
            f"more than the {data.ndim - batch} axes of data after batch_dims={batch}"
        )
    if data.shape is None:
        return TensorStructInfo(None, data.dtype, idx.ndim - 1 + data.ndim - batch - depth)
    assert idx.shape is not None
    return TensorStructInfo((*idx.shape[:-1], *data.shape[batch + depth :]), data.dtype)


def _gather_nd(data: np.ndarray, indices: np.ndarray, batch_dims: int) -> np.ndarray:
    """out[b..., m...] = data[b..., indices[b..., m..., 0], ..., indices[b..., m..., K-1]]."""
    op, b, k = "gather_nd", batch_dims, indices.shape[-1]
    if indices.shape[:b] != data.shape[:b]:
        raise ValueError(f"R.{op}: the first {b} axes of data {data.shape} and indices {indices.shape} differ")
    nb = int(np.prod(data.shape[:b], dtype=np.int64))
    m = int(np.prod(indices.shape[b:-1], dtype=np.int64))
    flat = data.reshape((nb, *data.shape[b:]))
    ix = indices.reshape((nb, m, k))
    coords = [np.broadcast_to(np.arange(nb)[:, None], (nb, m))]
    coords += [wrap_indices(op, ix[..., j], flat.shape[1 + j]) for j in range(k)]
    return np.asarray(flat[tuple(coords)].reshape((*indices.shape[:-1], *data.shape[b + k :])), order="C")


register_op(
    "gather_nd",
    [Param("data"), Param("indices"), Param("batch_dims", ATTR, 0)],
    _infer_gather_nd,
    _gather_nd,
    work=gather_work,
    doc="Gather slices of `data` at the coordinates in the last axis of `indices` (int64).",
)


# -- index_tensor -----------------------------------------------------------------------


def _infer_index_tensor(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "index_tensor"
    data = expect_tensor(op, args, 0)
    idxs = tensor_fields(op, "indices", args[1])
    for i, t in enumerate(idxs):
        expect_indices(op, f"index {i}", t, SIGNED)
    if data.ndim >= 0 and len(idxs) > data.ndim:
        raise InferenceError(f"R.{op}: {len(idxs)} index tensors for data of rank {data.ndim}")
    rest = data.ndim - len(idxs)
    if any(t.shape is None for t in idxs):
        ndims = [t.ndim for t in idxs]
        known = min(ndims) >= 0 and data.ndim >= 0
        return TensorStructInfo(None, data.dtype, max(ndims) + rest if known else -1)
    shape: tuple[Dim, ...] = ()
    for t in idxs:
        assert t.shape is not None
        shape = broadcast_shapes(op, shape, t.shape)
    if data.shape is None:
        return TensorStructInfo(None, data.dtype, len(shape) + rest if data.ndim >= 0 else -1)
    return TensorStructInfo((*shape, *data.shape[len(idxs) :]), data.dtype)


def _index_tensor(data: np.ndarray, indices: Sequence[np.ndarray]) -> np.ndarray:
    """NumPy's ``data[i0, i1, ...]`` with integer index arrays on the leading axes."""
    wrapped = tuple(wrap_indices("index_tensor", ix, data.shape[a]) for a, ix in enumerate(indices))
    return np.asarray(data[wrapped], order="C")


register_op(
    "index_tensor",
    [Param("data"), Param("indices", TENSORS)],
    _infer_index_tensor,
    _index_tensor,
    work=gather_work,
    doc="Advanced indexing data[i0, i1, ...] by a tuple of broadcasting integer tensors on the leading axes.",
)


# -- one_hot --------------------------------------------------------------------------------


def _infer_one_hot(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "one_hot"
    idx = expect_tensor(op, args, 0)
    expect_indices(op, "indices", idx, INTEGER)
    on = expect_prim(op, "on_value", args, 1)
    off = expect_prim(op, "off_value", args, 2)
    if on.dtype and off.dtype and on.dtype != off.dtype:
        raise InferenceError(f"R.{op}: on_value and off_value have different dtypes {on.dtype} and {off.dtype}")
    dtype = on.dtype or off.dtype
    depth = as_int(op, "depth", attrs["depth"])
    if depth <= 0:
        raise InferenceError(f"R.{op}: depth must be positive, got {depth}")
    axis = as_int(op, "axis", attrs["axis"])
    if idx.ndim < 0:
        return TensorStructInfo(None, dtype, -1)
    ax = normalize_axis(op, axis, idx.ndim + 1)
    if idx.shape is None:
        return TensorStructInfo(None, dtype, idx.ndim + 1)
    return TensorStructInfo((*idx.shape[:ax], depth, *idx.shape[ax:]), dtype)


def _one_hot(indices: np.ndarray, on_value: Any, off_value: Any, depth: int, axis: int) -> np.ndarray:
    """on_value where the new axis' position equals the index, else off_value (indices outside [0, depth) too)."""
    on = np.asarray(on_value)
    off = np.asarray(off_value).astype(on.dtype)
    hot = np.expand_dims(indices, -1) == np.arange(depth)
    out = np.where(hot, on, off)
    return np.asarray(np.moveaxis(out, -1, axis % out.ndim), order="C")


register_op(
    "one_hot",
    [Param("indices"), Param("on_value"), Param("off_value"), Param("depth", ATTR), Param("axis", ATTR, -1)],
    _infer_one_hot,
    _one_hot,
    doc="A new axis of length `depth` at `axis`: on_value at each index, off_value elsewhere (prim values).",
)


# -- dynamic_strided_slice ------------------------------------------------------------------


def _infer_dynamic_strided_slice(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "dynamic_strided_slice"
    x = expect_tensor(op, args, 0)
    for i, name in enumerate(("begin", "end", "strides"), start=1):
        t = expect_tensor(op, args, i)
        if t.dtype and t.dtype != "int64":
            raise InferenceError(f"R.{op}: {name} must be an int64 tensor, got dtype {t.dtype}")
        if t.ndim >= 0 and t.ndim != 1:
            raise InferenceError(f"R.{op}: {name} must be a 1-D tensor, got rank {t.ndim}")
        length = t.shape[0] if t.shape is not None else None
        if isinstance(length, int) and x.ndim >= 0 and length != x.ndim:
            raise InferenceError(f"R.{op}: {name} has {length} entries for a tensor of rank {x.ndim}")
    return TensorStructInfo(() if x.ndim == 0 else None, x.dtype, x.ndim)


def _dynamic_strided_slice(x: np.ndarray, begin: np.ndarray, end: np.ndarray, strides: np.ndarray) -> np.ndarray:
    """``x[b0:e0:s0, b1:e1:s1, ...]`` with Python's clamping, one entry per axis."""
    op = "dynamic_strided_slice"
    for name, v in (("begin", begin), ("end", end), ("strides", strides)):
        if v.shape != (x.ndim,):
            raise ValueError(f"R.{op}: {name} has shape {v.shape}; a tensor of rank {x.ndim} needs ({x.ndim},)")
    if np.any(strides == 0):
        raise ValueError(f"R.{op}: strides {strides.tolist()} has a zero stride")
    index = tuple(slice(int(b), int(e), int(s)) for b, e, s in zip(begin, end, strides, strict=True))
    return np.asarray(x[index], order="C")


register_op(
    "dynamic_strided_slice",
    [Param("x"), Param("begin"), Param("end"), Param("strides")],
    _infer_dynamic_strided_slice,
    _dynamic_strided_slice,
    work=copy_work,
    doc="Slice every axis by the values of 1-D int64 tensors begin, end and strides (rank known, shape not).",
)
