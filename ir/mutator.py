"""`ExprMutator`: the rebuilding walker; see `ir.visitor` for the order of visits and an example."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .dispatch import all_leaves, build_table, overrides
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

Node = Expr | BindingBlock | Binding


class ExprMutator:
    """A rebuilding walk: each ``visit_*`` hook receives the original node and its new children.

    Contract:

    * a hook gets the original node plus its children already mutated, and
      returns the node to put in its place; the children it gets are the
      original objects (for sequences, the very same tuple) when nothing
      below changed, so ``args is call.args`` tests "unchanged" in O(1);
    * the default hooks return the original node when no child changed and
      otherwise a copy with the new children and the original's struct info,
      attributes and span: no struct info is re-inferred (a hook that changes
      types builds its nodes with the struct info it wants);
    * ``visit_var_def`` returns the variable that replaces a definition
      (default: the same); ``visit_binding(binding, var, value)`` gets it and
      the new value and returns a `Binding` or a sequence of bindings to splice
      in (an empty one drops the binding).  When the variable of the returned
      binding (the last one of a sequence) is not ``binding.var``, every later
      use of ``binding.var`` reaches ``visit_var`` already mapped through
      `var_map`; a parameter replaced by ``visit_var_def`` is mapped the same way;
    * `visit_var` (a use) returns ``var_map.get(var, var)`` by default;
    * ``visit_seq_expr`` returns a `SeqExpr`: a function's body and an `If`'s
      branches are one, so ``visit_function`` and ``visit_if`` get theirs as
      `SeqExpr`;
    * the input is never modified: nodes are built new, and an unchanged
      module, function or node is returned as the same object.

    Entry points: `mutate_module` for a module, `mutate` for any node.
    """

    def __init__(self) -> None:
        self.global_name: str | None = None
        self.var_map: dict[Var, Expr] = {}
        self._stack: list[Any] = []
        self._values: list[Any] = []
        self._table = build_table(self, ExprMutator)
        self._enter_binding = self.enter_binding if overrides(self, ExprMutator, "enter_binding") else None
        self._var_def = self.visit_var_def if overrides(self, ExprMutator, "visit_var_def") else None

    # -- entry points -----------------------------------------------------------
    def mutate_module(self, mod: IRModule) -> IRModule:
        """`mod` with every function mutated; `mod` itself when no function changed."""
        functions: dict[str, Function] = {}
        changed = False
        try:
            for name, func in mod.functions.items():
                self.global_name = name
                new = self.mutate(func)
                functions[name] = new
                changed = changed or new is not func
        finally:
            self.global_name = None
        return mod.replace(functions=functions) if changed else mod

    def mutate(self, node: Node) -> Any:
        """The replacement of `node` (itself when nothing changed); the hooks run in the documented order."""
        outer_stack, outer_values = self._stack, self._values
        stack: list[Any] = [node]
        values: list[Any] = []
        self._stack, self._values = stack, values
        table = self._table
        pop = stack.pop
        push_value = values.append
        try:
            while stack:
                item = pop()
                if type(item) is tuple:  # a pending post-order step: (function, argument)
                    item[0](item[1])
                else:
                    handler = table[type(item)]
                    if type(item) in table.leaves:
                        push_value(handler(item))
                    else:
                        handler(item)
        finally:
            self._stack, self._values = outer_stack, outer_values
        return values[-1]

    # -- hooks: containers ----------------------------------------------------------
    def enter_function(self, func: Function) -> None: ...

    def visit_function(self, func: Function, params: tuple[Var, ...], body: SeqExpr) -> Function:
        if params is func.params and body is func.body:
            return func
        return Function(params, body, func.ret_struct_info, func.attrs, func.span, func.ret_span)

    def enter_seq_expr(self, seq: SeqExpr) -> None: ...

    def visit_seq_expr(self, seq: SeqExpr, blocks: tuple[BindingBlock, ...], body: Expr) -> SeqExpr:
        if blocks is seq.blocks and body is seq.body:
            return seq
        return SeqExpr(blocks, body, seq.struct_info, seq.span)

    def enter_block(self, block: BindingBlock) -> None: ...

    def visit_block(self, block: BindingBlock, bindings: tuple[Binding, ...]) -> BindingBlock:
        if bindings is block.bindings:
            return block
        return type(block)(bindings, block.span)

    def enter_binding(self, binding: Binding) -> None: ...

    def visit_binding(self, binding: Binding, var: Var, value: Expr) -> Binding | Sequence[Binding]:
        if var is binding.var and value is binding.value:
            return binding
        return Binding(var, value, binding.annotation, binding.span)

    def visit_var_def(self, var: Var) -> Var:
        """The variable to define in place of `var` (a parameter or a binding's variable)."""
        return var

    def enter_if(self, node: If) -> None: ...

    def visit_if(self, node: If, cond: Expr, true_branch: SeqExpr, false_branch: SeqExpr) -> Expr:
        if cond is node.cond and true_branch is node.true_branch and false_branch is node.false_branch:
            return node
        return If(cond, true_branch, false_branch, node.struct_info, node.span)

    # -- hooks: expressions ----------------------------------------------------------
    def visit_call(self, call: Call, args: tuple[Expr, ...]) -> Expr:
        if args is call.args:
            return call
        return call.rebuilt(args, call.struct_info)

    def visit_tuple(self, tup: Tuple, fields: tuple[Expr, ...]) -> Expr:
        if fields is tup.fields:
            return tup
        return Tuple(fields, tup.struct_info, tup.span)

    def visit_tuple_get_item(self, item: TupleGetItem, tuple_value: Expr) -> Expr:
        if tuple_value is item.tuple_value:
            return item
        return TupleGetItem(tuple_value, item.index, item.struct_info, item.span)

    def visit_var(self, var: Var) -> Expr:
        """A use of a variable: its replacement in `var_map`, else itself."""
        return self.var_map.get(var, var)

    def visit_dataflow_var(self, var: DataflowVar) -> Expr:
        """A use of a dataflow variable; defaults to `visit_var`."""
        return self.visit_var(var)

    def visit_global_var(self, gvar: GlobalVar) -> Expr:
        return gvar

    def visit_constant(self, const: Constant) -> Expr:
        return const

    def visit_shape_expr(self, shape: ShapeExpr) -> Expr:
        return shape

    def visit_prim_value(self, value: PrimValue) -> Expr:
        return value

    def visit_string_imm(self, string: StringImm) -> Expr:
        return string

    # -- the machinery ------------------------------------------------------------
    def _take(self, originals: tuple) -> tuple:
        """Pop the new versions of `originals` off the value stack; `originals` itself if all are unchanged."""
        n = len(originals)
        if not n:
            return originals
        values = self._values
        new = values[-n:]
        del values[-n:]
        for a, b in zip(new, originals, strict=True):
            if a is not b:
                return tuple(new)
        return originals

    def _call(self, call: Call) -> None:
        self._stack.append((self._call_done, call))
        self._stack.extend(reversed(call.args))

    def _call_done(self, call: Call) -> None:
        self._values.append(self.visit_call(call, self._take(call.args)))

    def _tuple(self, tup: Tuple) -> None:
        self._stack.append((self._tuple_done, tup))
        self._stack.extend(reversed(tup.fields))

    def _tuple_done(self, tup: Tuple) -> None:
        self._values.append(self.visit_tuple(tup, self._take(tup.fields)))

    def _get_item(self, item: TupleGetItem) -> None:
        self._stack.append((self._get_item_done, item))
        self._stack.append(item.tuple_value)

    def _get_item_done(self, item: TupleGetItem) -> None:
        self._values.append(self.visit_tuple_get_item(item, self._values.pop()))

    def _if(self, node: If) -> None:
        self.enter_if(node)
        stack = self._stack
        stack.append((self._if_done, node))
        stack.append(node.false_branch)
        stack.append(node.true_branch)
        stack.append(node.cond)

    def _if_done(self, node: If) -> None:
        cond, true_branch, false_branch = self._take((node.cond, node.true_branch, node.false_branch))
        self._values.append(self.visit_if(node, cond, true_branch, false_branch))

    def _seq(self, seq: SeqExpr) -> None:
        self.enter_seq_expr(seq)
        stack = self._stack
        stack.append((self._seq_done, seq))
        stack.append(seq.body)
        stack.extend(reversed(seq.blocks))

    def _seq_done(self, seq: SeqExpr) -> None:
        body = self._values.pop()
        self._values.append(self.visit_seq_expr(seq, self._take(seq.blocks), body))

    def _function(self, func: Function) -> None:
        self.enter_function(func)
        params = func.params
        var_def = self._var_def
        if var_def is not None:
            new = tuple(var_def(p) for p in params)
            for old, var in zip(params, new, strict=True):
                if var is not old:
                    self.var_map[old] = var
                    params = new
        self._stack.append((self._function_done, (func, params)))
        self._stack.append(func.body)

    def _function_done(self, state: tuple[Function, tuple[Var, ...]]) -> None:
        func, params = state
        self._values.append(self.visit_function(func, params, self._values.pop()))

    def _block(self, block: BindingBlock) -> None:
        self.enter_block(block)
        self._bindings([block, 0, [], False])

    def _binding(self, binding: Binding) -> None:
        """A binding walked on its own (`mutate(binding)`): its result may be a sequence."""
        if self._enter_binding is not None:
            self._enter_binding(binding)
        self._stack.append((self._binding_alone, binding))
        self._stack.append(binding.value)

    def _binding_alone(self, binding: Binding) -> None:
        out: list[Binding] = []
        result = self.visit_binding(binding, self._define(binding.var), self._values.pop())
        self._record(binding, result, out)
        self._values.append(result)

    def _define(self, var: Var) -> Var:
        return var if self._var_def is None else self._var_def(var)

    def _record(self, binding: Binding, result: Binding | Sequence[Binding], out: list[Binding]) -> bool:
        """Append `result` to `out` and map the old variable; True when it is not `binding` itself."""
        if result is binding:
            out.append(binding)
            return False
        if isinstance(result, Binding):
            out.append(result)
            last: Binding | None = result
        else:
            out.extend(result)
            last = result[-1] if result else None
        if last is not None and last.var is not binding.var:
            self.var_map[binding.var] = last.var
        return True

    def _binding_in_block(self, state: list) -> None:
        """Finish a binding whose value went through the stack, then resume its block."""
        binding = state[0].bindings[state[1] - 1]
        result = self.visit_binding(binding, self._define(binding.var), self._values.pop())
        if self._record(binding, result, state[2]):
            state[3] = True
        self._bindings(state)

    def _bindings(self, state: list) -> None:
        """Mutate a block's bindings from index ``state[1]``; ``state`` is [block, index, out, changed].

        A binding whose value is a leaf or a call of leaves (the usual case) is
        handled in place; any other suspends the loop until its value is done.
        At the end of the block ``visit_block`` runs and its result goes on the
        value stack.  (One loop with the hooks in locals: this is the hot path.)
        """
        block, start, out, changed = state
        bindings = block.bindings
        table = self._table
        leaves = table.leaves
        enter = self._enter_binding
        var_def = self._var_def
        visit_binding = self.visit_binding
        visit_call = self.visit_call
        append = out.append
        for i in range(start, len(bindings)):
            binding = bindings[i]
            value = binding.value
            t = type(value)
            if t in leaves:
                if enter is not None:
                    enter(binding)
                value = table[t](value)
            elif t is Call and all_leaves(value.args, leaves):
                if enter is not None:
                    enter(binding)
                args = value.args
                new_args = [table[type(arg)](arg) for arg in args]
                for a, b in zip(new_args, args, strict=True):
                    if a is not b:
                        args = tuple(new_args)
                        break
                value = visit_call(value, args)
            else:
                state[1], state[3] = i + 1, changed
                self._stack.append((self._binding_in_block, state))
                if enter is not None:
                    enter(binding)
                self._stack.append(value)
                return
            result = visit_binding(binding, binding.var if var_def is None else var_def(binding.var), value)
            if result is binding:
                append(binding)
            else:
                self._record(binding, result, out)
                changed = True
        self._values.append(self.visit_block(block, tuple(out) if changed else bindings))
