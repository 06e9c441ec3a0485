"""How a TIR loop nest runs: as arrays over its whole iteration space, step by step, or one iteration at a time.

`run._Runner` asks these questions of a nest before running it; each answer
states why running it that way gives what running it iteration by iteration
in loop order gives (see the `run` module docstring).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vdplace.ir.tir.nodes import (
    Alloc,
    BinOp,
    Block,
    Expr,
    For,
    IfThenElse,
    Intrin,
    Load,
    Seq,
    Stmt,
    Store,
    Var,
    While,
    loaded,
    variables,
)

# Reduction updates `ufunc.at` applies: the operator, and whether the loaded element may be its right operand.
_UPDATES: dict[str, tuple[np.ufunc, bool]] = {
    "+": (np.add, True), "*": (np.multiply, True), "-": (np.subtract, False), "max": (np.maximum, True),
    "min": (np.minimum, True), "&": (np.bitwise_and, True), "|": (np.bitwise_or, True), "^": (np.bitwise_xor, True),
}  # fmt: skip

# A nest runs as arrays over at most this many of its iterations at a time (`run._Runner.as_arrays`): a
# legalized matmul as one array would hold an index per multiply-add.
MAX_GRID = 1 << 22


def reads(e: Expr, name: str) -> bool:
    """Whether `e` loads from the buffer called `name`."""
    return name in loaded(e)


def reduction_update(store: Store) -> tuple[np.ufunc, Expr] | None:
    """``B[i] = B[i] op e`` with `e` not reading ``B``: the ufunc and `e`; None for any other store, and for
    a bfloat16 ``B``, each partial result of which is rounded (the reduction then runs step by step)."""
    if store.buffer.dtype == "bfloat16":
        return None
    value = store.value
    if type(value) is BinOp:
        op, a, b = value.op, value.a, value.b
    elif type(value) is Intrin and value.name in ("max", "min"):
        op, (a, b) = value.name, value.args
    else:
        return None
    entry = _UPDATES.get(op)
    if entry is None:
        return None
    ufunc, commutes = entry
    this = Load(store.buffer, store.indices)
    name = store.buffer.name
    if a == this and not reads(b, name):
        return ufunc, b
    if commutes and b == this and not reads(a, name):
        return ufunc, a
    return None


def grid_size(loops: list[tuple[Var, int]]) -> int:
    size = 1
    for _, extent in loops:
        size *= extent
    return size


def loop_grid(env: dict[str, Any], loops: list[tuple[Var, int]]) -> dict[str, Any]:
    """`env` with each loop variable an `arange` along its own axis of the loops' grid."""
    grid = dict(env)
    for k, (var, extent) in enumerate(loops):
        grid[var.name] = np.arange(extent, dtype=var.dtype).reshape([-1 if j == k else 1 for j in range(len(loops))])
    return grid


def block_stores(stmt: Stmt | None) -> tuple[Store, ...]:
    """The stores of a block's body (a store, or stores one after another)."""
    return stmt.stmts if type(stmt) is Seq else (stmt,)  # type: ignore[return-value, union-attr]


def steps_over_reductions(block: Block, loops: list[tuple[Var, int]]) -> bool:
    """Whether `block` runs as `run._Runner.reduction_steps`: each loop binds exactly one of its iteration
    variables (``T.axis.remap``), and its init and body are stores."""
    bound = [iv.value for iv in block.iter_vars]
    if sorted(id(v) for v in bound) != sorted(id(v) for v, _ in loops) or len(set(map(id, bound))) != len(bound):
        return False
    bodies = block_stores(block.body) + (block_stores(block.init) if block.init is not None else ())
    return all(type(s) is Store for s in bodies)


def runs_as_lanes(loop: For) -> bool:
    """Whether a ``T.parallel`` loop runs as arrays over its variable (`run._Runner.stmt`'s `lanes`).

    Its iterations are independent (what ``T.parallel`` promises), so they may run side by side when its
    body holds only loops (whose extents do not name its variable), blocks of stores, stores, ``if`` and
    ``while`` (run on the lanes where their condition holds) and local buffers (one element per lane):
    TOPI's scans (cumsum), scatters and binary searches (searchsorted).
    """
    if len(loop.vars) != 1:
        return False
    name = loop.vars[0].name
    todo: list[Stmt] = [loop.body]
    while todo:
        s = todo.pop()
        t = type(s)
        if t is Seq:
            todo.extend(s.stmts)  # type: ignore[union-attr]
        elif t is For:
            if any(type(e) is not int and name in variables(e) for e in s.extents):  # type: ignore[union-attr]
                return False
            todo.append(s.body)  # type: ignore[union-attr]
        elif t is Block:
            inits = block_stores(s.init) if s.init is not None else ()  # type: ignore[union-attr]
            if not all(type(x) is Store for x in block_stores(s.body) + inits):  # type: ignore[union-attr]
                return False
        elif t is IfThenElse:
            todo += [b for b in (s.then, s.otherwise) if b is not None]  # type: ignore[union-attr]
        elif t is While:
            todo.append(s.body)  # type: ignore[union-attr]
        elif t is not Store and t is not Alloc:
            return False
    return True


def vectorizes(stmt: Stmt) -> bool:
    """Whether a loop nest's body `stmt` runs as array operations (see the module docstring)."""
    if type(stmt) is Block:
        if type(stmt.body) is not Store or (stmt.init is not None and type(stmt.init) is not Store):
            return False
        if stmt.init is not None and reads(stmt.init.value, stmt.init.buffer.name):  # type: ignore[union-attr]
            return False
        stmt = stmt.body
    if type(stmt) is not Store:
        return False
    return (
        reduction_update(stmt) is not None
        or not reads(stmt.value, stmt.buffer.name)
        and not any(reads(i, stmt.buffer.name) for i in stmt.indices)
    )
