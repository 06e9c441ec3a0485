"""Neural-network ops: ``R.nn.relu``, ``gelu``, ``silu``, ``softmax``, ``layer_norm``, ``conv2d``.

Names, parameters and defaults follow TVM's ``relax.op.nn`` so that TVMScript
written for TVM parses here.  Activations other than relu, softmax and
layer_norm are defined on floats only, as in TVM.  Kernels compute float16 in
float32 (see `special`).  conv2d supports the NCHW data / OIHW kernel layouts
(TVM's defaults); any other layout is rejected at inference, not silently
misread.

Torch kernels: relu, gelu, silu and softmax (falling back to NumPy for
integer inputs); layer_norm and conv2d have none, so a torch device runs
their NumPy kernels on a host copy.  Work: the activations, softmax and
layer_norm count a fixed number of FLOPs per element (relu 1, silu and
softmax 4, gelu and layer_norm 8); conv2d counts its multiply-adds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dtype import to_numpy
from ..errors import InferenceError
from ..op import (
    ATTR,
    Fallback,
    Param,
    TorchContext,
    Work,
    data_bytes,
    elements,
    elementwise_work,
    expect_tensor,
    register_op,
)
from ..struct_info import Dim, StructInfo, TensorStructInfo
from .common import (
    as_bool,
    as_int,
    as_ints,
    dim_add,
    expect_float,
    expect_ndim,
    normalize_axes,
    normalize_axis,
    optional_dtype,
    same_dtype,
    torch_float_only,
    unary_infer,
)
from .special import float_work, gelu, sigmoid, work_dtype

# -- activations ----------------------------------------------------------------


def _relu(data: np.ndarray) -> np.ndarray:
    return np.asarray(np.maximum(data, data.dtype.type(0)))


def _silu(data: np.ndarray) -> np.ndarray:
    return np.asarray(float_work(data) * sigmoid(data)).astype(data.dtype, copy=False)


register_op(
    "nn.relu",
    [Param("data")],
    unary_infer("nn.relu"),
    _relu,
    torch_kernel=lambda t, data: t.torch.relu(data),
    doc="max(x, 0), elementwise.",
)
register_op(
    "nn.gelu",
    [Param("data")],
    unary_infer("nn.gelu", float_only=True),
    gelu,
    torch_kernel=torch_float_only(lambda torch: torch.nn.functional.gelu),
    work=elementwise_work(8),
    doc="x * Phi(x), the exact (erf) form of GELU.",
)
register_op(
    "nn.silu",
    [Param("data")],
    unary_infer("nn.silu", float_only=True),
    _silu,
    torch_kernel=torch_float_only(lambda torch: torch.nn.functional.silu),
    work=elementwise_work(4),
    doc="x * sigmoid(x).",
)


# -- softmax ----------------------------------------------------------------------


def _infer_softmax(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    data = expect_tensor("nn.softmax", args, 0)
    expect_float("nn.softmax", data)
    normalize_axis("nn.softmax", as_int("nn.softmax", "axis", attrs["axis"]), data.ndim)
    return TensorStructInfo(data.shape, data.dtype, data.ndim)


def _softmax(data: np.ndarray, axis: int) -> np.ndarray:
    x = float_work(data)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True, initial=-np.inf))  # initial: empty axes
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(data.dtype, copy=False)


def _torch_softmax(t: TorchContext, data: Any, axis: int) -> Any:
    if not data.is_floating_point():
        raise Fallback
    return t.torch.softmax(data, dim=axis)


register_op(
    "nn.softmax",
    [Param("data"), Param("axis", ATTR, -1)],
    _infer_softmax,
    _softmax,
    torch_kernel=_torch_softmax,
    work=elementwise_work(4),
    doc="exp(x) / sum(exp(x)) along `axis`, computed stably.",
)


# -- layer_norm -------------------------------------------------------------------


def _as_float(op: str, name: str, value: Any) -> float:
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return float(value)
    raise InferenceError(f"R.{op}: {name} must be a number, got {value!r}")


def _infer_layer_norm(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "nn.layer_norm"
    data = expect_tensor(op, args, 0)
    gamma = expect_tensor(op, args, 1)
    beta = expect_tensor(op, args, 2)
    expect_float(op, data)
    dtype = same_dtype(op, data, _param_dtype(op, gamma, beta))
    _as_float(op, "epsilon", attrs["epsilon"])
    as_bool(op, "center", attrs["center"])
    as_bool(op, "scale", attrs["scale"])
    axes = normalize_axes(op, as_ints(op, "axes", attrs["axes"]), data.ndim)
    for what, param in (("gamma", gamma), ("beta", beta)):
        expect_ndim(op, what, param, len(axes))
        if data.shape is not None and param.shape is not None:
            want = tuple(data.shape[a] for a in axes)
            for got, exp in zip(param.shape, want, strict=True):
                if isinstance(got, int) and isinstance(exp, int) and got != exp:
                    raise InferenceError(
                        f"R.{op}: {what} has shape {param.shape} but the normalized axes {axes} of data have {want}"
                    )
    return TensorStructInfo(data.shape, dtype, data.ndim)


def _param_dtype(op: str, gamma: TensorStructInfo, beta: TensorStructInfo) -> TensorStructInfo:
    """gamma and beta must agree; the one that knows its dtype stands for both."""
    same_dtype(op, gamma, beta)
    return gamma if gamma.dtype else beta


def _layer_norm(
    data: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    axes: int | Sequence[int],
    epsilon: float,
    center: bool,
    scale: bool,
) -> np.ndarray:
    x = float_work(data)
    norm_axes = tuple(a % data.ndim for a in as_ints("nn.layer_norm", "axes", axes))
    mean = x.mean(axis=norm_axes, keepdims=True)
    centered = x - mean
    var = np.mean(centered * centered, axis=norm_axes, keepdims=True)
    out = centered / np.sqrt(var + epsilon)
    # gamma's dims follow the order of `axes`; put them at those axes of data.
    order = np.argsort(norm_axes)
    bshape = [1] * data.ndim
    for a in norm_axes:
        bshape[a] = data.shape[a]
    if scale:
        out = out * np.transpose(float_work(gamma), order).reshape(bshape)
    if center:
        out = out + np.transpose(float_work(beta), order).reshape(bshape)
    return out.astype(data.dtype, copy=False)


register_op(
    "nn.layer_norm",
    [
        Param("data"),
        Param("gamma"),
        Param("beta"),
        Param("axes", ATTR, (-1,)),
        Param("epsilon", ATTR, 1e-5),
        Param("center", ATTR, True),
        Param("scale", ATTR, True),
    ],
    _infer_layer_norm,
    _layer_norm,
    work=elementwise_work(8),
    doc="(x - mean) / sqrt(var + epsilon) * gamma + beta over `axes`.",
)


# -- conv2d -------------------------------------------------------------------------


def _pair(op: str, name: str, value: Any) -> tuple[int, int]:
    vals = as_ints(op, name, value)
    if len(vals) == 1:
        vals = vals * 2
    if len(vals) != 2:
        raise InferenceError(f"R.{op}: {name} takes 1 or 2 values, got {len(vals)}")
    if min(vals) < 1:
        raise InferenceError(f"R.{op}: {name} must be positive, got {value!r}")
    return vals


def _padding(op: str, value: Any) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) from 1, 2 (vertical, horizontal) or 4 values, as TVM reads them."""
    vals = as_ints(op, "padding", value)
    if len(vals) == 1:
        vals = vals * 4
    elif len(vals) == 2:
        vals = vals * 2
    if len(vals) != 4:
        raise InferenceError(f"R.{op}: padding takes 1, 2 or 4 values, got {len(vals)}")
    if min(vals) < 0:
        raise InferenceError(f"R.{op}: padding must not be negative, got {value!r}")
    return vals


