"""TIR functions (``@T.prim_func``) as ``R.call_tir`` calls them: nodes, parser, printer, NumPy runner.

A `PrimFunc` lives in the attributes of the ``R.call_tir`` calls that use
it, not in `IRModule.functions`: no pass sees it, and the printer writes each
one once, beside the relax functions (`PrimFuncNames`).
"""

from .nodes import Buffer, PrimFunc
from .parse import is_prim_func, parse_prim_func, prim_func_from_text
from .run import IRRuntimeError, run_prim_func
from .text import PrimFuncNames, prim_func_lines

__all__ = [
    "Buffer",
    "IRRuntimeError",
    "PrimFunc",
    "PrimFuncNames",
    "is_prim_func",
    "parse_prim_func",
    "prim_func_from_text",
    "prim_func_lines",
    "run_prim_func",
]
