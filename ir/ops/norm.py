"""Normalizations: ``R.nn.batch_norm``, ``group_norm``, ``instance_norm``, ``rms_norm``.

Parameters, their order and defaults follow TVM 0.27's ``relax.op.nn``
(``batch_norm``'s `axis` and the channel/axes attributes of group and instance
norm have no default; ``batch_norm``'s `training` defaults to True, as in TVM;
the PyTorch frontend prints ``training=False`` for a module in eval mode).
Every norm is defined on floats only; half precision is computed in float32.
Means and variances are population statistics of the centred data.

* ``batch_norm`` returns TVM's 3-tuple ``(out, moving_mean, moving_var)``.
  With ``training=False`` it normalizes with the moving statistics and returns
  them unchanged.  With ``training=True`` it does what TVM's legalization
  does: it normalizes with the batch statistics (over every axis but `axis`,
  biased variance) and returns the updated moving statistics
  ``(1 - momentum) * moving + momentum * batch`` (biased variance too).
* ``group_norm`` splits the `channel_axis` into `num_groups` groups and
  normalizes each group over its channels and `axes`; gamma and beta are
  per channel.  ``instance_norm`` normalizes over `axes`, gamma and beta per
  channel.  `center` / `scale` are honoured, as ``layer_norm`` does (TVM's
  legalization of these two ignores them and always applies gamma and beta;
  the frontend always prints True).
* ``rms_norm`` is ``x / sqrt(mean(x * x over axes) + epsilon) * weight``; the
  weight's dims are those of `axes` in the order given (which TVM checks).
  TVM compiles it only for the trailing axes; any axes work here.

Work, per data element: group_norm and instance_norm 8 FLOPs (statistics 4,
normalization 2, gamma and beta 2), rms_norm 4, batch_norm 2 plus one each
for gamma and beta it applies, plus 4 for the batch statistics when training;
every argument is read once and the results written once.  No torch kernels:
a torch device runs the NumPy kernels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dtype import is_float
from ..errors import InferenceError
from ..op import ATTR, REQUIRED, Param, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo, TupleStructInfo
from .common import as_bool, as_int, as_ints, expect_ndim, normalize_axes, normalize_axis
from .special import float_work

# -- attribute readers shared by the nn families added with this module --------------------


def as_float(op: str, name: str, value: Any) -> float:
    """A real-valued attribute (an int is accepted; a bool is not)."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
        return float(value)
    raise InferenceError(f"R.{op}: {name} must be a number, got {value!r}")


def same_dtypes(op: str, tensors: Sequence[TensorStructInfo], names: Sequence[str]) -> str:
    """The one dtype all `tensors` share (unknown ones agree with anything); a mismatch names both."""
    dtype, first = "", ""
    for t, name in zip(tensors, names, strict=True):
        if t.dtype and dtype and t.dtype != dtype:
            raise InferenceError(f"R.{op}: {name} has dtype {t.dtype} but {first} has {dtype}; they must match")
        if t.dtype and not dtype:
            dtype, first = t.dtype, name
    return dtype


# -- shared checks and numerics ---------------------------------------------------------------


def _check_floats(op: str, tensors: Sequence[TensorStructInfo], names: Sequence[str]) -> str:
    dtype = same_dtypes(op, tensors, names)
    if dtype and not is_float(dtype):
        raise InferenceError(f"R.{op}: expects float tensors, got dtype {dtype}")
    return dtype


def _check_channel_params(op: str, data: TensorStructInfo, axis: int, params: dict[str, TensorStructInfo]) -> None:
    """Per-channel parameters: rank 1, as long as data's `axis` (where both are known)."""
    length = data.shape[axis] if data.shape is not None else None
    for name, t in params.items():
        expect_ndim(op, name, t, 1)
        size = t.shape[0] if t.shape is not None else None
        if isinstance(size, int) and isinstance(length, int) and size != length:
            raise InferenceError(f"R.{op}: {name} has {size} entries but data has {length} channels on axis {axis}")


