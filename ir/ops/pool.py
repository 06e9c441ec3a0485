"""Pooling: ``R.nn.max_pool{1,2,3}d``, ``avg_pool{1,2,3}d`` and ``adaptive_avg_pool{1,2,3}d``.

Names, parameters and defaults follow TVM's ``relax.op.nn`` (count_include_pad
defaults to True for avg_pool1d and avg_pool3d and to False for avg_pool2d, as
there); the PyTorch frontend prints every attribute, e.g.
``R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1],
padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False,
layout="NCHW", out_layout="NCHW")``.

Semantics are TVM's.  A window of pool_size taps, dilated, slides with the
strides over the padded input; ceil_mode adds stride - 1 to each extent's
numerator and drops a last window starting past the input and its leading
padding (`conv_pool.window_out`), so a last window may run past the padding.
max_pool pads with the dtype's lowest value (TVM's ``min_value``: the lowest
finite float, not -inf).  avg_pool divides a window's sum by the number of its
taps inside the input, or with count_include_pad inside the padded input
(never counting the ceil-mode overhang), at least 1.  Integer sums are taken
in int64 (TVM sums in the input dtype and wraps on overflow) and divided
truncating toward zero, as TVM divides; float16 sums are taken in float32
(TVM sums in float16).  adaptive_avg_pool averages, per output position i of an axis
of length L pooled to M, the input positions floor(i·L/M) to ceil((i+1)·L/M) - 1;
output_size None keeps the input's spatial shape, one value stands for every
axis.  Layouts: see `conv_pool`.

No torch kernels.  Work: the registry hands work functions no attributes, so
a window is estimated as the input/output ratio (exact for windows that tile
the input, and for adaptive pools when the sizes divide): one FLOP per input
element (at least one per output element), plus one per output element for
the averages' divide.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, Param, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo
from .common import as_bool, expect_not_bool
from .conv_pool import (
    SPATIAL,
    Window,
    inverse,
    layout_perm,
    out_layout,
    pad_spatial,
    permute,
    spatial_ints,
    tap_slices,
    window_out,
)


class _PoolAttrs:
    """A pool's attributes, checked once and shared by inference and kernel."""

    def __init__(self, op: str, attrs: dict[str, Any], n: int) -> None:
        self.op = op
        self.perm = layout_perm(op, "layout", attrs["layout"], "NC" + SPATIAL[n])
        self.out_perm = layout_perm(op, "out_layout", out_layout(attrs, "layout"), "NC" + SPATIAL[n])
        self.pool_size = spatial_ints(op, "pool_size", attrs["pool_size"], n)
        self.window = Window(op, attrs, n)
        self.ceil_mode = as_bool(op, "ceil_mode", attrs["ceil_mode"])
        self.count_include_pad = as_bool(op, "count_include_pad", attrs["count_include_pad"])


def _pool_infer(op: str, n: int):
    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        data = expect_tensor(op, args, 0)
        pool = _PoolAttrs(op, attrs, n)
        expect_not_bool(op, data.dtype)
        _expect_rank(op, data, n)
        if data.shape is None:
            return TensorStructInfo(None, data.dtype, n + 2)
        d = permute(data.shape, pool.perm)
        spatial = [window_out(op, i, d[2 + i], pool.pool_size[i], pool.window, pool.ceil_mode) for i in range(n)]
        return TensorStructInfo(permute((d[0], d[1], *spatial), inverse(pool.out_perm)), data.dtype)

    return infer


def _expect_rank(op: str, data: TensorStructInfo, n: int) -> None:
    if data.ndim >= 0 and data.ndim != n + 2:
        raise InferenceError(f"R.{op}: data must have rank {n + 2} (N, C and {n} spatial axes), got rank {data.ndim}")


