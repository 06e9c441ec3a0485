"""TIR functions (``@T.prim_func``) as ``R.call_tir`` calls them: nodes, parser, printer.

A `PrimFunc` lives in the attributes of the ``R.call_tir`` calls that use
it, not in `IRModule.functions`: no pass sees it, and the printer writes each
one once, beside the relax functions (`PrimFuncNames`).  Running one is the
runtime's (`vdplace.runtime.tir`, which gives ``R.call_tir`` its kernel).
"""

from .nodes import Buffer, PrimFunc
from .parse import is_prim_func, parse_prim_func, prim_func_from_text
from .text import PrimFuncNames, prim_func_lines

__all__ = [
    "Buffer",
    "PrimFunc",
    "PrimFuncNames",
    "is_prim_func",
    "parse_prim_func",
    "prim_func_from_text",
    "prim_func_lines",
]
