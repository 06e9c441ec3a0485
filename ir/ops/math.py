"""More elementwise ops: unary math (rsqrt, erf, sin, cos, log1p, round, ceil, floor, sign, square),
log_add_exp, clip and logic.

``R.<op>(x)`` keeps its input's shape and dtype.  rsqrt, erf, sin, cos and
log1p are defined on floats only, as in TVM; they compute float16 in float32
and cast back.  round rounds half to even (TVM lowers it to ``nearbyint``);
round, ceil and floor leave integers unchanged; square takes any number
dtype (integers wrap as in TVM).  ``R.log_add_exp(x1, x2)`` is
``log(exp(x1) + exp(x2))`` on float tensors that broadcast, computed without
overflow (float16 in float32).  erf is computed without
SciPy: a Taylor series below 0.5 in magnitude and ``1 - erfc`` above it
(`special.erfc_nonnegative`), both accurate to about 1e-7 relative.

``R.logical_not(x)``, ``R.logical_and(x1, x2)``, ``R.logical_or(x1, x2)``
work on bool (or integer) tensors; ``R.bitwise_and``, ``R.bitwise_or`` and
``R.bitwise_not`` on integer or bool tensors.  The binary ones broadcast like
NumPy and keep the operands' dtype, as TVM does.  ``R.clip(x, min, max)``
takes its bounds as prim values (``R.prim_value(0)``), converted to the
tensor's dtype; on an integer tensor a bound beyond the dtype's range
saturates (``T.float64("inf")``: no bound), a float one is truncated.  Work: one FLOP per element
(rsqrt, erf, sin, cos, log1p, log_add_exp: four).  No torch kernels: a torch device runs
these on the host.
"""

from __future__ import annotations

import math as _math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import Param, elementwise_work, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo
from .common import binary_infer, expect_float, expect_prim, keep_dtype, no_float, unary_infer
from .special import erfc_nonnegative, float_work

# erf(z) = 2/sqrt(pi) * sum_n (-1)^n z^(2n+1) / (n! (2n+1)); 12 terms suffice for |z| < 0.5.
_ERF_SERIES = tuple((-1) ** n / (_math.factorial(n) * (2 * n + 1)) for n in range(12))


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, accurate to about 1e-7 relative, in the input's dtype."""
    z = float_work(x).astype(np.float64)
    zs = np.where(np.abs(z) < 0.5, z, 0.0)  # the series only where it is used
    z2 = zs * zs
    series = np.zeros_like(z)
    for c in reversed(_ERF_SERIES):
        series = series * z2 + c
    small = series * zs * (2.0 / np.sqrt(np.pi))
    with np.errstate(over="ignore", invalid="ignore"):
        large = np.sign(z) * (1.0 - erfc_nonnegative(np.abs(z)))
    out = np.where(np.abs(z) < 0.5, small, np.where(np.isnan(z), z, large))
    return np.asarray(out).astype(x.dtype, copy=False)


