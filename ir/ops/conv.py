"""Convolutions: ``R.nn.conv1d``, ``conv3d``, ``conv1d_transpose``, ``conv2d_transpose``, ``conv3d_transpose``.

(``nn.conv2d`` is in `nn`.)  Names, parameters and defaults follow TVM's
``relax.op.nn``; the PyTorch frontend prints every attribute, e.g.
``R.nn.conv1d(x, w, strides=[2], padding=[1, 1], dilation=[1], groups=2,
data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype="float32")``.

Shapes, in the canonical layouts: a convolution takes data (N, C, *S) and
weight (O, C/groups, *K) and gives (N, O, *S'), S' as `conv_pool.window_out`
counts it.  A transposed convolution takes weight (C, O/groups, *K) and gives
(N, O, *S'') with ``S'' = (S - 1)·stride - pad_before - pad_after +
dilation·(K - 1) + output_padding + 1``; output_padding must be below the
stride, as TVM requires.  Other orders of the layout letters are read as
permutations (see `conv_pool`).  Without out_dtype, data and weight must share
a dtype, which the result keeps.

Kernels accumulate one kernel tap at a time (a batched matmul per tap and
group) in the result's working dtype (float16 in float32).  No torch kernel: a
torch device runs them on a host copy.  Work: 2·(C/groups)·prod(K) FLOPs per
output element of a convolution and 2·(O/groups)·prod(K) per input element of
a transposed one (one multiply-add per tap), data and weight read once, the
result written once; it reads the weight's dims at the canonical positions
(the registry hands work functions no attributes).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import EllipsisType
from typing import Any

import numpy as np

from ..dtype import to_numpy
from ..errors import InferenceError
from ..op import ATTR, Param, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo
from .common import dim_add, expect_ndim, expect_not_bool, optional_dtype, product_dim, same_dtype
from .conv_pool import (
    SPATIAL,
    Window,
    inverse,
    layout_perm,
    out_layout,
    pad_spatial,
    permute,
    positive_int,
    spatial_ints,
    tap_slices,
    window_out,
)
from .special import work_dtype


class _ConvAttrs:
    """A convolution's attributes, checked once and shared by inference and kernel."""

    def __init__(self, op: str, attrs: dict[str, Any], n: int, transpose: bool) -> None:
        data = "NC" + SPATIAL[n]
        self.data_perm = layout_perm(op, "data_layout", attrs["data_layout"], data)
        self.weight_perm = layout_perm(
            op, "kernel_layout", attrs["kernel_layout"], ("IO" if transpose else "OI") + SPATIAL[n]
        )
        self.out_perm = layout_perm(op, "out_layout", out_layout(attrs, "data_layout"), data)
        self.window = Window(op, attrs, n)
        self.groups = positive_int(op, "groups", attrs["groups"])
        self.out_dtype = optional_dtype(op, "out_dtype", attrs["out_dtype"])
        self.output_padding = (0,) * n
        if transpose:
            self.output_padding = spatial_ints(op, "output_padding", attrs["output_padding"], n, least=0)
            for p, s in zip(self.output_padding, self.window.strides, strict=True):
                if p >= s:
                    raise InferenceError(
                        f"R.{op}: output_padding {self.output_padding} must be less than the strides "
                        f"{self.window.strides}"
                    )


def _check_channels(op: str, data: Sequence[Dim], weight: Sequence[Dim], groups: int, transpose: bool) -> None:
    c, w0, w1 = data[1], weight[0], weight[1]
    if transpose:
        if isinstance(c, int) and isinstance(w0, int) and c != w0:
            raise InferenceError(f"R.{op}: data has {c} channels but weight expects {w0} input channels")
        if isinstance(c, int) and c % groups:
            raise InferenceError(f"R.{op}: {c} input channels do not divide into {groups} groups")
        return
    if isinstance(c, int) and isinstance(w1, int) and c != w1 * groups:
        raise InferenceError(
            f"R.{op}: data has {c} channels but weight expects {w1} per group x {groups} group(s) = {w1 * groups}"
        )
    if isinstance(w0, int) and w0 % groups:
        raise InferenceError(f"R.{op}: {w0} output channels do not divide into {groups} groups")


