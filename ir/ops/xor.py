"""Exclusive-or ops: ``R.bitwise_xor(x1, x2)`` and ``R.logical_xor(x1, x2)``.

Both take integer or bool tensors of one dtype that broadcast like NumPy, and
keep that dtype; float operands are an inference error (TVM's inference lets
them through, but its build rejects them).  On bool tensors the two agree.  On
integers ``R.logical_xor`` is bitwise too, as TVM lowers it (``3 xor 5`` is 6,
not 0): a printed module computes what TVM computes.  Work: one FLOP per
element.  No torch kernels: a torch device runs these on the host.
"""

from __future__ import annotations

import numpy as np

from ..op import Param, register_op
from .common import binary_infer, keep_dtype, no_float

for _name in ("bitwise_xor", "logical_xor"):
    register_op(
        _name,
        [Param("x1"), Param("x2")],
        no_float(_name, binary_infer(_name)),
        keep_dtype(np.bitwise_xor),
        doc=f"Elementwise {_name} of integer or bool tensors (bitwise on integers), broadcast.",
    )
