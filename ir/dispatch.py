"""The dispatch table shared by `ExprVisitor` and `ExprMutator`: node type -> handler.

A walker's table maps each leaf type to its leaf hook (``visit_var``...) and
each container type to the walker's own expander (``_call``, ``_if``...),
which pushes the node's children and a post-order step.  The table is built
once per walker instance, so dispatch is one dict lookup on ``type(node)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .expr import (
    Binding,
    BindingBlock,
    Call,
    Constant,
    DataflowBlock,
    DataflowVar,
    Function,
    GlobalVar,
    If,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    StringImm,
    Tuple,
    TupleGetItem,
    Var,
)

# Node types without children: their hook is called directly, never pushed.
LEAF_TYPES = frozenset({Var, DataflowVar, GlobalVar, Constant, ShapeExpr, PrimValue, StringImm})


class DispatchTable(dict):
    """type -> handler; an unlisted type uses the handler of its nearest listed base.

    `leaves` holds the types whose handler is a leaf hook (no children), and
    grows with the subclasses of leaf types met during a walk.
    """

    def __init__(self, handlers: dict[type, Callable]) -> None:
        super().__init__(handlers)
        self.leaves: set[type] = set(LEAF_TYPES)

    def __missing__(self, t: type) -> Callable:
        for base in t.__mro__[1:]:
            if base in self:
                handler = self[base]
                self[t] = handler
                if base in self.leaves:
                    self.leaves.add(t)
                return handler
        raise TypeError(f"cannot walk a {t.__name__}: it is not an IR node")


def overrides(obj: object, base: type, name: str) -> bool:
    """Whether `obj`'s class replaces `base`'s method `name` (so calls to it can be skipped otherwise)."""
    return getattr(type(obj), name) is not getattr(base, name)


def all_leaves(children: tuple, leaves: set[type]) -> bool:
    for child in children:
        if type(child) not in leaves:
            return False
    return True


def build_table(walker: Any, base: type) -> DispatchTable:
    """The table of `walker` (an instance of a subclass of `base`)."""
    dataflow_var = walker.visit_dataflow_var
    if not overrides(walker, base, "visit_dataflow_var"):
        dataflow_var = walker.visit_var  # the default only forwards there: skip the extra call
    return DispatchTable(
        {
            Var: walker.visit_var,
            DataflowVar: dataflow_var,
            GlobalVar: walker.visit_global_var,
            Constant: walker.visit_constant,
            ShapeExpr: walker.visit_shape_expr,
            PrimValue: walker.visit_prim_value,
            StringImm: walker.visit_string_imm,
            Call: walker._call,
            Tuple: walker._tuple,
            TupleGetItem: walker._get_item,
            If: walker._if,
            SeqExpr: walker._seq,
            Function: walker._function,
            BindingBlock: walker._block,
            DataflowBlock: walker._block,
            Binding: walker._binding,
        }
    )
