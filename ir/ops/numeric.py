"""Float classification and truncation: ``R.isnan``, ``R.isinf``, ``R.isfinite`` and ``R.trunc``.

``R.isnan(x)``, ``R.isinf(x)`` and ``R.isfinite(x)`` give a bool tensor of
`x`'s shape.  They take float and integer tensors (an integer is never NaN or
infinite, always finite, as in TVM) and reject bool tensors at inference (TVM's
inference lets them through, but its build rejects them).  ``R.trunc(x)``
rounds toward zero and keeps the shape and dtype; integers and bools are
returned unchanged, as TVM does.  Work: one FLOP per element.  No torch
kernels: a torch device runs these on the host.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import Param, expect_tensor, register_op
from ..struct_info import StructInfo
from .common import unary_infer


def _check_infer(op: str) -> Callable[[Sequence[StructInfo], dict[str, Any]], StructInfo]:
    """Inference of a classification op: a bool tensor of the input's shape; bool inputs rejected."""
    base = unary_infer(op, result_dtype="bool")

    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        if expect_tensor(op, args, 0).dtype == "bool":
            raise InferenceError(f"R.{op}: expects a float or integer tensor, got dtype bool")
        return base(args, attrs)

    return infer


def _on_floats(fn: Callable[[np.ndarray], np.ndarray], integer_answer: bool) -> Callable[[np.ndarray], np.ndarray]:
    """`fn` on a float tensor; `integer_answer` everywhere for an integer one."""

    def kernel(x: np.ndarray) -> np.ndarray:
        if x.dtype.kind != "f":
            return np.full(x.shape, integer_answer, dtype=np.bool_)
        return np.asarray(fn(x), dtype=np.bool_)

    return kernel


_CHECKS = {
    "isnan": (np.isnan, False),
    "isinf": (np.isinf, False),
    "isfinite": (np.isfinite, True),
}

for _name, (_fn, _int_answer) in _CHECKS.items():
    register_op(
        _name,
        [Param("x")],
        _check_infer(_name),
        _on_floats(_fn, _int_answer),
        doc=f"Elementwise {_name}: a bool tensor of the input's shape.",
    )


def _trunc(x: np.ndarray) -> np.ndarray:
    """Round toward zero; integers and bools unchanged."""
    if x.dtype.kind != "f":
        return np.array(x)
    return np.asarray(np.trunc(x)).astype(x.dtype, copy=False)


register_op(
    "trunc",
    [Param("x")],
    unary_infer("trunc"),
    _trunc,
    doc="Elementwise rounding toward zero (integers and bools unchanged).",
)
