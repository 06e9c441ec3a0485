"""Elementwise arithmetic, comparison and unary math ops."""

from __future__ import annotations

import numpy as np

from ..op import Param, register_op
from .common import binary_infer, unary_infer

_BINARY = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
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

_UNARY = {
    "negative": np.negative,
    "abs": np.abs,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "tanh": np.tanh,
    "sigmoid": lambda x: (1.0 / (1.0 + np.exp(-x))).astype(x.dtype),
}


def _keep_dtype(fn):
    """NumPy promotes some results (divide of ints, ...); Relax keeps the operand dtype."""

    def kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.asarray(fn(a, b)).astype(np.result_type(a, b), copy=False)

    return kernel


for _name, _fn in _BINARY.items():
    register_op(
        _name,
        [Param("x1"), Param("x2")],
        binary_infer(_name),
        _keep_dtype(_fn),
        doc=f"Elementwise {_name} with NumPy broadcasting.",
    )

for _name, _fn in _COMPARE.items():
    register_op(
        _name,
        [Param("x1"), Param("x2")],
        binary_infer(_name, "bool"),
        _fn,
        doc=f"Elementwise comparison {_name}; the result is bool.",
    )

for _name, _fn in _UNARY.items():
    register_op(_name, [Param("x")], unary_infer(_name), _fn, doc=f"Elementwise {_name}.")
