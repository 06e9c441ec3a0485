"""Numeric building blocks of the kernels: working precision, bfloat16 rounding, sigmoid, erfc.

NumPy's float16 loops overflow early (``exp(12)`` is already ``inf``) and
accumulate sums in float16, so half-precision kernels compute in float32 and
cast back.  SciPy is not a dependency, so erfc is computed here with a
Chebyshev-fitted rational form (Numerical Recipes' ``erfcc``), whose
relative error is below 1.2e-7 for z >= 0; gelu built on it
is accurate to about 1e-7 relative, which float32 results cannot tell apart.

NumPy has no bfloat16: the IR stores it as float32 (`dtype.to_numpy`), and
`round_bfloat16` rounds such values to bfloat16 precision where a value
becomes bfloat16 (``R.astype``), as torch and TVM convert: float32 to the
nearest bfloat16, ties to even, overflow to infinity, subnormals kept.
"""

from __future__ import annotations

import numpy as np

# Coefficients of erfc(z) ~ t * exp(-z^2 + P(t)), t = 1 / (1 + z / 2), z >= 0.
_ERFC_COEFFS = (
    -1.26551223,
    1.00002368,
    0.37409196,
    0.09678418,
    -0.18628806,
    0.27886807,
    -1.13520398,
    1.48851587,
    -0.82215223,
    0.17087277,
)


def work_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype a kernel computes in for results of `dtype` (float16 -> float32)."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def float_work(x: np.ndarray) -> np.ndarray:
    """`x` in a float working precision: float16 -> float32, integers -> float64."""
    if x.dtype.kind == "f":
        return x.astype(work_dtype(x.dtype), copy=False)
    return x.astype(np.float64)


def round_bfloat16(x: np.ndarray) -> np.ndarray:
    """float32 `x` rounded to the nearest bfloat16 value (ties to even), as float32; NaN stays NaN."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000  # round the 16 low bits away, ties to even
    out = rounded.astype(np.uint32).view(np.float32).reshape(x.shape)
    return np.where(np.isnan(x), x, out)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)) without overflow for large |x|, in the input's dtype."""
    xf = float_work(x)
    e = np.exp(-np.abs(xf))
    out = np.where(xf >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return out.astype(x.dtype, copy=False)


def erfc_nonnegative(z: np.ndarray) -> np.ndarray:
    """erfc(z) for z >= 0, relative error < 1.2e-7."""
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.full_like(t, _ERFC_COEFFS[-1])
    for c in reversed(_ERFC_COEFFS[:-1]):
        poly = poly * t + c
    return t * np.exp(-z * z + poly)


def gelu(x: np.ndarray) -> np.ndarray:
    """x * Phi(x) = x/2 * erfc(-x / sqrt 2), accurate in relative terms for negative x too."""
    xf = float_work(x)
    z = xf * np.sqrt(0.5)
    tail = erfc_nonnegative(np.abs(z))
    one_plus_erf = np.where(z >= 0, 2.0 - tail, tail)  # 1 + erf(z) = erfc(-z)
    with np.errstate(invalid="ignore"):  # -inf * 0 at x = -inf, whose limit is 0
        out = np.where(xf == -np.inf, 0.0, 0.5 * xf * one_plus_erf)
    return out.astype(x.dtype, copy=False)
