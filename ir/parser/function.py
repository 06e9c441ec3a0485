"""Parsing one ``@R.function`` body: statements, bindings and expressions.

Scoping follows TVMScript: a binding creates a new variable (re-binding a
name shadows it), variables bound in a ``with R.dataflow()`` block are
`DataflowVar` unless listed in its ``R.output(...)`` and disappear after the
block, and names bound inside an ``if`` branch are local to that branch.

The fast path (see `fastlines`) hands whole lines to `_fast_parts`, which
builds exactly what `_assign_parts` would build from the line's AST, or
falls back to it.
"""

from __future__ import annotations

import ast
import difflib
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dtype import to_numpy
from ..errors import InferenceError, ParseError
from ..expr import (
    Binding,
    BindingBlock,
    Call,
    Constant,
    DataflowBlock,
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
from ..normalize import (
    call_struct_info,
    get_item_struct_info,
    global_call_struct_info,
    join,
    merge_annotation,
    tuple_struct_info,
)
from ..op import ATTR, DEVICE, REQUIRED, SHAPE, TENSOR, TENSORS, VDEVICE, Op
from ..span import Span
from ..struct_info import (
    DTYPES,
    ObjectStructInfo,
    PrimStructInfo,
    ShapeStructInfo,
    StructInfo,
    TensorStructInfo,
)
from .annotations import StaticReader
from .fastlines import FastLine
from .literals import MAX_DEPTH, bind_arguments, describe, dotted, literal, too_deep

if TYPE_CHECKING:
    from .module import ModuleParser, Signature

# Names that belong to the TVMScript namespaces; binding them would make the text ambiguous.
_NAMESPACES = frozenset({"R", "I", "T", "tvm"})
# R.<name> that are statements or static things, never values: a clearer error than "unknown op".
_NOT_VALUES = {
    "output": "R.output(...) is a statement: the last line of a 'with R.dataflow():' block",
    "dataflow": "R.dataflow() opens a block: write 'with R.dataflow():'",
    "func_attr": "R.func_attr({...}) is a statement at the top of a function body",
    "function": "R.function is a decorator",
    "device": "R.device(...) names a device: it is only an argument of an op such as R.hint_on_device",
    "Tensor": "R.Tensor is an annotation, not a value",
    "Tuple": "R.Tuple is an annotation, not a value (build a tuple with (a, b))",
    "Shape": "R.Shape is an annotation, not a value (build a shape with R.shape([...]))",
    "Prim": "R.Prim is an annotation, not a value (build one with R.prim_value(...))",
    "Object": "R.Object is an annotation, not a value",
    "Callable": "R.Callable is an annotation, not a value",
}
SYMBOL_DECLS = frozenset({"T.int64", "T.int32"})
_PRIM_DTYPES = {f"T.{d}": d for d in DTYPES}
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
_EXPR_KINDS = (TENSOR, TENSORS)

# What a parsed assignment contributes: name, name span, annotation (or None),
# annotation span, value, statement span, and its (line, col) position.
Parts = tuple[str, Span, "StructInfo | None", "Span | None", Expr, Span, tuple[int, int]]


def statement_words(stmt: ast.stmt) -> str:
    return _STATEMENTS.get(type(stmt), f"a {type(stmt).__name__} statement")


class _Dataflow:
    """The dataflow block being parsed: its R.output names and each name's last binding position."""

    __slots__ = ("outputs", "last_pos")

    def __init__(self, outputs: dict[str, ast.Name], last_pos: dict[str, tuple[int, int]]) -> None:
        self.outputs = outputs
        self.last_pos = last_pos


class FunctionParser:
    """Parses the body of one function of the module."""

    def __init__(self, module: ModuleParser, sig: Signature) -> None:
        self.module = module
        self.sig = sig
        self.src = module.src
        self.static = StaticReader(module.src, module.vdevices, sig.symbols)
        self.vdevices = module.vdevices
        self.scope: dict[str, Var] = {}
        # Names hidden at the end of a dataflow block -> the block's line, for a precise error.
        self.dead: dict[str, int] = {}
        self.aliases: set[str] = {module.class_name}
        self.reserved: set[str] = set(_NAMESPACES) | self.aliases | sig.symbols
        self.attrs: dict[str, Any] = dict(sig.attrs)
        self.runs = module.skeleton.runs if module.skeleton is not None else {}
        self.df: _Dataflow | None = None
        # Per-function caches for the fast path: annotation text -> struct info,
        # (op, #positional, keyword text) -> attrs (or None: not fast).
        self.ann_cache: dict[str, StructInfo] = {}
        self.kw_cache: dict[tuple[str, int, str | None], tuple[Op, dict[str, Any]] | None] = {}

    # -- the function -----------------------------------------------------------
    def run(self) -> Function:
        sig = self.sig
        params = []
        for name, sinfo, span in sig.params:
            var = Var(name, sinfo, span)
            self.scope[name] = var
            params.append(var)
        node = sig.node
        blocks, body = self._statements(node.body, "function", node)
        ret = sig.ret
        if ret is None:
            ret = body.struct_info
        else:
            merge_annotation(ret, body.struct_info, sig.ret_span, f"the return value of {sig.name!r}")
        seq = SeqExpr(blocks, body, span=self.src.span(node.body[-1]))
        return Function(params, seq, ret, self.attrs, self.src.span(node), sig.ret_span)

    def _statements(self, stmts: list[ast.stmt], mode: str, owner: ast.AST) -> tuple[list, Any]:
        """Blocks of a function body (mode "function") or an if branch (mode "branch").

        Returns the blocks and the tail: the returned expression of a function,
        or the `Parts` of the assignment that ends a branch.
        """
        blocks: list[BindingBlock] = []
        current: list[Binding] = []
        tail: Any = None
        last = len(stmts) - 1
        module = self.module
        for i, stmt in enumerate(stmts):
            module.where = stmt
            t = type(stmt)
            ends_branch = mode == "branch" and i == last
            if t is ast.Pass and stmt.lineno in self.runs:
                run = module.take_run(stmt.lineno)
                for j, line in enumerate(run):
                    module.where = line
                    parts = self._fast_parts(line)
                    if ends_branch and j == len(run) - 1:
                        tail = self._branch_tail(parts, self.src.span_at(line.lineno, line.col, line.value_end))
                    elif parts is not None:
                        current.append(self._bind(parts))
            elif t is ast.Assign or t is ast.AnnAssign:
                parts = self._assign_parts(stmt)  # type: ignore[arg-type]
                if ends_branch:
                    tail = self._branch_tail(parts, stmt)
                elif parts is not None:
                    current.append(self._bind(parts))
            elif t is ast.With:
                if mode != "function":
                    raise self.src.error("'with R.dataflow()' is not allowed inside an if branch", stmt)
                if current:
                    blocks.append(BindingBlock(current))
                    current = []
                blocks.append(self._dataflow(stmt))  # type: ignore[arg-type]
            elif t is ast.If:
                current.append(self._if(stmt))  # type: ignore[arg-type]
            elif t is ast.Return:
                if mode != "function":
                    raise self.src.error(
                        "return is not allowed inside an if branch: end each branch by assigning the result", stmt
                    )
                if i != last:
                    raise self.src.error("return must be the last statement of the function", stmts[i + 1])
                tail = self._return(stmt)  # type: ignore[arg-type]
            elif t is ast.Expr:
                self._expr_statement(stmt, i == 0 and mode == "function")  # type: ignore[arg-type]
            else:
                raise self.src.error(f"{statement_words(stmt)} is not supported in a function body", stmt)
            if ends_branch and tail is None:
                raise self.src.error(
                    "an if branch must end by assigning its result to a name (the same name in both branches)",
                    stmt,
                )
        if current:
            blocks.append(BindingBlock(current))
        if tail is None:
            end = stmts[-1] if stmts else owner
            raise self.src.error(f"function {self.sig.name!r} does not end with a return statement", end)
        return blocks, tail

    def _branch_tail(self, parts: Parts | None, where: ast.stmt | Span) -> Parts:
        if parts is None:
            raise self.src.error("an if branch must end by assigning its result to a name", where)
        return parts

    # -- statements -------------------------------------------------------------
    def _assign_parts(self, stmt: ast.Assign | ast.AnnAssign) -> Parts | None:
        """Read ``name = value`` or ``name: ann = value``.

        None for declarations: ``cls = Module`` and ``n = T.int64()``.
        """
        if isinstance(stmt, ast.Assign):
            if len(stmt.targets) != 1:
                raise self.src.error("chained assignment (a = b = ...) is not supported", stmt)
            target = stmt.targets[0]
            self._check_target(target)
            assert isinstance(target, ast.Name)
            value = stmt.value
            if self._declaration(target, value):
                return None
            ann = ann_span = None
        else:
            target = stmt.target
            self._check_target(target)
            assert isinstance(target, ast.Name)
            if stmt.value is None:
                raise self.src.error(f"{target.id!r} is annotated but not assigned a value", stmt)
            value = stmt.value
            ann = self.static.struct_info(stmt.annotation)
            ann_span = self.src.span(stmt.annotation)
        expr = self._expr(value, 0)
        return (
            target.id,
            self.src.span(target),
            ann,
            ann_span,
            expr,
            self.src.span(stmt),
            (stmt.lineno, stmt.col_offset),
        )

    def _check_target(self, target: ast.expr) -> None:
        if isinstance(target, ast.Name):
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            raise self.src.error(
                "tuple unpacking is not supported: bind the tuple to a name and index it (t = ...; a = t[0])", target
            )
        raise self.src.error(f"can only assign to a plain name, not to {describe(target)}", target)

    def _declaration(self, target: ast.Name, value: ast.expr) -> bool:
        """``cls = Module`` (a name for the module) or ``n = T.int64()`` (a symbolic dim)."""
        name = target.id
        if isinstance(value, ast.Name) and value.id in self.aliases and value.id not in self.scope:
            self._declare(name, target)
            self.aliases.add(name)
            return True
        if isinstance(value, ast.Call) and dotted(value.func) in SYMBOL_DECLS and not value.args:
            if value.keywords:
                raise self.src.error("a symbolic dim declaration takes no arguments: n = T.int64()", value)
            self._declare(name, target)
            self.sig.symbols.add(name)
            return True
        return False

    def _declare(self, name: str, target: ast.Name) -> None:
        if name in self.scope:
            raise self.src.error(f"{name!r} is already a variable; pick another name for the declaration", target)
        if name in _NAMESPACES:
            raise self.src.error(f"cannot bind {name!r}: it names a TVMScript namespace", target)
        self.reserved.add(name)

    def _bind(self, parts: Parts) -> Binding:
        name, name_span, ann, ann_span, value, stmt_span, pos = parts
        if name in self.reserved:
            raise self._reserved(name, name_span)
        sinfo = value.struct_info
        if ann is not None and ann is not sinfo and ann != sinfo:
            sinfo = merge_annotation(ann, sinfo, ann_span, repr(name))
        df = self.df
        if df is None or name not in df.outputs or df.last_pos.get(name) != pos:
            var: Var = Var(name, sinfo, name_span) if df is None else DataflowVar(name, sinfo, name_span)
        else:
            var = Var(name, sinfo, name_span)
        self.scope[name] = var
        return Binding(var, value, ann, stmt_span)

    def _reserved(self, name: str, span: Span) -> ParseError:
        if name in _NAMESPACES:
            why = "it names a TVMScript namespace"
        elif name in self.sig.symbols:
            why = "it is declared as a symbolic dim"
        else:
            why = "it names the module"
        return self.src.error(f"cannot bind {name!r}: {why}", span)

    def _expr_statement(self, stmt: ast.Expr, first: bool) -> None:
        value = stmt.value
        if first and isinstance(value, ast.Constant) and isinstance(value.value, str):
            return  # docstring
        if isinstance(value, ast.Call):
            name = dotted(value.func)
            if name == "R.func_attr":
                (attrs,) = bind_arguments(self.src, value, ("attrs",), "R.func_attr")
                parsed = None if attrs is None else literal(self.src, attrs, seq=list)
                if not isinstance(parsed, dict) or not all(isinstance(k, str) for k in parsed):
                    raise self.src.error("R.func_attr takes a dict with string keys", value)
                self.attrs.update(parsed)
                return
            if name == "R.output":
                raise self.src.error("R.output(...) must be the last statement of a 'with R.dataflow():' block", stmt)
        raise self.src.error(
            f"unsupported statement: {describe(value)} (a value must be bound to a name: x = ...)", stmt
        )

    def _return(self, stmt: ast.Return) -> Expr:
        if stmt.value is None:
            raise self.src.error("return needs a value", stmt)
        return self._expr(stmt.value, 0)

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
        if self.df is not None:
            raise self.src.error("dataflow blocks cannot be nested", stmt)
        body = stmt.body
        outputs: dict[str, ast.Name] = {}
        last_stmt = body[-1]
        if _is_call(last_stmt, "R.output"):
            body = body[:-1]
            call = last_stmt.value  # type: ignore[attr-defined]
            if call.keywords:
                raise self.src.error("R.output takes variable names only", call.keywords[0])
            for arg in call.args:
                if not isinstance(arg, ast.Name):
                    raise self.src.error(f"R.output takes variable names, got {describe(arg)}", arg)
                if arg.id in outputs:
                    raise self.src.error(f"{arg.id!r} is listed twice in R.output", arg)
                outputs[arg.id] = arg
        last_pos: dict[str, tuple[int, int]] = {}
        for s in body:
            if type(s) is ast.Pass and s.lineno in self.runs:
                for line in self.runs[s.lineno]:
                    last_pos[line.name] = (line.lineno, line.col)
            elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                last_pos[s.targets[0].id] = (s.lineno, s.col_offset)
            elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
                last_pos[s.target.id] = (s.lineno, s.col_offset)
        self.df = _Dataflow(outputs, last_pos)
        bindings: list[Binding] = []
        module = self.module
        try:
            for s in body:
                module.where = s
                t = type(s)
                if t is ast.Pass and s.lineno in self.runs:
                    for line in module.take_run(s.lineno):
                        module.where = line
                        parts = self._fast_parts(line)
                        if parts is not None:
                            bindings.append(self._bind(parts))
                elif t is ast.Assign or t is ast.AnnAssign:
                    parts = self._assign_parts(s)  # type: ignore[arg-type]
                    if parts is not None:
                        bindings.append(self._bind(parts))
                elif _is_call(s, "R.output"):
                    raise self.src.error("R.output(...) must be the last statement of the dataflow block", s)
                elif t is ast.If:
                    raise self.src.error("if is not allowed inside a dataflow block", s)
                elif t is ast.With:
                    raise self.src.error("dataflow blocks cannot be nested", s)
                elif t is ast.Return:
                    raise self.src.error("return is not allowed inside a dataflow block: return after it", s)
                elif t is ast.Expr:
                    self._expr_statement(s, False)  # type: ignore[arg-type]
                else:
                    raise self.src.error(f"{statement_words(s)} is not supported in a dataflow block", s)
        finally:
            self.df = None
        bound_out = {b.var.name for b in bindings if type(b.var) is Var}
        for name, node in outputs.items():
            if name not in bound_out:
                raise self.src.error(f"R.output({name}): {name!r} is not bound in this dataflow block", node)
        for b in bindings:
            name = b.var.name
            if type(self.scope.get(name)) is DataflowVar:
                del self.scope[name]
                self.dead[name] = stmt.lineno
        return DataflowBlock(bindings, self.src.span(stmt))

    def _if(self, stmt: ast.If) -> Binding:
        if not stmt.orelse:
            raise self.src.error("if needs an else branch (both branches assign the result)", stmt)
        cond = self._expr(stmt.test, 0)
        self._check_condition(cond, stmt.test)
        scope, dead = self.scope, self.dead
        try:
            self.scope, self.dead = dict(scope), dict(dead)
            t_blocks, t_tail = self._statements(stmt.body, "branch", stmt)
            self.scope, self.dead = dict(scope), dict(dead)
            f_blocks, f_tail = self._statements(stmt.orelse, "branch", stmt)
        finally:
            self.scope, self.dead = scope, dead
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
        span = self.src.span(stmt)
        node = If(
            cond,
            SeqExpr(t_blocks, t_value),
            SeqExpr(f_blocks, f_value),
            join(t_value.struct_info, f_value.struct_info),
            span,
        )
        return self._bind((t_name, t_span, ann, ann_span, node, span, (stmt.lineno, stmt.col_offset)))

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

    # -- the fast path ----------------------------------------------------------
    def _fast_parts(self, line: FastLine) -> Parts | None:
        """`_assign_parts` for a fast line, without building its AST when possible."""
        ann = None
        ann_span = None
        if line.ann is not None:
            ann = self.ann_cache.get(line.ann)
            if ann is None:
                node = self.module.fragment(line.ann, line.lineno, line.ann_col, "eval").body
                ann = self.static.struct_info(node)
                self.ann_cache[line.ann] = ann
            ann_span = self.src.span_at(line.lineno, line.ann_col, line.ann_col + len(line.ann))
        scope = self.scope
        if line.op is None:
            value: Expr | None = scope.get(line.alias)  # type: ignore[arg-type]
        else:
            value = self._fast_call(line)
        if value is None:
            return self._slow_parts(line)
        lineno = line.lineno
        src = self.src
        return (
            line.name,
            src.span_at(lineno, line.col, line.col + len(line.name)),
            ann,
            ann_span,
            value,
            src.span_at(lineno, line.col, line.value_end),
            (lineno, line.col),
        )

    def _fast_call(self, line: FastLine) -> Call | None:
        positional = line.positional
        key = (line.op, len(positional), line.keywords)
        try:
            entry = self.kw_cache[key]
        except KeyError:
            # R.const, R.shape, ... are builtins even if an op were registered under that name.
            builtin = line.op in _BUILTINS or line.op in _NOT_VALUES
            op = None if builtin else self.module.op(line.op)  # type: ignore[arg-type]
            attrs = None if op is None else self._fast_attrs(op, line)
            entry = None if attrs is None else (op, attrs)
            self.kw_cache[key] = entry
        if entry is None:
            return None
        op, attrs = entry
        get = self.scope.get
        args = [get(name) for name in positional]
        if None in args:
            return None  # an unknown name: the ordinary path reports it
        span = self.src.span_at(line.lineno, line.value_col, line.value_end)
        attrs = dict(attrs) if attrs else {}
        return Call(op, args, attrs, self._infer(op, args, attrs, span), span)

    def _fast_attrs(self, op: Op, line: FastLine) -> dict[str, Any] | None:
        """The attrs of a fast call whose positional args are exactly op's leading tensor params, else None."""
        params = op.params
        npos = len(line.positional)
        if npos > len(params) or any(p.kind not in _EXPR_KINDS for p in params[:npos]):
            return None
        given: dict[str, ast.expr] = {}
        if line.keywords is not None:
            call = self.module.fragment(f"_f({line.keywords})", line.lineno, line.keywords_col - 3, "eval").body
            for kw in call.keywords:  # type: ignore[attr-defined]
                given[kw.arg] = kw.value
        attrs: dict[str, Any] = {}
        for i, param in enumerate(params):
            node = given.pop(param.name, None)
            if i < npos:
                if node is not None:
                    return None
                continue
            if param.kind in _EXPR_KINDS:
                return None
            if node is None:
                if param.default is REQUIRED:
                    return None
                attrs[param.name] = param.default
                continue
            try:
                attrs[param.name] = self._attr(op, param.kind, param.name, node)
            except ParseError:
                return None  # the ordinary path reports it, in argument order
        return None if given else attrs

    def _slow_parts(self, line: FastLine) -> Parts | None:
        """Handle a fast line the ordinary way, from its own AST."""
        stmt = self.module.fragment(line.text[line.col :], line.lineno, line.col, "exec").body[0]
        self.module.where = stmt
        return self._assign_parts(stmt)  # type: ignore[arg-type]

    # -- expressions ------------------------------------------------------------
    def _expr(self, node: ast.expr, depth: int) -> Expr:
        """A relax value: a variable, a call, a tuple, ``t[i]``, or a builtin such as ``R.const``."""
        if depth > MAX_DEPTH:
            raise too_deep(self.src, node)
        t = type(node)
        if t is ast.Name:
            return self._lookup(node.id, node)  # type: ignore[attr-defined]
        if t is ast.Call:
            return self._call(node, depth)  # type: ignore[arg-type]
        if t is ast.Tuple or t is ast.List:
            fields = [self._expr(e, depth + 1) for e in node.elts]  # type: ignore[attr-defined]
            return Tuple(fields, tuple_struct_info(fields), self.src.span(node))
        if t is ast.Subscript:
            return self._get_item(node, depth)  # type: ignore[arg-type]
        if t is ast.Attribute:
            name = dotted(node)
            if name is not None:
                head, _, rest = name.partition(".")
                if head in self.aliases and rest in self.module.signatures:
                    gv = GlobalVar(rest, self.src.span(node))
                    gv.struct_info = self.module.callee_struct_info(rest, node)
                    return gv
        if t is ast.Constant:
            value = node.value  # type: ignore[attr-defined]
            if isinstance(value, (int, float, bool)):
                raise self.src.error(
                    f"the literal {value!r} is not a relax value: write R.const({value!r}) or R.prim_value({value!r})",
                    node,
                )
        raise self.src.error(f"unsupported expression: {describe(node)}", node)

    def _lookup(self, name: str, node: ast.AST) -> Var:
        var = self.scope.get(name)
        if var is not None:
            return var
        if name in self.dead:
            raise self.src.error(
                f"{name!r} is local to the dataflow block at line {self.dead[name]}: "
                "list it in that block's R.output(...) to use it after the block",
                node,
            )
        if name in self.sig.symbols:
            raise self.src.error(f"{name!r} is a symbolic dim (T.int64), not a relax value", node)
        if name in self.aliases:
            raise self.src.error(f"{name!r} is the module: call its functions as {name}.f(...)", node)
        raise self.src.error(f"undefined variable {name!r}", node)

    def _get_item(self, node: ast.Subscript, depth: int) -> TupleGetItem:
        value = self._expr(node.value, depth + 1)
        index = node.slice
        if not (isinstance(index, ast.Constant) and type(index.value) is int):
            raise self.src.error(f"a tuple index must be an integer literal, got {describe(index)}", index)
        span = self.src.span(node)
        return TupleGetItem(value, index.value, get_item_struct_info(value, index.value, span), span)

    def _call(self, node: ast.Call, depth: int) -> Expr:
        name = dotted(node.func)
        if name is None:
            raise self.src.error(
                f"unsupported call of {describe(node.func)}: only R.<op>(...) and cls.<function>(...) can be called",
                node,
            )
        head, _, rest = name.partition(".")
        if head == "R" and rest:
            builtin = _BUILTINS.get(rest)
            if builtin is not None:
                return builtin(self, node, depth)
            if rest in _NOT_VALUES:
                raise self.src.error(_NOT_VALUES[rest], node)
            op = self.module.op(rest)
            if op is None:
                raise self.src.error(f"unknown op R.{rest}{self._suggest(rest)}", node.func)
            return self._op_call(op, node, depth)
        if head in self.aliases and rest and "." not in rest:
            return self._function_call(rest, node, depth)
        raise self.src.error(
            f"unknown function {name}: a call is R.<op>(...) or cls.<function>(...) of this module", node.func
        )

    def _suggest(self, name: str) -> str:
        close = difflib.get_close_matches(name, self.module.op_names(), n=1, cutoff=0.75)
        return f" (did you mean R.{close[0]}?)" if close else ""

    def _op_call(self, op: Op, node: ast.Call, depth: int) -> Call:
        what = f"R.{op.name}"
        bound = bind_arguments(self.src, node, self.module.param_names(op), what)
        args: list[Expr] = []
        attrs: dict[str, Any] = {}
        for param, arg in zip(op.params, bound, strict=True):
            kind = param.kind
            if arg is None:
                if param.default is REQUIRED or kind in _EXPR_KINDS:
                    raise self.src.error(f"{what} is missing its argument {param.name!r}", node)
                attrs[param.name] = param.default
            elif kind in _EXPR_KINDS:
                args.append(self._expr(arg, depth + 1))
            else:
                attrs[param.name] = self._attr(op, kind, param.name, arg)
        span = self.src.span(node)
        return Call(op, args, attrs, self._infer(op, args, attrs, span), span)

    def _attr(self, op: Op, kind: str, name: str, node: ast.expr) -> Any:
        """An attribute argument, read statically according to its parameter kind."""
        if kind == ATTR:
            return literal(self.src, node)
        if kind == SHAPE:
            if isinstance(node, ast.Constant) and node.value is None:
                return None
            return self.static.dims(node, 0, f"R.{op.name} argument {name!r}")
        if kind == DEVICE:
            return self.static.device(node)
        if kind == VDEVICE:
            vdevice = self.static.vdevice_ref(node)
            if vdevice is None:
                raise self.src.error(f"R.{op.name} argument {name!r} needs a vdevice", node)
            return vdevice
        raise self.src.error(f"R.{op.name}: parameter {name!r} has an unknown kind {kind!r}", node)

    def _infer(self, op: Op, args: list[Expr], attrs: dict[str, Any], span: Span) -> StructInfo:
        try:
            return call_struct_info(op, args, attrs, self.vdevices, span)
        except ParseError as err:
            if err.span is None:
                raise type(err)(err.reason, span) from None
            raise
        except Exception as err:  # an op's inference choked on odd attributes: still the user's error
            raise InferenceError(f"R.{op.name}: cannot infer the result ({type(err).__name__}: {err})", span) from None

    def _function_call(self, name: str, node: ast.Call, depth: int) -> Call:
        if name not in self.module.signatures:
            defined = ", ".join(self.module.signatures) or "none"
            raise self.src.error(f"call to undefined function {name!r} (the module defines: {defined})", node.func)
        if node.keywords:
            raise self.src.error(f"cls.{name} takes positional arguments only", node.keywords[0])
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.src.error("'*' arguments are not supported", arg)
            args.append(self._expr(arg, depth + 1))
        callee = self.module.callee_struct_info(name, node)
        span = self.src.span(node)
        sinfo = global_call_struct_info(name, callee, args, span)
        return Call(GlobalVar(name, self.src.span(node.func)), args, None, sinfo, span)

    # -- builtins ---------------------------------------------------------------
    def _const(self, node: ast.Call, depth: int) -> Constant:
        value_node, dtype_node = bind_arguments(self.src, node, ("value", "dtype"), "R.const")
        if value_node is None:
            raise self.src.error("R.const needs a value", node)
        value = literal(self.src, value_node, seq=list)
        if not _is_numeric(value, 0):
            raise self.src.error(
                f"R.const takes a number, a bool or nested lists of them, got {describe(value_node)}", value_node
            )
        dtype = None if dtype_node is None else (self.static.dtype(dtype_node) or None)
        try:
            if dtype is None:
                data = np.asarray(value)
                # TVM's defaults: Python ints are int32 and floats float32.
                dtype = {"int64": "int32", "float64": "float32"}.get(str(data.dtype), str(data.dtype))
                data = data.astype(dtype)
            else:
                data = np.asarray(value, dtype=to_numpy(dtype))
        except (ValueError, OverflowError, TypeError) as err:
            raise self.src.error(
                f"R.const: cannot make a {dtype or ''} array from this value: {err}", value_node
            ) from None
        if dtype not in DTYPES:
            raise self.src.error(f"R.const: unsupported dtype {dtype!r}", node)
        return Constant(data, TensorStructInfo(data.shape, dtype), self.src.span(node))

    def _shape(self, node: ast.Call, depth: int) -> ShapeExpr:
        values = self.static.dims(node, depth, "R.shape")
        return ShapeExpr(values, ShapeStructInfo(values), self.src.span(node))

    def _prim_value(self, node: ast.Call, depth: int) -> PrimValue:
        (value_node,) = bind_arguments(self.src, node, ("value",), "R.prim_value")
        if value_node is None:
            raise self.src.error("R.prim_value needs a value", node)
        dtype = None
        if isinstance(value_node, ast.Call) and dotted(value_node.func) in _PRIM_DTYPES:
            dtype = _PRIM_DTYPES[dotted(value_node.func)]  # type: ignore[index]
            (inner,) = bind_arguments(self.src, value_node, ("value",), f"T.{dtype}")
            if inner is None:
                raise self.src.error(f"T.{dtype}(...) needs a value here", value_node)
            value_node = inner
        value = literal(self.src, value_node)
        if not isinstance(value, (int, float, bool)):
            raise self.src.error(f"R.prim_value takes a number or a bool, got {describe(value_node)}", value_node)
        if dtype is None:
            dtype = "bool" if isinstance(value, bool) else "int64" if isinstance(value, int) else "float64"
        elif dtype == "bool":
            if not isinstance(value, bool):
                raise self.src.error(f"T.bool takes True or False, got {value!r}", value_node)
        elif dtype.startswith(("int", "uint")):
            if not isinstance(value, int) or isinstance(value, bool):
                raise self.src.error(f"T.{dtype} takes an integer, got {value!r}", value_node)
        else:
            if isinstance(value, bool):
                raise self.src.error(f"T.{dtype} takes a number, got {value!r}", value_node)
            value = float(value)
        return PrimValue(value, dtype, PrimStructInfo(dtype, value), self.src.span(node))

    def _string(self, node: ast.Call, depth: int) -> StringImm:
        (value_node,) = bind_arguments(self.src, node, ("value",), "R.str")
        if not (isinstance(value_node, ast.Constant) and isinstance(value_node.value, str)):
            raise self.src.error("R.str takes a string literal", node)
        return StringImm(value_node.value, self.src.span(node))

    def _tuple(self, node: ast.Call, depth: int) -> Tuple:
        if node.keywords:
            raise self.src.error("R.tuple takes its fields positionally", node.keywords[0])
        fields = [self._expr(e, depth + 1) for e in node.args]
        return Tuple(fields, tuple_struct_info(fields), self.src.span(node))


_BUILTINS = {
    "const": FunctionParser._const,
    "shape": FunctionParser._shape,
    "prim_value": FunctionParser._prim_value,
    "str": FunctionParser._string,
    "tuple": FunctionParser._tuple,
}


def _is_call(stmt: ast.stmt, name: str) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and dotted(stmt.value.func) == name


def _is_numeric(value: Any, depth: int) -> bool:
    if isinstance(value, (bool, int, float)):
        return True
    if isinstance(value, list) and depth < MAX_DEPTH:
        return all(_is_numeric(v, depth + 1) for v in value)
    return False
