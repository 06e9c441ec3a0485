"""Elementwise arithmetic, comparison and unary math ops, and ``R.where``.

Operands of a binary op share one dtype (no implicit promotion, as in TVM)
and broadcast like NumPy.  The result keeps the operands' dtype: integer
`divide` truncates toward zero (TVM's integer division), `floor_divide`
rounds down; `floor_mod` takes the divisor's sign (Python's %) and `mod` the
dividend's (C's % and fmod), as TVM's floormod and truncmod.  On bool tensors
(TVM's PyTorch frontend emits them for masks: ``isfinite``, ``m1 + m2``) add is
logical or and multiply logical and, with a bool result, as torch computes
them; maximum, minimum, abs and the comparisons accept bools too; the other
arithmetic on bools is rejected, as torch rejects it (convert with
``R.astype`` first).  exp, log, sqrt, tanh and sigmoid are
defined on floats only, as in TVM; float16 sigmoid is computed in float32 so
it neither overflows nor warns.

Work: one FLOP per result element (sigmoid: four), every operand read once.
The torch kernels cast back to the operands' dtype where torch would promote,
and fall back to NumPy for integer operands of the float-only ops and for bool
abs.  ``R.where(condition, x1, x2)`` takes a bool condition and two operands
of one dtype, all three broadcast together.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import Fallback, Param, TorchContext, elementwise_work, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo
from .common import binary_infer, broadcast_shapes, keep_dtype, same_dtype, torch_float_only, unary_infer
from .special import sigmoid


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """True division for floats; for integers, the quotient truncated toward zero, exactly."""
    if np.result_type(a, b).kind not in "iu":
        return np.divide(a, b)
    q = np.floor_divide(a, b)
    rounds_down = (a - q * b != 0) & ((a < 0) != (b < 0))
    return q + rounds_down.astype(q.dtype)


def _torch_keep_dtype(name: str) -> Callable[..., Any]:
    """``torch.<name>`` cast back to the operands' dtype (torch promotes where NumPy does not)."""

    def kernel(t: TorchContext, x1: Any, x2: Any) -> Any:
        torch = t.torch
        return getattr(torch, name)(x1, x2).to(torch.result_type(x1, x2))

    return kernel


def _torch_plain(name: str) -> Callable[..., Any]:
    """``torch.<name>``, whose result dtype already matches NumPy's."""

    def kernel(t: TorchContext, *args: Any) -> Any:
        return getattr(t.torch, name)(*args)

    return kernel


def _torch_divide(t: TorchContext, x1: Any, x2: Any) -> Any:
    if x1.is_floating_point() or x2.is_floating_point():
        return t.torch.div(x1, x2)
    return t.torch.div(x1, x2, rounding_mode="trunc")


def _torch_abs(t: TorchContext, x: Any) -> Any:
    if x.dtype == t.torch.bool:
        raise Fallback  # torch has no abs for bool
    return t.torch.abs(x)


# name -> (NumPy function, torch kernel)
_BINARY: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "add": (np.add, _torch_keep_dtype("add")),
    "subtract": (np.subtract, _torch_keep_dtype("sub")),
    "multiply": (np.multiply, _torch_keep_dtype("mul")),
    "divide": (_divide, _torch_divide),
    "floor_divide": (np.floor_divide, _torch_keep_dtype("floor_divide")),
    "floor_mod": (np.mod, _torch_keep_dtype("remainder")),  # the sign of the divisor, as Python's %
    "mod": (np.fmod, _torch_keep_dtype("fmod")),  # the sign of the dividend, as C's % and fmod
    "power": (np.power, _torch_keep_dtype("pow")),
    "maximum": (np.maximum, _torch_plain("maximum")),
    "minimum": (np.minimum, _torch_plain("minimum")),
}

# The binary ops defined on bool tensors, as torch defines them: add is logical or, multiply logical and,
# maximum or, minimum and.  NumPy and torch compute exactly that for bool operands.
_BOOL_BINARY = ("add", "multiply", "maximum", "minimum")