def _stats(x: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population variance over `axes`, kept as size-1 dims."""
    mean = x.mean(axis=axes, keepdims=True)
    centred = x - mean
    return mean, np.mean(centred * centred, axis=axes, keepdims=True)


def _along(vec: np.ndarray, ndim: int, axis: int) -> np.ndarray:
    """A 1-D parameter shaped to broadcast along `axis` of an `ndim`-D tensor."""
    shape = [1] * ndim
    shape[axis] = vec.shape[0]
    return float_work(vec).reshape(shape)


def _affine(out: np.ndarray, gamma: np.ndarray, beta: np.ndarray, axis: int, center: bool, scale: bool) -> np.ndarray:
    if scale:
        out = out * _along(gamma, out.ndim, axis)
    if center:
        out = out + _along(beta, out.ndim, axis)
    return out


def _norm_work(flops_per_element: float):
    def work(args: Sequence[StructInfo], out: StructInfo) -> Work:
        return Work(flops_per_element * elements(args[0]), data_bytes(args), data_bytes((out,)))

    return work


_AFFINE_PARAMS = [Param("epsilon", ATTR, 1e-5), Param("center", ATTR, True), Param("scale", ATTR, True)]


# -- batch_norm -----------------------------------------------------------------------------------

_BN_TENSORS = ("data", "gamma", "beta", "moving_mean", "moving_var")


def _infer_batch_norm(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "nn.batch_norm"
    tensors = [expect_tensor(op, args, i) for i in range(5)]
    dtype = _check_floats(op, tensors, _BN_TENSORS)
    data = tensors[0]
    axis = normalize_axis(op, as_int(op, "axis", attrs["axis"]), data.ndim)
    as_float(op, "epsilon", attrs["epsilon"])
    for name in ("center", "scale", "training"):
        as_bool(op, name, attrs[name])
    momentum = as_float(op, "momentum", attrs["momentum"])
    if attrs["training"] and not 0.0 <= momentum <= 1.0:
        raise InferenceError(f"R.{op}: momentum must be in [0, 1] when training, got {momentum}")
    _check_channel_params(op, data, axis, dict(zip(_BN_TENSORS[1:], tensors[1:], strict=True)))
    sizes = [t.shape[0] for t in tensors[1:] if t.shape is not None]
    if data.shape is not None:
        sizes.append(data.shape[axis])
    channels: tuple[Dim, ...] | None = (sizes[0],) if sizes else None
    stat = TensorStructInfo(channels, dtype, 1)
    return TupleStructInfo([TensorStructInfo(data.shape, dtype, data.ndim), stat, stat])


def _batch_norm(
    data: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    moving_mean: np.ndarray,
    moving_var: np.ndarray,
    axis: int,
    epsilon: float,
    center: bool,
    scale: bool,
    momentum: float,
    training: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = float_work(data)
    ax = axis % data.ndim
    if training:
        mean, var = _stats(x, tuple(i for i in range(data.ndim) if i != ax))
        mean, var = mean.reshape(-1), var.reshape(-1)
    else:
        mean, var = float_work(moving_mean), float_work(moving_var)
    out = (x - _along(mean, x.ndim, ax)) / np.sqrt(_along(var, x.ndim, ax) + epsilon)
    out = _affine(out, gamma, beta, ax, center, scale)
    if training:
        new_mean = (1 - momentum) * float_work(moving_mean) + momentum * mean
        new_var = (1 - momentum) * float_work(moving_var) + momentum * var
    else:
        new_mean, new_var = moving_mean.copy(), moving_var.copy()
    dtype = data.dtype
    return out.astype(dtype, copy=False), new_mean.astype(dtype, copy=False), new_var.astype(dtype, copy=False)


def _batch_norm_work(args: Sequence[StructInfo], out: StructInfo, attrs: dict[str, Any]) -> Work:
    per_element = 2 + bool(attrs["scale"]) + bool(attrs["center"]) + (4 if attrs["training"] else 0)
    return Work(per_element * elements(args[0]), data_bytes(args), data_bytes((out,)))


register_op(
    "nn.batch_norm",
    [
        *(Param(name) for name in _BN_TENSORS),
        Param("axis", ATTR, REQUIRED),
        *_AFFINE_PARAMS,
        Param("momentum", ATTR, 0.1),
        Param("training", ATTR, True),
    ],
    _infer_batch_norm,
    _batch_norm,
    work=_batch_norm_work,
    doc="(out, moving_mean, moving_var): normalize along `axis` with moving (or batch, training) statistics.",
)


# -- group_norm and instance_norm ---------------------------------------------------------------


def _channel_axes(op: str, data: TensorStructInfo, attrs: dict[str, Any]) -> tuple[int, tuple[int, ...]]:
    """The normalized `channel_axis` and `axes`; the channel axis must not be among the axes."""
    channel = normalize_axis(op, as_int(op, "channel_axis", attrs["channel_axis"]), data.ndim)
    axes = normalize_axes(op, as_ints(op, "axes", attrs["axes"]), data.ndim)
    if data.ndim >= 0 and channel in axes:
        raise InferenceError(f"R.{op}: channel_axis {channel} must not be one of the axes {axes}")
    return channel, axes


def _infer_channel_norm(op: str, grouped: bool):
    """Inference of group_norm (`grouped`: the channels split into num_groups) and instance_norm."""

    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        tensors = [expect_tensor(op, args, i) for i in range(3)]
        dtype = _check_floats(op, tensors, ("data", "gamma", "beta"))
        data = tensors[0]
        channel, _ = _channel_axes(op, data, attrs)
        as_float(op, "epsilon", attrs["epsilon"])
        as_bool(op, "center", attrs["center"])
        as_bool(op, "scale", attrs["scale"])
        if grouped:
            groups = as_int(op, "num_groups", attrs["num_groups"])
            if groups < 1:
                raise InferenceError(f"R.{op}: num_groups must be positive, got {groups}")
            c = data.shape[channel] if data.shape is not None else None
            if isinstance(c, int) and c % groups:
                raise InferenceError(f"R.{op}: {c} channels do not divide into {groups} groups")
        _check_channel_params(op, data, channel, {"gamma": tensors[1], "beta": tensors[2]})
        return TensorStructInfo(data.shape, dtype, data.ndim)

    return infer


def _group_norm(
    data: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    num_groups: int,
    channel_axis: int,
    axes: Sequence[int],
    epsilon: float,
    center: bool,
    scale: bool,
) -> np.ndarray:
    ca = channel_axis % data.ndim
    x = float_work(data)
    grouped = x.reshape(*x.shape[:ca], num_groups, x.shape[ca] // num_groups, *x.shape[ca + 1 :])
    reduce = [ca + 1, *(a % data.ndim + (a % data.ndim > ca) for a in as_ints("nn.group_norm", "axes", axes))]
    mean, var = _stats(grouped, tuple(reduce))
    out = ((grouped - mean) / np.sqrt(var + epsilon)).reshape(x.shape)
    return _affine(out, gamma, beta, ca, center, scale).astype(data.dtype, copy=False)


def _instance_norm(
    data: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    channel_axis: int,
    axes: Sequence[int],
    epsilon: float,
    center: bool,
    scale: bool,
) -> np.ndarray:
    x = float_work(data)
    mean, var = _stats(x, tuple(a % data.ndim for a in as_ints("nn.instance_norm", "axes", axes)))
    out = (x - mean) / np.sqrt(var + epsilon)
    return _affine(out, gamma, beta, channel_axis % data.ndim, center, scale).astype(data.dtype, copy=False)


_GROUP_ATTRS = [Param("num_groups", ATTR, REQUIRED), Param("channel_axis", ATTR, REQUIRED)]
register_op(
    "nn.group_norm",
    [Param("data"), Param("gamma"), Param("beta"), *_GROUP_ATTRS, Param("axes", ATTR, REQUIRED), *_AFFINE_PARAMS],
    _infer_channel_norm("nn.group_norm", grouped=True),
    _group_norm,
    work=_norm_work(8),
    doc="Normalize each of `num_groups` channel groups over its channels and `axes`; gamma/beta per channel.",
)
register_op(
    "nn.instance_norm",
    [
        Param("data"),
        Param("gamma"),
        Param("beta"),
        Param("channel_axis", ATTR, REQUIRED),
        Param("axes", ATTR, REQUIRED),
        *_AFFINE_PARAMS,
    ],
    _infer_channel_norm("nn.instance_norm", grouped=False),
    _instance_norm,
    work=_norm_work(8),
    doc="Normalize over `axes` (per channel and sample); gamma/beta along `channel_axis`.",
)


# -- rms_norm ---------------------------------------------------------------------------------------


def _infer_rms_norm(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "nn.rms_norm"
    data = expect_tensor(op, args, 0)
    weight = expect_tensor(op, args, 1)
    dtype = _check_floats(op, [data, weight], ("data", "weight"))
    as_float(op, "epsilon", attrs["epsilon"])
    axes = normalize_axes(op, as_ints(op, "axes", attrs["axes"]), data.ndim)
    expect_ndim(op, "weight", weight, len(axes))
    if data.shape is not None and weight.shape is not None:
        want = tuple(data.shape[a] for a in axes)
        for got, exp in zip(weight.shape, want, strict=True):
            if isinstance(got, int) and isinstance(exp, int) and got != exp:
                raise InferenceError(f"R.{op}: weight has shape {weight.shape} but data has {want} on axes {axes}")
    return TensorStructInfo(data.shape, dtype, data.ndim)


def _rms_norm(data: np.ndarray, weight: np.ndarray, axes: int | Sequence[int], epsilon: float) -> np.ndarray:
    x = float_work(data)
    norm_axes = tuple(a % data.ndim for a in as_ints("nn.rms_norm", "axes", axes))
    mean_square = np.mean(x * x, axis=norm_axes, keepdims=True)
    shape = [1] * data.ndim
    for a in norm_axes:
        shape[a] = data.shape[a]
    w = np.transpose(float_work(weight), np.argsort(norm_axes)).reshape(shape)  # weight's dims follow `axes`
    return (x / np.sqrt(mean_square + epsilon) * w).astype(data.dtype, copy=False)


register_op(
    "nn.rms_norm",
    [Param("data"), Param("weight"), Param("axes", ATTR, (-1,)), Param("epsilon", ATTR, 1e-5)],
    _infer_rms_norm,
    _rms_norm,
    work=_norm_work(4),
    doc="x / sqrt(mean(x^2 over axes) + epsilon) * weight.",
)
