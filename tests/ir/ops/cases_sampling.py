"""Kernel cases of R.image.grid_sample and R.image.affine_grid (ir/ops/sampling.py).

The expected values were computed by torch 2.13 (``F.grid_sample`` on the grid moved to torch's
channels-last layout, ``F.affine_grid`` moved to channels-first) and are embedded in
`tests.ir.ops.sampling_expected`, so the suite needs no torch.  The inputs are closed-form (no RNG).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from tests.ir.ops.sampling_expected import EXPECTED

METHODS = ("nearest", "bilinear", "bicubic")
PADDINGS = ("zeros", "border", "reflection")


def ramp(*shape: int, dtype: str = "float32") -> np.ndarray:
    """Deterministic values in [-1, 1), scrambled so neighbours differ."""
    n = int(np.prod(shape))
    return (((np.arange(n) * 37) % 101) / 50.0 - 1.0).reshape(shape).astype(dtype)


def expected(key: str, shape: tuple[int, ...]) -> np.ndarray:
    """An embedded torch result, reshaped."""
    return np.array(EXPECTED[key].split(), dtype=np.float64).reshape(shape)


# Channels-first grids (TVM's layout): plane 0 is x (the last axis), 1 y, 2 z.  They hit the
# corners, a nearest tie (x = 0 on a width of 4), and points outside [-1, 1] (several flips).
X2 = ramp(1, 2, 3, 4)
G2 = np.array([[[[-1.0, 0.0, 1.0], [-1.3, 1.7, 2.625]], [[-1.0, 0.25, 1.0], [0.5, -1.75, -0.125]]]], dtype=np.float32)
X3 = ramp(1, 1, 2, 2, 3)
G3 = np.array(
    [[[[[-0.5, 1.25], [0.0, -1.5]]], [[[0.75, -1.0], [1.0, 0.3]]], [[[-0.25, 1.0], [2.5, -0.6]]]]], dtype=np.float32
)
THETA2 = np.array([[[0.9, -0.3, 0.1], [0.2, 1.1, -0.2]]], dtype=np.float32)
THETA3 = np.array([[[0.9, -0.3, 0.1, 0.05], [0.2, 1.1, -0.2, 0.0], [0.1, 0.0, 0.8, 0.3]]], dtype=np.float32)


def grid_sample_combos() -> list[tuple[int, str, str, bool]]:
    """(k, method, padding_mode, align_corners) for every combination the kernels support."""
    return [
        (k, m, p, a)
        for k, m, p, a in itertools.product((2, 3), METHODS, PADDINGS, (False, True))
        if not (k == 3 and m == "bicubic")
    ]


def grid_sample_key(k: int, method: str, padding: str, align: bool) -> str:
    return f"grid_sample/{k}d/{method}/{padding}/{'align' if align else 'noalign'}"


def affine_grid_key(k: int, align: bool) -> str:
    return f"affine_grid/{k}d/{'align' if align else 'noalign'}"


AFFINE_SIZES = {2: (2, 3), 3: (2, 2, 3)}

# Inputs of the end-to-end modules in tests/ir/ops/test_sampling.py.
E2E_X = ramp(2, 3, 6, 8)
E2E_THETA = np.array([[[0.9, -0.3, 0.1], [0.2, 1.1, -0.2]], [[1.2, 0.4, 0.3], [-0.5, 0.8, 0.0]]], dtype=np.float32)
E2E_GRID = (((np.arange(140) * 53) % 97) / 32.0 - 1.5).reshape(2, 5, 7, 2).astype(np.float32)
ONNX_X = ramp(1, 2, 4, 5)
ONNX_THETA = np.array([[[1.1, -0.3, 0.1], [0.2, 0.9, -0.2]]], dtype=np.float32)
ONNX_GRID = (((np.arange(24) * 29) % 41) / 16.0 - 1.25).reshape(1, 3, 4, 2).astype(np.float32)


def _const(value: np.ndarray) -> Callable[..., Any]:
    return lambda *args: value


def _grid_sample_case(k: int, method: str, padding: str, align: bool) -> tuple:
    x, g = (X2, G2) if k == 2 else (X3, G3)
    attrs = {"method": method, "layout": "NCHW" if k == 2 else "NCDHW", "padding_mode": padding, "align_corners": align}
    out = expected(grid_sample_key(k, method, padding, align), (*x.shape[:2], *g.shape[2:]))
    return ("image.grid_sample", (x, g), attrs, _const(out))


def _affine_grid_case(k: int, align: bool) -> tuple:
    size = AFFINE_SIZES[k]
    theta = THETA2 if k == 2 else THETA3
    out = expected(affine_grid_key(k, align), (1, k, *size))
    return ("image.affine_grid", (theta,), {"size": size, "align_corners": align}, _const(out))


CASES: list = [_grid_sample_case(*c) for c in grid_sample_combos()] + [
    _affine_grid_case(k, a) for k in (2, 3) for a in (False, True)
]
