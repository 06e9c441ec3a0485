"""Elementwise arithmetic, comparison and unary math ops.

Operands of a binary op share one dtype (no implicit promotion, as in TVM)
and broadcast like NumPy.  The result keeps the operands' dtype: integer
`divide` truncates toward zero (TVM's integer division), `floor_divide`
rounds down.  Arithmetic on bool tensors is rejected; maximum, minimum, abs
and the comparisons accept them.  exp, log, sqrt, tanh and sigmoid are
defined on floats only, as in TVM; float16 sigmoid is computed in float32 so
it neither overflows nor warns.
"""

from __future__ import annotations

import numpy as np

from ..op import Param, register_op
from .common import binary_infer, unary_infer
from .special import sigmoid


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """True division for floats; for integers, the quotient truncated toward zero, exactly."""
    if np.result_type(a, b).kind not in "iu":
        return np.divide(a, b)
    q = np.floor_divide(a, b)
    rounds_down = (a - q * b != 0) & ((a < 0) != (b < 0))
    return q + rounds_down.astype(q.dtype)


_BINARY = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": _divide,
    "floor_divide": np.floor_divide,
    "power": np.power,
    "maximum": np.maximum,
    "minimum": np.minimum,
}

_COMPARE = {
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
}

# name -> (kernel, defined on floats only)
_UNARY = {
    "negative": (np.negative, False),
    "abs": (np.abs, False),
    "exp": (np.exp, True),
    "log": (np.log, True),
    "sqrt": (np.sqrt, True),
    "tanh": (np.tanh, True),
    "sigmoid": (sigmoid, True),
}


def _keep_dtype(fn):
    """An array of the operands' dtype (NumPy gives scalars for 0-d operands)."""

    def kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.asarray(fn(x1, x2)).astype(np.result_type(x1, x2), copy=False)

    return kernel


def _as_array(fn):
    """NumPy returns a scalar, not a 0-d array, for 0-d operands; kernels return arrays."""

    def kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.asarray(fn(x1, x2))

    return kernel


def _keep_unary_dtype(fn):
    def kernel(x: np.ndarray) -> np.ndarray:
        return np.asarray(fn(x)).astype(x.dtype, copy=False)

    return kernel


for _name, _fn in _BINARY.items():
    register_op(
        _name,
        [Param("x1"), Param("x2")],
        binary_infer(_name, allow_bool=_name in ("maximum", "minimum")),
        _keep_dtype(_fn),
        doc=f"Elementwise {_name} with NumPy broadcasting.",
    )

for _name, _fn in _COMPARE.items():
    register_op(
        _name,
        [Param("x1"), Param("x2")],
        binary_infer(_name, "bool"),
        _as_array(_fn),
        doc=f"Elementwise comparison {_name}; the result is bool.",
    )

for _name, (_fn, _float_only) in _UNARY.items():
    register_op(
        _name,
        [Param("x")],
        unary_infer(_name, float_only=_float_only, allow_bool=_name != "negative"),
        _keep_unary_dtype(_fn),
        doc=f"Elementwise {_name}.",
    )
