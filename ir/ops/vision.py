"""``R.vision.roi_align`` and ``R.vision.roi_pool``: pool a feature map over regions of interest.

Parameters follow TVM's ``relax.op.vision.roi_align(data, rois, pooled_size, spatial_scale,
sample_ratio=-1, aligned=False, layout="NCHW", mode="avg")`` and ``relax.op.vision.roi_pool(data,
rois, pooled_size, spatial_scale, layout="NCHW")``, printed as TVM 0.27 prints them::

    R.vision.roi_align(X, rois, pooled_size=[2, 3], spatial_scale=0.5, sample_ratio=2, aligned=True,
                       layout="NCHW", mode="avg")
    R.vision.roi_pool(X, rois, pooled_size=[2, 3], spatial_scale=0.5, layout="NCHW")

TVM's ONNX frontend emits roi_align for ``RoiAlign`` (after concatenating the batch indices in
front of the boxes, and subtracting 0.5 for ``half_pixel``, which it maps to aligned=True) and
roi_pool for ``MaxRoiPool``; its PyTorch frontend emits roi_align (mode avg) for
``torchvision.ops.roi_align``.

**Inputs.**  data is 4-D (NCHW, or NHWC for roi_align); rois is ``(R, 5)``, each row
``[batch_index, x1, y1, x2, y2]`` in input-image coordinates.  The batch index is the row's
first value truncated toward zero; one outside ``[0, N)`` is a `ValueError` at run time (TVM
reads out of bounds).  The result is ``(R, C, PH, PW)`` (``(R, PH, PW, C)`` for NHWC) in data's
dtype.  pooled_size is one int or one or two ints (one is used for both axes).

**roi_align** (TVM's semantics).  Along each axis, in the rois' dtype (float32 at least): start
``= x1·scale``, length ``= (x2 - x1)·scale`` (at least 1 unless aligned), bin ``= length /
pooled``; bin p has ``g`` samples (sample_ratio, or ``ceil(length / pooled)`` when
sample_ratio <= 0) at ``start + p·bin + (k + 0.5)·bin / g``.  A sample with y < -1, x < -1,
y > H or x > W reads 0; otherwise its position is clamped into ``[0, H - 1] x [0, W - 1]`` and
read bilinearly.  ``avg`` averages a bin's g_h·g_w samples, ``max`` takes their maximum (so it
is not onnxruntime's max mode, which takes the maximum of weighted corner values).  A bin with
no samples (an aligned roi of length <= 0 and adaptive sampling) is left uninitialized by TVM;
vdplace writes 0 there.

**roi_pool** (TVM's, the ONNX MaxRoiPool definition but for negative ties).  Corners round as
``floor(x1·scale + 0.5)`` (half up: -1.5 gives -1, where onnxruntime's std::round gives -2), the
roi spans ``max(x2 - x1 + 1, 1)`` cells, bin p covers cells
``floor(p·len / pooled)`` to ``ceil((p + 1)·len / pooled)`` (exclusive) from the roi's start,
clipped to the map; its value is the maximum there, or 0 when it is empty.

Refused (an `InferenceError`): data not 4-D, rois not 2-D or not ``(R, 5)``, integer or bool
tensors, a layout other than NCHW / NHWC (roi_pool: NCHW only), a mode other than avg / max,
non-positive pooled sizes and mistyped attributes.  Computed in float32 (float64 when data or
rois is float64), cast back to data's dtype.  No torch kernels (torch devices run the NumPy
kernels).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dtype import is_float
from ..errors import InferenceError
from ..op import ATTR, Param, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo
from .common import as_bool, as_int, as_ints

_ALIGN = "vision.roi_align"
_POOL = "vision.roi_pool"
_MODES = ("avg", "max")


class _RoiAttrs:
    """The attributes both ops share, checked once for inference and kernel."""

    def __init__(self, op: str, attrs: dict[str, Any], layouts: Sequence[str]) -> None:
        sizes = as_ints(op, "pooled_size", attrs["pooled_size"])
        if len(sizes) not in (1, 2) or min(sizes) < 1:
            raise InferenceError(f"R.{op}: pooled_size must be one or two positive integers, got {sizes}")
        self.pooled: tuple[int, int] = (sizes[0], sizes[-1])
        scale = attrs["spatial_scale"]
        if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, (int, float, np.integer, np.floating)):
            raise InferenceError(f"R.{op}: spatial_scale must be a number, got {scale!r}")
        self.scale = float(scale)
        layout = attrs.get("layout", "NCHW")
        if layout not in layouts:
            raise InferenceError(f"R.{op}: layout {layout!r} is not supported (only {' and '.join(layouts)})")
        self.layout: str = layout
        if op == _ALIGN:
            self.ratio = as_int(op, "sample_ratio", attrs["sample_ratio"])
            self.aligned = as_bool(op, "aligned", attrs["aligned"])
            if attrs["mode"] not in _MODES:
                raise InferenceError(f"R.{op}: mode {attrs['mode']!r} is not one of avg, max")
            self.mode: str = attrs["mode"]


def _infer(op: str, args: Sequence[StructInfo], ra: _RoiAttrs) -> StructInfo:
    """(R, C, PH, PW) or (R, PH, PW, C) in data's dtype; only the rank 4 when a shape is unknown."""
    data = expect_tensor(op, args, 0)
    rois = expect_tensor(op, args, 1)
    for what, t, rank in (("data", data, 4), ("rois", rois, 2)):
        if t.dtype and not is_float(t.dtype):
            raise InferenceError(f"R.{op}: {what} must be a float tensor, got dtype {t.dtype}")
        if t.ndim >= 0 and t.ndim != rank:
            raise InferenceError(f"R.{op}: {what} must have rank {rank}, got rank {t.ndim} (shape {t.shape})")
    if rois.shape is not None and isinstance(rois.shape[1], int) and rois.shape[1] != 5:
        raise InferenceError(
            f"R.{op}: rois must have shape (num_roi, 5), rows [batch_index, x1, y1, x2, y2]; got shape {rois.shape}"
        )
    if data.shape is None or rois.shape is None:
        return TensorStructInfo(None, data.dtype, 4)
    ph, pw = ra.pooled
    if ra.layout == "NHWC":
        return TensorStructInfo((rois.shape[0], ph, pw, data.shape[3]), data.dtype)
    return TensorStructInfo((rois.shape[0], data.shape[1], ph, pw), data.dtype)


