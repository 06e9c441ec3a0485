"""Reading one ``@T.prim_func`` definition from its Python AST into a `PrimFunc` (never executing it).

`parse_prim_func` takes the ``ast.FunctionDef`` the module parser found in
the module class and a function that expands the statements of a body (the
module parser's fast path may have collapsed some lines into ``pass``).  Every
construct outside the subset of `nodes` is a `ParseError` at its line and
column naming what is not read.  ``T.reads`` / ``T.writes`` / ``T.block_attr``
are accepted and dropped: they describe the block for TVM's schedules and do
not change what it computes (TVM's parser recomputes them when they are
missing).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from ..errors import ParseError
from ..parser.literals import bind_arguments, bool_literal, describe, dotted, literal, str_literal
from ..parser.source import Source, parse_python
from .exprs import ExprReader
from .nodes import (
    Alloc,
    Block,
    Buffer,
    Domain,
    Expr,
    For,
    IfThenElse,
    IterVar,
    PrimFunc,
    Scalar,
    Seq,
    Stmt,
    Store,
    Var,
    While,
    loaded,
)

Expand = Callable[[list[ast.stmt]], Iterable[ast.stmt]]

_LOOP_KINDS = {"range": "range", "T.serial": "serial", "T.parallel": "parallel", "T.vectorized": "vectorized"}
_LOOP_KINDS["T.unroll"] = "unroll"
_BLOCKS = ("T.sblock", "T.block")
_IGNORED = frozenset({"T.reads", "T.writes", "T.block_attr", "T.sblock_attr", "T.attr"})
_LOCAL_ALLOCS = ("T.alloc_local", "T.alloc_buffer", "T.sblock_alloc_buffer")
_ALLOCS = ("T.alloc_buffer", "T.sblock_alloc_buffer", "T.alloc_local")
# Buffer keywords that say how the buffer sits in memory, not what it holds: read and dropped.
_LAYOUT_KEYWORDS = ("align", "offset_factor", "elem_offset")
# What is in scope outside a loop or block (`_FunctionReader.enter`): variables, lets, stale lets.
_Saved = tuple[dict[str, tuple[Var, Domain]], dict[str, tuple[Expr, frozenset[str]]], set[str]]
_AXIS_KINDS = {"T.axis.spatial": "S", "T.axis.S": "S", "T.axis.reduce": "R", "T.axis.R": "R"}


def is_prim_func(fdef: ast.FunctionDef) -> bool:
    """Whether `fdef` is decorated ``@T.prim_func`` (with or without arguments)."""
    if len(fdef.decorator_list) != 1:
        return False
    deco = fdef.decorator_list[0]
    return dotted(deco.func if isinstance(deco, ast.Call) else deco) == "T.prim_func"


def prim_func_from_text(text: str, filename: str | None = None) -> PrimFunc:
    """The one ``@T.prim_func`` definition of `text` (imports and comments around it allowed), for building
    ``R.call_tir`` calls in Python (``FunctionBuilder.emit("call_tir", (x,), gvar=f, out_ty=...)``)."""
    src = Source(text, filename)
    tree = parse_python(src, text)
    defs = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
    if len(defs) != 1 or not isinstance(defs[0], ast.FunctionDef) or not is_prim_func(defs[0]):
        raise src.error("expected one @T.prim_func definition", defs[1] if len(defs) > 1 else None)
    return parse_prim_func(src, defs[0], lambda body: body)


def parse_prim_func(src: Source, fdef: ast.FunctionDef, expand: Expand, type_vars: Iterable[str] = ()) -> PrimFunc:
    """The `PrimFunc` of `fdef`; `ParseError` at the first construct outside the subset.

    `type_vars` are the symbols the file declares at its top (``n = TypeVar("n")``, as TVM prints a
    symbolic dim shared by several functions): int64 symbols of the function too.
    """
    reader = _FunctionReader(src, expand)
    reader.exprs.symbols.update((name, Var(name, "int64")) for name in type_vars)
    return reader.function(fdef)


class _FunctionReader:
    def __init__(self, src: Source, expand: Expand) -> None:
        self.src = src
        self.expand = expand
        self.buffers: dict[str, Buffer] = {}
        self.allocs: list[Buffer] = []
        self.attrs: tuple[tuple[str, object], ...] = ()
        self.scope: dict[str, tuple[Var, Domain]] = {}  # a loop or block variable in scope -> (var, its domain)
        self.exprs = ExprReader(src, self.buffers, self.scope)
        self.handles: dict[str, Buffer | None] = {}  # a ``T.handle`` parameter -> the buffer matched to it

    def error(self, reason: str, node: ast.AST) -> ParseError:
        return self.src.error(f"TIR: {reason}", node)

    # -- the function ---------------------------------------------------------------
    def function(self, fdef: ast.FunctionDef) -> PrimFunc:
        private, s_tir = self.decorator(fdef.decorator_list[0])
        args = fdef.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
            raise self.error(f"function {fdef.name!r} takes plain buffer parameters only", fdef)
        if fdef.returns is not None and not (isinstance(fdef.returns, ast.Constant) and fdef.returns.value is None):
            raise self.error(f"function {fdef.name!r} returns nothing: it writes its output buffers", fdef.returns)
        params = [self.parameter(arg) for arg in args.args]
        if not any(type(p) is Buffer or p in self.handles for p in params):
            raise self.error(f"function {fdef.name!r} has no buffer parameters", fdef)
        body = self.statements(self.root_body(list(self.expand(fdef.body))), root=True)
        matched: list[Buffer | Scalar] = []  # the parameters, each handle replaced by its buffer
        for arg, p in zip(args.args, params, strict=True):
            if isinstance(p, str):
                buffer = self.handles[p]
                if buffer is None:
                    raise self.error(f"handle {p!r} is never matched to a buffer (T.match_buffer)", arg)
                p = buffer
            matched.append(p)
        exprs = self.exprs
        symbols = tuple(exprs.symbols[n] for n in sorted(exprs.used))
        return PrimFunc(
            tuple(matched),
            tuple(self.allocs),
            body,
            attrs=self.attrs,
            symbols=symbols,
            private=private,
            s_tir=s_tir,
            name=fdef.name,
        )

    def parameter(self, arg: ast.arg) -> Buffer | Scalar | str:
        """A parameter: ``T.Buffer(...)``, a ``T.handle`` (its name, matched later) or a scalar ``T.int64``."""
        ann = arg.annotation
        if ann is None:
            raise self.error(f"parameter {arg.arg!r} needs a T.Buffer(...) annotation", arg)
        word = dotted(ann) or ""
        if word == "T.handle":
            self.handles[arg.arg] = None
            return arg.arg
        if word[2:] in ("int64", "int32") and word.startswith("T."):
            self.exprs.symbols[arg.arg] = Var(arg.arg, word[2:])
            self.exprs.used.add(arg.arg)
            return Scalar(arg.arg, word[2:])
        return self.buffer(arg.arg, ann, "T.Buffer")

    def decorator(self, deco: ast.expr) -> tuple[bool, bool]:
        """The decorator's ``private`` and ``s_tir`` flags (both False when not given)."""
        if not isinstance(deco, ast.Call):
            return False, False
        names = ("private", "s_tir", "check_well_formed")
        flags = [
            False if node is None else bool_literal(self.src, node, f"T.prim_func({name}=...)")
            for name, node in zip(names, bind_arguments(self.src, deco, names, "T.prim_func"), strict=True)
        ]
        return flags[0], flags[1]

    def buffer(self, name: str, node: ast.expr, what: str) -> Buffer:
        """A buffer declared by ``T.Buffer(shape, dtype)`` (a parameter) or ``T.alloc_buffer(shape, dtype)``."""
        if name in self.buffers:
            raise self.error(f"buffer {name!r} is declared twice", node)
        words = _ALLOCS if what == "T.alloc_buffer" else (what,)
        if not (isinstance(node, ast.Call) and dotted(node.func) in words):
            raise self.error(f"buffer {name!r} must be declared with {what}(shape, dtype), got {describe(node)}", node)
        names = ("shape", "dtype", *_LAYOUT_KEYWORDS)
        if what == "T.match_buffer":
            handle = node.args[0] if node.args else None
            if not (isinstance(handle, ast.Name) and handle.id in self.handles and self.handles[handle.id] is None):
                raise self.error("T.match_buffer takes a T.handle parameter not matched yet, then a shape", node)
            node = ast.Call(node.func, node.args[1:], node.keywords, **{a: getattr(node, a) for a in node._attributes})
        shape_node, dtype_node = bind_arguments(self.src, node, names, what)[:2]
        if shape_node is None:
            raise self.error(f"{what} needs a shape", node)
        dims = shape_node.elts if isinstance(shape_node, (ast.Tuple, ast.List)) else [shape_node]
        shape = tuple(self.exprs.dim(d) for d in dims)
        dtype = "float32" if dtype_node is None else str_literal(self.src, dtype_node, f"{what} dtype")
        buffer = self.buffers[name] = Buffer(name, shape, dtype)
        return buffer

    def declaration(self, stmt: ast.Assign) -> bool:
        """Read ``n = T.int64()`` (a symbol) or ``x = T.match_buffer(handle, shape, dtype)``; False if neither."""
        call, target = stmt.value, stmt.targets[0]
        if not (isinstance(call, ast.Call) and isinstance(target, ast.Name)):
            return False
        word = dotted(call.func)
        if (word == "T.int64" or word == "T.int32") and not call.args and not call.keywords:
            self.exprs.symbols[target.id] = Var(target.id, word[2:])
            return True
        if word == "T.match_buffer":
            buffer = self.buffer(target.id, call, "T.match_buffer")
            handle = call.args[0]
            assert isinstance(handle, ast.Name)  # `buffer` checked that it is a handle parameter
            self.handles[handle.id] = buffer
            return True
        return False

    def root_body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        """The function's statements, with an explicit ``with T.sblock("root"):`` opened and attributes read."""
        out: list[ast.stmt] = []
        for stmt in body:
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)
            ):
                continue  # docstring
            call = stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
            if call is not None and dotted(call.func) == "T.func_attr":
                (arg,) = bind_arguments(self.src, call, ("attrs",), "T.func_attr")
                value = literal(self.src, arg) if arg is not None else None
                if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
                    raise self.error("T.func_attr takes a dict with string keys", call)
                self.attrs = tuple(value.items())
                continue
            if isinstance(stmt, ast.With) and self.block_name(stmt) == "root" and len(body) - len(out) == 1:
                out.extend(self.expand(stmt.body))
                continue
            out.append(stmt)
        return out

    # -- statements -----------------------------------------------------------------
    def statements(self, body: list[ast.stmt], root: bool = False) -> Stmt:
        stmts = [s for s in (self.statement(stmt, root) for stmt in self.expand(body)) if s is not None]
        if not stmts:
            raise self.error("a body with no statement", body[0] if body else ast.Pass())
        return stmts[0] if len(stmts) == 1 else Seq(tuple(stmts))

    def statement(self, stmt: ast.stmt, root: bool) -> Stmt | None:
        if isinstance(stmt, ast.For):
            return self.loop(stmt)
        if isinstance(stmt, ast.With):
            return self.block(stmt)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript):
            return self.store(stmt.targets[0], stmt.value)
        if isinstance(stmt, ast.Assign) and root and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            if not self.declaration(stmt):
                self.allocs.append(self.buffer(stmt.targets[0].id, stmt.value, "T.alloc_buffer"))
            return None
        if isinstance(stmt, ast.AnnAssign) and _is_let(stmt.annotation):
            self.let(stmt)
            return None
        if isinstance(stmt, ast.If):
            cond = self.exprs.boolean(stmt.test, 0)
            otherwise = self.statements(stmt.orelse) if stmt.orelse else None
            return IfThenElse(cond, self.statements(stmt.body), otherwise)
        if isinstance(stmt, ast.While) and not stmt.orelse:
            return While(self.exprs.boolean(stmt.test, 0), self.statements(stmt.body))
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            call = stmt.value
            what = dotted(call.func) if isinstance(call, ast.Call) else None
            if what is not None and what in _LOCAL_ALLOCS:
                return Alloc(self.buffer(stmt.targets[0].id, call, what))
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and dotted(stmt.value.func) in _IGNORED:
            return None
        if isinstance(stmt, ast.Pass):
            return None
        if (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and dotted(stmt.value.func) == "T.call_packed"
        ):
            raise self.error("T.call_packed calls a function of TVM's runtime library, which vdplace cannot run", stmt)
        raise self.error(f"this statement is not read ({_statement_words(stmt)})", stmt)

    def let(self, stmt: ast.AnnAssign) -> None:
        """``v: T.let[T.int64] = value``: `v` stands for `value` in what follows (substituted where used)."""
        if not isinstance(stmt.target, ast.Name) or stmt.value is None:
            raise self.error("T.let binds a plain name to a value", stmt)
        value = self.exprs.read(stmt.value)
        self.exprs.lets[stmt.target.id] = (value, loaded(value))

    def store(self, target: ast.Subscript, value_node: ast.expr) -> Store:
        load = self.exprs.load(target)
        value = self.exprs.read(value_node)
        value = self.exprs.coerce(value, value_node, load.buffer.dtype, f"a store to {load.buffer.name!r}")
        self.exprs.written(load.buffer.name)
        return Store(load.buffer, load.indices, value)

    def loop(self, stmt: ast.For) -> For:
        if stmt.orelse:
            raise self.error("a for loop with an else branch", stmt)
        call = stmt.iter
        name = dotted(call.func) if isinstance(call, ast.Call) else None
        targets = stmt.target.elts if isinstance(stmt.target, ast.Tuple) else [stmt.target]
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if len(names) != len(targets):
            raise self.error("loop variables must be plain names", stmt.target)
        if name == "T.grid" and isinstance(call, ast.Call):
            extents = [self.exprs.extent(a) for a in call.args]
            if call.keywords or len(extents) != len(targets):
                raise self.error(f"T.grid gives {len(extents)} extents for {len(targets)} loop variables", stmt)
            kind = "grid"
        elif name in _LOOP_KINDS and isinstance(call, ast.Call) and len(targets) == 1 and not call.keywords:
            extents = [self.range_extent(call)]
            kind = _LOOP_KINDS[name]
        else:
            raise self.error(
                f"loops over T.grid, range, T.serial, T.parallel, T.vectorized or T.unroll only, got {describe(call)}",
                call,
            )
        loop_vars = []
        saved = self.enter()
        for target, (extent, dtype) in zip(names, extents, strict=True):
            var = Var(target, dtype)
            self.scope[var.name] = (var, extent)
            loop_vars.append(var)
        body = self.statements(stmt.body)
        self.restore(saved)
        return For(tuple(loop_vars), tuple(e for e, _ in extents), kind, body)

    def range_extent(self, call: ast.Call) -> tuple[int | Expr, str]:
        """``range(n)``, ``T.serial(n)`` or ``T.serial(0, n)``: the extent and the loop variable's dtype."""
        if len(call.args) == 2:
            start, _ = self.exprs.extent(call.args[0])
            if start != 0:
                raise self.error("a loop must start at 0", call.args[0])
            return self.exprs.extent(call.args[1])
        if len(call.args) != 1:
            raise self.error(f"{describe(call)} takes an extent, or 0 and an extent", call)
        return self.exprs.extent(call.args[0])

    def enter(self) -> _Saved:
        """What is in scope before a loop or block: its variables and lets leave scope with it (`restore`)."""
        return dict(self.scope), dict(self.exprs.lets), set(self.exprs.stale)

    def restore(self, saved: _Saved) -> None:
        """Leave a loop or block (the dicts are shared with `exprs`)."""
        scope, lets, stale = saved
        self.scope.clear()
        self.scope.update(scope)
        # An outer let made stale by a store inside stays stale.
        self.exprs.lets, self.exprs.stale = lets, stale | (self.exprs.stale & lets.keys())

    # -- blocks ----------------------------------------------------------------------
    def block_name(self, stmt: ast.With) -> str | None:
        if len(stmt.items) != 1 or stmt.items[0].optional_vars is not None:
            return None
        call = stmt.items[0].context_expr
        if not (isinstance(call, ast.Call) and dotted(call.func) in _BLOCKS and len(call.args) == 1):
            return None
        name = call.args[0]
        return name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None

    def block(self, stmt: ast.With) -> Block:
        name = self.block_name(stmt)
        if name is None:
            raise self.error('a with statement must open a block: with T.sblock("name"):', stmt)
        saved = self.enter()
        iter_vars: list[IterVar] = []
        init: Stmt | None = None
        rest: list[ast.stmt] = []
        for inner in self.expand(stmt.body):
            if isinstance(inner, ast.Assign) and not rest and self.axis_binding(inner, iter_vars):
                continue
            if isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Call):
                what = dotted(inner.value.func)
                if what in _IGNORED:
                    continue
                if what == "T.where":
                    raise self.error("block predicates (T.where) are not read", inner)
            if isinstance(inner, ast.With) and _is_init(inner):
                if init is not None or rest:
                    raise self.error("T.init() must come once, before the block's statements", inner)
                init = self.statements(inner.body)
                continue
            rest.append(inner)
        if not rest:
            raise self.error(f"block {name!r} has no statement", stmt)
        body = self.statements(rest)
        self.restore(saved)
        return Block(name, tuple(iter_vars), init, body)

    def axis_binding(self, stmt: ast.Assign, iter_vars: list[IterVar]) -> bool:
        """Read ``v.. = T.axis.remap("SR", [...])`` or ``v = T.axis.spatial(extent, value)``; False if neither."""
        call = stmt.value
        if not isinstance(call, ast.Call):
            return False
        what = dotted(call.func)
        if what == "T.axis.remap":
            kinds_node, loops_node = bind_arguments(self.src, call, ("kinds", "bindings"), "T.axis.remap")
            kinds = str_literal(self.src, kinds_node, "T.axis.remap kinds") if kinds_node else ""
            loops = loops_node.elts if isinstance(loops_node, (ast.List, ast.Tuple)) else []
            targets = stmt.targets[0].elts if isinstance(stmt.targets[0], ast.Tuple) else [stmt.targets[0]]
            if not (len(kinds) == len(loops) == len(targets)) or set(kinds) - {"S", "R"}:
                raise self.error('T.axis.remap takes kinds "S"/"R", one per loop variable and target', call)
            for target, kind, loop in zip(targets, kinds, loops, strict=True):
                if not (isinstance(loop, ast.Name) and loop.id in self.scope):
                    raise self.error(f"T.axis.remap binds loop variables, got {describe(loop)}", loop)
                var, extent = self.scope[loop.id]
                self.bind_axis(target, kind, extent, var, iter_vars)
            return True
        if what in _AXIS_KINDS:
            extent_node, value_node = bind_arguments(self.src, call, ("dom", "binding"), what)
            if extent_node is None or value_node is None or len(stmt.targets) != 1:
                raise self.error(f"{what} takes an extent and a value", call)
            dom: Domain
            if isinstance(extent_node, ast.Tuple) and len(extent_node.elts) == 2:  # a domain [min, end)
                low, high = extent_node.elts
                dom = (self.exprs.extent(low)[0], self.exprs.extent(high)[0])
            else:
                dom = self.exprs.extent(extent_node)[0]
            self.bind_axis(stmt.targets[0], _AXIS_KINDS[what], dom, self.exprs.read(value_node), iter_vars)
            return True
        return False

    def bind_axis(self, target: ast.expr, kind: str, extent: Domain, value: Expr, iter_vars: list[IterVar]) -> None:
        if not isinstance(target, ast.Name):
            raise self.error("a block variable must be a plain name", target)
        if value.dtype not in ("int64", "int32"):
            raise self.error(f"block variable {target.id!r} is bound to a {value.dtype} value", target)
        var = Var(target.id, value.dtype)
        self.scope[var.name] = (var, extent)
        iter_vars.append(IterVar(var, kind, extent, value))


def _is_let(annotation: ast.expr) -> bool:
    return isinstance(annotation, ast.Subscript) and dotted(annotation.value) == "T.let"


def _is_init(stmt: ast.With) -> bool:
    if len(stmt.items) != 1 or stmt.items[0].optional_vars is not None:
        return False
    call = stmt.items[0].context_expr
    return isinstance(call, ast.Call) and dotted(call.func) == "T.init" and not call.args and not call.keywords


def _statement_words(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.Expr):
        return f"the expression {describe(stmt.value)}"
    return f"a {type(stmt).__name__.lower()} statement"
