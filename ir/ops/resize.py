"""``R.image.resize2d`` and ``R.image.resize3d``: resize the spatial axes of a batch by interpolation.

Parameters follow TVM's ``relax.op.image.resize2d(data, size, roi=None,
layout="NCHW", method="linear", coordinate_transformation_mode="half_pixel",
rounding_method="round", cubic_alpha=-0.75, cubic_exclude=0,
extrapolation_value=0.0, out_dtype=None)`` and ``resize3d``, the same with
layout="NCDHW", rounding_method="" and a roi of 6 numbers.  The PyTorch frontend prints
``R.image.resize2d(x, R.shape([20, 20]), roi=[...], layout="NCHW",
method="nearest_neighbor", ...)`` for ``F.interpolate`` in nearest mode and
``method="linear"`` with ``"half_pixel"`` or ``"align_corners"`` for bilinear.
size is a shape argument (``R.shape([...])``, whose dims may be symbolic, or
a shape variable); it has one dim per spatial axis (2, or 3: depth, height,
width).  torch.fx's trilinear ``nn.Upsample`` and ONNX's 5-D Resize print
``resize3d``.

Semantics are TVM's.  Output position x of an axis of input length L and
output length M reads input coordinate (in float32, as TVM computes it):

    half_pixel            (x + 0.5)·L/M - 0.5
    pytorch_half_pixel    the same when M > 1, else 0
    align_corners         x·(L - 1)/(M - 1)  (0 when M is 1)
    asymmetric            x·L/M
    tf_half_pixel_for_nn  (x + 0.5)·L/M

``nearest_neighbor`` rounds the coordinate by rounding_method (``round``:
half to even, ``round_prefer_floor``, ``round_prefer_ceil``, ``floor`` and
``ceil`` with 1e-5 of slack; "" means round for align_corners, else floor)
and clamps it into the axis.  ``linear``
interpolates the two neighbours, ``cubic`` the four (Keys' kernel with
cubic_alpha; cubic_exclude drops the neighbours outside the axis and
renormalizes), every neighbour index clamped into the axis, in float32 (float64
for float64 data); integer results truncate toward zero.  The
``tf_crop_and_resize`` mode (which reads roi
and extrapolation_value) is not implemented: it is an `InferenceError`, as
is any unknown method or mode.  roi is otherwise ignored, as in TVM.

Layouts: NCHW (NCDHW), or another order of those letters (NHWC), see `conv_pool`.
Every axis is resized on its own (the methods are separable), depth first.
No torch kernel.  Work per result element: a multiply and an add per tap
(linear reads 2 neighbours per axis, cubic 4), 1 FLOP for nearest: 8 and 32
FLOPs in 2-D, 16 and 128 in 3-D.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dtype import to_numpy
from ..errors import InferenceError
from ..op import ATTR, SHAPE, Param, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo
from .common import as_int, concrete_shape, expect_not_bool, optional_dtype, shape_arg
from .conv_pool import inverse, layout_perm, permute

_METHODS = ("nearest_neighbor", "linear", "cubic")
_MODES = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn")
_ROUNDING = ("", "round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
_LAYOUTS = {2: "NCHW", 3: "NCDHW"}  # spatial axes -> the canonical layout
_AXES = {2: "(height, width)", 3: "(depth, height, width)"}
_ROUNDING_DEFAULT = {2: "round", 3: ""}  # TVM's defaults differ between resize2d and resize3d


def _op(spatial: int) -> str:
    return f"image.resize{spatial}d"


class _ResizeAttrs:
    """A resize's attributes, checked once and shared by inference and kernel; `spatial` is 2 or 3."""

    def __init__(self, spatial: int, attrs: dict[str, Any]) -> None:
        self.op = op = _op(spatial)
        self.perm = layout_perm(op, "layout", attrs["layout"], _LAYOUTS[spatial])
        self.method = self._choice("method", attrs["method"], _METHODS)
        self.mode = self._choice("coordinate_transformation_mode", attrs["coordinate_transformation_mode"], _MODES)
        rounding = self._choice("rounding_method", attrs["rounding_method"], _ROUNDING)
        self.rounding = rounding or ("round" if self.mode == "align_corners" else "floor")
        self.alpha = self._number("cubic_alpha", attrs["cubic_alpha"])
        self.exclude = as_int(op, "cubic_exclude", attrs["cubic_exclude"]) != 0
        self._number("extrapolation_value", attrs["extrapolation_value"])
        roi = attrs["roi"]
        if roi is not None and not (isinstance(roi, (list, tuple)) and len(roi) == 2 * spatial):
            raise InferenceError(f"R.{op}: roi must be None or {2 * spatial} numbers, got {roi!r}")
        for v in roi or ():
            self._number("roi", v)
        self.out_dtype = optional_dtype(op, "out_dtype", attrs["out_dtype"])

    def _choice(self, name: str, value: Any, allowed: Sequence[str]) -> str:
        if value not in allowed:
            why = " is not implemented" if value == "tf_crop_and_resize" else " is not one of " + ", ".join(allowed)
            raise InferenceError(f"R.{self.op}: {name} {value!r}{why}")
        return value

    def _number(self, name: str, value: Any) -> float:
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
            return float(value)
        raise InferenceError(f"R.{self.op}: {name} must be a number, got {value!r}")


