"""Expressions of the Relax-like IR.

Plain classes with ``__slots__``: a module of 300k bindings must be cheap to
build, walk and rebuild.  Nodes are immutable by convention: passes build new
nodes instead of assigning to fields.  `Var` compares by identity (two
variables with one name are different variables); everything else is compared
structurally by `ir.structural_equal`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, final

import numpy as np

from .metadata import MetadataRef
from .span import Span, name_span, statement_span, value_span
from .struct_info import FuncStructInfo, ObjectStructInfo, StructInfo

if TYPE_CHECKING:
    from .op import Op

_OBJECT = ObjectStructInfo()
# The attrs of a call or function given none: one empty dict that they all share (never mutated, like
# every node's fields), not one each.
_NO_ATTRS: dict[str, Any] = {}
# A block's list of at most this many bindings is stored as a tuple (no spare capacity); a longer one
# is kept as given rather than copied.
_SHORT_BLOCK = 4096


class Expr:
    """Base class: every expression has a struct info and an optional source span.

    Each subclass has its own `span`: a slot, or for `Var` and `Call` a
    property over a slot that may hold a packed position (`ir.span`), which
    the parser's fast path gives them instead of a `Span` object each.
    """

    __slots__ = ("struct_info",)

    if TYPE_CHECKING:

        @property
        def span(self) -> Span | None:
            """Where the expression was written, if known (a slot or a property of each subclass)."""

    def __init__(self, struct_info: StructInfo | None) -> None:
        self.struct_info = _OBJECT if struct_info is None else struct_info


class Var(Expr):
    """A variable bound by a parameter or a binding; identity is the variable.

    `span` may be given as a packed position (an int from `ir.span`, which the
    parser makes): it is kept as it is and read as the span of this variable's
    name there.
    """

    __slots__ = ("name", "_span")

    def __init__(self, name: str, struct_info: StructInfo | None = None, span: Span | int | None = None) -> None:
        # Expr.__init__ inlined: millions of variables are built when a big module is parsed.
        self.struct_info = _OBJECT if struct_info is None else struct_info
        self._span = span
        self.name = name

    @property
    def span(self) -> Span | None:
        span = self._span
        return name_span(span, self.name) if isinstance(span, int) else span

    def rebuilt(self, struct_info: StructInfo) -> Var:
        """A new variable of this one's type, name and span (kept as stored) with another struct info."""
        return type(self)(self.name, struct_info, self._span)

    def __reduce__(self) -> tuple[Any, ...]:
        # A packed position means something in this process only: a copy or a pickle carries the `Span`.
        return type(self), (self.name, self.struct_info, self.span)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"


class DataflowVar(Var):
    """A variable local to a dataflow block (not visible after ``R.output``)."""

    __slots__ = ()


class GlobalVar(Expr):
    """The name of a module-level function, as a callee."""

    __slots__ = ("span", "name")
    span: Span | None

    def __init__(self, name: str, span: Span | None = None) -> None:
        super().__init__(None)
        self.span = span
        self.name = name

    def __repr__(self) -> str:
        return f"GlobalVar({self.name})"


class Constant(Expr):
    """A tensor constant: its value, or a reference to a value kept outside the text.

    `data` is the array, or None when the value is not known: TVM prints
    weights as ``metadata["kind"][i]`` references (`ref`) and leaves them out
    of the text.  A constant with a `ref` prints as that reference whether or
    not its value is known; its struct info comes from the value when there is
    one, and is otherwise a tensor of unknown shape and dtype.
    """

    __slots__ = ("span", "data", "ref")
    span: Span | None

    def __init__(
        self,
        data: np.ndarray | None,
        struct_info: StructInfo,
        span: Span | None = None,
        ref: MetadataRef | None = None,
    ) -> None:
        super().__init__(struct_info)
        self.span = span
        if data is None and ref is None:
            raise ValueError("a constant needs a value or a metadata reference")
        self.data = data
        self.ref = ref

    def with_struct_info(self, struct_info: StructInfo) -> Constant:
        """The same constant (value, reference and span) with another struct info."""
        if struct_info is self.struct_info:
            return self
        return Constant(self.data, struct_info, self.span, self.ref)


