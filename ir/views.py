"""Which op results are views of an operand: the one rule the runtime and the schedule's memory model share.

An op registered with ``view_of=k`` (`register_op`) may make its result a view
of operand ``k``: no new memory, the operand's buffer kept alive while the
view is.  Whether a call's result is a view is decided statically, from the
program alone, by the op's ``view_rule`` and whether the operand is
*contiguous* (C order, as NumPy's ``flags.c_contiguous`` and torch's
``is_contiguous()`` say, axes of length 1 ignored):

* every runtime input, weight, constant, copy to another device and result of
  an op that is not a view is contiguous (the runtime makes it so:
  `Device.adopt_result` copies a kernel's result that is not a whole
  contiguous buffer of its own);
* a view's layout is what its rule says: `keeps_layout` (``expand_dims``,
  ``squeeze``, ``match_cast``: a view of any operand, as contiguous as it),
  `needs_contiguous` (``reshape``, ``flatten``: a view of a contiguous
  operand, else a new tensor), `permute_layout` (``permute_dims``: a view,
  contiguous when the axes of length other than 1 keep their order; a
  symbolic or unknown length counts as other than 1).

A rule returns True (a contiguous view), False (a strided view) or None (a
new tensor).  The runtime's compiler (`runtime.compile`) and the schedule's
task graph (`placement.schedule.graph`) both call `view_result`; the runtime
copies where the rule says "new tensor" and the kernel returned a view, so
the bytes the schedule predicts are the bytes the run holds.  A declared view
op's kernels must return a view of a contiguous operand (NumPy's and torch's
do for the ops above; `tests/ir/ops/test_views.py` checks every one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .struct_info import StructInfo, TensorStructInfo

if TYPE_CHECKING:
    from .op import Op

ViewRule = Callable[[Sequence[StructInfo], dict[str, Any], bool], "bool | None"]


def keeps_layout(args: Sequence[StructInfo], attrs: dict[str, Any], contiguous: bool) -> bool | None:
    """A view of any operand, contiguous when the operand is."""
    return contiguous


def needs_contiguous(args: Sequence[StructInfo], attrs: dict[str, Any], contiguous: bool) -> bool | None:
    """A contiguous view of a contiguous operand; a new tensor of a strided one."""
    return True if contiguous else None


def permute_layout(args: Sequence[StructInfo], attrs: dict[str, Any], contiguous: bool) -> bool | None:
    """A view; contiguous when the operand is and its axes of length other than 1 keep their order."""
    if not contiguous:
        return False
    x = args[0]
    if not isinstance(x, TensorStructInfo) or x.shape is None:
        return False
    n = len(x.shape)
    axes = attrs.get("axes")
    perm = list(reversed(range(n))) if axes is None else [int(a) % n for a in axes]
    kept = [a for a in perm if x.shape[a] != 1]
    return kept == sorted(kept)


def view_result(op: Op, args: Sequence[StructInfo], attrs: dict[str, Any], contiguous: bool) -> bool | None:
    """Whether a call of `op` makes a view of operand ``op.view_of`` (module docstring): True (contiguous),
    False (strided), None (a new tensor; always for an op not declared a view).  `contiguous`: whether that
    operand is."""
    if op.view_of is None or op.view_rule is None:
        return None
    return op.view_rule(args, attrs, contiguous)
