"""Sliding-window geometry and layouts shared by the convolution, pooling and resize ops.

The ops themselves are registered in `conv` (conv1d, conv3d and the transposed
convolutions), `pool` (max, average and adaptive average pooling) and `resize`
(``image.resize2d``); they read their attributes here, so each attribute form
means one thing for every op:

* Layouts.  An op computes in its canonical layout: ``NCW``, ``NCHW`` or
  ``NCDHW`` for data, ``OIW``... for convolution weights, ``IOW``... for
  transposed-convolution weights.  A layout naming the same axes in another
  order (``NHWC``, ``HWIO``) is read as a permutation of it: inference permutes
  shapes and kernels transpose.  A layout that is not (TVM's packed ``NCHW4c``)
  is an `InferenceError`.  An unset out_layout (None or "") is the data layout.
* Spatial attributes (strides, dilation, pool_size): one value for every
  spatial axis or one per axis, each positive.
* Padding, read as TVM reads it: one value (every side of every axis), one
  per axis (both sides of it) or two per axis (the start of every axis, then
  the end of every axis), never negative.
* The extent of a window sliding over a padded axis, kept symbolic when the
  axis is; a window that does not fit is an `InferenceError` (TVM infers a
  zero or negative extent there).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import EllipsisType
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..struct_info import Dim
from .common import as_int, as_ints, dim_add

SPATIAL = {1: "W", 2: "HW", 3: "DHW"}  # spatial axis letters by number of spatial axes


# -- layouts ------------------------------------------------------------------------


def layout_perm(op: str, name: str, layout: Any, canonical: str) -> tuple[int, ...]:
    """Where each axis of `canonical` sits in `layout`: ``layout_perm(.., "NHWC", "NCHW") == (0, 3, 1, 2)``.

    ``np.transpose(x, perm)`` turns an array in `layout` into `canonical`.
    """
    if not isinstance(layout, str) or sorted(layout) != sorted(canonical):
        raise InferenceError(
            f"R.{op}: {name} {layout!r} is not supported; use {canonical!r} or another order of its axes"
        )
    return tuple(layout.index(axis) for axis in canonical)


def out_layout(attrs: dict[str, Any], name: str) -> Any:
    """The out_layout attribute, the layout named `name` when it is unset (None or "")."""
    value = attrs["out_layout"]
    return attrs[name] if value in (None, "") else value


def permute(dims: Sequence[Dim], perm: Sequence[int]) -> tuple[Dim, ...]:
    """`dims` reordered as ``np.transpose(x, perm)`` reorders the axes of x."""
    return tuple(dims[p] for p in perm)


def inverse(perm: Sequence[int]) -> tuple[int, ...]:
    """The permutation undoing `perm`: ``permute(permute(d, perm), inverse(perm)) == d``."""
    out = [0] * len(perm)
    for i, p in enumerate(perm):
        out[p] = i
    return tuple(out)


# -- attributes ------------------------------------------------------------------------


def _counts(n: int) -> str:
    counts = sorted({1, n})
    return " or ".join(str(c) for c in counts)


def spatial_ints(op: str, name: str, value: Any, n: int, least: int = 1) -> tuple[int, ...]:
    """One value per spatial axis (of `n`) from 1 or `n` values, each at least `least`."""
    vals = as_ints(op, name, value)
    if len(vals) == 1:
        vals = vals * n
    if len(vals) != n:
        raise InferenceError(f"R.{op}: {name} takes {_counts(n)} values, got {len(vals)}")
    if min(vals) < least:
        raise InferenceError(f"R.{op}: {name} must be {'positive' if least else 'non-negative'}, got {value!r}")
    return vals


def spatial_padding(op: str, value: Any, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(padding before, padding after) per spatial axis from 1, `n` or 2·`n` values."""
    vals = as_ints(op, "padding", value)
    if len(vals) == 1:
        vals = vals * (2 * n)
    elif len(vals) == n:
        vals = vals * 2
    if len(vals) != 2 * n:
        counts = sorted({1, n, 2 * n})
        allowed = ", ".join(str(c) for c in counts[:-1]) + f" or {counts[-1]}"
        raise InferenceError(f"R.{op}: padding takes {allowed} values, got {len(vals)}")
    if min(vals) < 0:
        raise InferenceError(f"R.{op}: padding must not be negative, got {value!r}")
    return vals[:n], vals[n:]