class Call(Expr):
    """``op(args, **attrs)`` where op is a registered `Op` or a module `GlobalVar`.

    `attrs` may be shared between calls (the parser gives the calls of one
    op written with the same attribute arguments one dict): like every node,
    never mutate it.  `span` may be given as a packed position (an int from
    `ir.span`, which the parser makes): it is kept as it is and read as the
    span of the value there.
    """

    __slots__ = ("op", "args", "attrs", "_span")

    def __init__(
        self,
        op: Op | GlobalVar,
        args: Sequence[Expr],
        attrs: Mapping[str, Any] | None = None,
        struct_info: StructInfo | None = None,
        span: Span | int | None = None,
    ) -> None:
        # Expr.__init__ inlined: millions of calls are built when a big module is parsed.
        self.struct_info = _OBJECT if struct_info is None else struct_info
        self._span = span
        self.op = op
        self.args = tuple(args)
        self.attrs: Mapping[str, Any] = _NO_ATTRS if attrs is None else attrs

    @property
    def span(self) -> Span | None:
        span = self._span
        return value_span(span) if isinstance(span, int) else span

    def rebuilt(self, args: Sequence[Expr], struct_info: StructInfo) -> Call:
        """This call of the same op and attrs with other arguments and struct info, its span kept as stored."""
        return Call(self.op, args, self.attrs, struct_info, self._span)

    def __reduce__(self) -> tuple[Any, ...]:
        # A packed position means something in this process only: a copy or a pickle carries the `Span`.
        return type(self), (self.op, self.args, self.attrs, self.struct_info, self.span)

    def __repr__(self) -> str:
        name = self.op.name
        return f"Call({name}, {list(self.args)})"


class Tuple(Expr):
    __slots__ = ("span", "fields")
    span: Span | None

    def __init__(self, fields: Sequence[Expr], struct_info: StructInfo | None = None, span: Span | None = None) -> None:
        super().__init__(struct_info)
        self.span = span
        self.fields = tuple(fields)


class TupleGetItem(Expr):
    __slots__ = ("span", "tuple_value", "index")
    span: Span | None

    def __init__(
        self, tuple_value: Expr, index: int, struct_info: StructInfo | None = None, span: Span | None = None
    ) -> None:
        super().__init__(struct_info)
        self.span = span
        self.tuple_value = tuple_value
        self.index = index


class ShapeExpr(Expr):
    """A shape value such as ``R.shape([2, n])``; carries no device."""

    __slots__ = ("span", "values")
    span: Span | None

    def __init__(self, values: Sequence[int | str], struct_info: StructInfo | None = None, span: Span | None = None):
        super().__init__(struct_info)
        self.span = span
        self.values = tuple(values)


class PrimValue(Expr):
    """A scalar such as ``R.prim_value(3)``; carries no device."""

    __slots__ = ("span", "value", "dtype")
    span: Span | None

    def __init__(self, value: int | float | bool, dtype: str, struct_info: StructInfo | None = None, span=None):
        super().__init__(struct_info)
        self.span = span
        self.value = value
        self.dtype = dtype


class StringImm(Expr):
    __slots__ = ("span", "value")
    span: Span | None

    def __init__(self, value: str, span: Span | None = None) -> None:
        super().__init__(None)
        self.span = span
        self.value = value


# Pass as a binding's span: the span runs from its variable's to its value's end, made when first read.
# (Ellipsis, because copying and pickling keep it the same object.)
JOINED_SPAN: Any = ...


