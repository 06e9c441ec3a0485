"""Shape manipulation: permute_dims, reshape, concat, stack, split, broadcast_to, astype, take.

Parameters follow TVM's ``relax.op`` (``R.reshape(x, shape)``,
``R.split(x, indices_or_sections, axis=0)``, ...).  Where TVM and NumPy
differ the choice is stated at the op: split with a number of sections uses
TVM's ceil-sized pieces (the last one smaller), split indices are clamped to
the axis as in TVM, and take with ``axis=None`` indexes the flattened input
as NumPy does (TVM only allows 1-D inputs there, a special case of it).

Work: none of these ops computes anything.  permute_dims, reshape and split
return views (no bytes moved); concat, stack, broadcast_to and take copy the
result's bytes; astype reads its input and writes its result (the default
work, one FLOP per element for the conversion).  take has no torch kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from ..dtype import is_float, to_numpy, torch_dtype
from ..errors import InferenceError
from ..op import ATTR, SHAPE, TENSORS, Fallback, Param, TorchContext, expect_tensor, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo, TupleStructInfo
from ..views import needs_contiguous, permute_layout
from .common import (
    as_dtype,
    as_int,
    as_ints,
    copy_work,
    dim_add,
    dim_product,
    dim_sum,
    joined_tensors,
    no_work,
    normalize_axes,
    normalize_axis,
    product_dim,
    quotient_dim,
    shape_arg,
)
from .special import round_bfloat16

# -- permute_dims -------------------------------------------------------------------


def _infer_permute_dims(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "permute_dims"
    x = expect_tensor(op, args, 0)
    if attrs["axes"] is None:
        shape = None if x.shape is None else tuple(reversed(x.shape))
        return TensorStructInfo(shape, x.dtype, x.ndim)
    axes = as_ints(op, "axes", attrs["axes"])
    if x.ndim >= 0 and len(axes) != x.ndim:
        raise InferenceError(f"R.{op}: axes {axes} has {len(axes)} entries for a tensor of rank {x.ndim}")
    perm = normalize_axes(op, axes, len(axes))
    shape = None if x.shape is None else tuple(x.shape[a] for a in perm)
    return TensorStructInfo(shape, x.dtype, len(axes))


def _permute_dims(x: np.ndarray, axes: Sequence[int] | None) -> np.ndarray:
    return np.transpose(x, None if axes is None else tuple(axes))


def _torch_permute_dims(t: TorchContext, x: Any, axes: Sequence[int] | None) -> Any:
    return x.permute(tuple(axes) if axes is not None else tuple(reversed(range(x.dim()))))


register_op(
    "permute_dims",
    [Param("x"), Param("axes", ATTR, None)],
    _infer_permute_dims,
    _permute_dims,
    torch_kernel=_torch_permute_dims,
    work=no_work,
    doc="Permute the axes (reverse them when `axes` is None).",
    view_of=0,
    view_rule=permute_layout,
)


# -- reshape ---------------------------------------------------------------------------


def _infer_reshape(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "reshape"
    x = expect_tensor(op, args, 0)
    target, ndim = shape_arg(op, "shape", args, 1)
    if target is None:
        return TensorStructInfo(None, x.dtype, ndim)
    holes = [i for i, d in enumerate(target) if d == -1]
    if len(holes) > 1:
        raise InferenceError(f"R.{op}: shape {target} has more than one -1")
    if any(isinstance(d, int) and d < -1 for d in target):
        raise InferenceError(f"R.{op}: shape {target} has a negative dim")
    if x.shape is None:
        return TensorStructInfo(None if holes else target, x.dtype, len(target))
    static = all(isinstance(d, int) for d in (*x.shape, *target))
    if holes:
        known = [d for d in target if d != -1]
        filled = quotient_dim(x.shape, known)
        if filled is None:
            if static:
                raise InferenceError(
                    f"R.{op}: cannot reshape {x.shape} ({product_dim(x.shape)} elements) into {target}"
                )
            return TensorStructInfo(None, x.dtype, len(target))
        return TensorStructInfo(tuple(filled if d == -1 else d for d in target), x.dtype)
    if static and dim_product(x.shape)[0] != dim_product(target)[0]:
        raise InferenceError(
            f"R.{op}: cannot reshape {x.shape} ({product_dim(x.shape)} elements) "
            f"into {target} ({product_dim(target)} elements)"
        )
    return TensorStructInfo(target, x.dtype)


def _reshape(x: np.ndarray, shape: Sequence[Dim]) -> np.ndarray:
    """A symbolic dim the runtime left unbound is solved from the element count, like -1."""
    unknown = [i for i, d in enumerate(shape) if isinstance(d, str) or d == -1]
    if len(unknown) > 1:
        raise ValueError(f"R.reshape: shape {tuple(shape)} has more than one dim to infer")
    return np.reshape(x, tuple(-1 if isinstance(d, str) else int(d) for d in shape))


def _torch_reshape(t: TorchContext, x: Any, shape: Sequence[Dim]) -> Any:
    return x.reshape(tuple(-1 if isinstance(d, str) else int(d) for d in shape))


register_op(
    "reshape",
    [Param("x"), Param("shape", SHAPE)],
    _infer_reshape,
    _reshape,
    torch_kernel=_torch_reshape,
    work=no_work,
    doc="Reshape; one -1 takes the remaining size.",
    view_of=0,
    view_rule=needs_contiguous,
)


# -- concat ------------------------------------------------------------------------------


def _infer_concat(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "concat"
    fields, dtype = joined_tensors(op, args[0])
    shapes = [f.shape for f in fields if f.shape is not None]  # all of them when every shape is known
    known = len(shapes) == len(fields)
    if attrs["axis"] is None:  # TVM: the inputs are flattened first
        if not known:
            return TensorStructInfo(None, dtype, 1)
        return TensorStructInfo((dim_sum([product_dim(s) for s in shapes]),), dtype)
    axis = as_int(op, "axis", attrs["axis"])
    ranks = {f.ndim for f in fields if f.ndim >= 0}
    if len(ranks) > 1:
        raise InferenceError(f"R.{op}: tensors have different ranks {sorted(ranks)}")
    if not ranks:
        return TensorStructInfo(None, dtype, -1)
    ndim = ranks.pop()
    ax = normalize_axis(op, axis, ndim)
    if not known:
        return TensorStructInfo(None, dtype, ndim)
    out: list[Dim] = []
    for j in range(ndim):
        if j == ax:
            out.append(dim_sum([s[j] for s in shapes]))
            continue
        dims = [s[j] for s in shapes]
        ints = {d for d in dims if isinstance(d, int)}
        if len(ints) > 1:
            raise InferenceError(f"R.{op}: shapes {[tuple(s) for s in shapes]} differ at axis {j}, not only at {ax}")
        out.append(ints.pop() if ints else dims[0])
    return TensorStructInfo(out, dtype)


def _concat(tensors: Sequence[np.ndarray], axis: int | None) -> np.ndarray:
    return np.concatenate(tuple(tensors), axis=axis)


def _torch_concat(t: TorchContext, tensors: Sequence[Any], axis: int | None) -> Any:
    if axis is None:
        return t.torch.cat([x.reshape(-1) for x in tensors])
    return t.torch.cat(list(tensors), dim=axis)


register_op(
    "concat",
    [Param("tensors", TENSORS), Param("axis", ATTR, 0)],
    _infer_concat,
    _concat,
    torch_kernel=_torch_concat,
    work=copy_work,
    doc="Join a tuple of tensors along `axis` (flattened when `axis` is None).",
)


# -- stack -------------------------------------------------------------------------------


def _infer_stack(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    """TVM's rules: one dtype and rank, identical shapes; a symbolic dim that may differ leaves the shape unknown."""
    op = "stack"
    fields, dtype = joined_tensors(op, args[0])
    ranks = sorted({f.ndim for f in fields if f.ndim >= 0})
    if len(ranks) > 1:
        raise InferenceError(f"R.{op}: tensors have different ranks {ranks}")
    axis = 0 if attrs["axis"] is None else as_int(op, "axis", attrs["axis"])
    if not ranks:
        return TensorStructInfo(None, dtype, -1)
    ndim = ranks[0] + 1
    ax = normalize_axis(op, axis, ndim)
    shapes = [f.shape for f in fields if f.shape is not None]
    if len(shapes) != len(fields):
        return TensorStructInfo(None, dtype, ndim)
    first = shapes[0]
    for s in shapes[1:]:
        for j, (a, b) in enumerate(zip(first, s, strict=True)):
            if isinstance(a, int) and isinstance(b, int) and a != b:
                raise InferenceError(
                    f"R.{op}: tensors must have one shape; {tuple(first)} and {tuple(s)} differ at axis {j}"
                )
    if any(s != first for s in shapes):  # symbolic dims not provably equal
        return TensorStructInfo(None, dtype, ndim)
    return TensorStructInfo((*first[:ax], len(shapes), *first[ax:]), dtype)


