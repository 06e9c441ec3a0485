"""Copying a function with fresh nodes, and finding its call sites, in one walk order.

Placement keys its sites by variable identity and by ``id()`` of nested
calls and constants (`placement.extract.extraction.Extraction`), so two
functions of one module must share no `Var`, `Call` or `Constant` object:
`clone_function` rebuilds every variable and every expression node, and
`retarget_function` (for the one copy that keeps the original's nodes)
rebuilds only the calls whose callee changes.  The walks below are all
`ExprMutator` walks, so the k-th call site `call_sites` finds is the k-th
call the other two rewrite.
"""

from __future__ import annotations

from collections.abc import Callable

from vdplace.ir.expr import (
    Binding,
    BindingBlock,
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    If,
    SeqExpr,
    Tuple,
    TupleGetItem,
    Var,
)
from vdplace.ir.mutator import ExprMutator
from vdplace.ir.span import Span

# callee(k, name): the global name the k-th call site (calling `name`) of the function is to call
Callee = Callable[[int, str], str]


class CallSite:
    """The k-th call of a module function inside `caller`: the callee's name and where the call is."""

    __slots__ = ("caller", "index", "callee", "span")

    def __init__(self, caller: str, index: int, callee: str, span: Span | None) -> None:
        self.caller = caller
        self.index = index
        self.callee = callee
        self.span = span

    def __repr__(self) -> str:
        return f"CallSite({self.caller}#{self.index} -> {self.callee})"


def call_sites(name: str, func: Function) -> list[CallSite]:
    """Every call of a module function in `func` (named `name`), in the order `clone_function` meets them."""
    finder = _CallFinder(name)
    finder.mutate(func)
    return finder.sites


def clone_function(func: Function, callee: Callee) -> Function:
    """A copy of `func` sharing no variable or expression node with it; call k goes to ``callee(k, name)``."""
    return _Cloner(callee).mutate(func)


def retarget_function(func: Function, callee: Callee) -> Function:
    """`func` with call k going to ``callee(k, name)``: only the calls that change and what holds them are new.

    For the one copy of a function that keeps its original nodes (they belong
    to the input module, not to another function of the module being built).
    """
    return _Retargeter(callee).mutate(func)


class _CallFinder(ExprMutator):
    """Records call sites; changes nothing (every hook returns the node it got)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.sites: list[CallSite] = []
        self.binding_span: Span | None = None

    def enter_binding(self, binding: Binding) -> None:
        self.binding_span = binding.span

    def visit_call(self, call: Call, args: tuple[Expr, ...]) -> Expr:
        if type(call.op) is GlobalVar:
            span = call.span or self.binding_span
            self.sites.append(CallSite(self.name, len(self.sites), call.op.name, span))
        return call


class _Retargeter(ExprMutator):
    """Renames the callee of each call of a module function as `callee` says; keeps every node it can."""

    def __init__(self, callee: Callee) -> None:
        super().__init__()
        self.callee = callee
        self.count = 0

    def renamed(self, op: GlobalVar) -> GlobalVar:
        """The callee of the next call of a module function (`op` itself when its name stays)."""
        name = self.callee(self.count, op.name)
        self.count += 1
        return op if name == op.name else GlobalVar(name, op.span)

    def visit_call(self, call: Call, args: tuple[Expr, ...]) -> Expr:
        op = call.op
        if type(op) is GlobalVar:
            new = self.renamed(op)
            if new is not op:
                return Call(new, args, call.attrs, call.struct_info, call.span)
        return super().visit_call(call, args)


class _Cloner(_Retargeter):
    """Defines a new variable for every old one and rebuilds every node that can own a placement site."""

    def visit_var_def(self, var: Var) -> Var:
        return type(var)(var.name, var.struct_info, var.span)

    def visit_function(self, func: Function, params: tuple[Var, ...], body: SeqExpr) -> Function:
        return Function(params, body, func.ret_struct_info, func.attrs, func.span, func.ret_span)

    def visit_seq_expr(self, seq: SeqExpr, blocks: tuple[BindingBlock, ...], body: Expr) -> SeqExpr:
        return SeqExpr(blocks, body, seq.struct_info, seq.span)

    def visit_if(self, node: If, cond: Expr, true_branch: SeqExpr, false_branch: SeqExpr) -> Expr:
        return If(cond, true_branch, false_branch, node.struct_info, node.span)

    def visit_call(self, call: Call, args: tuple[Expr, ...]) -> Expr:
        op = call.op
        if type(op) is GlobalVar:
            op = GlobalVar(self.renamed(op).name, op.span)  # a fresh node even when the name stays
        return Call(op, args, call.attrs, call.struct_info, call.span)

    def visit_tuple(self, tup: Tuple, fields: tuple[Expr, ...]) -> Expr:
        return Tuple(fields, tup.struct_info, tup.span)

    def visit_tuple_get_item(self, item: TupleGetItem, tuple_value: Expr) -> Expr:
        return TupleGetItem(tuple_value, item.index, item.struct_info, item.span)

    def visit_constant(self, const: Constant) -> Expr:
        return Constant(const.data, const.struct_info, const.span, const.ref)
