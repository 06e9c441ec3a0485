"""``R.image.grid_sample`` and ``R.image.affine_grid``: sample an image at given coordinates.

Parameters follow TVM's ``relax.op.image.grid_sample(data, grid, method="bilinear",
layout="NCHW", padding_mode="zeros", align_corners=False)`` and
``relax.op.image.affine_grid(data, size, align_corners=True)``, printed as TVM 0.27 prints
them::

    R.image.grid_sample(x, grid, method="bilinear", layout="NCHW", padding_mode="zeros", align_corners=False)
    R.image.affine_grid(theta, R.shape([5, 7]), align_corners=True)

**Grid layout (TVM's, not torch's).**  TVM's grid is channels-first: ``(N, k, *out)`` with k
= 2 (``NCHW``) or 3 (``NCDHW``); ``grid[:, 0]`` is x (the last axis), ``grid[:, 1]`` y and
``grid[:, 2]`` z, each normalized to [-1, 1].  The result is ``(N, C, *grid.shape[2:])``.
TVM's ONNX frontend permutes ONNX's ``(N, *out, k)`` grid before the call; its PyTorch
exported-program frontend (0.27) does not, so for ``F.grid_sample(x, g)`` with ``g`` of shape
``(N, Ho, Wo, 2)`` TVM infers ``(N, C, Wo, 2)`` and reads ``g[:, 0]`` and ``g[:, 1]`` as the
coordinate planes.  vdplace accepts that text and computes what TVM computes (a grid axis 1
longer than k: only its first k planes are read); it is not torch's result.
``affine_grid`` likewise returns TVM's ``(N, k, *size)``; the frontends permute it.

**Semantics** are torch's ``grid_sample`` / ``affine_grid`` (which TVM's kernels implement),
on channels-first grids.  A coordinate g of an axis of length L maps to the input position
``((g + 1) / 2)·(L - 1)`` with align_corners, else ``((g + 1)·L - 1) / 2``.  padding_mode
``border`` clamps the position into [0, L - 1]; ``reflection`` reflects it about the edges
(about 0 and L - 1 with align_corners, else about -0.5 and L - 0.5) and then clamps;
``zeros`` reads 0 outside the input.  ``nearest`` rounds half to even; ``bilinear`` mixes
the 2^k neighbours; ``bicubic`` (2-D only) mixes 4x4 neighbours with the cubic convolution
kernel (A = -0.75), applying the padding to each neighbour's index, as torch does.
Computed in float32 (float64 for float64 data), cast back to the data's dtype.

affine_grid's base coordinates along an axis of length L are ``linspace(-1, 1, L)``
(times ``(L - 1)/L`` without align_corners; 0 when L is 1), and output point p is
``theta[n] @ (x, y[, z], 1)``.

Refused (an `InferenceError`): a layout other than NCHW / NCDHW, bicubic in 3-D, unknown
method or padding mode, integer or bool tensors, ranks that do not fit the layout, a batch
mismatch, a grid axis 1 shorter than k; for affine_grid a theta that is not ``(N, k, k+1)``
for a size of k = 2 or 3 dims.  No torch kernels (torch devices run the NumPy kernels).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, SHAPE, Param, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo
from .common import as_bool, concrete_shape, expect_float, shape_arg

_GS = "image.grid_sample"
_AG = "image.affine_grid"
_METHODS = ("nearest", "bilinear", "bicubic")
_PADDING = ("zeros", "border", "reflection")
_LAYOUTS = {"NCHW": 2, "NCDHW": 3}  # layout -> number of spatial axes k


class _GridSampleAttrs:
    """grid_sample's attributes, checked once and shared by inference and kernel."""

    def __init__(self, attrs: dict[str, Any]) -> None:
        layout = attrs["layout"]
        if layout not in _LAYOUTS:
            raise InferenceError(f"R.{_GS}: layout {layout!r} is not supported (only NCHW and NCDHW)")
        self.layout: str = layout
        self.k: int = _LAYOUTS[layout]
        self.method: str = _choice("method", attrs["method"], _METHODS)
        self.padding: str = _choice("padding_mode", attrs["padding_mode"], _PADDING)
        self.align: bool = as_bool(_GS, "align_corners", attrs["align_corners"])
        if self.method == "bicubic" and self.k != 2:
            raise InferenceError(f"R.{_GS}: method 'bicubic' supports only NCHW (2-D), not {layout}")


def _choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise InferenceError(f"R.{_GS}: {name} {value!r} is not one of " + ", ".join(allowed))
    return value


