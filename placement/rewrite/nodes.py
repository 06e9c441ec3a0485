"""Build the nodes realization makes per binding, a `Call` and a `Binding`, without their constructors' extra work.

Realization rebuilds every binding of a module, so these two nodes are made
a million times for a million bindings:

* `new_call` sets a call's fields to what ``Call(op, args, attrs,
  struct_info, span)`` would, for what realization passes (a struct info
  that is never None, the arguments already a tuple), without normalizing
  them again;
* `rebind` makes a `Binding` of new parts in place of an old one, keeping the
  old binding's span *as stored*: a parsed binding's span is joined from its
  variable's and value's spans on first read (``ir.expr.JOINED_SPAN``), so
  when the new variable and value carry the old ones' spans (as the calls
  realization rebuilds do) the span stays unbuilt rather than being built
  for every binding.

Both do so only while the node classes hold exactly the fields set here
(`LAYOUT_KNOWN`); should a class gain or lose a field, they fall back to the
constructors (`rebind` then reads the old span), so a node is never built
half-initialized.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vdplace.ir.expr import Binding, Call, Expr, GlobalVar, Var
from vdplace.ir.op import Op
from vdplace.ir.span import Span
from vdplace.ir.struct_info import StructInfo

_new = object.__new__


def _fields(cls: type) -> set[str]:
    """Every slot of `cls` and its bases."""
    return {name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ())}


LAYOUT_KNOWN = (
    _fields(Call) == {"struct_info", "span", "op", "args", "attrs"}
    and _fields(Binding) == {"var", "value", "annotation", "_span"}
    and not hasattr(_new(Call), "__dict__")
    and not hasattr(_new(Binding), "__dict__")
)

if LAYOUT_KNOWN:

    def new_call(
        op: Op | GlobalVar, args: tuple[Expr, ...], attrs: Mapping[str, Any], struct_info: StructInfo, span: Span | None
    ) -> Call:
        """``Call(op, args, attrs, struct_info, span)``."""
        call = _new(Call)
        call.struct_info = struct_info
        call.span = span
        call.op = op
        call.args = args
        call.attrs = attrs
        return call

    def rebind(old: Binding, var: Var, value: Expr, annotation: StructInfo | None) -> Binding:
        """``Binding(var, value, annotation, old.span)``; `var` and `value` must carry the spans of `old`'s."""
        binding = _new(Binding)
        binding.var = var
        binding.value = value
        binding.annotation = annotation
        binding._span = old._span  # noqa: SLF001 - the span as stored, possibly not built yet
        return binding

else:  # pragma: no cover - only when ir.expr changes its node layout

    def new_call(
        op: Op | GlobalVar, args: tuple[Expr, ...], attrs: Mapping[str, Any], struct_info: StructInfo, span: Span | None
    ) -> Call:
        """``Call(op, args, attrs, struct_info, span)``."""
        return Call(op, args, attrs, struct_info, span)

    def rebind(old: Binding, var: Var, value: Expr, annotation: StructInfo | None) -> Binding:
        """``Binding(var, value, annotation, old.span)``."""
        return Binding(var, value, annotation, old.span)