class _ConvAttrs:
    """conv2d's attributes, checked once and shared by inference and kernel."""

    def __init__(self, attrs: dict[str, Any]) -> None:
        op = "nn.conv2d"
        for name, want in (("data_layout", "NCHW"), ("kernel_layout", "OIHW")):
            if attrs[name] != want:
                raise InferenceError(
                    f"R.{op}: {name} {attrs[name]!r} is not supported; only NCHW data with OIHW kernels is"
                )
        if attrs["out_layout"] not in (None, "", "NCHW"):
            raise InferenceError(f"R.{op}: out_layout {attrs['out_layout']!r} is not supported; only NCHW is")
        self.strides = _pair(op, "strides", attrs["strides"])
        self.dilation = _pair(op, "dilation", attrs["dilation"])
        self.padding = _padding(op, attrs["padding"])
        self.groups = as_int(op, "groups", attrs["groups"])
        if self.groups < 1:
            raise InferenceError(f"R.{op}: groups must be positive, got {self.groups}")
        self.out_dtype = optional_dtype(op, "out_dtype", attrs["out_dtype"])


def _conv_out_dim(size: Dim, kernel: Dim, pad: int, dilation: int, stride: int, what: str) -> Dim:
    """floor((size + pad - dilation * (kernel - 1) - 1) / stride) + 1, symbolic where needed."""
    if isinstance(size, int) and isinstance(kernel, int):
        out = (size + pad - dilation * (kernel - 1) - 1) // stride + 1
        if out < 1:
            raise InferenceError(
                f"R.nn.conv2d: the {what} window ({kernel} with dilation {dilation}) does not fit "
                f"the padded input ({size} + {pad}); the output would have {out} positions"
            )
        return out
    if isinstance(kernel, int):
        offset = pad - dilation * (kernel - 1) - 1
        if stride == 1:
            return dim_add(size, offset + 1)
        return f"({dim_add(size, offset)}) // {stride} + 1"
    return f"({size} + {pad} - {dilation} * ({kernel} - 1) - 1) // {stride} + 1"