def _infer_grid_sample(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    """(N, C, *grid.shape[2:]) in data's dtype; rank k + 2 when the shapes are unknown."""
    data = expect_tensor(_GS, args, 0)
    grid = expect_tensor(_GS, args, 1)
    gs = _GridSampleAttrs(attrs)
    rank = gs.k + 2
    for what, t in (("data", data), ("grid", grid)):
        expect_float(_GS, t)
        if t.ndim >= 0 and t.ndim != rank:
            raise InferenceError(f"R.{_GS}: {what} must have rank {rank} ({gs.layout}), got rank {t.ndim}")
    if data.shape is None or grid.shape is None:
        return TensorStructInfo(None, data.dtype, rank)
    n, g_n, g_k = data.shape[0], grid.shape[0], grid.shape[1]
    if isinstance(n, int) and isinstance(g_n, int) and n != g_n:
        raise InferenceError(f"R.{_GS}: data has batch {n} but grid has batch {g_n}")
    if isinstance(g_k, int) and g_k < gs.k:
        raise InferenceError(
            f"R.{_GS}: grid must be (N, {gs.k}, *out) (TVM's channels-first layout), got shape {grid.shape}"
        )
    return TensorStructInfo((n, data.shape[1], *grid.shape[2:]), data.dtype)


# -- grid_sample kernel -----------------------------------------------------------------------

# One tap of one axis: the input index it reads, its weight and whether it lies inside.
_Tap = tuple[np.ndarray, np.ndarray, np.ndarray]


def _unnormalize(g: np.ndarray, size: int, align: bool) -> np.ndarray:
    """The input position a normalized coordinate in [-1, 1] names."""
    one, two = g.dtype.type(1), g.dtype.type(2)
    if align:
        return ((g + one) / two) * g.dtype.type(size - 1)
    return ((g + one) * g.dtype.type(size) - one) / two


def _reflect(x: np.ndarray, twice_low: int, twice_high: int) -> np.ndarray:
    """x reflected into [twice_low / 2, twice_high / 2] about both ends, as often as needed."""
    if twice_low == twice_high:
        return np.zeros_like(x)
    lo = x.dtype.type(twice_low / 2)
    span = x.dtype.type((twice_high - twice_low) / 2)
    x = np.abs(x - lo)
    extra = np.fmod(x, span)
    flips = np.floor(x / span)
    return np.where(flips % 2 == 0, extra + lo, span - extra + lo)


def _pad_position(x: np.ndarray, size: int, padding: str, align: bool) -> np.ndarray:
    """Apply border / reflection padding to input positions (zeros: unchanged)."""
    if padding == "zeros":
        return x
    if padding == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align else _reflect(x, -1, 2 * size - 1)
    return np.clip(x, 0, size - 1)


def _cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    """Cubic convolution weights (A = -0.75) of the taps at -1, 0, 1, 2 for fraction t."""
    a = t.dtype.type(-0.75)

    def near(u: np.ndarray) -> np.ndarray:
        return ((a + 2) * u - (a + 3)) * u * u + 1

    def far(u: np.ndarray) -> np.ndarray:
        return ((a * u - 5 * a) * u + 8 * a) * u - 4 * a

    one = t.dtype.type(1)
    return [far(t + one), near(t), near(one - t), far(2 * one - t)]


def _axis_taps(pos: np.ndarray, size: int, gs: _GridSampleAttrs) -> list[_Tap]:
    """The taps one axis contributes for input positions `pos` (already unnormalized)."""
    if gs.method == "bicubic":
        base = np.floor(pos)
        frac = pos - base
        taps = []
        for offset, w in zip((-1, 0, 1, 2), _cubic_weights(frac), strict=True):
            index = _pad_position(base + pos.dtype.type(offset), size, gs.padding, gs.align)
            taps.append((index, w))
    else:
        pos = _pad_position(pos, size, gs.padding, gs.align)
        if gs.method == "nearest":
            taps = [(np.rint(pos), np.ones_like(pos))]
        else:
            base = np.floor(pos)
            frac = pos - base
            taps = [(base, 1 - frac), (base + 1, frac)]
    out = []
    for index, w in taps:
        finite = np.isfinite(index)
        i = np.where(finite, index, -1).astype(np.int64)
        inside = finite & (i >= 0) & (i < size)
        out.append((np.where(inside, i, 0), w, inside))
    return out


def _grid_sample(data: np.ndarray, grid: np.ndarray, **attrs: Any) -> np.ndarray:
    """Sample data (N, C, *in) at the channels-first grid (N, k, *out): (N, C, *out)."""
    gs = _GridSampleAttrs(attrs)
    k = gs.k
    if data.ndim != k + 2 or grid.ndim != k + 2 or grid.shape[0] != data.shape[0] or grid.shape[1] < k:
        raise ValueError(f"R.{_GS}: data {data.shape} and grid {grid.shape} do not fit layout {gs.layout}")
    work = np.float64 if data.dtype == np.float64 else np.float32
    x = data.astype(work, copy=False)
    g = grid.astype(work, copy=False)
    spatial = data.shape[2:]
    # grid plane j holds the coordinate of spatial axis k - 1 - j (x is the last axis).
    per_axis = [_axis_taps(_unnormalize(g[:, k - 1 - a], spatial[a], gs.align), spatial[a], gs) for a in range(k)]
    batch = np.arange(data.shape[0]).reshape((-1,) + (1,) * k)
    out = np.zeros(grid.shape[:1] + grid.shape[2:] + data.shape[1:2], dtype=work)
    for combo in itertools.product(*per_axis):
        weight = np.prod([w for _, w, _ in combo], axis=0)
        inside = np.logical_and.reduce([m for _, _, m in combo])
        index: tuple[np.ndarray | slice, ...] = (batch, slice(None), *(i for i, _, _ in combo))
        values = x[index]  # (N, *out, C)
        out += np.where(inside, weight, 0)[..., None] * values
    return np.moveaxis(out, -1, 1).astype(data.dtype, copy=False)


# -- affine_grid --------------------------------------------------------------------------------


def _infer_affine_grid(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    """(N, k, *size) in theta's dtype, for theta (N, k, k + 1) and a size of k = 2 or 3 dims."""
    theta = expect_tensor(_AG, args, 0)
    size, k = shape_arg(_AG, "size", args, 1)
    as_bool(_AG, "align_corners", attrs["align_corners"])
    expect_float(_AG, theta)
    if k not in (-1, 2, 3):
        raise InferenceError(f"R.{_AG}: size must have 2 dims (H, W) or 3 (D, H, W), got {size or k}")
    if theta.ndim >= 0 and theta.ndim != 3:
        raise InferenceError(f"R.{_AG}: data must have rank 3 (N, k, k + 1), got rank {theta.ndim}")
    if theta.shape is not None and k > 0:
        rows, cols = theta.shape[1:]
        if (isinstance(rows, int) and rows != k) or (isinstance(cols, int) and cols != k + 1):
            raise InferenceError(f"R.{_AG}: a {k}-D size needs data of shape (N, {k}, {k + 1}), got {theta.shape}")
    if theta.shape is None or size is None:
        return TensorStructInfo(None, theta.dtype, k + 2 if k > 0 else -1)
    return TensorStructInfo((theta.shape[0], k, *size), theta.dtype)


def _base_coords(size: int, align: bool, dtype: type) -> np.ndarray:
    """The normalized coordinates of an axis's sample points, as torch's affine_grid places them."""
    if size <= 1:
        return np.zeros(size, dtype)
    line = np.linspace(-1.0, 1.0, size)
    if not align:
        line = line * (size - 1) / size
    return line.astype(dtype)


def _affine_grid(data: np.ndarray, size: Sequence[int], align_corners: bool = True) -> np.ndarray:
    """theta (N, k, k + 1) applied to the base grid of `size`: (N, k, *size)."""
    align = as_bool(_AG, "align_corners", align_corners)
    dims = concrete_shape(_AG, size)
    k = len(dims)
    if data.ndim != 3 or data.shape[1:] != (k, k + 1):
        raise ValueError(f"R.{_AG}: a {k}-D size needs data of shape (N, {k}, {k + 1}), got {data.shape}")
    work = np.float64 if data.dtype == np.float64 else np.float32
    axes = [_base_coords(d, align, work) for d in dims]  # D, H, W order
    mesh = np.meshgrid(*axes, indexing="ij")
    base = np.stack([*mesh[::-1], np.ones(tuple(dims), work)])  # (k + 1, *size): x, y[, z], 1
    theta = data.astype(work, copy=False)
    out = np.tensordot(theta, base, axes=([2], [0]))  # (N, k, *size)
    return out.astype(data.dtype, copy=False)


# -- work and registration -----------------------------------------------------------------------


def _grid_sample_work(args: Sequence[StructInfo], out: StructInfo, attrs: dict[str, Any]) -> Work:
    """Per result element, 2 FLOPs (multiply, add) per tap: 1 tap nearest, 2^k bilinear, 16 bicubic."""
    k = _LAYOUTS.get(attrs.get("layout", "NCHW"), 2)
    taps = {"nearest": 1, "bilinear": 2**k, "bicubic": 16}.get(attrs.get("method", "bilinear"), 2**k)
    return Work(2.0 * taps * elements(out), data_bytes(args), data_bytes((out,)))


def _affine_grid_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """Per result element, a dot product of k + 1 terms (counted as 8 FLOPs)."""
    return Work(8.0 * elements(out), data_bytes(args), data_bytes((out,)))


register_op(
    _GS,
    [
        Param("data"),
        Param("grid"),
        Param("method", ATTR, "bilinear"),
        Param("layout", ATTR, "NCHW"),
        Param("padding_mode", ATTR, "zeros"),
        Param("align_corners", ATTR, False),
    ],
    _infer_grid_sample,
    _grid_sample,
    work=_grid_sample_work,
    doc="Sample data at the normalized coordinates of a channels-first grid (TVM's layout).",
)

register_op(
    _AG,
    [Param("data"), Param("size", SHAPE), Param("align_corners", ATTR, True)],
    _infer_affine_grid,
    _affine_grid,
    work=_affine_grid_work,
    doc="The sampling grid (N, k, *size) of the affine maps theta (N, k, k + 1).",
)