@final
class Binding:
    """``var = value``; `annotation` is the struct info the user wrote, if any.

    Placement reads device pins from `annotation` only: a vdevice the
    normalizer inferred forward is a consequence, not a constraint.

    `span` is the statement's span.  Given as `JOINED_SPAN` it is the span
    from the start of ``var.span`` to the end of ``value.span`` (None if
    either is None), built the first time it is read: a parsed module of a
    million bindings then holds a million fewer spans until something asks.
    (Only right where the value was written in the statement: not for
    ``y = x``, whose value is a variable bound elsewhere.)
    """

    __slots__ = ("var", "value", "annotation", "_span")

    def __init__(self, var: Var, value: Expr, annotation: StructInfo | None = None, span: Span | None = None) -> None:
        self.var = var
        self.value = value
        self.annotation = annotation
        self._span = span

    def rebuilt(self, var: Var, value: Expr, annotation: StructInfo | None) -> Binding:
        """This statement with new parts, its span kept as stored.

        When `var` and `value` carry the spans of this binding's variable and
        value (a rewrite that keeps positions), a span not built yet
        (`JOINED_SPAN`) stays unbuilt in the new binding too.
        """
        return Binding(var, value, annotation, self._span)

    @property
    def span(self) -> Span | None:
        span = self._span
        if span is JOINED_SPAN:
            packed = self.var._span
            value_packed: object = getattr(self.value, "_span", None)
            if type(packed) is int and value_packed is packed:  # one line's shared position
                self._span = span = statement_span(packed)
                return span
            start, end = self.var.span, self.value.span
            if start is not None and end is not None:
                span = Span(start.file, start.line, start.col, end.end_line, end.end_col)
            else:
                span = None
            self._span = span
        return span


class BindingBlock:
    """Bindings in order: `bindings` is a tuple, or the list given for a block longer than `_SHORT_BLOCK`."""

    __slots__ = ("bindings", "span")
    is_dataflow = False

    def __init__(self, bindings: Sequence[Binding], span: Span | None = None) -> None:
        if type(bindings) is list:
            self.bindings: Sequence[Binding] = tuple(bindings) if len(bindings) <= _SHORT_BLOCK else bindings
        else:
            self.bindings = bindings if type(bindings) is tuple else tuple(bindings)
        self.span = span


class DataflowBlock(BindingBlock):
    """``with R.dataflow(): ... R.output(...)``."""

    __slots__ = ()
    is_dataflow = True


class SeqExpr(Expr):
    """Blocks of bindings followed by a result expression (a function body or If branch)."""

    __slots__ = ("span", "blocks", "body")
    span: Span | None

    def __init__(
        self, blocks: Sequence[BindingBlock], body: Expr, struct_info: StructInfo | None = None, span=None
    ) -> None:
        super().__init__(body.struct_info if struct_info is None else struct_info)
        self.span = span
        self.blocks = tuple(blocks)
        self.body = body


class If(Expr):
    __slots__ = ("span", "cond", "true_branch", "false_branch")
    span: Span | None

    def __init__(
        self,
        cond: Expr,
        true_branch: SeqExpr,
        false_branch: SeqExpr,
        struct_info: StructInfo | None = None,
        span: Span | None = None,
    ) -> None:
        super().__init__(struct_info)
        self.span = span
        self.cond = cond
        self.true_branch = true_branch
        self.false_branch = false_branch


@final
class Function(Expr):
    """A module function: parameters, a body, and the return struct info it declares.

    Its `struct_info` (a `FuncStructInfo` of the parameters' struct infos and
    the return's) is built when read: a module of many small functions keeps
    none.
    """

    __slots__ = ("span", "params", "body", "ret_struct_info", "attrs", "ret_span")
    span: Span | None

    def __init__(
        self,
        params: Sequence[Var],
        body: SeqExpr,
        ret_struct_info: StructInfo,
        attrs: Mapping[str, Any] | None = None,
        span: Span | None = None,
        ret_span: Span | None = None,
    ) -> None:
        self.span = span
        self.params = tuple(params)
        self.body = body
        self.ret_struct_info = ret_struct_info
        self.attrs: Mapping[str, Any] = attrs if attrs else _NO_ATTRS
        self.ret_span = ret_span

    @property
    def struct_info(self) -> FuncStructInfo:  # type: ignore[override]
        return FuncStructInfo([p.struct_info for p in self.params], self.ret_struct_info)

    def __reduce__(self) -> tuple[Any, ...]:
        return Function, (self.params, self.body, self.ret_struct_info, self.attrs, self.span, self.ret_span)

    @property
    def is_private(self) -> bool:
        return bool(self.attrs.get("private", False))
