"""Running a `PrimFunc` on NumPy arrays: what ``R.call_tir`` computes.

`run_prim_func` runs the function's statements in order on its parameter
buffers (inputs, then the outputs it writes) and its own zeroed
``T.alloc_buffer`` buffers.  A loop nest whose body is one block (or one
store) is run as array operations over the whole iteration space at once, which
gives the result of running it iteration by iteration because:

* a store that does not read the buffer it writes depends on no other
  iteration (what earlier nests wrote is complete);
* a reduction update ``B[i] = B[i] op e`` (op ``+ - * max min & | ^``, ``e``
  not reading ``B``) is applied with ``ufunc.at`` in row-major iteration
  order, the order of the loops, after the block's ``T.init`` store has run
  where every reduction variable is 0, the only iterations where it runs.

Any other nest (several blocks in one loop, a store reading other elements
of the buffer it writes: a scan) runs its outermost loop in Python, one
iteration at a time, and tries the rest again.  ``T.if_then_else`` over
arrays evaluates both sides and keeps the chosen one.

A load outside its buffer is undefined in TVM, and TOPI's own code does it
where the value is then discarded (its slice_scatter gathers from every row
before masking, ``T.if_then_else`` sides not taken): here such a load reads
NaN from a float buffer and the nearest element from any other, so a
discarded value changes nothing and a float one that is used shows.  A store
outside its buffer is an `IRRuntimeError` naming the function and the
buffer.  Arithmetic follows the dtypes: float32 stays float32, integer ``/``
truncates, ``//`` and ``%`` floor, casts to integers truncate.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from vdplace.ir.dtype import is_float, to_numpy
from vdplace.ir.errors import IRError
from vdplace.ir.ops.math import erf
from vdplace.ir.ops.special import round_bfloat16
from vdplace.ir.tir.nodes import (
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
    variables,
)

from .plan import (
    MAX_GRID,
    block_stores,
    grid_size,
    loop_grid,
    reduction_update,
    runs_as_lanes,
    steps_over_reductions,
    vectorizes,
)

_MAX_WHILE = 1 << 20  # iterations one run of a while loop may take before it is taken for a hang
# What one run may take before it is refused rather than left to run for hours: loop iterations run one at a
# time in Python (each running its body, or a step of arrays), and iterations of one nest run as arrays.
_MAX_STEPS = 1 << 24
_MAX_ARRAY_ITERATIONS = 1 << 32


class IRRuntimeError(IRError):
    """A TIR function read outside a buffer, or was passed arrays its shapes do not fit."""


def run_prim_func(func: PrimFunc, args: list[Any], *, vectorize: bool = True) -> list[np.ndarray]:
    """Run `func` on `args`, the values of its first parameters (arrays for buffers, integers for
    scalars; copied, never written); the parameters after them are its outputs, allocated zeroed
    and returned.

    A symbol is bound by a scalar argument or by the length of an argument's axis whose dim is
    that bare symbol; every dim is then checked against its array.  With `vectorize` False every
    loop runs one iteration at a time (slow; what the array form must equal).
    """
    env: dict[str, Any] = {}
    inputs = func.params[: len(args)]
    for p, a in zip(inputs, args, strict=True):
        if type(p) is Scalar:
            env[p.name] = np.dtype(p.dtype).type(int(a))
    buffers: dict[str, np.ndarray] = {}
    for p, a in zip(inputs, args, strict=True):
        if type(p) is Buffer:
            array = buffers[p.name] = np.array(a, dtype=to_numpy(p.dtype), order="C")
            if array.ndim != len(p.shape):
                raise IRRuntimeError(
                    f"TIR function {func.name!r}: buffer {p.name!r} has {len(p.shape)} dims, the argument {array.ndim}"
                )
            for dim, length in zip(p.shape, array.shape, strict=True):
                if type(dim) is Var and dim.name not in env:
                    env[dim.name] = np.dtype(dim.dtype).type(length)
    runner = _Runner(func.name, buffers, vectorize)
    for p in inputs:
        if type(p) is Buffer and runner.shape(p, env) != buffers[p.name].shape:
            raise IRRuntimeError(
                f"TIR function {func.name!r}: buffer {p.name!r} has shape "
                f"{list(runner.shape(p, env))}, the argument {list(buffers[p.name].shape)}"
            )
    outputs = []
    for p in func.params[len(args) :] + func.allocs:
        if type(p) is not Buffer:
            raise IRRuntimeError(f"TIR function {func.name!r}: no argument for scalar {p.name!r}")
        buffers[p.name] = np.zeros(runner.shape(p, env), to_numpy(p.dtype))
        outputs.append(buffers[p.name])
    with np.errstate(all="ignore"):
        runner.stmt(func.body, env)
    return outputs[: len(func.params) - len(args)]


def _truncdiv(a: Any, b: Any) -> Any:
    q = np.floor_divide(a, b)
    return q + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)))


def _truncmod(a: Any, b: Any) -> Any:
    return a - _truncdiv(a, b) * b


def _erf(x: Any) -> Any:
    return erf(np.asarray(x))  # the op library's erf: TVM's results without SciPy


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": np.add, "-": np.subtract, "*": np.multiply, "//": np.floor_divide, "%": np.remainder,
    "&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor, "<<": np.left_shift, ">>": np.right_shift,
    "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal,
    "!=": np.not_equal, "and": np.logical_and, "or": np.logical_or,
}  # fmt: skip
_INTRINSICS: dict[str, Callable[..., Any]] = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "floor": np.floor, "ceil": np.ceil, "round": np.rint,
    "nearbyint": np.rint, "trunc": np.trunc, "fabs": np.abs, "abs": np.abs, "bitwise_not": np.invert,
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "max": np.maximum, "min": np.minimum,
    "pow": np.power, "fmod": np.fmod, "atan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign,
    "floordiv": np.floor_divide, "floormod": np.remainder, "truncdiv": _truncdiv, "truncmod": _truncmod,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "shift_left": np.left_shift, "shift_right": np.right_shift, "erf": _erf, "likely": lambda x: x,
}  # fmt: skip


def _scalar(dtype: str, value: Any) -> Any:
    return to_numpy(dtype).type(value)


def _bfloat16(x: Any) -> Any:
    """`x` (float32) rounded to bfloat16's precision (the op library's rounding, as R.astype rounds): values of a
    bfloat16 expression are kept so."""
    return round_bfloat16(x) if np.ndim(x) else round_bfloat16(np.asarray(x))[()]


def _stores(stmt: Stmt | None) -> list[Store]:
    """The stores of the body or init of a block run over arrays, which holds no other statement
    (`plan.vectorizes`, `plan.steps_over_reductions`)."""
    stores = block_stores(stmt)
    assert stores is not None
    return stores


class Lanes:
    """The iterations of a ``T.parallel`` loop run side by side: their `shape`, the `mask` of those a
    statement runs for (an ``if`` or ``while`` narrows it), and each lane's `index` (its loop variable)."""

    __slots__ = ("shape", "mask", "index")

    def __init__(self, shape: tuple[int, ...], mask: np.ndarray, index: np.ndarray) -> None:
        self.shape = shape
        self.mask = mask
        self.index = index


