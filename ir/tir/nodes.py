"""The TIR subset vdplace reads: buffers, scalar expressions, loop nests and blocks, and `PrimFunc`.

This is the part of TVM's tensor-level IR that its TOPI compute definitions
print as ``@T.prim_func`` functions (what TVM's ONNX frontend emits for Clip
with tensor bounds, Einsum, Tile, Pad modes, Resize, and what LegalizeOps
makes of every op): loop nests, blocks with ``T.axis`` bindings and an
optional ``T.init``, buffer loads and stores, ``if`` / ``while``, local
buffers, arithmetic and math intrinsics, static or symbolic shapes.  Every
node is an immutable value compared field by field, so a `PrimFunc` can sit
in a relax call's attributes (``R.call_tir``) and two parses of one text
compare equal.

Invariants: every expression carries its dtype (``"int64"``, ``"float32"``,
``"bool"``...), set by the parser, which makes both operands of a binary
operator share one dtype (a bare Python number takes its partner's dtype, as
TVM's parser does).  A block's iteration variables and a loop's variable are
bound before use; a buffer is a parameter of its function, one of its
``T.alloc_buffer`` buffers or an `Alloc` statement's.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Buffer:
    """A named buffer: a function parameter or an intermediate ``T.alloc_buffer``.

    A dim is an int or an integer expression of the function's symbols
    (``n``, ``n * T.int64(2)``), bound when the function runs: a dim that is
    a bare symbol takes the length of the array passed for the buffer.
    """

    name: str
    shape: tuple[int | Expr, ...]
    dtype: str


@dataclass(frozen=True, slots=True)
class Scalar:
    """A scalar parameter (``n: T.int64``): a symbol the call passes as a prim value."""

    name: str
    dtype: str


# -- expressions ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Const:
    """A scalar constant of `dtype` (``T.int64(4)``, ``T.float32(0.5)``, a bare ``1`` is int32)."""

    value: int | float | bool
    dtype: str


@dataclass(frozen=True, slots=True)
class Var:
    """A loop variable or a block iteration variable."""

    name: str
    dtype: str


@dataclass(frozen=True, slots=True)
class Load:
    """``buffer[indices]`` (no index for a 0-d buffer: ``buffer[()]``)."""

    buffer: Buffer
    indices: tuple[Expr, ...]

    @property
    def dtype(self) -> str:
        return self.buffer.dtype


# Binary operators by their Python spelling; comparisons and ``and``/``or`` give bool.
ARITHMETIC = ("+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>")
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
LOGICAL = ("and", "or")


@dataclass(frozen=True, slots=True)
class BinOp:
    """``a op b``; `dtype` is the operands' for arithmetic, bool for comparisons and logic."""

    op: str
    a: Expr
    b: Expr
    dtype: str


@dataclass(frozen=True, slots=True)
class Unary:
    """``-a``, ``not a`` or ``~a`` (`op` is ``"-"``, ``"not"`` or ``"~"``)."""

    op: str
    a: Expr
    dtype: str


@dataclass(frozen=True, slots=True)
class Cast:
    """``T.Cast(dtype, value)``."""

    dtype: str
    value: Expr


@dataclass(frozen=True, slots=True)
class Select:
    """``T.if_then_else(cond, a, b)`` (`lazy`: only the chosen side is evaluated) or ``T.Select`` (both are)."""

    cond: Expr
    a: Expr
    b: Expr
    lazy: bool

    @property
    def dtype(self) -> str:
        return self.a.dtype


@dataclass(frozen=True, slots=True)
class Intrin:
    """A call of a ``T.<name>`` intrinsic: math (``exp``, ``floor``...), ``max``/``min``,
    ``floordiv``-style integer ops, ``max_value(dtype)``; `dtype` is its result's."""

    name: str
    args: tuple[Expr, ...]
    dtype: str


Expr = Const | Var | Load | BinOp | Unary | Cast | Select | Intrin
# What a variable ranges over: ``range(extent)`` (an int or an expression of symbols), or ``[min, end)``.
Domain = int | Expr | tuple[int | Expr, int | Expr]


