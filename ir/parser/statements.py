"""Parsing one ``@R.function`` body: its statements and bindings (`StatementParser`).

Scoping follows TVMScript (see `state`): a binding creates a new variable,
variables bound in a ``with R.dataflow()`` block are `DataflowVar` unless
listed in its ``R.output(...)`` and disappear after the block, and names
bound inside an ``if`` branch are local to that branch.

Three parsers share the function's `FunctionState`: this one reads the
statements; values go to `ExprParser` (`expressions`), expression statements
(a docstring, ``R.func_attr``, a bare void call such as ``R.assert_op(...)``)
to `standalone`, and the runs of whole simple lines found by `fastlines` to
`FastPath` (`fastpath`), which builds exactly what `assign_parts` and
`FunctionState.bind` would build from a line's AST, or hands the line back
to `assign_parts`.  They refer to each other one way only, making no
reference cycle: all four are freed as soon as the function is read.
"""

from __future__ import annotations

import ast
from functools import partial
from typing import Literal, overload

from ..errors import InferenceError
from ..expr import Binding, BindingBlock, DataflowBlock, DataflowVar, Expr, Function, If, SeqExpr, Var
from ..normalize import join, merge_annotation
from ..span import Span
from ..struct_info import ObjectStructInfo, PrimStructInfo, TensorStructInfo
from .caches import FastCaches
from .context import NAMESPACES, SYMBOL_DECLS, ModuleContext, Signature
from .expressions import ExprParser
from .fastfunctions import FastFunction
from .fastpath import FastPath
from .literals import describe, dotted
from .skeleton import FastBlock
from .source import Source
from .standalone import expr_statement
from .state import Dataflow, FunctionState, Parts, branch_tail

_STATEMENTS = {
    ast.For: "a for loop",
    ast.AsyncFor: "a for loop",
    ast.While: "a while loop",
    ast.AugAssign: "an augmented assignment (such as +=)",
    ast.FunctionDef: "a nested function definition",
    ast.AsyncFunctionDef: "a nested function definition",
    ast.ClassDef: "a class definition",
    ast.Import: "an import",
    ast.ImportFrom: "an import",
    ast.Try: "a try statement",
    ast.Raise: "a raise statement",
    ast.Delete: "a del statement",
    ast.Global: "a global statement",
    ast.Nonlocal: "a nonlocal statement",
    ast.Assert: "an assert statement",
    ast.Match: "a match statement",
    ast.Break: "a break statement",
    ast.Continue: "a continue statement",
    ast.Pass: "a pass statement",
    ast.AsyncWith: "an async with statement",
}


# What a function body's statement is replaced with once read (see `StatementParser._statements`).
_READ = ast.Pass()


def statement_words(stmt: ast.stmt | FastFunction) -> str:
    if isinstance(stmt, FastFunction):
        return _STATEMENTS[ast.FunctionDef]
    return _STATEMENTS.get(type(stmt), f"a {type(stmt).__name__} statement")


