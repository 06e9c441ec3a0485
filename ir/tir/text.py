"""A `PrimFunc` as TVMScript lines, in the form TVM 0.27 prints and parses (``T.sblock``, ``s_tir=True``).

`prim_func_lines` is the inverse of `parse.parse_prim_func`: parsing the
lines gives back an equal `PrimFunc`.  Expressions get the fewest
parentheses Python's precedence allows.  ``T.reads`` / ``T.writes`` are not
written; TVM's parser computes them.  `PrimFuncNames` gives each function of
a module one printed name.
"""

from __future__ import annotations

import math

from .nodes import (
    Alloc,
    BinOp,
    Block,
    Buffer,
    Cast,
    Const,
    Expr,
    For,
    IfThenElse,
    Intrin,
    Load,
    PrimFunc,
    Scalar,
    Select,
    Seq,
    Stmt,
    Store,
    Unary,
    Var,
    While,
)

INDENT = "    "
_PRECEDENCE = {"or": 1, "and": 2, "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8, "+": 9, "-": 9}
_PRECEDENCE.update({"*": 10, "/": 10, "//": 10, "%": 10})
_PRECEDENCE.update(dict.fromkeys(("<", "<=", ">", ">=", "==", "!="), 4))
_ATOM = 12


class PrimFuncNames:
    """One printed name per `PrimFunc` object of a module: its own name unless another function took it.

    `reserved` are the names of the module's relax functions.  `functions`
    lists the (name, function) pairs in the order they were first met (which
    also keeps each function alive, so its id stays its own).  Functions are
    told apart by identity: hashing one walks its whole body.
    """

    def __init__(self, reserved: set[str]) -> None:
        self.taken = set(reserved)
        self.names: dict[int, str] = {}
        self.functions: list[tuple[str, PrimFunc]] = []

    def name(self, func: PrimFunc) -> str:
        name = self.names.get(id(func))
        if name is None:
            name = base = func.name if func.name.isidentifier() else "prim_func"
            suffix = 0
            while name in self.taken:
                suffix += 1
                name = f"{base}_{suffix}"
            self.taken.add(name)
            self.names[id(func)] = name
            self.functions.append((name, func))
        return name


def prim_func_lines(func: PrimFunc, name: str, indent: str = INDENT) -> list[str]:
    """The decorator, ``def`` line and body of `func` printed as `name`, each line indented by `indent`."""
    flags = [f"{key}=True" for key, on in (("private", func.private), ("s_tir", func.s_tir)) if on]
    lines = [f"{indent}@T.prim_func" + (f"({', '.join(flags)})" if flags else "")]
    inner = indent + INDENT
    params, matched = _parameters(func)
    lines.append(f"{indent}def {name}({', '.join(params)}):")
    if func.attrs:
        lines.append(f"{inner}T.func_attr({literal(dict(func.attrs))})")
    scalars = {p.name for p in func.params if type(p) is Scalar}
    lines.extend(f"{inner}{v.name} = T.{v.dtype}()" for v in func.symbols if v.name not in scalars)
    lines.extend(f"{inner}{line}" for line in matched)
    alloc = "T.sblock_alloc_buffer" if func.s_tir else "T.alloc_buffer"
    lines.extend(f"{inner}{b.name} = {alloc}({_shape(b)}, {literal(b.dtype)})" for b in func.allocs)
    _Writer(lines, "T.sblock" if func.s_tir else "T.block").stmt(func.body, inner, {})
    return lines


def literal(value: object) -> str:
    """`value` as the relax printer writes an attribute (`ir.printer.literals.literal`)."""
    from ..printer.literals import literal as attribute_literal  # ir.printer imports this module: not at its top

    return attribute_literal(value)


def _parameters(func: PrimFunc) -> tuple[list[str], list[str]]:
    """The ``def`` line's parameters, and the ``T.match_buffer`` lines of those printed as handles.

    A buffer with a symbolic dim is a ``T.handle`` matched in the body, after the symbols are
    declared (``n = T.int64()``): the form TVM parses without the file declaring its symbols.
    """
    taken = {p.name for p in func.params} | {v.name for v in func.symbols} | {b.name for b in func.allocs}
    params, matched = [], []
    for p in func.params:
        if isinstance(p, Scalar):
            params.append(f"{p.name}: T.{p.dtype}")
        elif all(type(d) is int for d in p.shape):
            params.append(f"{p.name}: T.Buffer({_shape(p)}, {literal(p.dtype)})")
        else:
            handle = f"var_{p.name}"
            while handle in taken:
                handle += "_"
            taken.add(handle)
            params.append(f"{handle}: T.handle")
            matched.append(f"{p.name} = T.match_buffer({handle}, {_shape(p)}, {literal(p.dtype)})")
    return params, matched


def _shape(buffer: Buffer) -> str:
    dims = [f"T.int64({d})" if isinstance(d, int) else expr(d) for d in buffer.shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def _extent(value: int | Expr, dtype: str) -> str:
    if not isinstance(value, int):
        return expr(value)
    return str(value) if dtype == "int32" else f"T.{dtype}({value})"


class _Writer:
    def __init__(self, lines: list[str], block_word: str) -> None:
        self.lines = lines
        self.block_word = block_word

    def stmt(self, stmt: Stmt, indent: str, loops: dict[Var, int | Expr]) -> None:
        lines = self.lines
        if type(stmt) is Seq:
            for s in stmt.stmts:
                self.stmt(s, indent, loops)
        elif type(stmt) is Store:
            lines.append(f"{indent}{_load(stmt.buffer, stmt.indices)} = {expr(stmt.value)}")
        elif type(stmt) is For:
            names = ", ".join(v.name for v in stmt.vars)
            extents = ", ".join(_extent(e, v.dtype) for v, e in zip(stmt.vars, stmt.extents, strict=True))
            if stmt.kind == "grid":
                lines.append(f"{indent}for {names} in T.grid({extents}):")
            else:
                word = "range" if stmt.kind == "range" else f"T.{stmt.kind}"
                lines.append(f"{indent}for {names} in {word}({extents}):")
            inner = dict(loops)
            inner.update(zip(stmt.vars, stmt.extents, strict=True))
            self.stmt(stmt.body, indent + INDENT, inner)
        elif type(stmt) is Block:
            self.block(stmt, indent, loops)
        elif type(stmt) is IfThenElse:
            lines.append(f"{indent}if {expr(stmt.cond)}:")
            self.stmt(stmt.then, indent + INDENT, loops)
            if stmt.otherwise is not None:
                lines.append(f"{indent}else:")
                self.stmt(stmt.otherwise, indent + INDENT, loops)
        elif type(stmt) is While:
            lines.append(f"{indent}while {expr(stmt.cond)}:")
            self.stmt(stmt.body, indent + INDENT, loops)
        elif type(stmt) is Alloc:
            b = stmt.buffer
            lines.append(f"{indent}{b.name} = T.alloc_local({_shape(b)}, {literal(b.dtype)})")
        else:
            raise TypeError(f"not a TIR statement: {stmt!r}")

    def block(self, block: Block, indent: str, loops: dict[Var, int | Expr]) -> None:
        lines = self.lines
        lines.append(f"{indent}with {self.block_word}({literal(block.name)}):")
        inner = indent + INDENT
        ivs = block.iter_vars
        # The loop variables the iteration variables are bound to, when each is bound to one over its whole range.
        remapped = [iv.value.name for iv in ivs if type(iv.value) is Var and loops.get(iv.value) == iv.extent]
        if ivs and len(remapped) == len(ivs):
            targets = ", ".join(iv.var.name for iv in ivs)
            kinds = "".join(iv.kind for iv in ivs)
            lines.append(f'{inner}{targets} = T.axis.remap("{kinds}", [{", ".join(remapped)}])')
        else:
            for iv in ivs:
                word = "spatial" if iv.kind == "S" else "reduce"
                dom = iv.extent  # an extent, or a (min, end) domain
                if isinstance(dom, tuple):
                    text = "(" + ", ".join(_extent(d, iv.var.dtype) for d in dom) + ")"
                else:
                    text = _extent(dom, iv.var.dtype)
                lines.append(f"{inner}{iv.var.name} = T.axis.{word}({text}, {expr(iv.value)})")
        if block.init is not None:
            lines.append(f"{inner}with T.init():")
            self.stmt(block.init, inner + INDENT, loops)
        self.stmt(block.body, inner, loops)


def _load(buffer: Buffer, indices: tuple[Expr, ...]) -> str:
    if not indices:
        return f"{buffer.name}[()]"
    return f"{buffer.name}[{', '.join(expr(i) for i in indices)}]"


def expr(e: Expr) -> str:
    """`e` as TVMScript."""
    return _expr(e)[0]


def _wrap(e: Expr, least: int) -> str:
    text, prec = _expr(e)
    return text if prec >= least else f"({text})"


def _expr(e: Expr) -> tuple[str, int]:
    """`e`'s text and the precedence of its outermost operator (`_ATOM` for a call, a name or a load)."""
    if isinstance(e, Const):
        return _const(e)
    if isinstance(e, Var):
        return e.name, _ATOM
    if isinstance(e, Load):
        return _load(e.buffer, e.indices), _ATOM
    if isinstance(e, BinOp) and e.op == "/" and not e.dtype.startswith("float"):
        return f"T.Div({expr(e.a)}, {expr(e.b)})", _ATOM
    if isinstance(e, BinOp):
        prec = _PRECEDENCE[e.op]
        right = prec + 1  # left-associative: a right operand of the same level needs brackets
        left = prec + 1 if prec == 4 else prec  # comparisons do not chain here
        return f"{_wrap(e.a, left)} {e.op} {_wrap(e.b, right)}", prec
    if isinstance(e, Unary):
        if e.op == "not":
            return f"not {_wrap(e.a, 3)}", 3
        return f"{e.op}{_wrap(e.a, 11)}", 11
    if isinstance(e, Cast):
        return f"T.Cast({literal(e.dtype)}, {expr(e.value)})", _ATOM
    if isinstance(e, Select):
        word = "if_then_else" if e.lazy else "Select"
        return f"T.{word}({expr(e.cond)}, {expr(e.a)}, {expr(e.b)})", _ATOM
    if isinstance(e, Intrin):
        if not e.args:
            return f"T.{e.name}({literal(e.dtype)})", _ATOM
        return f"T.{e.name}({', '.join(expr(a) for a in e.args)})", _ATOM
    raise TypeError(f"not a TIR expression: {e!r}")


def _const(c: Const) -> tuple[str, int]:
    value = c.value
    if c.dtype == "bool":
        return repr(bool(value)), _ATOM
    if c.dtype == "int32":
        return repr(int(value)), (11 if value < 0 else _ATOM)
    if isinstance(value, float) and not math.isfinite(value):
        word = "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
        return f'T.{c.dtype}("{word}")', _ATOM
    return f"T.{c.dtype}({value!r})", _ATOM