def positive_int(op: str, name: str, value: Any) -> int:
    out = as_int(op, name, value)
    if out < 1:
        raise InferenceError(f"R.{op}: {name} must be positive, got {out}")
    return out


class Window:
    """strides, dilation and padding of a window sliding over `n` spatial axes, checked once."""

    __slots__ = ("strides", "dilation", "before", "after")

    def __init__(self, op: str, attrs: dict[str, Any], n: int) -> None:
        self.strides = spatial_ints(op, "strides", attrs["strides"], n)
        self.dilation = spatial_ints(op, "dilation", attrs["dilation"], n)
        self.before, self.after = spatial_padding(op, attrs["padding"], n)


# -- extents ---------------------------------------------------------------------------


def window_out(op: str, axis: int, size: Dim, window: Dim, window_attrs: Window, ceil_mode: bool = False) -> Dim:
    """Positions of a window of `window` taps on spatial axis `axis`, of length `size` before padding.

    ``num // stride + 1`` with ``num = size + pad - dilation·(window - 1) - 1``.  In ceil mode
    ``(num + stride - 1) // stride + 1``, less one when that last window would start past the
    input and its leading padding (TVM's rule, checked once, as PyTorch does).
    """
    before = window_attrs.before[axis]
    pad = before + window_attrs.after[axis]
    s, d = window_attrs.strides[axis], window_attrs.dilation[axis]
    if not isinstance(window, int):
        return f"({size} + {pad + d - 1} - {d} * {window}) // {s} + 1"
    offset = pad - d * (window - 1) - 1  # num = size + offset
    if isinstance(size, int):
        num = size + offset
        out = (num + s - 1) // s + 1 if ceil_mode else num // s + 1
        if ceil_mode and (out - 1) * s >= size + before:
            out -= 1
        if out < 1:
            raise InferenceError(
                f"R.{op}: the window ({window} taps, dilation {d}) does not fit spatial axis {axis} "
                f"of the padded input ({size} + {pad}); it would have {out} positions"
            )
        return out
    if not ceil_mode:
        return dim_add(size, offset + 1) if s == 1 else f"({dim_add(size, offset)}) // {s} + 1"
    return _ceil_out(size, offset, s, window_attrs.after[axis] - d * (window - 1) - 1)


def _ceil_out(size: Dim, offset: int, s: int, c: int) -> Dim:
    """The ceil-mode extent for a symbolic `size`: ``(last start) - (size + before)`` is ``c + (-num) % s``."""
    if s == 1:
        return dim_add(size, offset) if c >= 0 else dim_add(size, offset + 1)
    out = f"({dim_add(size, offset + s - 1)}) // {s}"
    if c >= 0:  # the last window always starts past the input: dropped
        return out
    if c + s - 1 < 0:  # never
        return f"{out} + 1"
    return f"{out} + 1 - ((-({dim_add(size, offset)})) % {s} + {s + c}) // {s}"


def tap_slices(tap: Sequence[int], window: Window, out: Sequence[int]) -> tuple[EllipsisType | slice, ...]:
    """The index of what kernel tap `tap` reads of the padded input at the `out` positions: ``...`` (the
    batch and channel axes, whatever their layout) and one slice per spatial axis."""
    return (
        ...,
        *(
            slice(t * d, t * d + s * (o - 1) + 1, s)
            for t, d, s, o in zip(tap, window.dilation, window.strides, out, strict=True)
        ),
    )


def pad_spatial(x: np.ndarray, before: Sequence[int], after: Sequence[int], value: Any = 0) -> np.ndarray:
    """`x` (N, C, *spatial) padded with `value` on its spatial axes."""
    if not any(before) and not any(after):
        return x
    widths = [(0, 0), (0, 0)] + list(zip(before, after, strict=True))
    return np.pad(x, widths, constant_values=value)
