"""Running TIR functions (`vdplace.ir.tir.PrimFunc`) on NumPy arrays: the kernel of ``R.call_tir``.

`run_prim_func` runs one function on arrays (`run`; `plan` decides how each
loop nest runs: as arrays over its iteration space, step by step, or one
iteration at a time).  Importing this package gives the ``call_tir`` op
(`vdplace.ir.ops.call_tir`, which the IR registers without a kernel) its
NumPy kernel, `call_tir_kernel`; ``vdplace.runtime`` imports it, so every
device and the reference interpreter run ``R.call_tir`` through it.
"""

from __future__ import annotations

from typing import Any

from vdplace.ir.op import provide_kernel
from vdplace.ir.struct_info import StructInfo, TupleStructInfo
from vdplace.ir.tir import PrimFunc

from .run import IRRuntimeError, run_prim_func

__all__ = ["IRRuntimeError", "call_tir_kernel", "run_prim_func"]


def call_tir_kernel(args: Any, *, gvar: PrimFunc, out_ty: StructInfo) -> Any:
    """``R.call_tir(gvar, args, out_ty)`` on arrays: the outputs `gvar` writes (a tuple for a tuple `out_ty`)."""
    outs = run_prim_func(gvar, list(args) if isinstance(args, (tuple, list)) else [args])
    return tuple(outs) if isinstance(out_ty, TupleStructInfo) else outs[0]


provide_kernel("call_tir", call_tir_kernel)
