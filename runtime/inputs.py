"""Random inputs for a function's parameters (what ``vdplace run --inputs random`` uses).

Symbolic dimensions get a small size (one size per symbol, so shapes that
share ``n`` agree); floats are standard normal; integers are small and
positive (1..3: valid as divisors, exponents and indices into small axes);
bools are fair coin flips.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vdplace.ir.dtype import is_float, to_numpy
from vdplace.ir.module import IRModule
from vdplace.ir.struct_info import PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo

from . import shapes
from .errors import InputError

SYMBOLIC_SIZE = 4


def random_inputs(
    module: IRModule, entry: str = "main", rng: np.random.Generator | None = None, symbolic_size: int = SYMBOLIC_SIZE
) -> list[Any]:
    """One value per parameter of `entry`: NumPy arrays, tuples of them, shapes or scalars."""
    if entry not in module.functions:
        raise InputError(f"no function {entry!r} in the module; it has {', '.join(module.functions) or 'none'}")
    rng = np.random.default_rng() if rng is None else rng
    env: dict[str, int] = {}
    return [_value(p.struct_info, rng, env, symbolic_size, p.name) for p in module[entry].params]


def _dim(d: int | str, env: dict[str, int], size: int) -> int:
    if isinstance(d, int):
        return d
    if shapes.is_name(d):
        return env.setdefault(d, size)
    try:
        return max(shapes.evaluate(d, env), 0)
    except InputError:
        return size


def _array(dtype: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    np_dtype = to_numpy(dtype or "float32")
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if is_float(dtype or "float32"):
        return rng.standard_normal(shape).astype(np_dtype)
    return rng.integers(1, 4, size=shape).astype(np_dtype)


def _value(sinfo: StructInfo, rng: np.random.Generator, env: dict[str, int], size: int, name: str) -> Any:
    if isinstance(sinfo, TensorStructInfo):
        if sinfo.shape is not None:
            shape = tuple(_dim(d, env, size) for d in sinfo.shape)
        else:
            shape = (size,) * max(sinfo.ndim, 0) if sinfo.ndim >= 0 else (size,)
        return _array(sinfo.dtype, shape, rng)
    if isinstance(sinfo, TupleStructInfo):
        return tuple(_value(f, rng, env, size, f"{name}[{i}]") for i, f in enumerate(sinfo.fields))
    if isinstance(sinfo, ShapeStructInfo):
        if sinfo.values is not None:
            return tuple(_dim(d, env, size) for d in sinfo.values)
        return (size,) * max(sinfo.ndim, 1)
    if isinstance(sinfo, PrimStructInfo):
        if sinfo.value is not None:
            return np.asarray(sinfo.value, dtype=to_numpy(sinfo.dtype or "int64"))[()]
        return _array(sinfo.dtype or "int64", (), rng)[()]
    raise InputError(f"cannot make a random value for parameter {name} of type {sinfo!r}")