def _in_float(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """`fn` computed in float working precision, cast back to the input's dtype."""

    def kernel(x: np.ndarray) -> np.ndarray:
        return np.asarray(fn(float_work(x))).astype(x.dtype, copy=False)

    return kernel


def _rsqrt(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):  # rsqrt(0) is inf, as in TVM
        return 1.0 / np.sqrt(x)


def _int_identity(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """Rounding ops: integers are already whole."""

    def kernel(x: np.ndarray) -> np.ndarray:
        return np.array(x) if x.dtype.kind != "f" else np.asarray(fn(x)).astype(x.dtype, copy=False)

    return kernel


# name -> (NumPy kernel, defined on floats only, FLOPs per element)
_UNARY: dict[str, tuple[Callable[[np.ndarray], np.ndarray], bool, int]] = {
    "rsqrt": (_in_float(_rsqrt), True, 4),
    "erf": (erf, True, 4),
    "sin": (_in_float(np.sin), True, 4),
    "cos": (_in_float(np.cos), True, 4),
    "log1p": (_in_float(np.log1p), True, 4),
    "round": (_int_identity(np.round), False, 1),
    "ceil": (_int_identity(np.ceil), False, 1),
    "floor": (_int_identity(np.floor), False, 1),
    "sign": (lambda x: np.asarray(np.sign(x)).astype(x.dtype, copy=False), False, 1),
    "square": (lambda x: np.asarray(x * x).astype(x.dtype, copy=False), False, 1),
}

for _name, (_fn, _float_only, _flops) in _UNARY.items():
    register_op(
        _name,
        [Param("x")],
        unary_infer(_name, float_only=_float_only, allow_bool=_name not in ("sign", "square")),
        _fn,
        work=elementwise_work(_flops),
        doc=f"Elementwise {_name}.",
    )


def _infer_log_add_exp(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    for i in range(2):
        expect_float("log_add_exp", expect_tensor("log_add_exp", args, i))
    return binary_infer("log_add_exp")(args, attrs)


def _log_add_exp(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """log(exp(x1) + exp(x2)) without overflow, in float working precision, cast back."""
    return np.asarray(np.logaddexp(float_work(x1), float_work(x2))).astype(np.result_type(x1, x2), copy=False)


register_op(
    "log_add_exp",
    [Param("x1"), Param("x2")],
    _infer_log_add_exp,
    _log_add_exp,
    work=elementwise_work(4),
    doc="log(exp(x1) + exp(x2)) elementwise on float tensors, broadcast like NumPy.",
)


# -- logical and bitwise ---------------------------------------------------------------


_LOGIC_BINARY = {
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or,
}
_LOGIC_UNARY = {"logical_not": np.logical_not, "bitwise_not": np.invert}

for _name, _bfn in _LOGIC_BINARY.items():
    register_op(
        _name,
        [Param("x1"), Param("x2")],
        no_float(_name, binary_infer(_name)),
        keep_dtype(_bfn),
        doc=f"Elementwise {_name} with NumPy broadcasting; the operands' dtype is kept.",
    )

for _name, _ufn in _LOGIC_UNARY.items():
    register_op(
        _name,
        [Param("x")],
        no_float(_name, unary_infer(_name)),
        keep_dtype(_ufn),
        doc=f"Elementwise {_name}; the input's dtype is kept.",
    )


# -- clip ------------------------------------------------------------------------------------


def _infer_clip(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    x = expect_tensor("clip", args, 0)
    lo = expect_prim("clip", "min", args, 1)
    hi = expect_prim("clip", "max", args, 2)
    if x.dtype == "bool":
        raise InferenceError("R.clip: expects a number tensor, got dtype bool")
    if isinstance(lo.value, (int, float)) and isinstance(hi.value, (int, float)) and lo.value > hi.value:
        raise InferenceError(f"R.clip: min {lo.value} is greater than max {hi.value}")
    if x.dtype.startswith(("int", "uint")):
        for name, bound in (("min", lo), ("max", hi)):
            if isinstance(bound.value, float) and _math.isnan(bound.value):
                raise InferenceError(f"R.clip: {name} is NaN, which bounds no {x.dtype} value")
    return TensorStructInfo(x.shape, x.dtype, x.ndim)


def _clip_bound(value: Any, dtype: np.dtype) -> np.ndarray:
    """A bound in the tensor's dtype; for an integer tensor, saturated to the dtype's range (inf: no bound)."""
    v = np.asarray(value)
    if dtype.kind not in "iu":
        with np.errstate(over="ignore"):  # 1e10 as float16 is inf: no bound, as meant
            return v.astype(dtype)
    info = np.iinfo(dtype)
    if v.dtype.kind == "f":
        f = float(v)
        if _math.isnan(f):
            raise ValueError(f"R.clip: a NaN bound on a {dtype} tensor")
        if _math.isinf(f):
            return np.asarray(info.max if f > 0 else info.min, dtype)
        v = np.asarray(int(f))  # truncated toward zero, as a cast
    return np.asarray(min(max(int(v), int(info.min)), int(info.max)), dtype)


def _clip(x: np.ndarray, min: Any, max: Any) -> np.ndarray:  # noqa: A002 - TVM's parameter names
    """min(x, max) then max(., min), the bounds converted to the tensor's dtype first (as TVM's clip).

    On an integer tensor a bound outside the dtype's range (``T.float64("inf")``
    as TVM prints torch's unbounded side) saturates instead of wrapping.
    """
    lo, hi = _clip_bound(min, x.dtype), _clip_bound(max, x.dtype)
    return np.asarray(np.maximum(np.minimum(x, hi), lo)).astype(x.dtype, copy=False)


register_op(
    "clip",
    [Param("x"), Param("min"), Param("max")],
    _infer_clip,
    _clip,
    doc="Clamp `x` to [min, max]; the bounds are prim values (R.prim_value).",
)
