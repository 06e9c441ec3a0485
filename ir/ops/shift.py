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

import numpy as np

from ..op import Param, register_op
from .common import binary_infer, dtype_checked, keep_dtype


def _is_integer(dtype: str) -> bool:
    return dtype.startswith(("int", "uint"))


for _name, _fn in (("left_shift", np.left_shift), ("right_shift", np.right_shift)):
    register_op(
        _name,
        [Param("x1"), Param("x2")],
        dtype_checked(_name, binary_infer(_name), _is_integer, "integer tensors"),
        keep_dtype(_fn),
        doc=f"Elementwise {_name.replace('_', ' ')} of integer tensors of one dtype, broadcast.",
    )
