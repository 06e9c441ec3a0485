"""Checks of TVM's ``metadata["<kind>"][<index>]`` numbering against a printed text.

The numbering itself (which object each reference stands for, the printer's
rules) is vdplace's: `vdplace.tvm.metadata`, which `vdplace.tvm.from_tvm`
uses.  `walk_constants` wraps its walk; `check_text` verifies a walk against
the printed text on every corpus run, so a rule that stops holding in a new
TVM fails loudly here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import tvm

from vdplace.tvm.metadata import CONST_KIND, constant_objects

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


def walk_constants(mod: tvm.IRModule, text: str) -> ConstantTable:
    """The metadata constants of `mod`, printed as `text`, in the order the printer meets them."""
    return ConstantTable(CONST_KIND, constant_objects(mod, text))


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
