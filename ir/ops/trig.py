"""Trigonometric and hyperbolic ops: tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh and atan2.

``R.<op>(x)`` keeps its input's shape and dtype; ``R.atan2(x1, x2)`` broadcasts
its two operands like NumPy and keeps their (equal) dtype.  All are defined on
float tensors only: TVM's inference rejects integer and bool inputs to the
unary ones, and its llvm build rejects them for atan2, so vdplace rejects
them at inference for all ten.  Float16 is computed in float32 and cast back
(TVM's llvm build has no float16 asin, acos, atan, sinh, cosh, asinh, acosh or
atan2; vdplace runs them).  Out-of-domain inputs give NaN, as in TVM (asin of
2, acosh of 0, atanh of 2); atan2 follows the C library's signs and quadrants.
Work: four FLOPs per result element.  No torch kernels: a torch device runs
these on the host.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..op import Param, elementwise_work, register_op
from ..struct_info import StructInfo, TensorStructInfo
from .common import binary_infer, expect_float, unary_infer
from .special import float_work

_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
}


def _unary_kernel(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """`fn` in float working precision, cast back to the input's dtype; no warnings for NaN or inf results."""

    def kernel(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.asarray(fn(float_work(x))).astype(x.dtype, copy=False)

    return kernel


for _name, _fn in _UNARY.items():
    register_op(
        _name,
        [Param("x")],
        unary_infer(_name, float_only=True),
        _unary_kernel(_fn),
        work=elementwise_work(4),
        doc=f"Elementwise {_name} of a float tensor.",
    )


def _infer_atan2(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    out = binary_infer("atan2")(args, attrs)
    assert isinstance(out, TensorStructInfo)
    expect_float("atan2", out)
    return out


def _atan2(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(np.arctan2(float_work(x1), float_work(x2))).astype(x1.dtype, copy=False)


register_op(
    "atan2",
    [Param("x1"), Param("x2")],
    _infer_atan2,
    _atan2,
    work=elementwise_work(4),
    doc="Elementwise arctangent of x1 / x2 in the quadrant of (x2, x1); float tensors that broadcast.",
)
