"""``R.nn.pixel_shuffle(data, upscale_factor)``: channels rearranged into space.

`data` has rank >= 3, its last three axes (C * r * r, H, W) with r the
`upscale_factor` (a positive int); the result has (C, H * r, W * r) there and
the leading axes unchanged: ``out[..., c, h * r + i, w * r + j] =
data[..., c * r * r + i * r + j, h, w]``, as ``torch.nn.functional.pixel_shuffle``
and TVM define it.  A channel count that is not a multiple of r * r is an
inference error (symbolic channels are accepted when the division is exact
in the dims' algebra, else the result's channel dim is unknown).  Work: a
copy, no arithmetic.  No torch kernel: a torch device runs it on the host.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, REQUIRED, Param, expect_tensor, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo
from .common import as_int, copy_work, product_dim, quotient_dim


def _factor(value: Any) -> int:
    r = as_int("nn.pixel_shuffle", "upscale_factor", value)
    if r <= 0:
        raise InferenceError(f"R.nn.pixel_shuffle: upscale_factor must be positive, got {r}")
    return r


def _infer_pixel_shuffle(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    x = expect_tensor("nn.pixel_shuffle", args, 0)
    r = _factor(attrs["upscale_factor"])
    if 0 <= x.ndim < 3:
        raise InferenceError(f"R.nn.pixel_shuffle: data must have rank >= 3, got rank {x.ndim}")
    if x.shape is None:
        return TensorStructInfo(None, x.dtype, x.ndim)
    *lead, c, h, w = x.shape
    if isinstance(c, int) and c % (r * r):
        raise InferenceError(
            f"R.nn.pixel_shuffle: {c} channels are not a multiple of upscale_factor**2 = {r * r} (shape {x.shape})"
        )
    channels = quotient_dim((c,), (r * r,))
    if channels is None:
        return TensorStructInfo(None, x.dtype, x.ndim)
    dims: tuple[Dim, ...] = (*lead, channels, product_dim((h, r)), product_dim((w, r)))
    return TensorStructInfo(dims, x.dtype)


def _pixel_shuffle(data: np.ndarray, upscale_factor: Any) -> np.ndarray:
    r = _factor(upscale_factor)
    *lead, c, h, w = data.shape
    if c % (r * r):
        raise ValueError(f"R.nn.pixel_shuffle: {c} channels are not a multiple of {r * r}")
    k = len(lead)
    split = data.reshape(*lead, c // (r * r), r, r, h, w)
    # (..., C, i, j, H, W) -> (..., C, H, i, W, j)
    moved = split.transpose(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return np.ascontiguousarray(moved.reshape(*lead, c // (r * r), h * r, w * r))


register_op(
    "nn.pixel_shuffle",
    [Param("data"), Param("upscale_factor", ATTR, REQUIRED)],
    _infer_pixel_shuffle,
    _pixel_shuffle,
    work=copy_work,
    doc="Rearrange (..., C*r*r, H, W) into (..., C, H*r, W*r), r = upscale_factor.",
)
