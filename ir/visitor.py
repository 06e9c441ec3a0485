"""Iterative walkers over the IR: `ExprVisitor` (read-only) and `ExprMutator` (rebuilds).

Subclass one, override the hooks you need, and call an entry point::

    from collections import Counter

    from vdplace.ir.expr import Call, Expr
    from vdplace.ir.op import get_op
    from vdplace.ir.visitor import ExprMutator, ExprVisitor

    class CountOps(ExprVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.counts: Counter[str] = Counter()

        def visit_call(self, call: Call) -> None:
            self.counts[call.op.name] += 1

    counter = CountOps()
    counter.visit_module(mod)


    ADD, SUBTRACT = get_op("add"), get_op("subtract")

    class AddToSubtract(ExprMutator):
        def visit_call(self, call: Call, args: tuple[Expr, ...]) -> Expr:
            if call.op is ADD:
                return Call(SUBTRACT, args, call.attrs, call.struct_info, call.span)
            return super().visit_call(call, args)  # rebuilds only when an argument changed

    new_mod = AddToSubtract().mutate_module(mod)  # `mod` itself when nothing changed

Order of visits (the same for both classes; depth first, in program order):

* module: its functions in ``mod.functions`` order; `global_name` holds the
  function's global name while it is walked (None outside `visit_module` /
  `mutate_module`);
* `Function`: ``enter_function``, ``visit_var_def`` for each parameter, the
  body, ``visit_function``;
* `SeqExpr`: ``enter_seq_expr``, each block, the result expression, ``visit_seq_expr``;
* `BindingBlock` / `DataflowBlock` (one hook; see ``block.is_dataflow``):
  ``enter_block``, each binding, ``visit_block``;
* `Binding`: ``enter_binding``, the value, ``visit_var_def(binding.var)``, ``visit_binding``;
* `If`: ``enter_if``, the condition, the true branch, the false branch, ``visit_if``;
* `Call`: its arguments left to right, ``visit_call``.  The callee (an `Op`
  or a `GlobalVar`) is an attribute of the call, not a child: it is not visited;
* `Tuple`: its fields, ``visit_tuple``; `TupleGetItem`: its tuple, ``visit_tuple_get_item``;
* leaves: ``visit_var`` and ``visit_dataflow_var`` (a *use* of a variable;
  ``visit_dataflow_var`` defaults to ``visit_var``), ``visit_global_var``,
  ``visit_constant``, ``visit_shape_expr``, ``visit_prim_value``, ``visit_string_imm``.

``enter_*`` hooks run before anything below the node (their result is
ignored); ``visit_*`` hooks run after everything below it (post order).  In
`ExprVisitor` a ``visit_*`` hook gets the node and returns nothing.
`ExprMutator` (in `ir.mutator`, importable from here) calls the same hooks in
the same order, but each ``visit_*`` hook also gets the node's children
already mutated and returns the node's replacement; its docstring states that
contract.  A variable's definition (a parameter
or a binding's variable) reaches ``visit_var_def``, never ``visit_var``.  A
struct info is data, not a child: it is not walked.

The walk keeps its own stack: no Python recursion at any depth, so a
million-binding function or an expression nested 100k deep walks fine.  Hooks
must not recurse into children themselves (the walker does that); a hook may
start a separate walk with `walk` / `mutate` on another node.

Dispatch goes through a table from node type to handler built once per
instance; a subclass of a node type uses its nearest base's hook.  A block's
bindings are iterated in a loop, and a binding whose value is a leaf or a
call of leaves is handled without touching the stack, so walking the
usual normalized binding costs a few hook calls and nothing more.
"""

from __future__ import annotations

from typing import Any

