"""Exclusive-or ops: ``R.bitwise_xor(x1, x2)`` and ``R.logical_xor(x1, x2)``.

Both take integer or bool tensors of one dtype that broadcast like NumPy, and
keep that dtype; float operands are an inference error (TVM's inference lets
them through, but its build rejects them).  On bool tensors the two agree.  On
integers ``R.logical_xor`` is bitwise too, as TVM lowers it (``3 xor 5`` is 6,
not 0): a printed module computes what TVM computes.  Work: one FLOP per
element.  No torch kernels: a torch device runs these on the host.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..dtype import is_float
from ..errors import InferenceError
from ..op import Param, expect_tensor, register_op
from ..struct_info import StructInfo
from .common import binary_infer


def _xor_infer(op: str) -> Callable[[Sequence[StructInfo], dict[str, Any]], StructInfo]:
    base = binary_infer(op)

    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        for i in range(2):
            t = expect_tensor(op, args, i)
            if t.dtype and is_float(t.dtype):
                raise InferenceError(f"R.{op}: expects a bool or integer tensor, got dtype {t.dtype}")
        return base(args, attrs)

    return infer


def _xor(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Bitwise exclusive or, broadcast, in the operands' dtype."""
    return np.asarray(np.bitwise_xor(x1, x2)).astype(np.result_type(x1, x2), copy=False)


for _name in ("bitwise_xor", "logical_xor"):
    register_op(
        _name,
        [Param("x1"), Param("x2")],
        _xor_infer(_name),
        _xor,
        doc=f"Elementwise {_name} of integer or bool tensors (bitwise on integers), broadcast.",
    )