def _lowest(dtype: np.dtype) -> Any:
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _padded(pool: _PoolAttrs, x: np.ndarray, value: Any) -> tuple[np.ndarray, list[int]]:
    """`x` (canonical) padded, the ceil-mode overhang included, and the output extents."""
    win, sizes = pool.window, x.shape[2:]
    out = [int(window_out(pool.op, i, sizes[i], k, win, pool.ceil_mode)) for i, k in enumerate(pool.pool_size)]
    after = [
        max(win.after[i], s * (o - 1) + d * (k - 1) + 1 - win.before[i] - sizes[i])
        for i, (s, o, d, k) in enumerate(zip(win.strides, out, win.dilation, pool.pool_size, strict=True))
    ]
    return pad_spatial(x, win.before, after, value), out


def _max_pool(op: str):
    def kernel(data: np.ndarray, **attrs: Any) -> np.ndarray:
        pool = _PoolAttrs(op, attrs, data.ndim - 2)
        x, out = _padded(pool, np.transpose(data, pool.perm), _lowest(data.dtype))
        windows = (x[tap_slices(tap, pool.window, out)] for tap in np.ndindex(*pool.pool_size))
        result = next(windows).copy()
        for window in windows:
            result = np.maximum(result, window)
        return np.transpose(result, inverse(pool.out_perm))

    return kernel


def _tap_counts(pool: _PoolAttrs, axis: int, size: int, out: int) -> np.ndarray:
    """Per output position on `axis`, how many taps of its window the average divides by."""
    win = pool.window
    start = np.arange(out) * win.strides[axis] - win.before[axis]
    taps = start[:, None] + np.arange(pool.pool_size[axis]) * win.dilation[axis]
    lo, hi = (-win.before[axis], size + win.after[axis]) if pool.count_include_pad else (0, size)
    return ((taps >= lo) & (taps < hi)).sum(axis=1)


