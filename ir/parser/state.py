"""The state of parsing one function body, shared by its statement parser, expression parser and fast path.

`FunctionState` holds the function's module context and signature, the
readers of its static parts, the names in scope, the dataflow block being
read and the fast path's caches; its methods are what all three parsers do
to the scope: make the variable of a binding (`new_var`, `bind`) and refuse
a name that cannot be bound (`reserved_error`).  Scoping follows TVMScript:
a binding creates a new variable (re-binding a name shadows it), variables
bound in a ``with R.dataflow()`` block are `DataflowVar` unless it is the
block's last binding of a name its ``R.output(...)`` lists.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from ..errors import ParseError
from ..expr import Binding, DataflowVar, Expr, Var
from ..normalize import merge_annotation
from ..span import Span, name_span
from ..struct_info import StructInfo
from ..vdevice import VDevice
from .annotations import StaticReader
from .caches import FastCaches
from .context import NAMESPACES, ModuleContext, Signature
from .fastlines import FastRun
from .skeleton import FastBlock
from .source import Source

# What a parsed assignment contributes: name, name span, annotation (or None),
# annotation span, value, statement span, and its (line, col) position.
Parts = tuple[str, Span, "StructInfo | None", "Span | None", Expr, Span, tuple[int, int]]


class Dataflow:
    """The dataflow block being parsed: its R.output names and each name's last binding position."""

    __slots__ = ("outputs", "last_pos")

    def __init__(self, outputs: dict[str, ast.AST | Span], last_pos: dict[str, tuple[int, int]]) -> None:
        self.outputs = outputs
        self.last_pos = last_pos


@dataclass(slots=True, eq=False)
class FunctionState:
    """What the parsers of one function body share (see the module docstring); `of` makes the initial one."""

    module: ModuleContext
    sig: Signature
    src: Source
    static: StaticReader
    # The module's vdevice list (the same object: hints append to it in a module that declares none).
    vdevices: list[VDevice]
    # The fast path's caches: the module's while the function declares no symbolic dim (see `caches`).
    caches: FastCaches
    # The skeleton's runs of fast lines and collapsed dataflow blocks, by first line.
    runs: dict[int, FastRun]
    blocks: dict[int, FastBlock]
    # The function's attributes (``R.func_attr``, the decorator's).
    attrs: dict[str, Any]
    # Names that denote the module (``cls = Module`` adds one).
    aliases: set[str]
    # Names a binding cannot take: the namespaces, the module's aliases, the declared symbolic dims.
    reserved: set[str]
    # Variables in scope by name; an if branch parses in a copy.
    scope: dict[str, Var] = field(default_factory=dict)
    # Names hidden at the end of a dataflow block -> the block's line, for a precise error.
    dead: dict[str, int] = field(default_factory=dict)
    # The dataflow block being read, if any.
    df: Dataflow | None = None

    @classmethod
    def of(cls, module: ModuleContext, sig: Signature) -> FunctionState:
        """The state before the first statement of `sig`'s body (its parameters not yet in scope)."""
        skeleton = module.skeleton
        aliases = {module.class_name}
        return cls(
            module=module,
            sig=sig,
            src=module.src,
            static=StaticReader(module.src, module.vdevices, sig.symbols),
            vdevices=module.vdevices,
            caches=module.fast_caches if not sig.symbols else FastCaches(),
            runs=skeleton.runs if skeleton is not None else {},
            blocks=skeleton.blocks if skeleton is not None else {},
            attrs=dict(sig.attrs),
            aliases=aliases,
            reserved=set(NAMESPACES) | aliases | sig.symbols,
        )

    def new_var(self, name: str, sinfo: StructInfo, span: Span | int, lineno: int, col: int) -> Var:
        """The variable a binding of `name` at (`lineno`, 0-based `col`) creates; it enters the scope.

        `span` is the name's, or its line's packed position (`ir.span`).
        """
        if name in self.reserved:
            raise self.reserved_error(name, span if isinstance(span, Span) else name_span(span, name))
        df = self.df
        if df is None:
            var = Var(name, sinfo, span)
        elif name in df.outputs and df.last_pos.get(name) == (lineno, col):
            var = Var(name, sinfo, span)  # the block's last binding of an R.output name
        else:
            var = DataflowVar(name, sinfo, span)
        self.scope[name] = var
        return var

    def bind(self, parts: Parts) -> Binding:
        """The binding of a parsed assignment, its variable in scope (its annotation merged with its value's)."""
        name, name_span_, ann, ann_span, value, stmt_span, pos = parts
        if name in self.reserved:
            raise self.reserved_error(name, name_span_)
        sinfo = value.struct_info
        if ann is not None and ann is not sinfo and ann != sinfo:
            sinfo = merge_annotation(ann, sinfo, ann_span, repr(name))
        # Interned, so that the fast lines that use this variable find their inference cached.
        var = self.new_var(name, self.module.intern(sinfo), name_span_, *pos)
        return Binding(var, value, ann, stmt_span)

    def reserved_error(self, name: str, span: Span) -> ParseError:
        """The error for binding `name`, which is in `reserved`."""
        if name in NAMESPACES:
            why = "it names a TVMScript namespace"
        elif name in self.sig.symbols:
            why = "it is declared as a symbolic dim"
        else:
            why = "it names the module"
        return self.src.error(f"cannot bind {name!r}: {why}", span)


def branch_tail(src: Source, parts: Parts | None, where: ast.stmt | Span) -> Parts:
    """The `Parts` of the assignment that ends an if branch; an error at `where` when it is a declaration."""
    if parts is None:
        raise src.error("an if branch must end by assigning its result to a name", where)
    return parts
