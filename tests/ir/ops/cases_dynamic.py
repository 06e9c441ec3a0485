"""Kernel cases of the ops behind data-dependent shapes: ``R.match_cast``, ``R.unique`` and ``R.call_packed``.

Joined into KERNEL_CASES (tests/ir/ops/test_kernels.py).  The unique references are
TVM 0.27's llvm build on [3, 1, 3, 2, 1, 5, 3], sorted and in first-occurrence order.
"""

from __future__ import annotations

import numpy as np

from vdplace.ir import tensor
from vdplace.ir.struct_info import ShapeStructInfo, TupleStructInfo

_X = np.float32([3, 1, 3, 2, 1, 5, 3])
_FLAGS = {"return_index": True, "return_inverse": True, "return_counts": True, "axis": None}

CASES = [
    (
        "call_packed",
        (np.int64([3, 4]),),
        {"func": "vm.builtin.tensor_to_shape", "ty_args": ShapeStructInfo((3, 4))},
        lambda s: (3, 4),
    ),
    (
        "call_packed",
        (np.array(True), "bad {}", np.float32([1, 2])),
        {"func": "relax.run.assert_op", "ty_args": TupleStructInfo([])},
        lambda c, f, y: (),
    ),
    ("call_packed", ("done",), {"func": "relax.run.print", "ty_args": TupleStructInfo([])}, lambda f: ()),
    ("match_cast", (np.float32([[1, 2, 3]]),), {"ty": tensor((1, "n"))}, lambda x: x),
    (
        "unique",
        (_X,),
        {"sorted": True, "return_index": False, "return_inverse": False, "return_counts": False, "axis": None},
        lambda x: np.float32([1, 2, 3, 5]),
    ),
    (
        "unique",
        (_X,),
        {"sorted": True, **_FLAGS},
        lambda x: (
            np.float32([1, 2, 3, 5]),
            np.int64([1, 3, 0, 5]),
            np.int64([2, 0, 2, 1, 0, 3, 2]),
            np.int64([2, 1, 3, 1]),
        ),
    ),
    (
        "unique",
        (_X,),
        {"sorted": False, **_FLAGS},
        lambda x: (
            np.float32([3, 1, 2, 5]),
            np.int64([0, 1, 3, 5]),
            np.int64([0, 1, 0, 2, 1, 3, 0]),
            np.int64([3, 2, 1, 1]),
        ),
    ),
]
