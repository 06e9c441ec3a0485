"""Kernel cases of ``R.quantize`` and ``R.dequantize`` (ir/ops/qdq.py).

Joined into KERNEL_CASES (tests/ir/ops/test_kernels.py).  Each case is `(op, args,
attrs, reference)`; the references walk the elements with plain loops and
Python's `round` (half to even), as TVM's legalization defines the ops: the
quotient rounded to the working float dtype, then the zero point added, the
range clipped and the value truncated.  Scalars are 0-d
arrays (a NumPy scalar would stand for a prim value).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

_INT_RANGE = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767), "uint16": (0, 65535)}


def _param_at(param: np.ndarray, index: tuple[int, ...], axis: int) -> float:
    """The scale / zero point entry for element `index`: the only one, or the one along `axis`."""
    flat = np.asarray(param).reshape(-1)
    return flat[0].item() if flat.size == 1 else flat[index[axis]].item()


def quantize_ref(axis: int, out_dtype: str) -> Callable[..., np.ndarray]:
    """``clip(round(x / scale) + zero_point)`` per element, in float32 (float16 when data and scale are)."""

    def ref(data: np.ndarray, scale: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
        work = np.float16 if data.dtype == scale.dtype == np.float16 else np.float32
        lo, hi = _INT_RANGE[out_dtype]
        out = np.empty(data.shape, out_dtype)
        for index in np.ndindex(*data.shape):
            s = _param_at(scale, index, axis)
            z = float(work(_param_at(zero_point, index, axis)))
            x = float(data[index])
            v = float(work(round(float(work(x / s)))) + work(z))  # round(): half to even
            out[index] = int(min(max(v, lo), hi))  # int(): toward zero
        return out

    return ref


def dequantize_ref(axis: int, out_dtype: str) -> Callable[..., np.ndarray]:
    """``(x - zero_point) * scale`` per element, the product rounded to float32 (then float16, clipped)."""

    def ref(data: np.ndarray, scale: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
        out = np.empty(data.shape, out_dtype)
        for index in np.ndindex(*data.shape):
            diff = float(np.float32(data[index].item() - _param_at(zero_point, index, axis)))
            v = float(np.float32(diff * float(np.float32(_param_at(scale, index, axis)))))
            out[index] = min(max(v, -65504.0), 65504.0) if out_dtype == "float16" else v
        return out

    return ref


def _s(value: float, dtype: str = "float32") -> np.ndarray:
    """A rank-0 tensor (a scalar scale or zero point)."""
    return np.asarray(value, dtype=dtype)


# Ties at every half: x / 0.5 = -2.5, -1.5, -0.5, 0.5, 1.5, 2.5; then values past the int8 range.
_TIES = np.float32([-1.25, -0.75, -0.25, 0.25, 0.75, 1.25, 63.75, -64.25, 1000.0, -1000.0])
_X3 = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 11.5) * 1.75
_Q3 = (np.arange(24).reshape(2, 3, 4) * 11 - 128).astype(np.int8)

CASES: list = [
    ("quantize", (_TIES, _s(0.5), _s(0, "int8")), {"out_dtype": "int8"}, quantize_ref(-1, "int8")),
    ("quantize", (_TIES, _s(0.5), _s(3, "uint8")), {"out_dtype": "uint8", "axis": 0}, quantize_ref(0, "uint8")),
    ("quantize", (_TIES * 100, _s(0.5), _s(-7, "int16")), {"out_dtype": "int16"}, quantize_ref(-1, "int16")),
    ("quantize", (_TIES * 100, _s(0.5), _s(9, "uint16")), {"out_dtype": "uint16"}, quantize_ref(-1, "uint16")),
    # per axis: axis 1 of (2, 3, 4), and the last axis with a 1-element zero point
    (
        "quantize",
        (_X3, np.float32([0.5, 1.0, 2.0]), np.int8([0, 1, -1])),
        {"axis": 1, "out_dtype": "int8"},
        quantize_ref(1, "int8"),
    ),
    (
        "quantize",
        (_X3, np.float32([0.25, 0.5, 1.0, 4.0]), np.uint8([100])),
        {"axis": -1, "out_dtype": "uint8"},
        quantize_ref(-1, "uint8"),
    ),
    # float16 data and scale: the division and the clip in float16
    (
        "quantize",
        (_TIES.astype(np.float16), _s(0.5, "float16"), _s(1, "int8")),
        {"out_dtype": "int8"},
        quantize_ref(-1, "int8"),
    ),
    # a float16 zero point of x.5: rounded quotient + 1.5, truncated toward zero
    ("quantize", (_TIES, _s(0.5), _s(1.5, "float16")), {"out_dtype": "int8"}, quantize_ref(-1, "int8")),
    ("quantize", (_s(2.6), _s(1.0), _s(0, "int8")), {}, quantize_ref(-1, "int8")),
    # dequantize
    ("dequantize", (_Q3, _s(0.1), _s(3, "int8")), {}, dequantize_ref(-1, "float32")),
    (
        "dequantize",
        (_Q3, np.float32([0.5, 1.0, 2.0]), np.int8([0, 1, -1])),
        {"axis": -2},
        dequantize_ref(1, "float32"),
    ),
    (
        "dequantize",
        (_Q3.astype(np.uint8), np.float32([0.5, 0.25, 2.0, 0.125]), np.uint8([128, 0, 255, 7])),
        {"axis": 2},
        dequantize_ref(2, "float32"),
    ),
    (
        "dequantize",
        (np.int32([[5, -1000000], [123456, 0]]), _s(0.125), _s(-1, "int32")),
        {"axis": 0},
        dequantize_ref(0, "float32"),
    ),
    # a float16 result, clipped to +-65504
    ("dequantize", (_Q3, _s(1000.0), _s(3, "int8")), {"out_dtype": "float16"}, dequantize_ref(-1, "float16")),
    ("dequantize", (_TIES, _s(0.5, "float16"), _s(-2, "int8")), {}, dequantize_ref(-1, "float32")),
]