def _infer_resize(spatial: int):
    op, rank = _op(spatial), spatial + 2

    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        data = expect_tensor(op, args, 0)
        size, ndim = shape_arg(op, "size", args, 1)
        if ndim not in (-1, spatial):
            raise InferenceError(f"R.{op}: size must have {spatial} dims {_AXES[spatial]}, got {size or ndim}")
        resize = _ResizeAttrs(spatial, attrs)
        expect_not_bool(op, data.dtype)
        dtype = resize.out_dtype or data.dtype
        if data.ndim >= 0 and data.ndim != rank:
            raise InferenceError(f"R.{op}: data must have rank {rank} ({attrs['layout']}), got rank {data.ndim}")
        if data.shape is None or size is None:
            return TensorStructInfo(None, dtype, rank)
        n, c = permute(data.shape, resize.perm)[:2]
        return TensorStructInfo(permute((n, c, *size), inverse(resize.perm)), dtype)

    return infer


# -- kernel ---------------------------------------------------------------------------------


def _coords(mode: str, size: int, out: int) -> np.ndarray:
    """The input coordinate each output position reads, in float32 as TVM computes it."""
    x = np.arange(out, dtype=np.float32)
    f32 = np.float32
    scale = f32(size) / f32(out)
    if mode == "align_corners":
        return x * (f32(size - 1) / f32(out - 1)) if out > 1 else np.zeros(out, np.float32)
    if mode == "asymmetric":
        return x * scale
    if mode == "tf_half_pixel_for_nn":
        return (x + f32(0.5)) * scale
    if mode == "pytorch_half_pixel" and out == 1:
        return np.zeros(out, np.float32)
    return (x + f32(0.5)) * scale - f32(0.5)


def _nearest(coord: np.ndarray, rounding: str, size: int) -> np.ndarray:
    """The input index each output position copies; floor and ceil allow TVM's 1e-5 of slack."""
    if rounding == "round":
        index = np.round(coord)  # ties to even, as TVM's round
    elif rounding == "round_prefer_floor":
        index = np.ceil(coord - np.float32(0.5))
    elif rounding == "round_prefer_ceil":
        index = np.floor(coord + np.float32(0.5))
    elif rounding == "floor":
        index = np.floor(coord + np.float32(1e-5))
    else:
        index = np.ceil(coord - np.float32(1e-5))
    return np.clip(index.astype(np.int64), 0, size - 1)


