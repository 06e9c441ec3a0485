"""Kernel cases of R.vision.roi_align and R.vision.roi_pool (ir/ops/vision.py).

Joined into KERNEL_CASES (tests/ir/ops/test_kernels.py).  Each case is `(op, args, attrs, reference)`; the
references are TVM 0.27's definitions written with plain Python loops and `math` on Python
floats, not the kernels' NumPy calls.  The inputs are closed-form (no RNG); the boxes are
dyadic, chosen so no sample lands on the edge of the "outside" test, and cover boxes partly
outside the map, a box under one cell, batch indices with a fraction (truncated), exact .5 ties
of roi_pool's rounding (negative ones included) and an empty adaptive bin (which reads 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np


def ramp(*shape: int, dtype: str = "float32") -> np.ndarray:
    """Deterministic values in [-1, 1), scrambled so neighbours differ."""
    n = int(np.prod(shape))
    return (((np.arange(n) * 37) % 101) / 50.0 - 1.0).reshape(shape).astype(dtype)


def _bilinear(plane: np.ndarray, y: float, x: float) -> float:
    """One sample of a (H, W) plane as TVM reads it: 0 outside [-1, H] x [-1, W], else clamped."""
    h, w = plane.shape
    if y < -1 or x < -1 or y > h or x > w:
        return 0.0
    y, x = min(max(y, 0.0), h - 1.0), min(max(x, 0.0), w - 1.0)
    y0, x0 = math.floor(y), math.floor(x)
    total = 0.0
    for yi, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xi, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if yi <= h - 1 and xi <= w - 1:
                total += wy * wx * float(plane[yi, xi])
    return total


def _axis(lo: float, hi: float, pooled: int, scale: float, ratio: int, aligned: bool) -> list[list[float]]:
    """Per bin, the sample positions along one axis."""
    start, length = lo * scale, (hi - lo) * scale
    if not aligned:
        length = max(length, 1.0)
    size = length / pooled
    count = ratio if ratio > 0 else max(math.ceil(length / pooled), 0)
    return [[start + p * size + (k + 0.5) * size / count for k in range(count)] for p in range(pooled)]


def roi_align_ref(pooled: tuple[int, int], scale: float, ratio: int, aligned: bool, mode: str, layout: str):
    """The reference of one roi_align attribute combination."""

    def ref(data: np.ndarray, rois: np.ndarray) -> np.ndarray:
        feat = data if layout == "NCHW" else data.transpose(0, 3, 1, 2)
        out = np.zeros((len(rois), feat.shape[1], *pooled))
        for r, (b, x1, y1, x2, y2) in enumerate(rois.tolist()):
            rows = _axis(y1, y2, pooled[0], scale, ratio, aligned)
            cols = _axis(x1, x2, pooled[1], scale, ratio, aligned)
            for c in range(feat.shape[1]):
                for i, ys in enumerate(rows):
                    for j, xs in enumerate(cols):
                        vals = [_bilinear(feat[int(b), c], y, x) for y in ys for x in xs]
                        if vals:
                            out[r, c, i, j] = max(vals) if mode == "max" else sum(vals) / len(vals)
        return out if layout == "NCHW" else out.transpose(0, 2, 3, 1)

    return ref


def _cells(lo: float, hi: float, pooled: int, size: int, scale: float) -> list[range]:
    """Per bin, the cells roi_pool covers along one axis (corners rounded half up)."""
    start, end = math.floor(lo * scale + 0.5), math.floor(hi * scale + 0.5)
    length = max(end - start + 1, 1)
    out = []
    for p in range(pooled):
        a = min(max(math.floor(p * length / pooled) + start, 0), size)
        b = min(max(math.ceil((p + 1) * length / pooled) + start, 0), size)
        out.append(range(a, b))
    return out


def roi_pool_ref(pooled: tuple[int, int], scale: float) -> Callable[..., Any]:
    """The reference of one roi_pool attribute combination."""

    def ref(data: np.ndarray, rois: np.ndarray) -> np.ndarray:
        _, c, h, w = data.shape
        out = np.zeros((len(rois), c, *pooled))
        for r, (b, x1, y1, x2, y2) in enumerate(rois.tolist()):
            rows, cols = _cells(y1, y2, pooled[0], h, scale), _cells(x1, x2, pooled[1], w, scale)
            for ch in range(c):
                for i, ys in enumerate(rows):
                    for j, xs in enumerate(cols):
                        vals = [float(data[int(b), ch, y, x]) for y in ys for x in xs]
                        out[r, ch, i, j] = max(vals) if vals else 0.0
        return out

    return ref


X = ramp(2, 2, 6, 8)
X_NHWC = np.ascontiguousarray(X.transpose(0, 2, 3, 1))
# [batch, x1, y1, x2, y2]: inside, partly outside, under one cell, reaching past the far edges.
ROIS = np.array(
    [
        [0.0, 1.0, 1.5, 6.25, 4.5],
        [1.75, -2.5, -1.25, 3.0, 2.5],
        [0.0, 3.125, 2.25, 3.5, 2.75],
        [1.0, 4.5, 2.0, 11.0, 8.5],
    ],
    np.float32,
)
ROIS_X2 = ROIS * np.float32([1, 2, 2, 2, 2])  # the same boxes for a spatial_scale of 0.5
EMPTY_BIN = np.array([[0.0, 2.0, 1.0, 2.0, 4.0]], np.float32)  # zero width: no samples when aligned
POOL_ROIS = np.array(
    [
        [0.0, 1.0, 3.0, 13.0, 9.0],  # x 0.5 -> 1, 1.5 -> 2 (ties)
        [1.5, -3.0, -1.0, 6.0, 5.0],  # -1.5 -> -1, -0.5 -> 0 (negative ties round up)
        [1.0, 4.0, 3.0, 18.0, 14.0],  # past the far edges
        [0.0, -9.0, -7.0, -4.0, -3.0],  # wholly outside: every bin empty, 0
    ],
    np.float32,
)


def _align(attrs: dict[str, Any], data: np.ndarray = X, rois: np.ndarray = ROIS) -> tuple:
    full = {"sample_ratio": -1, "aligned": False, "layout": "NCHW", "mode": "avg", **attrs}
    pooled = tuple(full["pooled_size"]) * (2 if len(full["pooled_size"]) == 1 else 1)
    ref = roi_align_ref(
        pooled, full["spatial_scale"], full["sample_ratio"], full["aligned"], full["mode"], full["layout"]
    )
    return ("vision.roi_align", (data, rois), full, ref)


def _pool(pooled: list[int], scale: float, data: np.ndarray = X) -> tuple:
    attrs = {"pooled_size": pooled, "spatial_scale": scale, "layout": "NCHW"}
    return ("vision.roi_pool", (data, POOL_ROIS), attrs, roi_pool_ref((pooled[0], pooled[-1]), scale))


CASES: list = [
    _align({"pooled_size": [2, 3], "spatial_scale": 1.0, "sample_ratio": 2}),
    _align({"pooled_size": [3, 2], "spatial_scale": 1.0, "sample_ratio": 0, "mode": "max"}),
    _align({"pooled_size": [2, 2], "spatial_scale": 0.5, "sample_ratio": 0, "aligned": True}, rois=ROIS_X2),
    _align({"pooled_size": [2], "spatial_scale": 1.0, "sample_ratio": 3, "aligned": True, "mode": "max"}),
    _align({"pooled_size": [2, 3], "spatial_scale": 1.0, "sample_ratio": 1, "layout": "NHWC"}, data=X_NHWC),
    _align({"pooled_size": [3, 3], "spatial_scale": 1.0, "sample_ratio": 0, "aligned": True, "layout": "NHWC"}, X_NHWC),
    _align({"pooled_size": [2, 3], "spatial_scale": 1.0, "sample_ratio": 2, "mode": "max"}, data=X.astype(np.float64)),
    _align({"pooled_size": [2, 2], "spatial_scale": 1.0, "sample_ratio": 0, "aligned": True}, rois=EMPTY_BIN),
    _align(
        {"pooled_size": [2, 2], "spatial_scale": 1.0, "sample_ratio": 0, "aligned": True, "mode": "max"}, X, EMPTY_BIN
    ),
    _pool([2, 3], 0.5),
    _pool([3, 3], 0.5),
    _pool([2], 1.0),
    _pool([4, 2], 0.25, data=X.astype(np.float64)),
]