class StatementParser:
    """Parses the body of one function of the module (see the module docstring): `run` once."""

    __slots__ = ("state", "src", "module", "exprs", "fast")

    def __init__(self, module: ModuleContext, sig: Signature) -> None:
        self.state = state = FunctionState.of(module, sig)
        self.src = state.src
        self.module = module
        self.exprs = ExprParser(state)
        self.fast = FastPath(state, self.exprs, partial(assign_parts, state, self.exprs))

    # -- the function -----------------------------------------------------------
    def run(self) -> Function:
        state = self.state
        sig = state.sig
        params = []
        scope, intern = state.scope, self.module.intern
        last = interned = None  # a def line of 400k parameters repeats one annotation
        for name, sinfo, span in sig.params:
            if sinfo is not last:
                last, interned = sinfo, intern(sinfo)
            var = scope[name] = Var(name, interned, span)
            params.append(var)
        node = sig.node
        stmts = node.statements() if isinstance(node, FastFunction) else node.body
        blocks, body = self._statements(stmts, "function", node)
        ret = sig.ret
        if ret is None:
            ret = body.struct_info
        else:
            merge_annotation(ret, body.struct_info, sig.ret_span, f"the return value of {sig.name!r}")
        seq = SeqExpr(blocks, body, span=self.src.span(stmts[-1]))
        return Function(params, seq, ret, state.attrs, self.src.span(node), sig.ret_span)

    @overload
    def _statements(
        self, stmts: list[ast.stmt], mode: Literal["function"], owner: ast.stmt | FastFunction
    ) -> tuple[list[BindingBlock], Expr]: ...
    @overload
    def _statements(
        self, stmts: list[ast.stmt], mode: Literal["branch"], owner: ast.stmt | FastFunction
    ) -> tuple[list[BindingBlock], Parts]: ...
    def _statements(
        self, stmts: list[ast.stmt], mode: Literal["function", "branch"], owner: ast.stmt | FastFunction
    ) -> tuple[list[BindingBlock], Expr | Parts]:
        """Blocks of a function body (mode "function") or an if branch (mode "branch").

        Returns the blocks and the tail: the returned expression of a function,
        or the `Parts` of the assignment that ends a branch.

        In a function body each statement but the last is dropped from
        `stmts` once read: the AST of a big module's statements outweighs
        the IR built from them, and nothing reads it again.
        """
        release = mode == "function"
        blocks: list[BindingBlock] = []
        current: list[Binding] = []
        tail: Expr | Parts | None = None
        last = len(stmts) - 1
        module = self.module
        for i, stmt in enumerate(stmts):
            module.where = stmt
            t = type(stmt)
            ends_branch = mode == "branch" and i == last
            if t is ast.Pass and stmt.lineno in self.state.runs:
                tail = self.fast.run(module.take_run(stmt.lineno), current, ends_branch)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                parts = assign_parts(self.state, self.exprs, stmt)
                if ends_branch:
                    tail = branch_tail(self.src, parts, stmt)
                elif parts is not None:
                    current.append(self.state.bind(parts))
            elif isinstance(stmt, ast.With) or (t is ast.Pass and stmt.lineno in self.state.blocks):
                if mode != "function":
                    raise self.src.error(
                        "'with R.dataflow()' is not allowed inside an if branch", self._statement_where(stmt)
                    )
                if current:
                    blocks.append(BindingBlock(current))
                    current = []
                if isinstance(stmt, ast.With):
                    blocks.append(self._dataflow(stmt))
                else:
                    blocks.append(self._fast_dataflow(self.state.blocks[stmt.lineno]))
            elif isinstance(stmt, ast.If):
                parts = self._if(stmt)
                binding = self.state.bind(parts)
                current.append(binding)
                if ends_branch:  # a nested if ends the branch: the variable it binds is the branch's result
                    name, name_span, _, _, _, stmt_span, pos = parts
                    tail = (name, name_span, None, None, binding.var, stmt_span, pos)
            elif isinstance(stmt, ast.Return):
                if mode != "function":
                    raise self.src.error(
                        "return is not allowed inside an if branch: end each branch by assigning the result", stmt
                    )
                if i != last:
                    raise self.src.error("return must be the last statement of the function", stmts[i + 1])
                tail = self._return(stmt)
            elif isinstance(stmt, ast.Expr):
                bare = expr_statement(self.state, self.exprs, stmt, i == 0 and mode == "function")
                if bare is not None:
                    current.append(bare)
            else:
                unfolded = self._unfolded(stmt)
                raise self.src.error(f"{statement_words(unfolded)} is not supported in a function body", unfolded)
            if ends_branch and tail is None:
                raise self.src.error("an if branch must end by assigning its result to a name, or by an if", stmt)
            if release and i < last:
                stmts[i] = _READ
        if current:
            blocks.append(BindingBlock(current))
        if tail is None:
            end = stmts[-1] if stmts else owner
            raise self.src.error(f"function {self.state.sig.name!r} does not end with a return statement", end)
        return blocks, tail

    # -- statements -------------------------------------------------------------
    def _return(self, stmt: ast.Return) -> Expr:
        if stmt.value is None:
            raise self.src.error("return needs a value", stmt)
        return self.exprs.expr(stmt.value, 0)

    def _dataflow(self, stmt: ast.With) -> DataflowBlock:
        item = stmt.items[0]
        head = item.context_expr
        if (
            len(stmt.items) != 1
            or item.optional_vars is not None
            or not isinstance(head, ast.Call)
            or dotted(head.func) != "R.dataflow"
            or head.args
            or head.keywords
        ):
            raise self.src.error("the only 'with' block is 'with R.dataflow():'", stmt)
        if self.state.df is not None:
            raise self.src.error("dataflow blocks cannot be nested", stmt)
        body, outputs = self._dataflow_outputs(stmt.body)
        last_pos = self._last_positions(body, outputs)
        self.state.df = Dataflow(outputs, last_pos)
        bindings: list[Binding] = []
        module = self.module
        try:
            for s in body:
                module.where = s
                t = type(s)
                if t is ast.Pass and s.lineno in self.state.runs:
                    self.fast.run(module.take_run(s.lineno), bindings, False)
                elif isinstance(s, (ast.Assign, ast.AnnAssign)):
                    parts = assign_parts(self.state, self.exprs, s)
                    if parts is not None:
                        bindings.append(self.state.bind(parts))
                elif _call_of(s, "R.output") is not None:
                    raise self.src.error("R.output(...) must be the last statement of the dataflow block", s)
                elif t is ast.If:
                    raise self.src.error("if is not allowed inside a dataflow block", s)
                elif t is ast.With or (t is ast.Pass and s.lineno in self.state.blocks):
                    raise self.src.error("dataflow blocks cannot be nested", self._statement_where(s))
                elif t is ast.Return:
                    raise self.src.error("return is not allowed inside a dataflow block: return after it", s)
                elif isinstance(s, ast.Expr):
                    bare = expr_statement(self.state, self.exprs, s, False)
                    if bare is not None:
                        bindings.append(bare)
                else:
                    unfolded = self._unfolded(s)
                    raise self.src.error(f"{statement_words(unfolded)} is not supported in a dataflow block", unfolded)
        finally:
            self.state.df = None
        return self._close_dataflow(bindings, outputs, stmt.lineno, self.src.span(stmt))

    def _fast_dataflow(self, block: FastBlock) -> DataflowBlock:
        """A dataflow block the skeleton collapsed (see `fastlines.BLOCK`), read as `_dataflow` reads its AST."""
        outputs: dict[str, ast.AST | Span] = {}
        for name, col in block.outputs():
            where = self.src.span_at(block.out_line, col, col + len(name))
            if name in outputs:
                raise self.src.error(f"{name!r} is listed twice in R.output", where)
            outputs[name] = where
        run = block.run
        last_pos = {}
        for name in outputs:
            pos = run.last_binding(name)
            if pos is not None:
                last_pos[name] = pos
        self.state.df = Dataflow(outputs, last_pos)
        bindings: list[Binding] = []
        try:
            self.fast.run(self.module.take_run(run.first), bindings, False)
        finally:
            self.state.df = None
        return self._close_dataflow(bindings, outputs, block.lineno, self._block_span(block))

    def _close_dataflow(
        self, bindings: list[Binding], outputs: dict[str, ast.AST | Span], lineno: int, span: Span
    ) -> DataflowBlock:
        """The block of `bindings` (the ``with`` at line `lineno`), once every output is bound; its other names die."""
        bound_out = {b.var.name for b in bindings if type(b.var) is Var}
        for name, where in outputs.items():
            if name not in bound_out:
                raise self.src.error(f"R.output({name}): {name!r} is not bound in this dataflow block", where)
        scope = self.state.scope
        for b in bindings:
            name = b.var.name
            if type(scope.get(name)) is DataflowVar:
                del scope[name]
                self.state.dead[name] = lineno
        return DataflowBlock(bindings, span)

    def _block_span(self, block: FastBlock) -> Span:
        """The span of a collapsed block's ``with`` statement: from ``with`` to the end of its ``R.output(...)``."""
        return Span(self.src.filename, block.lineno, block.col + 1, block.out_line, block.end_col + 1)

    def _unfolded(self, stmt: ast.stmt) -> ast.stmt | FastFunction:
        """`stmt`, or for the ``pass`` of a group of collapsed functions, the first function it stands for."""
        functions = self.module.skeleton.functions if self.module.skeleton is not None else {}
        if type(stmt) is ast.Pass and stmt.lineno in functions:
            return functions[stmt.lineno][0]
        return stmt

    def _statement_where(self, stmt: ast.stmt) -> ast.stmt | Span:
        """Where to report `stmt`: itself, or for the ``pass`` of a collapsed dataflow block, the block."""
        block = self.state.blocks.get(stmt.lineno) if type(stmt) is ast.Pass else None
        return stmt if block is None else self._block_span(block)

    def _dataflow_outputs(self, body: list[ast.stmt]) -> tuple[list[ast.stmt], dict[str, ast.AST | Span]]:
        """Split off a dataflow block's final ``R.output(a, b)``: the statements before it and its names."""
        outputs: dict[str, ast.AST | Span] = {}
        call = _call_of(body[-1], "R.output")
        if call is None:
            return body, outputs
        if call.keywords:
            raise self.src.error("R.output takes variable names only", call.keywords[0])
        for arg in call.args:
            if not isinstance(arg, ast.Name):
                raise self.src.error(f"R.output takes variable names, got {describe(arg)}", arg)
            if arg.id in outputs:
                raise self.src.error(f"{arg.id!r} is listed twice in R.output", arg)
            outputs[arg.id] = arg
        return body[:-1], outputs

    def _last_positions(self, body: list[ast.stmt], outputs: dict[str, ast.AST | Span]) -> dict[str, tuple[int, int]]:
        """(line, column) of the last binding of each name in `outputs`: only that one is an output `Var`."""
        last_pos: dict[str, tuple[int, int]] = {}
        if not outputs:
            return last_pos
        for s in body:
            if type(s) is ast.Pass and s.lineno in self.state.runs:
                run = self.state.runs[s.lineno]
                for name in outputs:
                    pos = run.last_binding(name)
                    if pos is not None:
                        last_pos[name] = pos
            elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                if s.targets[0].id in outputs:
                    last_pos[s.targets[0].id] = (s.lineno, s.col_offset)
            elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
                if s.target.id in outputs:
                    last_pos[s.target.id] = (s.lineno, s.col_offset)
        return last_pos

    def _if(self, stmt: ast.If) -> Parts:
        """The `Parts` of ``if c: ... else: ...``, both branches ending by assigning one name: the
        assignment of that name to the `If` (bound by the caller)."""
        if not stmt.orelse:
            raise self.src.error("if needs an else branch (both branches assign the result)", stmt)
        cond = self.exprs.expr(stmt.test, 0)
        self._check_condition(cond, stmt.test)
        state = self.state
        scope, dead = state.scope, state.dead
        try:
            state.scope, state.dead = dict(scope), dict(dead)
            t_blocks, t_tail = self._statements(stmt.body, "branch", stmt)
            state.scope, state.dead = dict(scope), dict(dead)
            f_blocks, f_tail = self._statements(stmt.orelse, "branch", stmt)
        finally:
            state.scope, state.dead = scope, dead
        t_name, t_span, t_ann, t_ann_span, t_value, _, _ = t_tail
        f_name, f_span, f_ann, f_ann_span, f_value, _, _ = f_tail
        if t_name != f_name:
            raise self.src.error(
                f"both branches of an if must end by assigning the same name ({t_name!r} vs {f_name!r})", f_span
            )
        for ann, ann_span, value in ((t_ann, t_ann_span, t_value), (f_ann, f_ann_span, f_value)):
            if ann is not None:
                merge_annotation(ann, value.struct_info, ann_span, repr(t_name))
        if t_ann is not None and f_ann is not None and t_ann != f_ann:
            raise self.src.error(f"the branches annotate {t_name!r} differently", f_ann_span)
        ann, ann_span = (t_ann, t_ann_span) if t_ann is not None else (f_ann, f_ann_span)
        # The statement ends where its else branch's last line ends: read from that line's span, as
        # the skeleton's AST ends a branch whose last lines took the fast path at their "pass".
        start, end = self.src.span(stmt), f_tail[5]
        span = Span(start.file, start.line, start.col, end.end_line, end.end_col)
        node = If(
            cond,
            SeqExpr(t_blocks, t_value),
            SeqExpr(f_blocks, f_value),
            join(t_value.struct_info, f_value.struct_info),
            span,
        )
        return (t_name, t_span, ann, ann_span, node, span, (stmt.lineno, stmt.col_offset))

    def _check_condition(self, cond: Expr, node: ast.expr) -> None:
        sinfo = cond.struct_info
        if isinstance(sinfo, TensorStructInfo):
            if sinfo.dtype in ("bool", "") and sinfo.ndim in (0, -1):
                return
        elif isinstance(sinfo, PrimStructInfo):
            if sinfo.dtype == "bool":
                return
        elif isinstance(sinfo, ObjectStructInfo):
            return
        raise self.src.error(f"an if condition must be a boolean scalar, got {sinfo!r}", node, InferenceError)