class _Runner:
    def __init__(self, fname: str, buffers: dict[str, np.ndarray], vectorize: bool) -> None:
        self.fname = fname
        self.buffers = buffers
        self.vectorize = vectorize
        self.steps = 0  # loop iterations run one at a time so far (`tick`)
        self.lane_local: dict[str, np.ndarray] = {}  # a parallel loop's local buffers: name -> the lane index

    def shape(self, buffer: Buffer, env: dict[str, Any]) -> tuple[int, ...]:
        """`buffer`'s shape with its symbols' values from `env`."""
        return tuple(d if isinstance(d, int) else self.extent(d, env) for d in buffer.shape)

    def extent(self, e: Expr, env: dict[str, Any]) -> int:
        try:
            return int(self.expr(e, env))
        except KeyError as err:
            raise IRRuntimeError(
                f"TIR function {self.fname!r}: symbol {err.args[0]!r} is bound by no argument"
            ) from None

    # -- statements ------------------------------------------------------------------
    def stmt(self, stmt: Stmt, env: dict[str, Any], lanes: Lanes | None = None) -> None:
        """Run `stmt`; with `lanes`, inside a parallel loop run as arrays over its lanes (`Lanes`)."""
        if isinstance(stmt, Seq):
            for s in stmt.stmts:
                self.stmt(s, env, lanes)
        elif isinstance(stmt, For):
            self.loop(stmt, env, lanes)
        elif isinstance(stmt, (Block, Store)):
            shape, mask = (None, None) if lanes is None else (lanes.shape, lanes.mask)
            if isinstance(stmt, Block):
                self.block(stmt, env, shape, mask)
            else:
                self.store(stmt, env, shape, mask)
        elif lanes is not None:
            self.lane_stmt(stmt, env, lanes)
        elif isinstance(stmt, IfThenElse):
            if self.expr(stmt.cond, env):
                self.stmt(stmt.then, env)
            elif stmt.otherwise is not None:
                self.stmt(stmt.otherwise, env)
        elif isinstance(stmt, While):
            for _ in range(_MAX_WHILE):
                if not self.expr(stmt.cond, env):
                    return
                self.stmt(stmt.body, env)
            raise IRRuntimeError(f"TIR function {self.fname!r}: a while loop ran {_MAX_WHILE} times without ending")
        else:  # Alloc
            b = stmt.buffer
            self.buffers[b.name] = np.zeros(self.shape(b, env), to_numpy(b.dtype))

    def lane_stmt(self, stmt: IfThenElse | While | Alloc, env: dict[str, Any], lanes: Lanes) -> None:
        """An ``if``, ``while`` or ``T.alloc_local`` of a parallel loop's body, for every lane of `lanes` at once.

        An ``if`` runs its branches on the lanes where its condition holds or not; a ``while`` runs its
        body on the lanes where its condition still holds until it holds on none (each such step is
        one `tick`); a local buffer gets an element per lane, indexed by the lane (`lane_local`).
        """
        if isinstance(stmt, IfThenElse):
            cond = np.broadcast_to(self.expr(stmt.cond, env), lanes.shape)
            for branch, where in ((stmt.then, cond), (stmt.otherwise, ~cond)):
                if branch is not None and np.any(active := lanes.mask & where):
                    self.stmt(branch, env, Lanes(lanes.shape, active, lanes.index))
        elif isinstance(stmt, While):
            for _ in range(_MAX_WHILE):
                active = lanes.mask & np.broadcast_to(self.expr(stmt.cond, env), lanes.shape)
                if not np.any(active):
                    return
                self.tick(1)
                self.stmt(stmt.body, env, Lanes(lanes.shape, active, lanes.index))
            raise IRRuntimeError(f"TIR function {self.fname!r}: a while loop ran {_MAX_WHILE} times without ending")
        else:  # Alloc
            b = stmt.buffer
            self.buffers[b.name] = np.zeros((*lanes.shape, *self.shape(b, env)), to_numpy(b.dtype))
            self.lane_local[b.name] = lanes.index

    def loop(self, loop: For, env: dict[str, Any], lanes: Lanes | None = None) -> None:
        if lanes is not None:  # inside a parallel loop run as arrays: this one runs in order
            self.in_order(loop, env, lanes)
            return
        if self.vectorize and loop.kind == "parallel" and runs_as_lanes(loop):
            (var,), (extent,) = loop.vars, loop.extents
            n = extent if isinstance(extent, int) else self.extent(extent, env)
            index = np.arange(n, dtype=var.dtype)
            outer, self.lane_local = self.lane_local, {}
            self.stmt(loop.body, {**env, var.name: index}, Lanes((n,), np.ones(n, bool), index))
            for name in self.lane_local:
                del self.buffers[name]
            self.lane_local = outer
            return
        loops: list[tuple[Var, int]] = []
        inner: Stmt = loop
        while type(inner) is For:
            names = {v.name for v, _ in loops}
            if loops and any(not isinstance(e, int) and names & variables(e) for e in inner.extents):
                break  # a loop whose extent an enclosing one's variable sets: the body of that one
            extents = [e if isinstance(e, int) else self.extent(e, env) for e in inner.extents]
            loops += zip(inner.vars, extents, strict=True)
            inner = inner.body
        if self.vectorize and vectorizes(inner):
            self.as_arrays(inner, loops, env)
            return
        if self.vectorize and type(inner) is Block and steps_over_reductions(inner, loops):
            self.reduction_steps(inner, loops, env)
            return
        (var, extent), rest = loops[0], loops[1:]
        body = inner
        for v, e in reversed(rest):
            body = For((v,), (e,), "serial", body)
        self.tick(extent)
        for i in range(extent):
            self.stmt(body, {**env, var.name: _scalar(var.dtype, i)})

    def tick(self, steps: int) -> None:
        """Count `steps` loop iterations about to run one at a time; refuse a run that would take too long."""
        self.steps += steps
        if self.steps > _MAX_STEPS:
            raise IRRuntimeError(
                f"TIR function {self.fname!r}: over {_MAX_STEPS} loop iterations one at a time, "
                "more than the NumPy runner runs"
            )

    def as_arrays(self, inner: Block | Store, loops: list[tuple[Var, int]], env: dict[str, Any]) -> None:
        """Run the nest of `loops` around `inner` as arrays over its iterations, `MAX_GRID` at most at a time.

        A bigger nest runs its outermost loop in chunks, in order (a reduction's ``ufunc.at`` keeps loop
        order across chunks, and an element's ``T.init`` runs in the chunk of its first reduction step,
        before the steps after it); past `MAX_GRID` without that loop, one of its iterations at a time.
        """
        if grid_size(loops) > _MAX_ARRAY_ITERATIONS:
            raise IRRuntimeError(
                f"TIR function {self.fname!r}: a loop nest of {grid_size(loops)} iterations, "
                f"more than the NumPy runner runs ({_MAX_ARRAY_ITERATIONS})"
            )
        (var, extent), rest = loops[0], loops[1:]
        inner_size = grid_size(rest)
        if inner_size > MAX_GRID:
            self.tick(extent)
            for i in range(extent):
                self.as_arrays(inner, rest, {**env, var.name: _scalar(var.dtype, i)})
            return
        chunk = max(1, MAX_GRID // max(inner_size, 1))
        for start in range(0, extent, chunk):
            stop = min(start + chunk, extent)
            grid = loop_grid(env, [(var, stop - start), *rest])
            grid[var.name] = grid[var.name] + _scalar(var.dtype, start)
            shape = (stop - start, *(e for _, e in rest))
            if isinstance(inner, Block):
                self.block(inner, grid, shape)
            else:
                self.store(inner, grid, shape)

    def in_order(self, loop: For, env: dict[str, Any], lanes: Lanes) -> None:
        """`loop`'s iterations one after another, its body over the parallel loop's `lanes`."""
        (var, extent), *rest = zip(loop.vars, loop.extents, strict=True)
        body = (
            loop.body if not rest else For(tuple(v for v, _ in rest), tuple(e for _, e in rest), loop.kind, loop.body)
        )
        n = extent if isinstance(extent, int) else self.extent(extent, env)
        self.tick(n)
        for i in range(n):
            self.stmt(body, {**env, var.name: _scalar(var.dtype, i)}, lanes)

    def reduction_steps(self, block: Block, loops: list[tuple[Var, int]], env: dict[str, Any]) -> None:
        """Run `block` over its spatial loops as arrays, one step of its reduction loops at a time.

        A block's spatial instances are independent and each writes only its own elements, so running
        all of them at each reduction step, the steps in loop order, does what the loops do.
        """
        kinds = {iv.value.name: iv.kind for iv in block.iter_vars if isinstance(iv.value, Var)}  # all are
        spatial = [(v, e) for v, e in loops if kinds[v.name] == "S"]
        reduction = [(v, e) for v, e in loops if kinds[v.name] == "R"]
        shape = tuple(e for _, e in spatial)
        grid = loop_grid(env, spatial)
        self.tick(grid_size(reduction))
        for point in itertools.product(*(range(e) for _, e in reduction)):
            step = dict(grid)
            for (v, _), i in zip(reduction, point, strict=True):
                step[v.name] = _scalar(v.dtype, i)
            self.block(block, step, shape)

    def block(self, block: Block, env: dict[str, Any], shape: tuple[int, ...] | None, active: Any = None) -> None:
        """Run `block` once, or (with `shape`) over arrays of that shape, where `active` (all when None)."""
        env = dict(env)
        for iv in block.iter_vars:
            env[iv.var.name] = self.expr(iv.value, env)
        if block.init is not None:
            first: Any = True  # where every reduction variable is 0
            for iv in block.iter_vars:
                if iv.kind == "R":
                    first = np.logical_and(first, env[iv.var.name] == 0)
            if shape is not None:
                mask = np.broadcast_to(first, shape) if active is None else active & first
                for init in _stores(block.init):
                    self.store(init, env, shape, mask)
            elif first:
                self.stmt(block.init, env)
        if shape is None:
            self.stmt(block.body, env)
        else:
            for store in _stores(block.body):
                self.store(store, env, shape, active)

    def store(self, store: Store, env: dict[str, Any], shape: tuple[int, ...] | None, mask: Any = None) -> None:
        target = self.buffers[store.buffer.name]
        update = reduction_update(store) if shape is not None else None
        value_expr = update[1] if update is not None else store.value
        indices = [self.expr(i, env) for i in store.indices]
        if store.buffer.name in self.lane_local:
            indices.insert(0, self.lane_local[store.buffer.name])
        value = self.expr(value_expr, env)
        if store.buffer.dtype == "bfloat16":
            value = _bfloat16(value)
        self.check(store.buffer.name, target.shape, indices)
        if shape is None:
            target[tuple(int(i) for i in indices)] = value
            return
        indices = [np.broadcast_to(i, shape) for i in indices]
        value = np.broadcast_to(value, shape)
        if mask is not None:
            indices, value = [i[mask] for i in indices], value[mask]
        if update is not None:
            flat = np.ravel_multi_index(indices, target.shape) if indices else np.zeros(value.shape, np.intp)
            update[0].at(target.reshape(-1), flat.reshape(-1), value.reshape(-1).astype(target.dtype, copy=False))
        elif indices:
            target[tuple(indices)] = value
        elif value.size:  # a 0-d buffer written at every iteration keeps the last value
            target[()] = value.reshape(-1)[-1]

    def check(self, name: str, dims: tuple[int, ...], indices: list[Any]) -> None:
        for axis, (index, dim) in enumerate(zip(indices, dims, strict=True)):
            if np.any(index < 0) or np.any(index >= dim):
                bad = np.asarray(index)
                bad = bad[(bad < 0) | (bad >= dim)].reshape(-1)[0]
                where = f"buffer {name!r} (axis {axis} of size {dim})"
                raise IRRuntimeError(f"TIR function {self.fname!r}: index {int(bad)} is outside {where}")

    # -- expressions -----------------------------------------------------------------
    def expr(self, e: Expr, env: dict[str, Any]) -> Any:
        """`e`'s value: a NumPy scalar, or an array over the loops' grid.

        bfloat16 values are held as float32 and computed in it, as TVM's bfloat16 legalization does:
        rounded where they are cast to bfloat16 and where they are stored.
        """
        if isinstance(e, Const):
            return _scalar(e.dtype, e.value)
        if isinstance(e, Var):
            return env[e.name]
        if isinstance(e, Load):
            array = self.buffers[e.buffer.name]
            return self.load(e.buffer.name, array, [self.expr(i, env) for i in e.indices])
        if isinstance(e, BinOp):
            a, b = self.expr(e.a, env), self.expr(e.b, env)
            if e.op == "/":
                return np.true_divide(a, b).astype(to_numpy(e.dtype)) if is_float(e.dtype) else _truncdiv(a, b)
            return _BINARY[e.op](a, b)
        if isinstance(e, Unary):
            a = self.expr(e.a, env)
            return np.negative(a) if e.op == "-" else (np.logical_not(a) if e.op == "not" else np.invert(a))
        if isinstance(e, Cast):
            value = np.asarray(self.expr(e.value, env)).astype(to_numpy(e.dtype))
            return _bfloat16(value) if e.dtype == "bfloat16" else value
        if isinstance(e, Select):
            return self.select(e, env)
        return self.intrinsic(e, env)

    def load(self, name: str, array: np.ndarray, indices: list[Any]) -> Any:
        """``array[indices]``; an element outside the array reads NaN (a float buffer) or the nearest one."""
        if name in self.lane_local:
            indices.insert(0, self.lane_local[name])
        outside: Any = None
        for k, (i, d) in enumerate(zip(indices, array.shape, strict=True)):
            bad = (i < 0) | (i >= d)
            if np.any(bad):
                if d == 0:
                    raise IRRuntimeError(f"TIR function {self.fname!r}: buffer {name!r} has no element to read")
                outside = bad if outside is None else outside | bad
                indices[k] = np.clip(i, 0, d - 1)
        value = array[tuple(indices)]
        if outside is not None and array.dtype.kind == "f":
            value = np.where(outside, np.asarray(np.nan, array.dtype), value)
        return value

    def select(self, e: Select, env: dict[str, Any]) -> Any:
        cond = self.expr(e.cond, env)
        if np.ndim(cond) == 0 and e.lazy:  # one iteration: only the chosen side runs, as in TVM
            return self.expr(e.a if cond else e.b, env)
        return np.where(cond, self.expr(e.a, env), self.expr(e.b, env))

    def intrinsic(self, e: Intrin, env: dict[str, Any]) -> Any:
        if not e.args:
            dtype = to_numpy(e.dtype)
            if e.name == "infinity":
                return _scalar(e.dtype, np.inf)
            info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
            return _scalar(e.dtype, info.max if e.name == "max_value" else info.min)
        args = [self.expr(a, env) for a in e.args]
        if e.name == "sigmoid":
            one = _scalar(e.dtype, 1)
            return one / (one + np.exp(-args[0]))
        if e.name == "rsqrt":
            return _scalar(e.dtype, 1) / np.sqrt(args[0])
        if e.name == "exp10":
            return np.power(_scalar(e.dtype, 10), args[0])
        return _INTRINSICS[e.name](*args)
