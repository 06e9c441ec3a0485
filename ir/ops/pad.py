"""``R.nn.pad(data, pad_width, pad_mode="constant", pad_value=0.0)``, as TVM 0.27 defines it.

`pad_width` is flat: ``[before_0, after_0, before_1, after_1, ...]``, two
entries per axis of `data`; a negative entry crops that side (TVM's
arithmetic, which this follows: result index ``i`` reads input index
``i - before``).  The modes, each of which TVM compiles:

* ``"constant"``: `pad_value`, converted to data's dtype as TVM converts a
  literal (truncated toward zero for integers; a value the dtype cannot hold,
  such as 300 for uint8 or 1e6 for float16, is an error, as in TVM);
* ``"reflect"``: mirrored without repeating the edge (``3 2 | 1 2 3 | 2 1``);
  each side pads less than the axis is long (TVM would read out of bounds);
* ``"replicate"``: the edge value repeated;
* ``"circular"``: the axis wrapped around, any number of times.

Another mode is an error (TVM's inference accepts any string and pads with
the constant).  The frontend prints ``pad_value`` before ``pad_mode``; the
keywords are read in any order and written back in the parameter order.

Work: no arithmetic; data read once, the result written once.  No torch kernel.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, overload

import numpy as np

from ..dtype import to_numpy
from ..errors import InferenceError
from ..op import ATTR, Param, Work, data_bytes, expect_tensor, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo
from .common import as_ints, dim_add
from .norm import as_float

OP = "nn.pad"
MODES = ("constant", "reflect", "replicate", "circular")


def _widths(pad_width: Any, ndim: int) -> list[tuple[int, int]]:
    """(before, after) per axis; checks the count against `ndim` when the rank is known."""
    flat = as_ints(OP, "pad_width", pad_width)
    if len(flat) % 2 or (ndim >= 0 and len(flat) != 2 * ndim):
        want = f"{2 * ndim} values (before and after for each of the {ndim} axes)" if ndim >= 0 else "pairs of values"
        raise InferenceError(f"R.{OP}: pad_width needs {want}, got {len(flat)}")
    return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]


@overload
def _check_axis(mode: str, axis: int, size: int, before: int, after: int) -> int: ...


@overload
def _check_axis(mode: str, axis: int, size: Dim, before: int, after: int) -> Dim: ...


def _check_axis(mode: str, axis: int, size: Dim, before: int, after: int) -> Dim:
    """The padded length of one axis, after checking that `mode` can fill it."""
    if not isinstance(size, int):
        return dim_add(size, before + after)
    out = size + before + after
    if out < 0:
        raise InferenceError(f"R.{OP}: pad_width crops axis {axis} (length {size}) by more than its length")
    if mode == "reflect" and out and max(before, after) > size - 1:
        raise InferenceError(
            f"R.{OP}: reflect padding of axis {axis} (length {size}) must be shorter than the axis, "
            f"got {before} before and {after} after"
        )
    if mode in ("replicate", "circular") and size == 0 and out:
        raise InferenceError(f"R.{OP}: {mode} padding cannot fill the empty axis {axis}")
    return out


def fill_value(value: float, dtype: np.dtype) -> Any:
    """`value` in `dtype` as TVM makes the literal: integers truncated toward zero; out of range is an error."""
    if dtype.kind == "b":
        return bool(value)
    if dtype.kind in "iu":
        if not math.isfinite(value) or not np.iinfo(dtype).min <= math.trunc(value) <= np.iinfo(dtype).max:
            raise ValueError(f"R.{OP}: pad_value {value} does not fit dtype {dtype}")
        return math.trunc(value)
    if dtype == np.float16 and math.isfinite(value) and abs(value) > float(np.finfo(np.float16).max):
        raise ValueError(f"R.{OP}: pad_value {value} does not fit dtype float16")
    return dtype.type(value)


def _infer_pad(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    data = expect_tensor(OP, args, 0)
    mode = attrs["pad_mode"]
    if mode not in MODES:
        raise InferenceError(f"R.{OP}: pad_mode must be one of {', '.join(map(repr, MODES))}; got {mode!r}")
    value = as_float(OP, "pad_value", attrs["pad_value"])
    if data.dtype:
        try:
            fill_value(value, to_numpy(data.dtype))
        except ValueError as err:
            raise InferenceError(str(err)) from None
    widths = _widths(attrs["pad_width"], data.ndim)
    if data.shape is None:
        return TensorStructInfo(None, data.dtype, len(widths))
    shape = [_check_axis(mode, i, d, *w) for i, (d, w) in enumerate(zip(data.shape, widths, strict=True))]
    return TensorStructInfo(tuple(shape), data.dtype)


def _source_index(mode: str, out_len: int, size: int, before: int) -> np.ndarray:
    """For each result index along an axis, the input index it copies (non-constant modes)."""
    o = np.arange(out_len) - before
    if mode == "reflect":
        m = size - 1
        return m - np.abs(m - np.abs(o))
    if mode == "replicate":
        return np.clip(o, 0, size - 1)
    return np.mod(o, size)


def _pad(data: np.ndarray, pad_width: Sequence[int], pad_mode: str, pad_value: float) -> np.ndarray:
    widths = _widths(pad_width, data.ndim)
    try:  # checked at inference unless the shape was symbolic there
        out_shape = [_check_axis(pad_mode, i, d, *w) for i, (d, w) in enumerate(zip(data.shape, widths, strict=True))]
    except InferenceError as err:
        raise ValueError(err.reason) from None
    if pad_mode == "constant":
        out = np.full(out_shape, fill_value(pad_value, data.dtype), dtype=data.dtype)
        dst, src = [], []
        for size, n, (before, _) in zip(data.shape, out_shape, widths, strict=True):
            lo_dst, lo_src = max(before, 0), max(-before, 0)
            count = max(min(size - lo_src, n - lo_dst), 0)
            dst.append(slice(lo_dst, lo_dst + count))
            src.append(slice(lo_src, lo_src + count))
        out[tuple(dst)] = data[tuple(src)]
        return out
    out = data
    for axis, (size, n, (before, _)) in enumerate(zip(data.shape, out_shape, widths, strict=True)):
        out = np.take(out, _source_index(pad_mode, int(n), size, before), axis=axis)
    return np.ascontiguousarray(out)


def _pad_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    return Work(0.0, data_bytes(args[:1]), data_bytes((out,)))


register_op(
    OP,
    [
        Param("data"),
        Param("pad_width", ATTR),
        Param("pad_mode", ATTR, "constant"),
        Param("pad_value", ATTR, 0.0),
    ],
    _infer_pad,
    _pad,
    work=_pad_work,
    doc="Pad (or crop, with negative widths) every axis: constant, reflect, replicate or circular.",
)