def _infer_conv2d(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "nn.conv2d"
    data = expect_tensor(op, args, 0)
    weight = expect_tensor(op, args, 1)
    conv = _ConvAttrs(attrs)
    dtype = conv.out_dtype or same_dtype(op, data, weight)
    expect_ndim(op, "data (NCHW)", data, 4)
    expect_ndim(op, "weight (OIHW)", weight, 4)
    if data.shape is None or weight.shape is None:
        return TensorStructInfo(None, dtype, 4)
    n, c, h, w = data.shape
    o, i, kh, kw = weight.shape
    g = conv.groups
    if isinstance(c, int) and isinstance(i, int) and c != i * g:
        raise InferenceError(f"R.{op}: data has {c} channels but weight expects {i} per group x {g} group(s) = {i * g}")
    if isinstance(o, int) and o % g:
        raise InferenceError(f"R.{op}: {o} output channels do not divide into {g} groups")
    top, left, bottom, right = conv.padding
    oh = _conv_out_dim(h, kh, top + bottom, conv.dilation[0], conv.strides[0], "vertical")
    ow = _conv_out_dim(w, kw, left + right, conv.dilation[1], conv.strides[1], "horizontal")
    return TensorStructInfo((n, o, oh, ow), dtype)


def _conv2d(data: np.ndarray, weight: np.ndarray, **attrs: Any) -> np.ndarray:
    """im2col: gather each kernel tap's strided view, then one batched matmul per group."""
    conv = _ConvAttrs(attrs)
    out_dtype = to_numpy(conv.out_dtype) if conv.out_dtype else np.result_type(data, weight)
    acc = work_dtype(out_dtype)
    top, left, bottom, right = conv.padding
    x = np.pad(data.astype(acc, copy=False), ((0, 0), (0, 0), (top, bottom), (left, right)))
    w = weight.astype(acc, copy=False)
    n, c, hp, wp = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (dh, dw), g = conv.strides, conv.dilation, conv.groups
    oh = (hp - dh * (kh - 1) - 1) // sh + 1
    ow = (wp - dw * (kw - 1) - 1) // sw + 1
    cols = np.empty((n, c, kh, kw, oh, ow), dtype=acc)
    for r in range(kh):
        for s in range(kw):
            cols[:, :, r, s] = x[
                :, :, r * dh : r * dh + sh * (oh - 1) + 1 : sh, s * dw : s * dw + sw * (ow - 1) + 1 : sw
            ]
    cols = cols.reshape(n, g, cg * kh * kw, oh * ow)
    out = np.matmul(w.reshape(1, g, o // g, cg * kh * kw), cols)
    return out.reshape(n, o, oh, ow).astype(out_dtype, copy=False)


def _conv2d_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """2 * (C/groups) * KH * KW FLOPs per output element, one multiply-add per kernel tap.

    Data and weight are read once, the result written once.
    """
    weight = args[1]
    taps = elements(TensorStructInfo(weight.shape[1:])) if isinstance(weight, TensorStructInfo) and weight.shape else 1
    return Work(2.0 * taps * elements(out), data_bytes(args), data_bytes((out,)))


register_op(
    "nn.conv2d",
    [
        Param("data"),
        Param("weight"),
        Param("strides", ATTR, (1, 1)),
        Param("padding", ATTR, (0, 0, 0, 0)),
        Param("dilation", ATTR, (1, 1)),
        Param("groups", ATTR, 1),
        Param("data_layout", ATTR, "NCHW"),
        Param("kernel_layout", ATTR, "OIHW"),
        Param("out_layout", ATTR, None),
        Param("out_dtype", ATTR, None),
    ],
    _infer_conv2d,
    _conv2d,
    work=_conv2d_work,
    doc="2-D convolution, NCHW data and OIHW weight, with strides, padding, dilation and groups.",
)