def _call_of(stmt: ast.stmt, name: str) -> ast.Call | None:
    """The call of `stmt` when it is an expression statement calling `name` (``R.output(...)``), else None."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and dotted(stmt.value.func) == name:
        return stmt.value
    return None


def assign_parts(state: FunctionState, exprs: ExprParser, stmt: ast.Assign | ast.AnnAssign) -> Parts | None:
    """Read ``name = value`` or ``name: ann = value`` of the function of `state`; None for declarations:
    ``cls = Module`` and ``n = T.int64()``.

    A function of the state, not a method: the fast path is handed it (bound to the state) for the lines it
    does not read, and holds no reference back to the statement parser.
    """
    src = state.src
    if isinstance(stmt, ast.Assign):
        if len(stmt.targets) != 1:
            raise src.error("chained assignment (a = b = ...) is not supported", stmt)
        target = stmt.targets[0]
        _check_target(src, target)
        assert isinstance(target, ast.Name)
        value = stmt.value
        if _declaration(state, target, value):
            return None
        ann = ann_span = None
    else:
        target = stmt.target
        _check_target(src, target)
        assert isinstance(target, ast.Name)
        if stmt.value is None:
            raise src.error(f"{target.id!r} is annotated but not assigned a value", stmt)
        value = stmt.value
        ann = state.static.struct_info(stmt.annotation)
        ann_span = src.span(stmt.annotation)
    expr = exprs.expr(value, 0)
    return (
        target.id,
        src.span(target),
        ann,
        ann_span,
        expr,
        src.span(stmt),
        (stmt.lineno, stmt.col_offset),
    )


def _check_target(src: Source, target: ast.expr) -> None:
    if isinstance(target, ast.Name):
        return
    if isinstance(target, (ast.Tuple, ast.List)):
        raise src.error(
            "tuple unpacking is not supported: bind the tuple to a name and index it (t = ...; a = t[0])", target
        )
    raise src.error(f"can only assign to a plain name, not to {describe(target)}", target)


def _declaration(state: FunctionState, target: ast.Name, value: ast.expr) -> bool:
    """``cls = Module`` (a name for the module) or ``n = T.int64()`` (a symbolic dim)."""
    name = target.id
    if isinstance(value, ast.Name) and value.id in state.aliases and value.id not in state.scope:
        _declare(state, name, target)
        state.aliases.add(name)
        return True
    if isinstance(value, ast.Call) and dotted(value.func) in SYMBOL_DECLS and not value.args:
        if value.keywords:
            raise state.src.error("a symbolic dim declaration takes no arguments: n = T.int64()", value)
        _declare(state, name, target)
        if state.caches is state.module.fast_caches:
            state.caches = FastCaches(state.caches)  # lines may now read differently: stop sharing
        state.sig.symbols.add(name)
        return True
    return False


def _declare(state: FunctionState, name: str, target: ast.Name) -> None:
    if name in state.scope:
        raise state.src.error(f"{name!r} is already a variable; pick another name for the declaration", target)
    if name in NAMESPACES:
        raise state.src.error(f"cannot bind {name!r}: it names a TVMScript namespace", target)
    state.reserved.add(name)
