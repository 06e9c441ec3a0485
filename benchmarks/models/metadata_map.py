"""Which object each ``metadata["<kind>"][<index>]`` of a printed Relax module stands for.

TVM 0.27's printer leaves large constants out of the text.  What it does
instead, found by experiment on apache-tvm 0.27.0.post1 (its printer is C++ and
``show_meta=True`` crashes, so nothing can be read back from TVM itself):

* a ``tvm.ir.GenericConst`` (the class of every Relax constant) prints inline as
  ``R.const(<value>, "<dtype>")`` when it is 0-d and its dtype is ``bool``,
  ``int8/16/32/64`` or ``float16/32/64``; every other constant (any tensor with
  a dimension, and 0-d ``uint*`` / ``bfloat16``) prints as
  ``metadata["ir.GenericConst"][i]``;
* indices count up from 0 per kind, in the order the printer first meets each
  object; an object met again (the same object, not an equal one) reuses its
  index;
* the printer meets functions in the order it prints them (which
  `function_order` reads from the text), and expressions in text order:
  parameters, then
  ``R.func_attr`` (whose ``"params"`` list, under ``keep_params_as_input=True``,
  uses the separate kind ``ffi.Tensor``), then each binding's value, arguments
  left to right, tuple fields in order, the branches of an ``If`` in order.

`walk_constants` reproduces that order for the constants; `check_text` verifies
a walk against the printed text, so a rule that stops holding fails loudly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import tvm
from tvm import relax

CONST_KIND = "ir.GenericConst"
INLINE_DTYPES = {"bool", "int8", "int16", "int32", "int64", "float16", "float32", "float64"}
REF = re.compile(r'metadata\["([^"]+)"\]\[(\d+)\]')
BOUND = re.compile(r"^\s*\w+: R\.Tensor\(\(([^)]*)\).*\) = " + REF.pattern + r"\s*$")


@dataclass
class ConstantTable:
    """The metadata constants of one module, in index order (index i is ``objects[i]``)."""

    kind: str
    objects: list

    def arrays(self) -> dict[str, np.ndarray]:
        """``{"<kind>:<index>": value}`` for every constant."""
        return {f"{self.kind}:{i}": c.value.numpy() for i, c in enumerate(self.objects)}


def is_inline(const) -> bool:
    """Whether the printer writes `const` as ``R.const(...)`` rather than a metadata reference."""
    value = const.value
    return len(value.shape) == 0 and str(value.dtype) in INLINE_DTYPES


def _children(expr) -> list:
    """The sub-expressions of `expr` the printer visits, in its order."""
    if isinstance(expr, relax.Call):
        return list(expr.args)
    if isinstance(expr, relax.Tuple):
        return list(expr.fields)
    if isinstance(expr, relax.TupleGetItem):
        return [expr.tuple_value]
    if isinstance(expr, relax.If):
        return [expr.cond, expr.true_branch, expr.false_branch]
    if isinstance(expr, relax.SeqExpr):
        out = [b.value for block in expr.blocks for b in block.bindings]
        return out + [expr.body]
    if isinstance(expr, relax.Function):
        return [expr.body]
    return []


def function_order(text: str) -> list[str]:
    """The module's functions in the order the printed `text` has them.

    Not their names' order, nor the order they were added in: TVM's printer
    picks it, so the text is where to read it from.
    """
    return re.findall(r"^    def (\w+)\(", text, re.M)


def walk_constants(mod: tvm.IRModule, text: str) -> ConstantTable:
    """The metadata constants of `mod`, printed as `text`, in the order the printer meets them."""
    found: list = []
    stack = [mod[name] for name in reversed(function_order(text))]
    while stack:
        expr = stack.pop()
        if isinstance(expr, tvm.ir.GenericConst):
            if not is_inline(expr) and not any(expr.same_as(seen) for seen in found):
                found.append(expr)
            continue
        stack.extend(reversed(_children(expr)))
    return ConstantTable(CONST_KIND, found)


def _body_lines(text: str) -> list[str]:
    """The printed lines that hold expressions: ``R.func_attr`` lines name no constants."""
    return [line for line in text.splitlines() if not line.lstrip().startswith("R.func_attr(")]


def check_text(text: str, table: ConstantTable) -> None:
    """Raise `AssertionError` unless `text`'s metadata references agree with `table`.

    Checked: every reference outside ``R.func_attr`` is of `table.kind`; indices
    first appear as 0, 1, 2, ... and there are as many as `table` has objects;
    a binding whose whole value is a reference has that constant's shape.
    """
    order: list[int] = []
    for line in _body_lines(text):
        for kind, index in REF.findall(line):
            assert kind == table.kind, f"unexpected metadata kind {kind!r} in: {line.strip()}"
            if int(index) not in order:
                order.append(int(index))
        bound = BOUND.match(line)
        if bound:
            dims, index = bound.group(1), int(bound.group(3))
            shape = tuple(int(d) for d in dims.replace(" ", "").split(",") if d)
            actual = tuple(table.objects[index].value.shape)
            assert shape == actual, f"{line.strip()}: constant {index} has shape {actual}"
    assert order == list(range(len(order))), f"indices first appear as {order[:20]}..."
    assert len(order) == len(table.objects), f"text has {len(order)} constants, walk found {len(table.objects)}"


def main_param_names(text: str) -> list[str]:
    """The names of ``main``'s parameters exactly as printed."""
    match = re.search(r"^\s*def main\((.*)\)( ->.*)?:\s*$", text, re.M)
    assert match, "no `def main(` line in the text"
    return re.findall(r"(?:^|, )(\w+): R\.", match.group(1))