def _stack(tensors: Sequence[np.ndarray], axis: int | None) -> np.ndarray:
    return np.stack(tuple(tensors), axis=0 if axis is None else axis)


def _torch_stack(t: TorchContext, tensors: Sequence[Any], axis: int | None) -> Any:
    return t.torch.stack(list(tensors), dim=0 if axis is None else axis)


register_op(
    "stack",
    [Param("tensors", TENSORS), Param("axis", ATTR, 0)],
    _infer_stack,
    _stack,
    torch_kernel=_torch_stack,
    work=copy_work,
    doc="Join a tuple of tensors of one shape along a new axis `axis` (negative counts from the end).",
)


# -- split -------------------------------------------------------------------------------


def _split_spec(attrs: dict[str, Any]) -> tuple[int | None, tuple[int, ...]]:
    """(number of sections, None) or (None, split indices)."""
    op = "split"
    ios = attrs["indices_or_sections"]
    if isinstance(ios, (list, tuple)):
        return None, as_ints(op, "indices_or_sections", ios)
    sections = as_int(op, "indices_or_sections", ios)
    if sections < 1:
        raise InferenceError(f"R.{op}: the number of sections must be positive, got {sections}")
    return sections, ()


def _split_bounds(sections: int | None, indices: Sequence[int], length: int) -> list[tuple[int, int]]:
    """(begin, end) of each piece of an axis of `length`; empty pieces have end <= begin."""
    if sections is not None:
        size = -(-length // sections)
        points = [min(size * i, length) for i in range(sections)] + [length]
    else:
        points = [0, *(min(max(i, 0), length) for i in indices), length]
    return [(points[i], points[i + 1]) for i in range(len(points) - 1)]


def _infer_split(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "split"
    x = expect_tensor(op, args, 0)
    sections, indices = _split_spec(attrs)
    ax = normalize_axis(op, as_int(op, "axis", attrs["axis"]), x.ndim)
    count = sections if sections is not None else len(indices) + 1
    if x.shape is None:
        return TupleStructInfo([TensorStructInfo(None, x.dtype, x.ndim)] * count)
    length = x.shape[ax]
    if isinstance(length, int):
        sizes: list[Dim] = [max(end - begin, 0) for begin, end in _split_bounds(sections, indices, length)]
    elif count == 1:
        sizes = [length]
    elif sections is not None:
        return TupleStructInfo([TensorStructInfo(None, x.dtype, x.ndim)] * count)
    else:  # symbolic length: the pieces between indices are known, the last one is the rest
        points = [0, *(max(i, 0) for i in indices)]
        sizes = [max(points[i + 1] - points[i], 0) for i in range(len(indices))]
        sizes.append(dim_add(length, -points[-1]))
    return TupleStructInfo([TensorStructInfo((*x.shape[:ax], s, *x.shape[ax + 1 :]), x.dtype) for s in sizes])


def _split(x: np.ndarray, indices_or_sections: int | Sequence[int], axis: int) -> tuple[np.ndarray, ...]:
    sections, indices = _split_spec({"indices_or_sections": indices_or_sections})
    ax = axis % x.ndim
    lead = (slice(None),) * ax
    return tuple(x[(*lead, slice(b, max(b, e)))] for b, e in _split_bounds(sections, indices, x.shape[ax]))


def _torch_split(t: TorchContext, x: Any, indices_or_sections: Any, axis: int) -> tuple[Any, ...]:
    ios = indices_or_sections
    spec = list(ios) if isinstance(ios, (list, tuple)) else int(ios)
    return tuple(t.torch.tensor_split(x, spec, dim=axis))


register_op(
    "split",
    [Param("x"), Param("indices_or_sections", ATTR), Param("axis", ATTR, 0)],
    _infer_split,
    _split,
    torch_kernel=_torch_split,
    work=no_work,
    doc="Split along `axis` into n ceil-sized sections or at the given indices; returns a tuple.",
)


# -- broadcast_to ------------------------------------------------------------------------


def _infer_broadcast_to(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "broadcast_to"
    x = expect_tensor(op, args, 0)
    target, ndim = shape_arg(op, "shape", args, 1)
    if target is None:
        return TensorStructInfo(None, x.dtype, ndim)
    if any(isinstance(d, int) and d < 0 for d in target):
        raise InferenceError(f"R.{op}: shape {target} has a negative dim")
    if x.ndim > len(target):
        raise InferenceError(f"R.{op}: cannot broadcast a tensor of rank {x.ndim} to the lower rank shape {target}")
    if x.shape is not None:
        for xd, td in zip(reversed(x.shape), reversed(target), strict=False):
            if isinstance(xd, int) and isinstance(td, int) and xd not in (1, td):
                raise InferenceError(f"R.{op}: cannot broadcast shape {x.shape} to {target}")
    return TensorStructInfo(target, x.dtype)


def _broadcast_to(x: np.ndarray, shape: Sequence[Dim]) -> np.ndarray:
    """Symbolic dims the runtime left unbound take the input's size where it is not 1."""
    offset = len(shape) - x.ndim
    dims: list[int] = []
    for i, d in enumerate(shape):
        if isinstance(d, str):
            if i < offset or x.shape[i - offset] == 1:
                raise ValueError(f"R.broadcast_to: symbolic dim {d!r} of {tuple(shape)} is unbound")
            d = x.shape[i - offset]
        dims.append(int(d))
    return np.ascontiguousarray(np.broadcast_to(x, tuple(dims)))


def _torch_broadcast_to(t: TorchContext, x: Any, shape: Sequence[Dim]) -> Any:
    if any(isinstance(d, str) for d in shape):
        raise Fallback  # an unbound symbolic dim: the NumPy kernel takes it from the input
    return t.torch.broadcast_to(x, tuple(int(d) for d in shape)).contiguous()


register_op(
    "broadcast_to",
    [Param("x"), Param("shape", SHAPE)],
    _infer_broadcast_to,
    _broadcast_to,
    torch_kernel=_torch_broadcast_to,
    work=copy_work,
    doc="Broadcast to `shape` with NumPy's rules.",
)


# -- astype -------------------------------------------------------------------------------


def _infer_astype(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    x = expect_tensor("astype", args, 0)
    return TensorStructInfo(x.shape, as_dtype("astype", "dtype", attrs["dtype"]), x.ndim)


def _astype(x: np.ndarray, dtype: str) -> np.ndarray:
    """NumPy's conversion; to bfloat16 (stored as float32) through float32, rounded to bfloat16 as torch does."""
    out = x.astype(to_numpy(dtype))
    return round_bfloat16(out) if dtype == "bfloat16" else out


register_op(
    "astype",
    [Param("x"), Param("dtype", ATTR)],
    _infer_astype,
    _astype,
    torch_kernel=lambda t, x, dtype: x.to(torch_dtype(t.torch, dtype)),
    doc="Convert to `dtype` (NumPy's conversion rules; bfloat16 rounds to nearest, ties to even).",
)


# -- take --------------------------------------------------------------------------------

TakeMode = Literal["fast", "nan", "wrap", "clip"]
_TAKE_MODES = ("fast", "nan", "wrap", "clip")


def _infer_take(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "take"
    x = expect_tensor(op, args, 0)
    idx = expect_tensor(op, args, 1)
    if idx.dtype and not idx.dtype.startswith(("int", "uint")):
        raise InferenceError(f"R.{op}: indices must be an integer tensor, got dtype {idx.dtype}")
    mode = attrs["mode"]
    if mode not in _TAKE_MODES:
        raise InferenceError(f"R.{op}: mode must be one of {', '.join(_TAKE_MODES)}; got {mode!r}")
    if mode == "nan" and x.dtype and not is_float(x.dtype):
        raise InferenceError(f"R.{op}: mode 'nan' needs a float tensor, got dtype {x.dtype}")
    if attrs["axis"] is None:  # NumPy: index the flattened tensor
        return TensorStructInfo(idx.shape, x.dtype, idx.ndim)
    ax = normalize_axis(op, as_int(op, "axis", attrs["axis"]), x.ndim)
    if x.shape is None or idx.shape is None:
        ndim = x.ndim + idx.ndim - 1 if x.ndim >= 0 and idx.ndim >= 0 else -1
        return TensorStructInfo(None, x.dtype, ndim)
    return TensorStructInfo((*x.shape[:ax], *idx.shape, *x.shape[ax + 1 :]), x.dtype)


def _take(x: np.ndarray, indices: np.ndarray, axis: int | None, mode: TakeMode) -> np.ndarray:
    """fast: out-of-range indices raise IndexError; wrap/clip as NumPy; nan: NaN there (`mode` as inference
    checked it)."""
    if axis is None:
        x, axis = x.reshape(-1), 0
    axis %= x.ndim
    if mode == "wrap" and x.shape[axis]:
        # The modulo here: NumPy's own "wrap" subtracts the axis length until the index fits, which
        # for an index of 1e18 takes years.
        return np.take(x, np.mod(indices, x.shape[axis]), axis=axis)
    if mode in ("wrap", "clip"):
        return np.take(x, indices, axis=axis, mode=mode)
    if mode == "fast":
        return np.take(x, indices, axis=axis)
    n = x.shape[axis]
    valid = (indices >= -n) & (indices < n)
    out = np.take(x, np.where(valid, indices, 0), axis=axis) if n else None
    shape = (*x.shape[:axis], *indices.shape, *x.shape[axis + 1 :])
    if out is None:
        return np.full(shape, np.nan, dtype=x.dtype)
    mask = valid.reshape((1,) * axis + indices.shape + (1,) * (x.ndim - axis - 1))
    return np.where(mask, out, np.array(np.nan, dtype=x.dtype))


register_op(
    "take",
    [Param("x"), Param("indices"), Param("axis", ATTR, None), Param("mode", ATTR, "fast")],
    _infer_take,
    _take,
    work=copy_work,
    doc="Gather entries of `x` at integer `indices` along `axis`.",
)
