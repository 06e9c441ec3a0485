"""Which object each ``metadata["<kind>"][<index>]`` of TVM's printout stands for.

TVM 0.27's printer leaves constants out of the text and writes references
instead.  Its rules, found by experiment on apache-tvm 0.27.0.post1 and
checked against its printouts of 16 models (benchmarks/models/make_corpus.py
checks them again on every run):

* a Relax constant prints inline as ``R.const(...)`` when it is 0-d and its
  dtype is bool, int8-64 or float16-64; every other one prints as
  ``metadata["ir.GenericConst"][i]``;
* indices count from 0 per kind in the order the printer first meets each
  object (the same object keeps its index);
* the printer meets functions in the order it prints them and expressions in
  text order: each binding's value, call arguments left to right, tuple fields
  in order, an ``If``'s condition and branches;
* ``R.func_attr({"params": [...]})`` (``keep_params_as_input=True``) refers
  to the weights with the separate kind ``ffi.Tensor``, in function order.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

CONST_KIND = "ir.GenericConst"
PARAMS_KIND = "ffi.Tensor"
INLINE_DTYPES = frozenset({"bool", "int8", "int16", "int32", "int64", "float16", "float32", "float64"})


def function_order(text: str) -> list[str]:
    """The module's functions in the order TVM's printout `text` has them."""
    return re.findall(r"^    def (\w+)\(", text, re.M)


def _is_inline(const: Any) -> bool:
    value = const.value
    return len(value.shape) == 0 and str(value.dtype) in INLINE_DTYPES


def _children(expr: Any, relax: Any) -> list:
    if isinstance(expr, relax.Call):
        return list(expr.args)
    if isinstance(expr, relax.Tuple):
        return list(expr.fields)
    if isinstance(expr, relax.TupleGetItem):
        return [expr.tuple_value]
    if isinstance(expr, relax.If):
        return [expr.cond, expr.true_branch, expr.false_branch]
    if isinstance(expr, relax.SeqExpr):
        return [b.value for block in expr.blocks for b in block.bindings] + [expr.body]
    if isinstance(expr, relax.Function):
        return [expr.body]
    return []


def constant_objects(mod: Any, text: str) -> list:
    """The constant objects of `mod`, printed as `text`, in ``metadata["ir.GenericConst"]`` index order."""
    import tvm
    from tvm import relax

    found: list = []
    stack = [mod[name] for name in reversed(function_order(text)) if isinstance(mod[name], relax.Function)]
    while stack:
        expr = stack.pop()
        if isinstance(expr, tvm.ir.GenericConst):  # the class of every Relax constant in 0.27
            if not _is_inline(expr) and not any(expr.same_as(seen) for seen in found):
                found.append(expr)
            continue
        if isinstance(expr, tvm.ir.BaseFunc) and not isinstance(expr, relax.Function):
            continue
        stack.extend(reversed(_children(expr, relax)))
    return found


def constant_arrays(mod: Any, text: str) -> dict[str, np.ndarray]:
    """``{"ir.GenericConst:<i>": value}`` for the constants of `mod`, printed as `text`."""
    return {f"{CONST_KIND}:{i}": c.value.numpy() for i, c in enumerate(constant_objects(mod, text))}


def param_tensors(mod: Any, text: str) -> list[Any]:
    """The weights ``R.func_attr({"params": [...]})`` refers to, in ``ffi.Tensor`` index order."""
    out: list[Any] = []
    for name in function_order(text):
        attrs = getattr(mod[name], "attrs", None)
        if attrs is not None and "params" in attrs:
            out.extend(attrs["params"])
    return out
