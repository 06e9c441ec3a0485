"""Random inputs for a function's parameters (what ``vdplace run --inputs random`` uses).

Symbolic dimensions get a small size, `SYMBOLIC_SIZE` unless `dims` names
one (one size per symbol, so shapes that share ``n`` agree; `input_dims`
says which sizes a run uses, for placement to weigh its bytes at those
sizes); floats are standard normal; integers are small and
positive (1..3: valid as divisors, exponents and indices into small axes);
bools are fair coin flips.

Each array is made in its parameter's dtype, filled a chunk at a time (the
values are those of one NumPy draw of the whole array, so a seed gives the
same inputs as ever), after its size is checked against `memory_limit`
(default: the host's available memory): a dim of 10**18 is a
`DeviceMemoryError` naming the parameter, never a float64 array in between
or NumPy's "array is too big".

``microbatches=K`` draws a batch of K micro-batches (`runtime.batch`): the
runtime inputs (the first ``num_input`` parameters; without ``num_input``,
the first parameter) get K times their leading axis, every other parameter
is drawn once.  The first micro-batch, and every weight and flag, are the
values a draw with K = 1 gives (the other micro-batches are drawn after
them), so micro-batch 0 of the batch is the unbatched run's input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vdplace.ir.dtype import is_float, to_numpy
from vdplace.ir.module import IRModule
from vdplace.ir.sizes import DEFAULT_DIM
from vdplace.ir.struct_info import PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo

from . import shapes
from .batch import declared_num_input, drawn_batched
from .errors import BatchError, InputError
from .memory import AVAILABLE, check_fits, resolve_limit

SYMBOLIC_SIZE = DEFAULT_DIM  # the size placement gives a symbol nothing sizes, too
_CHUNK = 1 << 20  # elements drawn at a time


def random_inputs(
    module: IRModule,
    entry: str = "main",
    rng: np.random.Generator | None = None,
    symbolic_size: int = SYMBOLIC_SIZE,
    memory_limit: int | str | None = AVAILABLE,
    microbatches: int = 1,
    dims: Mapping[str, int] | None = None,
) -> list[Any]:
    """One value per parameter of `entry`: NumPy arrays, tuples of them, shapes or scalars.

    A symbolic dim named in `dims` takes that size, any other `symbolic_size`.
    An array over `memory_limit` bytes (`runtime.memory`) raises `DeviceMemoryError` before it is made.
    ``microbatches=K``: a batch of K micro-batches (module docstring); a runtime
    input with no leading axis is a `BatchError`.
    """
    if entry not in module.functions:
        raise InputError(f"no function {entry!r} in the module; it has {', '.join(module.functions) or 'none'}")
    maker = _Maker(np.random.default_rng() if rng is None else rng, symbolic_size, resolve_limit(memory_limit))
    maker.env.update(dims or {})
    params = module[entry].params
    values = [maker.value(p.struct_info, f"input {p.name}") for p in params]
    if microbatches == 1:
        return values
    if isinstance(microbatches, bool) or not isinstance(microbatches, int) or microbatches < 1:
        raise BatchError(f"microbatches must be a positive int, got {microbatches!r}")
    for i in drawn_batched(len(params), declared_num_input(module[entry].attrs, len(params), entry)):
        first, name = values[i], f"input {params[i].name}"
        if not isinstance(first, np.ndarray) or first.ndim == 0:
            raise BatchError(
                f"{name} has no leading axis (shape {np.shape(first)}): nothing to split into {microbatches}"
            )
        check_fits("the host", maker.limit, name, (microbatches * first.shape[0], *first.shape[1:]), str(first.dtype))
        rest = [maker.value(params[i].struct_info, name) for _ in range(microbatches - 1)]
        values[i] = np.concatenate([first, *rest], axis=0)
    return values


def input_dims(
    module: IRModule,
    entry: str = "main",
    inputs: Sequence[Any] | None = None,
    dims: Mapping[str, int] | None = None,
    symbolic_size: int = SYMBOLIC_SIZE,
) -> dict[str, int]:
    """The size of each symbol that names a whole dim of a tensor parameter of `entry`, as a run binds it:
    from the arrays `inputs` (one per parameter; the first array to bind a name wins, as the run checks),
    else as `random_inputs` makes them (`dims`, else `symbolic_size`).  Every name of `dims` is kept; one an
    array binds takes the array's size."""
    bound: dict[str, int] = {}
    for i, param in enumerate(module[entry].params):
        sinfo = param.struct_info
        if not isinstance(sinfo, TensorStructInfo) or sinfo.shape is None:
            continue
        shape = np.shape(inputs[i]) if inputs is not None and i < len(inputs) else None
        for axis, d in enumerate(sinfo.shape):
            if not shapes.is_name(d):
                continue
            if shape is not None and axis < len(shape):
                bound.setdefault(d, int(shape[axis]))
            else:
                bound.setdefault(d, (dims or {}).get(d, symbolic_size))
    return {**(dims or {}), **bound}


def _dim(d: int | str, env: dict[str, int], size: int) -> int:
    if isinstance(d, int):
        return d
    if shapes.is_name(d):
        return env.setdefault(d, size)
    try:
        return max(shapes.evaluate(d, env), 0)
    except InputError:
        return size


def _fill(out: np.ndarray, draw: Any) -> np.ndarray:
    """Fill `out` chunk by chunk with ``draw(n)`` (n values, any dtype), cast into `out`'s dtype."""
    flat = out.reshape(-1)
    for start in range(0, flat.size, _CHUNK):
        n = min(_CHUNK, flat.size - start)
        flat[start : start + n] = draw(n)
    return out


class _Maker:
    """Random values drawn from `rng`, symbolic dims sized `size`, arrays checked against `limit` bytes."""

    def __init__(self, rng: np.random.Generator, size: int, limit: int | None) -> None:
        self.rng = rng
        self.size = size
        self.limit = limit
        self.env: dict[str, int] = {}

    def array(self, dtype: str, shape: tuple[int, ...], name: str) -> np.ndarray:
        dtype = dtype or "float32"
        np_dtype = to_numpy(dtype)
        check_fits("the host", self.limit, name, shape, str(np_dtype))
        out = np.empty(shape, np_dtype)
        rng = self.rng
        if dtype == "bool":
            return _fill(out, lambda n: rng.random(n) < 0.5)
        if is_float(dtype):
            return _fill(out, rng.standard_normal)
        return _fill(out, lambda n: rng.integers(1, 4, size=n))

    def value(self, sinfo: StructInfo, name: str) -> Any:
        size, env = self.size, self.env
        if isinstance(sinfo, TensorStructInfo):
            if sinfo.shape is not None:
                shape = tuple(_dim(d, env, size) for d in sinfo.shape)
            else:
                shape = (size,) * max(sinfo.ndim, 0) if sinfo.ndim >= 0 else (size,)
            return self.array(sinfo.dtype, shape, name)
        if isinstance(sinfo, TupleStructInfo):
            return tuple(self.value(f, f"{name}[{i}]") for i, f in enumerate(sinfo.fields))
        if isinstance(sinfo, ShapeStructInfo):
            if sinfo.values is not None:
                return tuple(_dim(d, env, size) for d in sinfo.values)
            return (size,) * max(sinfo.ndim, 1)
        if isinstance(sinfo, PrimStructInfo):
            if sinfo.value is not None:
                return np.asarray(sinfo.value, dtype=to_numpy(sinfo.dtype or "int64"))[()]
            return self.array(sinfo.dtype or "int64", (), name)[()]
        raise InputError(f"cannot make a random value for {name} of type {sinfo!r}")