def _infer_roi_align(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    return _infer(_ALIGN, args, _RoiAttrs(_ALIGN, attrs, ("NCHW", "NHWC")))


def _infer_roi_pool(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    return _infer(_POOL, args, _RoiAttrs(_POOL, attrs, ("NCHW",)))


# -- shared kernel helpers ------------------------------------------------------------------------


def _check_inputs(op: str, data: np.ndarray, rois: np.ndarray) -> None:
    if data.ndim != 4 or rois.ndim != 2 or rois.shape[1] != 5:
        raise ValueError(f"R.{op}: needs 4-D data and rois of shape (num_roi, 5), got {data.shape} and {rois.shape}")


def _batch_index(op: str, value: Any, batch: int, row: int) -> int:
    """rois[row, 0] truncated toward zero (TVM casts it to int32); it must name a batch entry."""
    if not math.isfinite(float(value)) or not 0 <= int(value) < batch:
        raise ValueError(f"R.{op}: rois[{row}, 0] = {float(value)} is not a batch index of data with {batch} entries")
    return int(value)


def _coord_dtype(data: np.ndarray, rois: np.ndarray) -> type[np.floating]:
    """The coordinates' dtype: the rois' (TVM computes in it), float32 at least, float64 with float64 data."""
    if rois.dtype == np.float64 or data.dtype == np.float64:
        return np.float64
    return np.float32


# -- roi_align ----------------------------------------------------------------------------------


def _samples(lo: Any, hi: Any, pooled: int, ra: _RoiAttrs, ct: type) -> np.ndarray:
    """The sample positions of one roi along one axis: (pooled, g), in the coordinates' dtype."""
    start, end = ct(lo) * ct(ra.scale), ct(hi) * ct(ra.scale)
    length = end - start if ra.aligned else max(end - start, ct(1))
    size = length / ct(pooled)
    count = ra.ratio if ra.ratio > 0 else max(int(np.ceil(length / ct(pooled))), 0)
    starts = ct(start) + np.arange(pooled, dtype=ct) * ct(size)
    offsets = ((np.arange(count, dtype=ct) + ct(0.5)) * ct(size)) / ct(max(count, 1))
    return starts[:, None] + offsets[None, :]


def _taps(pos: np.ndarray, size: int) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """Outside mask and the two (index, weight) taps of positions `pos` on an axis of `size` cells."""
    outside = (pos < -1) | (pos > size)
    pos = np.clip(pos, 0, size - 1)
    low = np.floor(pos)
    frac = pos - low
    low_i = low.astype(np.int64)
    high_i = low_i + 1
    inside = high_i <= size - 1  # past the last cell (frac is 0 there) the tap reads 0
    return outside, [(low_i, 1 - frac), (np.where(inside, high_i, low_i), np.where(inside, frac, 0))]


def _align_one(feat: np.ndarray, ys: np.ndarray, xs: np.ndarray, mode: str) -> np.ndarray:
    """Pool one roi of feat (C, H, W) sampled at ys (PH, gh) x xs (PW, gw): (C, PH, PW)."""
    c, h, w = feat.shape
    out_y, taps_y = _taps(ys, h)
    out_x, taps_x = _taps(xs, w)
    shape = (c, *ys.shape, *xs.shape)  # (C, PH, gh, PW, gw)
    values = np.zeros(shape, feat.dtype)
    for iy, wy in taps_y:
        for ix, wx in taps_x:
            weight = wy[:, :, None, None] * wx[None, None, :, :]
            values += weight * feat[:, iy[:, :, None, None], ix[None, None, :, :]]
    outside = out_y[:, :, None, None] | out_x[None, None, :, :]
    values = np.where(outside, 0, values)
    if values.shape[2] == 0 or values.shape[4] == 0:
        return np.zeros((c, ys.shape[0], xs.shape[0]), feat.dtype)
    if mode == "max":
        return values.max(axis=(2, 4))
    count = feat.dtype.type(values.shape[2] * values.shape[4])
    return (values / count).sum(axis=(2, 4))


def _roi_align(data: np.ndarray, rois: np.ndarray, **attrs: Any) -> np.ndarray:
    """ROI Align of data (NCHW or NHWC) over rois (R, 5): (R, C, PH, PW) or (R, PH, PW, C)."""
    ra = _RoiAttrs(_ALIGN, attrs, ("NCHW", "NHWC"))
    _check_inputs(_ALIGN, data, rois)
    ct = _coord_dtype(data, rois)
    feat = data if ra.layout == "NCHW" else np.moveaxis(data, 3, 1)
    feat = feat.astype(ct, copy=False)
    boxes = rois.astype(ct, copy=False)
    ph, pw = ra.pooled
    out = np.zeros((rois.shape[0], feat.shape[1], ph, pw), ct)
    for r in range(rois.shape[0]):
        b = _batch_index(_ALIGN, rois[r, 0], data.shape[0], r)
        ys = _samples(boxes[r, 2], boxes[r, 4], ph, ra, ct)
        xs = _samples(boxes[r, 1], boxes[r, 3], pw, ra, ct)
        out[r] = _align_one(feat[b], ys, xs, ra.mode)
    if ra.layout == "NHWC":
        out = np.moveaxis(out, 1, 3)
    return np.ascontiguousarray(out).astype(data.dtype, copy=False)


# -- roi_pool -----------------------------------------------------------------------------------


def _bins(lo: Any, hi: Any, pooled: int, size: int, scale: float, ct: type) -> list[tuple[int, int]]:
    """The [start, end) cells of each of one roi's bins along one axis, clipped to [0, size]."""
    start = int(np.floor(ct(lo) * ct(scale) + ct(0.5)))  # round half up, as TVM does
    end = int(np.floor(ct(hi) * ct(scale) + ct(0.5)))
    length = ct(max(end - start + 1, 1))
    step = length / ct(pooled)
    out = []
    for p in range(pooled):
        a = int(np.floor(ct(p) * step)) + start
        b = int(np.ceil(ct(p + 1) * step)) + start
        out.append((min(max(a, 0), size), min(max(b, 0), size)))
    return out


def _roi_pool(data: np.ndarray, rois: np.ndarray, **attrs: Any) -> np.ndarray:
    """Max ROI pooling of data (NCHW) over rois (R, 5): (R, C, PH, PW); an empty bin is 0."""
    ra = _RoiAttrs(_POOL, attrs, ("NCHW",))
    _check_inputs(_POOL, data, rois)
    ct = np.float64 if rois.dtype == np.float64 else np.float32
    n, c, h, w = data.shape
    ph, pw = ra.pooled
    boxes = rois.astype(ct, copy=False)
    out = np.zeros((rois.shape[0], c, ph, pw), data.dtype)
    for r in range(rois.shape[0]):
        b = _batch_index(_POOL, rois[r, 0], n, r)
        rows = _bins(boxes[r, 2], boxes[r, 4], ph, h, ra.scale, ct)
        cols = _bins(boxes[r, 1], boxes[r, 3], pw, w, ra.scale, ct)
        for i, (y0, y1) in enumerate(rows):
            for j, (x0, x1) in enumerate(cols):
                if y1 > y0 and x1 > x0:
                    out[r, :, i, j] = data[b, :, y0:y1, x0:x1].max(axis=(1, 2))
    return out


# -- work and registration ------------------------------------------------------------------------


def _cells_per_bin(args: Sequence[StructInfo], attrs: dict[str, Any]) -> float:
    """Input cells a bin spans when a roi covers the whole map (symbolic or unknown dims count as 1)."""
    data = args[0]
    if not isinstance(data, TensorStructInfo) or data.shape is None or len(data.shape) != 4:
        return 1.0
    nhwc = attrs.get("layout") == "NHWC"
    h, w = (data.shape[1], data.shape[2]) if nhwc else (data.shape[2], data.shape[3])
    try:
        sizes = as_ints("vision", "pooled_size", attrs.get("pooled_size", 1))
    except InferenceError:
        sizes = (1,)
    ph, pw = max(sizes[0], 1), max(sizes[-1], 1)
    return float(math.ceil(h / ph) if isinstance(h, int) else 1) * (math.ceil(w / pw) if isinstance(w, int) else 1)


def _roi_align_work(args: Sequence[StructInfo], out: StructInfo, attrs: dict[str, Any]) -> Work:
    """Per result element, 12 FLOPs per sample (4 weighted taps, the weights, the average): sample_ratio²
    samples, or (adaptive) as many as cells a bin spans when the roi covers the map."""
    ratio = attrs.get("sample_ratio", -1)
    samples = float(ratio * ratio) if isinstance(ratio, int) and ratio > 0 else _cells_per_bin(args, attrs)
    return Work(12.0 * samples * elements(out), data_bytes(args), data_bytes((out,)))


def _roi_pool_work(args: Sequence[StructInfo], out: StructInfo, attrs: dict[str, Any]) -> Work:
    """Per result element, one comparison per cell of its bin (a roi covering the map)."""
    return Work(_cells_per_bin(args, attrs) * elements(out), data_bytes(args), data_bytes((out,)))


register_op(
    _ALIGN,
    [
        Param("data"),
        Param("rois"),
        Param("pooled_size", ATTR),
        Param("spatial_scale", ATTR),
        Param("sample_ratio", ATTR, -1),
        Param("aligned", ATTR, False),
        Param("layout", ATTR, "NCHW"),
        Param("mode", ATTR, "avg"),
    ],
    _infer_roi_align,
    _roi_align,
    work=_roi_align_work,
    doc="ROI Align: bilinearly sampled avg/max pooling of data over the boxes (R, 5) [batch, x1, y1, x2, y2].",
)

register_op(
    _POOL,
    [
        Param("data"),
        Param("rois"),
        Param("pooled_size", ATTR),
        Param("spatial_scale", ATTR),
        Param("layout", ATTR, "NCHW"),
    ],
    _infer_roi_pool,
    _roi_pool,
    work=_roi_pool_work,
    doc="Max ROI pooling of data (NCHW) over the boxes (R, 5) [batch, x1, y1, x2, y2]; an empty bin is 0.",
)