from .dispatch import DispatchTable, build_table, overrides
from .expr import (
    Binding,
    BindingBlock,
    Call,
    Constant,
    DataflowVar,
    Expr,
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
from .module import IRModule
from .mutator import ExprMutator

Node = Expr | BindingBlock | Binding


class ExprVisitor:
    """Read-only walk: override ``enter_*`` / ``visit_*`` hooks; their return values are ignored.

    Entry points: `visit_module` for a module, `walk` for any node (an
    expression, a `Function`, a block or a binding).
    """

    def __init__(self) -> None:
        self.global_name: str | None = None
        self._stack: list[Any] = []
        self._hooks()

    def _hooks(self) -> DispatchTable:
        """Take the table of hooks by node type (returned), and the hooks a walk calls per binding (None when
        not overridden)."""
        table = build_table(self, ExprVisitor)
        self._table: DispatchTable | None = table
        self._enter_binding = self.enter_binding if overrides(self, ExprVisitor, "enter_binding") else None
        self._var_def = self.visit_var_def if overrides(self, ExprVisitor, "visit_var_def") else None
        return table

    def release(self) -> None:
        """Drop the walker's references to its own hooks; a later `walk` takes them again.

        They are bound methods of the walker, a reference cycle: while the
        cyclic collector is paused (`ir.collector`), a walker dropped without
        `release` stays alive, with all it references, until a collection.
        """
        self._table = self._enter_binding = self._var_def = None

    # -- entry points -----------------------------------------------------------
    def visit_module(self, mod: IRModule) -> None:
        """Walk every function of `mod`, in order, with `global_name` set to its name."""
        try:
            for name, func in mod.functions.items():
                self.global_name = name
                self.walk(func)
        finally:
            self.global_name = None

    def walk(self, node: Node) -> None:
        """Walk `node` and everything below it, calling the hooks in the documented order."""
        table = self._table if self._table is not None else self._hooks()
        outer = self._stack
        stack: list[Any] = [node]
        self._stack = stack
        pop = stack.pop
        try:
            while stack:
                item = pop()
                if type(item) is tuple:  # a pending post-order step: (function, argument)
                    item[0](item[1])
                else:
                    table[type(item)](item)
        finally:
            self._stack = outer

    # -- hooks: containers, before and after their children ------------------------
    def enter_function(self, func: Function) -> None: ...

    def visit_function(self, func: Function) -> None: ...

    def enter_seq_expr(self, seq: SeqExpr) -> None: ...

    def visit_seq_expr(self, seq: SeqExpr) -> None: ...

    def enter_block(self, block: BindingBlock) -> None: ...

    def visit_block(self, block: BindingBlock) -> None: ...

    def enter_binding(self, binding: Binding) -> None: ...

    def visit_binding(self, binding: Binding) -> None: ...

    def visit_var_def(self, var: Var) -> None:
        """A parameter or a binding's variable, at the point it is defined."""

    def enter_if(self, node: If) -> None: ...

    def visit_if(self, node: If) -> None: ...

    # -- hooks: expressions, after their children ------------------------------------
    def visit_call(self, call: Call) -> None: ...

    def visit_tuple(self, tup: Tuple) -> None: ...

    def visit_tuple_get_item(self, item: TupleGetItem) -> None: ...

    def visit_var(self, var: Var) -> None:
        """A use of a variable (definitions go to `visit_var_def`)."""

    def visit_dataflow_var(self, var: DataflowVar) -> None:
        """A use of a dataflow variable; defaults to `visit_var`."""
        self.visit_var(var)

    def visit_global_var(self, gvar: GlobalVar) -> None: ...

    def visit_constant(self, const: Constant) -> None: ...

    def visit_shape_expr(self, shape: ShapeExpr) -> None: ...

    def visit_prim_value(self, value: PrimValue) -> None: ...

    def visit_string_imm(self, string: StringImm) -> None: ...

    # -- the machinery ------------------------------------------------------------
    def _call(self, call: Call) -> None:
        self._stack.append((self.visit_call, call))
        self._stack.extend(reversed(call.args))

    def _tuple(self, tup: Tuple) -> None:
        self._stack.append((self.visit_tuple, tup))
        self._stack.extend(reversed(tup.fields))

    def _get_item(self, item: TupleGetItem) -> None:
        self._stack.append((self.visit_tuple_get_item, item))
        self._stack.append(item.tuple_value)

    def _if(self, node: If) -> None:
        self.enter_if(node)
        stack = self._stack
        stack.append((self.visit_if, node))
        stack.append(node.false_branch)
        stack.append(node.true_branch)
        stack.append(node.cond)

    def _seq(self, seq: SeqExpr) -> None:
        self.enter_seq_expr(seq)
        stack = self._stack
        stack.append((self.visit_seq_expr, seq))
        stack.append(seq.body)
        stack.extend(reversed(seq.blocks))

    def _function(self, func: Function) -> None:
        self.enter_function(func)
        self._stack.append((self.visit_function, func))
        self._stack.append(func.body)
        var_def = self._var_def
        if var_def is not None:
            for param in func.params:
                var_def(param)

    def _block(self, block: BindingBlock) -> None:
        self.enter_block(block)
        self._bindings((block, 0))

    def _binding(self, binding: Binding) -> None:
        if self._enter_binding is not None:
            self._enter_binding(binding)
        self._stack.append((self._binding_done, binding))
        self._stack.append(binding.value)

    def _binding_done(self, binding: Binding) -> None:
        if self._var_def is not None:
            self._var_def(binding.var)
        self.visit_binding(binding)

    def _bindings(self, state: tuple[BindingBlock, int]) -> None:
        """Visit a block's bindings from index ``state[1]`` on, in a loop.

        A binding whose value is a leaf or a call of leaves (the usual case)
        is visited in place; any other suspends the loop: the rest of the
        block is pushed, then the binding, so the stack resumes here after it.
        (One loop with the hooks in locals: this is the hot path.)
        """
        block, start = state
        bindings = block.bindings
        table = self._table
        assert table is not None, "only reached inside walk, which takes the table"
        leaves = table.leaves
        enter = self._enter_binding
        var_def = self._var_def
        visit_binding = self.visit_binding
        visit_call = self.visit_call
        for i in range(start, len(bindings)):
            binding = bindings[i]
            value = binding.value
            if type(value) is Call:
                for arg in value.args:
                    if type(arg) not in leaves:
                        break
                else:  # a call of leaves
                    if enter is not None:
                        enter(binding)
                    for arg in value.args:
                        table[type(arg)](arg)
                    visit_call(value)
                    if var_def is not None:
                        var_def(binding.var)
                    visit_binding(binding)
                    continue
            elif (t := type(value)) in leaves:
                if enter is not None:
                    enter(binding)
                table[t](value)
                if var_def is not None:
                    var_def(binding.var)
                visit_binding(binding)
                continue
            self._stack.append((self._bindings, (block, i + 1)))
            self._binding(binding)
            return
        self.visit_block(block)


__all__ = ["ExprMutator", "ExprVisitor"]