def _divide(total: np.ndarray, count: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """total / count in the result dtype, count at least 1; integers truncate toward zero, as TVM divides."""
    count = np.maximum(count, 1)
    if dtype.kind == "f":
        return (total / count).astype(dtype, copy=False)
    return (np.sign(total) * (np.abs(total) // count)).astype(dtype, copy=False)


def _sum_dtype(dtype: np.dtype) -> np.dtype:
    """Sums of float16 are taken in float32 and of integers in int64 (TVM sums in the input dtype, wrapping)."""
    return np.dtype(np.float32) if dtype == np.float16 else np.dtype(np.int64) if dtype.kind in "iu" else dtype


def _avg_pool(op: str):
    def kernel(data: np.ndarray, **attrs: Any) -> np.ndarray:
        n = data.ndim - 2
        pool = _PoolAttrs(op, attrs, n)
        x = np.transpose(data, pool.perm)
        xp, out = _padded(pool, x.astype(_sum_dtype(data.dtype), copy=False), 0)
        total = np.zeros(xp.shape[:2] + tuple(out), dtype=xp.dtype)
        for tap in np.ndindex(*pool.pool_size):
            total += xp[tap_slices(tap, pool.window, out)]
        count = np.ones((1, 1) + (1,) * n, dtype=np.int64)
        for axis in range(n):
            shape = [1] * (n + 2)
            shape[2 + axis] = out[axis]
            count = count * _tap_counts(pool, axis, x.shape[2 + axis], out[axis]).reshape(shape)
        return np.transpose(_divide(total, count, data.dtype), inverse(pool.out_perm))

    return kernel


# -- adaptive_avg_pool ------------------------------------------------------------------------


class _AdaptiveAttrs:
    """An adaptive pool's attributes: layouts and output_size (None: the input's spatial shape)."""

    def __init__(self, op: str, attrs: dict[str, Any], n: int) -> None:
        self.perm = layout_perm(op, "layout", attrs["layout"], "NC" + SPATIAL[n])
        self.out_perm = layout_perm(op, "out_layout", out_layout(attrs, "layout"), "NC" + SPATIAL[n])
        size = attrs["output_size"]
        self.output_size = None if size is None else spatial_ints(op, "output_size", size, n)


def _adaptive_infer(op: str, n: int):
    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        data = expect_tensor(op, args, 0)
        pool = _AdaptiveAttrs(op, attrs, n)
        expect_not_bool(op, data.dtype)
        _expect_rank(op, data, n)
        if data.shape is None:
            return TensorStructInfo(None, data.dtype, n + 2)
        d = permute(data.shape, pool.perm)
        spatial = d[2:] if pool.output_size is None else pool.output_size
        return TensorStructInfo(permute((d[0], d[1], *spatial), inverse(pool.out_perm)), data.dtype)

    return infer


def _bins(size: int, out: int) -> np.ndarray:
    """(out, size) 0/1 matrix: row i marks the input positions averaged into output position i."""
    i = np.arange(out)
    start, end = (i * size) // out, -((-(i + 1) * size) // out)
    j = np.arange(size)
    return ((j >= start[:, None]) & (j < end[:, None])).astype(np.int64)


def _adaptive_avg_pool(op: str):
    def kernel(data: np.ndarray, **attrs: Any) -> np.ndarray:
        n = data.ndim - 2
        pool = _AdaptiveAttrs(op, attrs, n)
        x = np.transpose(data, pool.perm)
        sizes = x.shape[2:] if pool.output_size is None else pool.output_size
        total = x.astype(_sum_dtype(data.dtype), copy=False)
        count = np.ones((1, 1) + (1,) * n, dtype=np.int64)
        for axis, out in enumerate(sizes):
            bins = _bins(x.shape[2 + axis], out)
            total = np.moveaxis(np.tensordot(bins.astype(total.dtype), total, axes=([1], [2 + axis])), 0, 2 + axis)
            shape = [1] * (n + 2)
            shape[2 + axis] = out
            count = count * bins.sum(axis=1).reshape(shape)
        return np.transpose(_divide(total, count, data.dtype), inverse(pool.out_perm))

    return kernel


# -- work and registration --------------------------------------------------------------------


def _pool_work(divides: bool):
    """One comparison or add per window element and output (one divide more for averages).

    Adaptive pools have no fixed window: their bins tile the input, so they
    add each input element about once.
    """

    def work(args: Sequence[StructInfo], out: StructInfo, attrs: dict[str, Any]) -> Work:
        size = attrs.get("pool_size")
        if isinstance(size, (list, tuple)) and all(isinstance(k, int) for k in size):
            flops = elements(out) * float(math.prod(size))
        else:
            flops = max(elements(args[0]), elements(out))
        return Work(flops + (elements(out) if divides else 0.0), data_bytes(args), data_bytes((out,)))

    return work


def _register(n: int) -> None:
    ones, zeros = (1,) * n, (0,) * n if n > 1 else (0, 0)
    layout = "NC" + SPATIAL[n]
    for kind, kernel in (("max", _max_pool), ("avg", _avg_pool)):
        name = f"nn.{kind}_pool{n}d"
        register_op(
            name,
            [
                Param("data"),
                Param("pool_size", ATTR, ones),
                Param("strides", ATTR, ones),
                Param("padding", ATTR, zeros),
                Param("dilation", ATTR, ones),
                Param("ceil_mode", ATTR, False),
                Param("count_include_pad", ATTR, kind == "avg" and n != 2),
                Param("layout", ATTR, layout),
                Param("out_layout", ATTR, None),
            ],
            _pool_infer(name, n),
            kernel(name),
            work=_pool_work(kind == "avg"),
            doc=f"{'Maximum' if kind == 'max' else 'Average'} of each {n}-D window (pool_size, strides, padding).",
        )
    name = f"nn.adaptive_avg_pool{n}d"
    register_op(
        name,
        [
            Param("data"),
            Param("output_size", ATTR, None),
            Param("layout", ATTR, layout),
            Param("out_layout", ATTR, None),
        ],
        _adaptive_infer(name, n),
        _adaptive_avg_pool(name),
        work=_pool_work(True),
        doc=f"Average over {n}-D bins that split the input evenly into output_size positions.",
    )


for _n in (1, 2, 3):
    _register(_n)