def _transpose_out(op: str, axis: int, size: Dim, window: Dim, conv: _ConvAttrs) -> Dim:
    """``(size - 1)·stride - pad + dilation·(window - 1) + output_padding + 1`` on spatial axis `axis`."""
    win = conv.window
    s, d = win.strides[axis], win.dilation[axis]
    const = conv.output_padding[axis] + 1 - win.before[axis] - win.after[axis]
    if not isinstance(window, int):
        return dim_add(f"({size} - 1) * {s} + {d} * ({window} - 1)", const)
    const += d * (window - 1)
    if isinstance(size, int):
        out = (size - 1) * s + const
        if out < 1:
            raise InferenceError(
                f"R.{op}: the padding ({win.before[axis]} + {win.after[axis]}) removes the whole output "
                f"of spatial axis {axis}; it would have {out} positions"
            )
        return out
    return dim_add(product_dim([size, s]), const - s)


def _conv_infer(op: str, n: int, transpose: bool):
    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        data = expect_tensor(op, args, 0)
        weight = expect_tensor(op, args, 1)
        conv = _ConvAttrs(op, attrs, n, transpose)
        dtype = conv.out_dtype or same_dtype(op, data, weight)
        expect_not_bool(op, data.dtype)
        expect_ndim(op, f"data ({attrs['data_layout']})", data, n + 2)
        expect_ndim(op, f"weight ({attrs['kernel_layout']})", weight, n + 2)
        if data.shape is None or weight.shape is None:
            return TensorStructInfo(None, dtype, n + 2)
        d = permute(data.shape, conv.data_perm)
        w = permute(weight.shape, conv.weight_perm)
        _check_channels(op, d, w, conv.groups, transpose)
        if transpose:
            spatial = [_transpose_out(op, i, d[2 + i], w[2 + i], conv) for i in range(n)]
            out = (d[0], product_dim([w[1], conv.groups]), *spatial)
        else:
            out = (d[0], w[0], *[window_out(op, i, d[2 + i], w[2 + i], conv.window) for i in range(n)])
        return TensorStructInfo(permute(out, inverse(conv.out_perm)), dtype)

    return infer


# -- kernels ----------------------------------------------------------------------------


def _operands(
    op: str, data: np.ndarray, weight: np.ndarray, attrs: dict[str, Any], transpose: bool
) -> tuple[_ConvAttrs, np.ndarray, np.ndarray, np.dtype]:
    """The checked attributes, data and weight in canonical layouts and working dtype, and the result dtype."""
    conv = _ConvAttrs(op, attrs, data.ndim - 2, transpose)
    out_dtype = to_numpy(conv.out_dtype) if conv.out_dtype else np.result_type(data, weight)
    acc = work_dtype(out_dtype)
    x = np.transpose(data, conv.data_perm).astype(acc, copy=False)
    w = np.transpose(weight, conv.weight_perm).astype(acc, copy=False)
    return conv, x, w, out_dtype


