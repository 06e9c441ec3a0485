"""Where an impure op (``R.print``, ``R.assert_op``: `Op.pure` is False) may be called, as TVM checks it.

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


def check_purity(functions: Mapping[str, Function]) -> None:
    """`ParseError` at the first impure call in a dataflow block or in a pure function."""
    for name, fn in functions.items():
        allowed = fn.attrs.get("pure", True) is False or bool(fn.attrs.get("relax.force_pure", False))
        for binding, in_dataflow in _bindings(fn.body, False):
            call = binding.value
            if not (isinstance(call, Call) and isinstance(call.op, Op) and not call.op.pure):
                continue
            if in_dataflow:
                raise ParseError(
                    f"R.{call.op.name} is impure: it cannot be called inside a dataflow block (call it after "
                    "the 'with R.dataflow():' block)",
                    binding.span,
                )
            if not allowed:
                raise ParseError(
                    f"R.{call.op.name} is impure: function {name!r} must be declared @R.function(pure=False) "
                    "to call it (or carry the attribute relax.force_pure)",
                    binding.span,
                )


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