def operands(e: Expr) -> tuple[Expr, ...]:
    """The expressions directly inside `e` (a load's indices, an operator's operands)."""
    if isinstance(e, BinOp):
        return (e.a, e.b)
    if isinstance(e, Load):
        return e.indices
    if isinstance(e, Unary):
        return (e.a,)
    if isinstance(e, Cast):
        return (e.value,)
    if isinstance(e, Select):
        return (e.cond, e.a, e.b)
    if isinstance(e, Intrin):
        return e.args
    return ()


def variables(e: Expr) -> set[str]:
    """The names of the variables (loop, block and symbol) `e` reads."""
    names: set[str] = set()
    todo = [e]
    while todo:
        x = todo.pop()
        if type(x) is Var:
            names.add(x.name)
        todo.extend(operands(x))
    return names


def loaded(e: Expr) -> frozenset[str]:
    """The names of the buffers `e` loads from."""
    names: set[str] = set()
    todo = [e]
    while todo:
        x = todo.pop()
        if type(x) is Load:
            names.add(x.buffer.name)
        todo.extend(operands(x))
    return frozenset(names)


# -- statements -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Store:
    """``buffer[indices] = value``."""

    buffer: Buffer
    indices: tuple[Expr, ...]
    value: Expr


@dataclass(frozen=True, slots=True)
class IterVar:
    """A block iteration variable: spatial (``"S"``) or reduction (``"R"``), over ``range(extent)``
    (or a ``(min, end)`` domain), bound to `value`, an expression of the enclosing loops' variables."""

    var: Var
    kind: str
    extent: Domain
    value: Expr


@dataclass(frozen=True, slots=True)
class Block:
    """``with T.sblock(name):``: iteration variables, an optional ``T.init()`` body, then `body`."""

    name: str
    iter_vars: tuple[IterVar, ...]
    init: Stmt | None
    body: Stmt


@dataclass(frozen=True, slots=True)
class For:
    """Loops over ``range(extent)`` for each of `vars`, outermost first (an extent: an int or an
    expression of the function's symbols).

    `kind` is how the loops were written: ``"grid"`` (``for a, b in
    T.grid(...)``: any number of variables) or, for a single variable,
    ``"range"``, ``"serial"``, ``"parallel"``, ``"vectorized"`` or ``"unroll"``.
    They all run in order here.
    """

    vars: tuple[Var, ...]
    extents: tuple[int | Expr, ...]
    kind: str
    body: Stmt


@dataclass(frozen=True, slots=True)
class Seq:
    """Statements run one after another."""

    stmts: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class IfThenElse:
    """``if cond: then`` with an optional ``else: otherwise``."""

    cond: Expr
    then: Stmt
    otherwise: Stmt | None


@dataclass(frozen=True, slots=True)
class While:
    """``while cond: body``."""

    cond: Expr
    body: Stmt


@dataclass(frozen=True, slots=True)
class Alloc:
    """``name = T.alloc_local(shape, dtype)`` inside the body: a fresh zeroed buffer each time it runs."""

    buffer: Buffer


Stmt = Store | Block | For | Seq | IfThenElse | While | Alloc


@dataclass(frozen=True, slots=True)
class PrimFunc:
    """A TIR function in destination-passing style: its last `num_outputs` params are written.

    `params` are buffers (``T.Buffer``, or a ``T.handle`` matched to one with
    ``T.match_buffer``) and `Scalar` symbols; `symbols` are every symbol the
    function names (the scalars among them).
    `name` is the function's name in its text; it is not part of the value
    (two functions with equal bodies compare equal whatever their names), so
    a printer that must rename one to keep names unique loses nothing.
    `attrs` are the ``T.func_attr`` items, `allocs` the intermediate
    buffers, `private` and `s_tir` the decorator's flags.
    """

    params: tuple[Buffer | Scalar, ...]
    allocs: tuple[Buffer, ...]
    body: Stmt
    attrs: tuple[tuple[str, object], ...] = ()
    symbols: tuple[Var, ...] = ()
    private: bool = True
    s_tir: bool = True
    name: str = field(default="main", compare=False)

    def __repr__(self) -> str:  # the body can be thousands of nodes: messages name the function only
        params = ", ".join(
            f"{b.name}: {b.dtype}" + (f"{[d if type(d) is int else '?' for d in b.shape]}" if type(b) is Buffer else "")
            for b in self.params
        )
        return f"PrimFunc({self.name}({params}))"
