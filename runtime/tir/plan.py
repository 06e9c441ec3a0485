"""How a TIR loop nest runs: as arrays over its whole iteration space, step by step, or one iteration at a time.

`run._Runner` asks these questions of a nest before running it; each answer
states why running it that way gives what running it iteration by iteration
in loop order gives (see the `run` module docstring).
"""

from __future__ import annotations

from typing import Any, TypeGuard

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


def block_stores(stmt: Stmt | None) -> list[Store] | None:
    """The stores of a block's body or init (a store, or stores one after another; none for no init), or
    None when it holds any other statement."""
    if stmt is None:
        return []
    stmts = stmt.stmts if isinstance(stmt, Seq) else (stmt,)
    stores = [s for s in stmts if isinstance(s, Store)]
    return stores if len(stores) == len(stmts) else None


def steps_over_reductions(block: Block, loops: list[tuple[Var, int]]) -> bool:
    """Whether `block` runs as `run._Runner.reduction_steps`: each loop binds exactly one of its iteration
    variables (``T.axis.remap``), and its init and body are stores."""
    bound = [iv.value for iv in block.iter_vars]
    if sorted(id(v) for v in bound) != sorted(id(v) for v, _ in loops) or len(set(map(id, bound))) != len(bound):
        return False
    return block_stores(block.body) is not None and block_stores(block.init) is not None


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
        if isinstance(s, Seq):
            todo.extend(s.stmts)
        elif isinstance(s, For):
            if any(not isinstance(e, int) and name in variables(e) for e in s.extents):
                return False
            todo.append(s.body)
        elif isinstance(s, Block):
            if block_stores(s.body) is None or block_stores(s.init) is None:
                return False
        elif isinstance(s, IfThenElse):
            todo += [b for b in (s.then, s.otherwise) if b is not None]
        elif isinstance(s, While):
            todo.append(s.body)
        elif not isinstance(s, (Store, Alloc)):
            return False
    return True


def vectorizes(stmt: Stmt) -> TypeGuard[Block | Store]:
    """Whether a loop nest's body `stmt` runs as array operations (see the module docstring): a store, or a
    block of one store (and one store as its init)."""
    if isinstance(stmt, Block):
        body, init = stmt.body, stmt.init
        if not isinstance(body, Store) or (init is not None and not isinstance(init, Store)):
            return False
        if init is not None and reads(init.value, init.buffer.name):
            return False
        store = body
    elif isinstance(stmt, Store):
        store = stmt
    else:
        return False
    return (
        reduction_update(store) is not None
        or not reads(store.value, store.buffer.name)
        and not any(reads(i, store.buffer.name) for i in store.indices)
    )