def _keys(t: np.ndarray, alpha: float) -> np.ndarray:
    """Keys' cubic convolution kernel at distance t."""
    t = np.abs(t)
    near = ((alpha + 2) * t - (alpha + 3)) * t * t + 1
    far = ((alpha * t - 5 * alpha) * t + 8 * alpha) * t - 4 * alpha
    return np.where(t <= 1, near, np.where(t < 2, far, 0.0))


def _weights(resize: _ResizeAttrs, coord: np.ndarray, size: int) -> np.ndarray:
    """(out, size) interpolation matrix of one axis: row i weighs the input positions output i reads."""
    base = np.floor(coord)
    frac = (coord - base).astype(np.float64)
    if resize.method == "linear":
        offsets, w = np.array([0, 1]), np.stack([1 - frac, frac], axis=1)
    else:
        offsets = np.array([-1, 0, 1, 2])
        w = _keys(frac[:, None] - offsets[None, :], resize.alpha)
    index = base.astype(np.int64)[:, None] + offsets[None, :]
    if resize.method == "cubic" and resize.exclude:
        w = np.where((index >= 0) & (index < size), w, 0.0)
        w = w / w.sum(axis=1, keepdims=True)
    matrix = np.zeros((len(coord), size))
    rows = np.repeat(np.arange(len(coord)), w.shape[1])
    np.add.at(matrix, (rows, np.clip(index, 0, size - 1).ravel()), w.ravel())
    return matrix


def _resize_kernel(spatial: int):
    op = _op(spatial)

    def kernel(data: np.ndarray, size: Sequence[int], **attrs: Any) -> np.ndarray:
        resize = _ResizeAttrs(spatial, attrs)
        out_dtype = to_numpy(resize.out_dtype) if resize.out_dtype else data.dtype
        x = np.transpose(data, resize.perm)
        out = concrete_shape(op, size)
        work = np.float64 if data.dtype == np.float64 else np.float32
        for axis in range(2, 2 + spatial):
            coord = _coords(resize.mode, x.shape[axis], out[axis - 2])
            if resize.method == "nearest_neighbor":
                x = np.take(x, _nearest(coord, resize.rounding, x.shape[axis]), axis=axis)
            else:
                matrix = _weights(resize, coord, x.shape[axis]).astype(work)
                x = np.moveaxis(np.tensordot(matrix, x.astype(work, copy=False), axes=([1], [axis])), 0, axis)
        return np.transpose(x, inverse(resize.perm)).astype(out_dtype, copy=False)

    return kernel


# -- work and registration -------------------------------------------------------------------


_TAPS = {"nearest_neighbor": 1, "linear": 2, "cubic": 4}  # neighbours read per axis


def _resize_work(spatial: int):
    def work(args: Sequence[StructInfo], out: StructInfo, attrs: dict[str, Any]) -> Work:
        """Per result element a multiply and an add per tap (taps per axis ** axes); 1 FLOP for nearest."""
        method = attrs.get("method", "linear")
        flops = 1.0 if method == "nearest_neighbor" else 2.0 * _TAPS.get(method, 2) ** spatial
        return Work(flops * elements(out), data_bytes(args), data_bytes((out,)))

    return work


for _spatial in (2, 3):
    register_op(
        _op(_spatial),
        [
            Param("data"),
            Param("size", SHAPE),
            Param("roi", ATTR, None),
            Param("layout", ATTR, _LAYOUTS[_spatial]),
            Param("method", ATTR, "linear"),
            Param("coordinate_transformation_mode", ATTR, "half_pixel"),
            Param("rounding_method", ATTR, _ROUNDING_DEFAULT[_spatial]),
            Param("cubic_alpha", ATTR, -0.75),
            Param("cubic_exclude", ATTR, 0),
            Param("extrapolation_value", ATTR, 0.0),
            Param("out_dtype", ATTR, None),
        ],
        _infer_resize(_spatial),
        _resize_kernel(_spatial),
        work=_resize_work(_spatial),
        doc=f"Resize the {_spatial} spatial axes to `size` by nearest, linear or cubic interpolation.",
    )
