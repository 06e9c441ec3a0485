"""Where an impure call may be made, as TVM checks it: an op whose `Op.pure` is False (``R.print``,
``R.assert_op``), or a packed call run for its effect (``R.call_packed("relax.run.print", ...)``,
``ops.packed.EFFECTS``; reading a shape from a tensor is pure here).

TVM's well-formedness check refuses an impure call inside a dataflow block,
and one in a function that is pure (the default: ``@R.function`` without
``pure=False``) unless the function carries the ``relax.force_pure``
attribute.  The parser runs this check after reading the functions, only
when it met an impure op: a module without one pays nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..errors import ParseError
from ..expr import Binding, Call, DataflowBlock, Function, If, SeqExpr
from ..op import Op
from ..ops.packed import EFFECTS


def check_purity(functions: Mapping[str, Function]) -> None:
    """`ParseError` at the first impure call in a dataflow block or in a pure function."""
    for name, fn in functions.items():
        allowed = fn.attrs.get("pure", True) is False or bool(fn.attrs.get("relax.force_pure", False))
        for binding, in_dataflow in _bindings(fn.body, False):
            what = _impure(binding.value)
            if what is None:
                continue
            if in_dataflow:
                raise ParseError(
                    f"{what} is impure: it cannot be called inside a dataflow block (call it after "
                    "the 'with R.dataflow():' block)",
                    binding.span,
                )
            if not allowed:
                raise ParseError(
                    f"{what} is impure: function {name!r} must be declared @R.function(pure=False) "
                    "to call it (or carry the attribute relax.force_pure)",
                    binding.span,
                )


def _impure(value: object) -> str | None:
    """How an impure call is written (``R.print``, ``R.call_packed("relax.run.print")``); None for another value."""
    if not (isinstance(value, Call) and isinstance(value.op, Op)):
        return None
    if not value.op.pure:
        return f"R.{value.op.name}"
    if value.op.name == "call_packed" and value.attrs.get("func") in EFFECTS:
        return f'R.call_packed("{value.attrs["func"]}")'
    return None


def _bindings(seq: SeqExpr, in_dataflow: bool) -> Iterator[tuple[Binding, bool]]:
    """Every binding of `seq` and of the If branches in it, with whether it is in a dataflow block."""
    for block in seq.blocks:
        dataflow = in_dataflow or isinstance(block, DataflowBlock)
        for binding in block.bindings:
            yield binding, dataflow
            value = binding.value
            if isinstance(value, If):
                yield from _bindings(value.true_branch, dataflow)
                yield from _bindings(value.false_branch, dataflow)
