"""Bit shifts: ``R.left_shift(x1, x2)`` and ``R.right_shift(x1, x2)``.

Both take integer tensors of one dtype that broadcast like NumPy and keep
that dtype; a float or bool operand is an inference error.  ``right_shift``
is arithmetic on signed integers (the sign bit is copied in), as TVM lowers
it to C's ``>>``; ``left_shift`` drops the bits shifted out.  A shift by a
negative amount or by at least the dtype's width is undefined in TVM's C
lowering; here it gives what NumPy gives (0, or -1 for a negative value
shifted right).  Work: one FLOP per element.  No torch kernels: a torch
device runs these on the host.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import Param, expect_tensor, register_op
from ..struct_info import StructInfo
from .common import binary_infer


def _shift_infer(op: str) -> Callable[[Sequence[StructInfo], dict[str, Any]], StructInfo]:
    base = binary_infer(op)

    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        for i in range(2):
            t = expect_tensor(op, args, i)
            if t.dtype and not t.dtype.startswith(("int", "uint")):
                raise InferenceError(f"R.{op}: expects integer tensors, got dtype {t.dtype}")
        return base(args, attrs)

    return infer


def _shift_kernel(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
    def kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        dtype = np.result_type(x1, x2)
        return np.asarray(fn(x1.astype(dtype, copy=False), x2.astype(dtype, copy=False))).astype(dtype, copy=False)

    return kernel


for _name, _fn in (("left_shift", np.left_shift), ("right_shift", np.right_shift)):
    register_op(
        _name,
        [Param("x1"), Param("x2")],
        _shift_infer(_name),
        _shift_kernel(_fn),
        doc=f"Elementwise {_name.replace('_', ' ')} of integer tensors of one dtype, broadcast.",
    )