def _conv_kernel(op: str):
    def kernel(data: np.ndarray, weight: np.ndarray, **attrs: Any) -> np.ndarray:
        conv, x, w, out_dtype = _operands(op, data, weight, attrs, False)
        win, g = conv.window, conv.groups
        x = pad_spatial(x, win.before, win.after)
        n, c = x.shape[:2]
        o, cg, *k = w.shape
        out = [
            (m - d * (t - 1) - 1) // s + 1 for m, t, d, s in zip(x.shape[2:], k, win.dilation, win.strides, strict=True)
        ]
        positions = int(np.prod(out))
        xg = x.reshape(n, g, c // g, *x.shape[2:])
        wg = w.reshape(g, o // g, cg, *k)
        acc = np.zeros((n, g, o // g, positions), dtype=x.dtype)
        for tap in np.ndindex(*k):
            taps = xg[tap_slices(tap, win, out)].reshape(n, g, cg, positions)
            acc += np.matmul(wg[(Ellipsis, *tap)], taps)
        result = acc.reshape(n, o, *out)
        return np.transpose(result, inverse(conv.out_perm)).astype(out_dtype, copy=False)

    return kernel


def _conv_transpose_kernel(op: str):
    def kernel(data: np.ndarray, weight: np.ndarray, **attrs: Any) -> np.ndarray:
        """Each tap scatters weight x input to the output positions it reaches; the padding is cropped after."""
        conv, x, w, out_dtype = _operands(op, data, weight, attrs, True)
        win, g = conv.window, conv.groups
        n, c, *size = x.shape
        _, og, *k = w.shape
        strided = [s * (i - 1) + 1 for s, i in zip(win.strides, size, strict=True)]
        full = [m + d * (t - 1) + p for m, t, d, p in zip(strided, k, win.dilation, conv.output_padding, strict=True)]
        xg = x.reshape(n, g, c // g, int(np.prod(size)))
        wg = np.swapaxes(w.reshape(g, c // g, og, *k), 1, 2)  # (groups, O/groups, C/groups, *K)
        acc = np.zeros((n, g, og, *full), dtype=x.dtype)
        for tap in np.ndindex(*k):
            reach = zip(tap, win.dilation, strided, win.strides, strict=True)
            spots: tuple[EllipsisType | slice, ...] = (..., *(slice(t * d, t * d + m, s) for t, d, m, s in reach))
            acc[spots] += np.matmul(wg[(Ellipsis, *tap)], xg).reshape(n, g, og, *size)
        crop: tuple[EllipsisType | slice, ...] = (
            ...,
            *(slice(b, f - a) for b, a, f in zip(win.before, win.after, full, strict=True)),
        )
        kept = acc[crop]
        result = kept.reshape(n, g * og, *kept.shape[3:])
        return np.transpose(result, inverse(conv.out_perm)).astype(out_dtype, copy=False)

    return kernel


# -- work and registration ----------------------------------------------------------------


def _per_tap(sinfo: StructInfo) -> float:
    """Elements of one slice along the first axis (weight: C/groups x K, or O/groups x K transposed)."""
    if isinstance(sinfo, TensorStructInfo) and sinfo.shape:
        return elements(TensorStructInfo(sinfo.shape[1:]))
    return 1.0


def _conv_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """2·(C/groups)·prod(K) FLOPs per output element; data and weight read once, the result written once."""
    return Work(2.0 * _per_tap(args[1]) * elements(out), data_bytes(args), data_bytes((out,)))


def _conv_transpose_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """2·(O/groups)·prod(K) FLOPs per input element: each scatters one multiply-add per tap and output channel."""
    return Work(2.0 * _per_tap(args[1]) * elements(args[0]), data_bytes(args), data_bytes((out,)))


def _register(n: int, transpose: bool) -> None:
    name = f"nn.conv{n}d_transpose" if transpose else f"nn.conv{n}d"
    ones, zeros = (1,) * n if n > 1 else 1, (0,) * n if n > 1 else 0
    params = [Param("data"), Param("weight"), Param("strides", ATTR, ones), Param("padding", ATTR, zeros)]
    if transpose:
        params.append(Param("output_padding", ATTR, zeros))
    params += [
        Param("dilation", ATTR, ones),
        Param("groups", ATTR, 1),
        Param("data_layout", ATTR, "NC" + SPATIAL[n]),
        Param("kernel_layout", ATTR, ("IO" if transpose else "OI") + SPATIAL[n]),
        Param("out_layout", ATTR, None),
        Param("out_dtype", ATTR, None),
    ]
    what = "transposed convolution (the gradient of conv)" if transpose else "convolution"
    register_op(
        name,
        params,
        _conv_infer(name, n, transpose),
        _conv_transpose_kernel(name) if transpose else _conv_kernel(name),
        work=_conv_transpose_work if transpose else _conv_work,
        doc=f"{n}-D {what} with strides, padding, dilation and groups.",
    )


for _n, _transpose in ((1, False), (3, False), (1, True), (2, True), (3, True)):
    _register(_n, _transpose)
