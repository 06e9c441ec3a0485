"""Axis and slicing ops: expand_dims, squeeze, flatten, strided_slice, flip, tile, repeat, tril, triu.

Parameters follow TVM's ``relax.op``: ``R.expand_dims(x, axis)``,
``R.squeeze(x, axis=None)``, ``R.flatten(x)``,
``R.strided_slice(x, axes, begin, end, strides=None, assume_inbound=False)``
(axes, begin, end, strides as lists of ints), ``R.flip(data, axis)``,
``R.tile(data, repeats)``, ``R.repeat(data, repeats, axis=None)``,
``R.tril(x, k)`` and ``R.triu(x, k)``, whose diagonal offset k is a prim value
argument as TVM passes it (``R.tril(x, R.prim_value(0))``; the bare ``R.tril(x,
1)`` TVM's own parser accepts is not read here).

strided_slice clamps begin and end to the axis exactly as Python slicing does
(TVM's legalization canonicalizes them the same way): a negative index counts
from the end, an out-of-range one is clamped, and a negative stride walks
backwards.  A symbolic axis keeps its dim only when the slice takes all of it;
otherwise the result's rank is kept and its shape forgotten, unless
`assume_inbound` and non-negative begin/end with a positive stride give the
extent without the axis length.

Work: expand_dims, squeeze and flatten are views (`no_work`); the others copy
the result's bytes.  None of them has a torch kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, INDICES, Param, TorchContext, expect_tensor, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo
from ..views import keeps_layout, needs_contiguous
from .common import (
    as_bool,
    as_int,
    as_ints,
    copy_work,
    expect_prim,
    no_work,
    normalize_axes,
    normalize_axis,
    product_dim,
)

# -- expand_dims --------------------------------------------------------------------


def _infer_expand_dims(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "expand_dims"
    x = expect_tensor(op, args, 0)
    axes = as_ints(op, "axis", attrs["axis"])
    if x.ndim < 0:
        return TensorStructInfo(None, x.dtype, -1)
    ndim = x.ndim + len(axes)
    new = set(normalize_axes(op, axes, ndim))
    if x.shape is None:
        return TensorStructInfo(None, x.dtype, ndim)
    rest = iter(x.shape)
    return TensorStructInfo(tuple(1 if i in new else next(rest) for i in range(ndim)), x.dtype)


def _expand_dims(x: np.ndarray, axis: int | Sequence[int]) -> np.ndarray:
    axes = as_ints("expand_dims", "axis", axis)
    ndim = x.ndim + len(axes)
    return np.expand_dims(x, tuple(a % ndim for a in axes))


def _torch_expand_dims(t: TorchContext, x: Any, axis: int | Sequence[int]) -> Any:
    ndim = x.dim() + len(as_ints("expand_dims", "axis", axis))
    for a in sorted(a % ndim for a in as_ints("expand_dims", "axis", axis)):
        x = x.unsqueeze(a)
    return x


register_op(
    "expand_dims",
    [Param("x"), Param("axis", ATTR)],
    _infer_expand_dims,
    _expand_dims,
    torch_kernel=_torch_expand_dims,
    work=no_work,
    doc="Insert axes of length 1 at `axis` (positions in the result).",
    view_of=0,
    view_rule=keeps_layout,
)


# -- squeeze -------------------------------------------------------------------------


def _infer_squeeze(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "squeeze"
    x = expect_tensor(op, args, 0)
    if attrs["axis"] is None:
        if x.shape is None or any(isinstance(d, str) for d in x.shape):
            return TensorStructInfo(None, x.dtype, -1)  # a symbolic dim may or may not be 1
        return TensorStructInfo(tuple(d for d in x.shape if d != 1), x.dtype)
    axes = normalize_axes(op, as_ints(op, "axis", attrs["axis"]), x.ndim)
    if x.ndim < 0:
        return TensorStructInfo(None, x.dtype, -1)
    if x.shape is None:
        return TensorStructInfo(None, x.dtype, x.ndim - len(axes))
    # As TVM: a listed axis whose length is known and not 1 stays (torch's squeeze() prints every axis).
    kept = {a for a in axes if isinstance(x.shape[a], int) and x.shape[a] != 1}
    return TensorStructInfo(tuple(d for i, d in enumerate(x.shape) if i not in axes or i in kept), x.dtype)


def _squeeze(x: np.ndarray, axis: int | Sequence[int] | None) -> np.ndarray:
    if axis is None:
        return np.squeeze(x)
    axes = {a % x.ndim for a in as_ints("squeeze", "axis", axis)}
    return np.squeeze(x, tuple(a for a in sorted(axes) if x.shape[a] == 1))


def _torch_squeeze(t: TorchContext, x: Any, axis: int | Sequence[int] | None) -> Any:
    if axis is None:
        return x.squeeze()
    axes = {a % x.dim() for a in as_ints("squeeze", "axis", axis)}
    return x.squeeze(tuple(a for a in sorted(axes) if x.shape[a] == 1))


register_op(
    "squeeze",
    [Param("x"), Param("axis", ATTR, None)],
    _infer_squeeze,
    _squeeze,
    torch_kernel=_torch_squeeze,
    work=no_work,
    doc="Remove axes of length 1 (all of them when `axis` is None).",
    view_of=0,
    view_rule=keeps_layout,
)


# -- flatten --------------------------------------------------------------------------


def _infer_flatten(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    x = expect_tensor("flatten", args, 0)
    if x.shape is None:
        return TensorStructInfo(None, x.dtype, 1 if x.ndim >= 0 else -1)
    return TensorStructInfo((product_dim(x.shape),), x.dtype)


register_op(
    "flatten",
    [Param("x")],
    _infer_flatten,
    lambda x: np.reshape(x, -1),
    torch_kernel=lambda t, x: x.reshape(-1),
    work=no_work,
    doc="Flatten to one dimension (a 0-d tensor becomes shape (1,)).",
    view_of=0,
    view_rule=needs_contiguous,
)


# -- strided_slice ---------------------------------------------------------------------


def _slice_spec(attrs: dict[str, Any], ndim: int) -> list[tuple[int, int | str, int | str, int]]:
    """(axis, begin, end, stride) per sliced axis, axes normalized and checked."""
    op = "strided_slice"
    axes = as_ints(op, "axes", attrs["axes"])
    begin = _positions(op, "begin", attrs["begin"])
    end = _positions(op, "end", attrs["end"])
    strides = (1,) * len(axes) if attrs["strides"] is None else as_ints(op, "strides", attrs["strides"])
    for name, vals in (("begin", begin), ("end", end), ("strides", strides)):
        if len(vals) != len(axes):
            raise InferenceError(f"R.{op}: {name} has {len(vals)} entries for {len(axes)} axes")
    if any(s == 0 for s in strides):
        raise InferenceError(f"R.{op}: strides {strides} has a zero stride")
    norm = normalize_axes(op, axes, ndim)
    return list(zip(norm, begin, end, strides, strict=True))


def _positions(op: str, name: str, value: Any) -> tuple[int | str, ...]:
    """Begin or end positions: ints, or symbolic dims (their text) that the runtime resolves."""
    if isinstance(value, (tuple, list)) and any(isinstance(v, str) for v in value):
        return tuple(v if isinstance(v, str) else as_int(op, name, v) for v in value)
    return as_ints(op, name, value)


def _sliced_dim(dim: Dim, begin: int | str, end: int | str, stride: int, inbound: bool) -> Dim | None:
    if isinstance(begin, str) or isinstance(end, str):
        return None  # a symbolic position: the length is the annotation's to say
    if isinstance(dim, int):
        return len(range(*slice(begin, end, stride).indices(dim)))
    if stride == 1 and begin == 0 and end >= 2**31 - 1:
        return dim
    if inbound and stride > 0 and begin >= 0 and end >= 0:
        return max(-(-(end - begin) // stride), 0)
    return None


def _infer_strided_slice(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "strided_slice"
    x = expect_tensor(op, args, 0)
    inbound = as_bool(op, "assume_inbound", attrs["assume_inbound"])
    spec = _slice_spec(attrs, x.ndim)
    if x.shape is None:
        return TensorStructInfo(None, x.dtype, x.ndim)
    shape = list(x.shape)
    for axis, begin, end, stride in spec:
        dim = _sliced_dim(shape[axis], begin, end, stride, inbound)
        if dim is None:
            return TensorStructInfo(None, x.dtype, x.ndim)
        shape[axis] = dim
    return TensorStructInfo(tuple(shape), x.dtype)


def _strided_slice(
    x: np.ndarray,
    axes: Sequence[int],
    begin: Sequence[int],
    end: Sequence[int],
    strides: Sequence[int] | None,
    assume_inbound: bool,
) -> np.ndarray:
    attrs = {"axes": axes, "begin": begin, "end": end, "strides": strides}
    index = [slice(None)] * x.ndim
    for axis, b, e, s in _slice_spec(attrs, x.ndim):
        index[axis] = slice(b, e, s)
    return np.ascontiguousarray(x[tuple(index)])


register_op(
    "strided_slice",
    [
        Param("x"),
        Param("axes", ATTR),
        Param("begin", INDICES),
        Param("end", INDICES),
        Param("strides", ATTR, None),
        Param("assume_inbound", ATTR, False),
    ],
    _infer_strided_slice,
    _strided_slice,
    work=copy_work,
    doc="Slice `x[begin:end:stride]` along each of `axes`, begin and end clamped as Python slicing does.",
)


# -- flip ---------------------------------------------------------------------------------


def _infer_flip(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    x = expect_tensor("flip", args, 0)
    normalize_axis("flip", as_int("flip", "axis", attrs["axis"]), x.ndim)
    return TensorStructInfo(x.shape, x.dtype, x.ndim)


register_op(
    "flip",
    [Param("data"), Param("axis", ATTR)],
    _infer_flip,
    lambda data, axis: np.ascontiguousarray(np.flip(data, axis)),
    work=copy_work,
    doc="Reverse the order of the entries along `axis`.",
)


# -- tile ---------------------------------------------------------------------------------


def _infer_tile(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "tile"
    x = expect_tensor(op, args, 0)
    reps = as_ints(op, "repeats", attrs["repeats"])
    if any(r < 0 for r in reps):
        raise InferenceError(f"R.{op}: repeats {reps} has a negative entry")
    if x.ndim < 0:
        return TensorStructInfo(None, x.dtype, -1)
    ndim = max(x.ndim, len(reps))
    if x.shape is None:
        return TensorStructInfo(None, x.dtype, ndim)
    shape = (1,) * (ndim - x.ndim) + tuple(x.shape)
    reps = (1,) * (ndim - len(reps)) + reps
    return TensorStructInfo(tuple(product_dim([d, r]) for d, r in zip(shape, reps, strict=True)), x.dtype)


register_op(
    "tile",
    [Param("data"), Param("repeats", ATTR)],
    _infer_tile,
    lambda data, repeats: np.tile(data, as_ints("tile", "repeats", repeats)),
    work=copy_work,
    doc="Repeat the whole tensor `repeats` times along each axis (NumPy's tile).",
)


# -- repeat -------------------------------------------------------------------------------


def _infer_repeat(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "repeat"
    x = expect_tensor(op, args, 0)
    reps = as_int(op, "repeats", attrs["repeats"])
    if reps < 0:
        raise InferenceError(f"R.{op}: repeats must not be negative, got {reps}")
    if attrs["axis"] is None:
        if x.shape is None:
            return TensorStructInfo(None, x.dtype, 1)
        return TensorStructInfo((product_dim([*x.shape, reps]),), x.dtype)
    axis = normalize_axis(op, as_int(op, "axis", attrs["axis"]), x.ndim)
    if x.shape is None:
        return TensorStructInfo(None, x.dtype, x.ndim)
    return TensorStructInfo((*x.shape[:axis], product_dim([x.shape[axis], reps]), *x.shape[axis + 1 :]), x.dtype)


register_op(
    "repeat",
    [Param("data"), Param("repeats", ATTR), Param("axis", ATTR, None)],
    _infer_repeat,
    lambda data, repeats, axis: np.repeat(data, repeats, axis=axis),
    work=copy_work,
    doc="Repeat each entry `repeats` times along `axis` (of the flattened tensor when None).",
)


# -- tril, triu ----------------------------------------------------------------------------


def _tri_infer(op: str):
    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        x = expect_tensor(op, args, 0)
        k = expect_prim(op, "k", args, 1)
        if k.dtype and not k.dtype.startswith(("int", "uint")):
            raise InferenceError(f"R.{op}: k must be an integer prim value, got dtype {k.dtype}")
        if 0 <= x.ndim < 2:
            raise InferenceError(f"R.{op}: expects a tensor of rank 2 or more, got rank {x.ndim}")
        return TensorStructInfo(x.shape, x.dtype, x.ndim)

    return infer


def _tri_kernel(fn: Any):
    def kernel(x: np.ndarray, k: Any) -> np.ndarray:
        return fn(x, int(k))

    return kernel


for _name, _fn in (("tril", np.tril), ("triu", np.triu)):
    register_op(
        _name,
        [Param("x"), Param("k")],
        _tri_infer(_name),
        _tri_kernel(_fn),
        work=copy_work,
        doc=f"Zero the entries {'above' if _name == 'tril' else 'below'} diagonal k of the last two axes.",
    )