# name -> (NumPy function, torch function name)
_COMPARE: dict[str, tuple[Callable[..., Any], str]] = {
    "equal": (np.equal, "eq"),
    "not_equal": (np.not_equal, "ne"),
    "less": (np.less, "lt"),
    "less_equal": (np.less_equal, "le"),
    "greater": (np.greater, "gt"),
    "greater_equal": (np.greater_equal, "ge"),
}

# name -> (NumPy function, defined on floats only, torch kernel, FLOPs per element)
_UNARY: dict[str, tuple[Callable[..., Any], bool, Callable[..., Any], float]] = {
    "negative": (np.negative, False, _torch_plain("neg"), 1),
    "abs": (np.abs, False, _torch_abs, 1),
    "exp": (np.exp, True, torch_float_only(lambda torch: torch.exp), 1),
    "log": (np.log, True, torch_float_only(lambda torch: torch.log), 1),
    "sqrt": (np.sqrt, True, torch_float_only(lambda torch: torch.sqrt), 1),
    "tanh": (np.tanh, True, torch_float_only(lambda torch: torch.tanh), 1),
    "sigmoid": (sigmoid, True, torch_float_only(lambda torch: torch.sigmoid), 4),
}


def _as_array(fn):
    """NumPy returns a scalar, not a 0-d array, for 0-d operands; kernels return arrays."""

    def kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.asarray(fn(x1, x2))

    return kernel


def _keep_unary_dtype(fn):
    def kernel(x: np.ndarray) -> np.ndarray:
        return np.asarray(fn(x)).astype(x.dtype, copy=False)

    return kernel


for _name, (_fn, _torch) in _BINARY.items():
    register_op(
        _name,
        [Param("x1"), Param("x2")],
        binary_infer(_name, allow_bool=_name in _BOOL_BINARY),
        keep_dtype(_fn),
        torch_kernel=_torch,
        doc=f"Elementwise {_name} with NumPy broadcasting.",
    )

for _name, (_fn, _torch_name) in _COMPARE.items():
    register_op(
        _name,
        [Param("x1"), Param("x2")],
        binary_infer(_name, "bool"),
        _as_array(_fn),
        torch_kernel=_torch_plain(_torch_name),
        doc=f"Elementwise comparison {_name}; the result is bool.",
    )

for _name, (_fn, _float_only, _torch, _flops) in _UNARY.items():
    register_op(
        _name,
        [Param("x")],
        unary_infer(_name, float_only=_float_only, allow_bool=_name != "negative"),
        _keep_unary_dtype(_fn),
        torch_kernel=_torch,
        work=elementwise_work(_flops),
        doc=f"Elementwise {_name}.",
    )


# -- where ---------------------------------------------------------------------------


def _infer_where(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    cond = expect_tensor("where", args, 0)
    x1 = expect_tensor("where", args, 1)
    x2 = expect_tensor("where", args, 2)
    if cond.dtype and cond.dtype != "bool":
        raise InferenceError(f"R.where: condition must be a bool tensor, got dtype {cond.dtype}")
    dtype = same_dtype("where", x1, x2)
    if cond.shape is not None and x1.shape is not None and x2.shape is not None:
        shape = broadcast_shapes("where", broadcast_shapes("where", cond.shape, x1.shape), x2.shape)
        return TensorStructInfo(shape, dtype)
    ndims = (cond.ndim, x1.ndim, x2.ndim)
    return TensorStructInfo(None, dtype, max(ndims) if min(ndims) >= 0 else -1)


def _where(condition: np.ndarray, x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    return np.where(condition, x1, x2)


def _torch_where(t: TorchContext, condition: Any, x1: Any, x2: Any) -> Any:
    return t.torch.where(condition, x1, x2)


register_op(
    "where",
    [Param("condition"), Param("x1"), Param("x2")],
    _infer_where,
    _where,
    torch_kernel=_torch_where,
    work=elementwise_work(1),
    doc="x1 where condition is true, else x2; the three tensors broadcast together.",
)
