"""Struct infos: the static type of every expression, vdevice included:
the virtual device is a field of every tensor's struct info, so it travels with
the value through every pass.

Struct infos are immutable values compared by value.  A shape dimension is an
``int`` or a ``str`` holding a symbolic expression (``"n"``, ``"n * 2"``).

Struct infos are shallow: tuples nest at most `MAX_NESTING` levels (a
tensor, shape, prim or object is level 0; a callable adds none, and the
parser bounds how deep written annotations nest), the limit the parser puts
on the nesting of written expressions.  Building a deeper one (3,000
bindings ``t_i = (t_{i-1},)``) raises `InferenceError`, so every recursive
walk over struct infos, here and in placement, printing and the runtime,
stays far from Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeGuard

from .dtype import itemsize
from .errors import InferenceError
from .vdevice import VDevice

Dim = int | str


def all_static(shape: tuple[Dim, ...]) -> TypeGuard[tuple[int, ...]]:
    """Whether every dim of `shape` is a known int (none symbolic)."""
    return all(isinstance(d, int) for d in shape)


# The deepest tuple struct infos may nest: far below Python's recursion limit for every walker, and
# printed annotations that deep (two brackets a level) stay under Python's 200 nested brackets.
MAX_NESTING = 64

DTYPES: frozenset[str] = frozenset(
    {
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "bfloat16",
        "float32",
        "float64",
    }
)


class StructInfo:
    """Base class.  Subclasses define `_key` for equality and hashing."""

    __slots__ = ()

    def _key(self) -> tuple:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return self is other or (type(self) is type(other) and self._key() == other._key())

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    @property
    def nesting(self) -> int:
        """How many tuple levels this struct info nests (0 for a leaf)."""
        return 0


def _tuple_nesting(fields: Sequence[StructInfo]) -> int:
    """The nesting of a tuple of `fields`; raises `InferenceError` past `MAX_NESTING`."""
    depth = 1 + max((f.nesting for f in fields), default=0)
    if depth > MAX_NESTING:
        raise InferenceError(
            f"tuples nested {depth} levels deep: vdplace allows at most {MAX_NESTING} "
            "(flatten the tuple, or bind its fields separately)"
        )
    return depth


class ObjectStructInfo(StructInfo):
    """Anything; carries no device."""

    __slots__ = ()

    def _key(self) -> tuple:
        return ()

    def __repr__(self) -> str:
        return "R.Object"


class TensorStructInfo(StructInfo):
    """A tensor: shape (or only ndim), dtype, and the vdevice it lives on (or None)."""

    __slots__ = ("shape", "dtype", "ndim", "vdevice")

    def __init__(
        self,
        shape: Sequence[Dim] | None = None,
        dtype: str = "",
        ndim: int = -1,
        vdevice: VDevice | None = None,
    ) -> None:
        self.shape: tuple[Dim, ...] | None = None if shape is None else tuple(shape)
        self.dtype = dtype
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.vdevice = vdevice

    def _key(self) -> tuple:
        return (self.shape, self.dtype, self.ndim, self.vdevice)

    def with_vdevice(self, vdevice: VDevice | None) -> TensorStructInfo:
        if vdevice == self.vdevice:
            return self
        return TensorStructInfo(self.shape, self.dtype, self.ndim, vdevice)

    @property
    def static_shape(self) -> tuple[int, ...] | None:
        shape = self.shape
        return shape if shape is not None and all_static(shape) else None

    def __repr__(self) -> str:
        return f"R.Tensor({self.shape}, {self.dtype!r}, ndim={self.ndim}, vdevice={self.vdevice!r})"


class TupleStructInfo(StructInfo):
    __slots__ = ("fields", "_nesting")

    def __init__(self, fields: Sequence[StructInfo]) -> None:
        self.fields: tuple[StructInfo, ...] = tuple(fields)
        self._nesting = _tuple_nesting(self.fields)

    @property
    def nesting(self) -> int:
        return self._nesting

    def _key(self) -> tuple:
        return self.fields

    def __repr__(self) -> str:
        return f"R.Tuple({list(self.fields)})"


class ShapeStructInfo(StructInfo):
    """A shape value; carries no device."""

    __slots__ = ("values", "ndim")

    def __init__(self, values: Sequence[Dim] | None = None, ndim: int = -1) -> None:
        self.values: tuple[Dim, ...] | None = None if values is None else tuple(values)
        self.ndim = len(self.values) if self.values is not None else ndim

    def _key(self) -> tuple:
        return (self.values, self.ndim)

    def __repr__(self) -> str:
        return f"R.Shape({self.values}, ndim={self.ndim})"


class PrimStructInfo(StructInfo):
    """A scalar of a primitive dtype, optionally with a known value; carries no device."""

    __slots__ = ("dtype", "value")

    def __init__(self, dtype: str, value: int | float | bool | None = None) -> None:
        self.dtype = dtype
        self.value = value

    def _key(self) -> tuple:
        return (self.dtype, self.value)

    def __repr__(self) -> str:
        return f"R.Prim({self.dtype!r}, value={self.value!r})"


class FuncStructInfo(StructInfo):
    __slots__ = ("params", "ret")

    def __init__(self, params: Sequence[StructInfo], ret: StructInfo) -> None:
        self.params = tuple(params)
        self.ret = ret

    @property
    def nesting(self) -> int:
        # Read on demand (only a tuple that holds this one asks): every function of a module
        # builds one, and each part keeps its own nesting, so this never recurses.
        return max([self.ret.nesting, *[p.nesting for p in self.params]])

    def _key(self) -> tuple:
        return (self.params, self.ret)

    def __repr__(self) -> str:
        return f"R.Callable({list(self.params)}, {self.ret!r})"


def tensor_leaves(sinfo: StructInfo, path: tuple[int, ...] = ()) -> Iterator[tuple[tuple[int, ...], TensorStructInfo]]:
    """Every tensor inside `sinfo`, with its field path (``()`` for a plain tensor)."""
    if isinstance(sinfo, TensorStructInfo):
        yield path, sinfo
    elif isinstance(sinfo, TupleStructInfo):
        for i, field in enumerate(sinfo.fields):
            yield from tensor_leaves(field, path + (i,))


def replace_vdevices(sinfo: StructInfo, choose) -> StructInfo:
    """Rebuild `sinfo` with ``choose(path, tensor_sinfo) -> VDevice | None`` on each tensor leaf."""

    def rebuild(s: StructInfo, path: tuple[int, ...]) -> StructInfo:
        if isinstance(s, TensorStructInfo):
            return s.with_vdevice(choose(path, s))
        if isinstance(s, TupleStructInfo):
            fields = tuple(rebuild(f, path + (i,)) for i, f in enumerate(s.fields))
            return s if fields == s.fields else TupleStructInfo(fields)
        return s

    return rebuild(sinfo, ())


def nbytes(sinfo: TensorStructInfo) -> int:
    """Bytes of a tensor; a symbolic or unknown dimension counts as 1, so weights stay comparable."""
    size = itemsize(sinfo.dtype)
    shape = sinfo.shape
    if shape is not None:
        for d in shape:
            if type(d) is int:
                size *= d
    return size
