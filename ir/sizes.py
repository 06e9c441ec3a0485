"""How big a symbolic dimension is taken to be: one size function for every byte and FLOP estimate.

A shape dimension is an ``int`` or the text of a symbolic expression
(``"n"``, ``"s77 * 3"``, ``"T.max(a, b)"``).  Placement's bytes, the cost
model's bytes and FLOPs and a report's figures all weigh a tensor through
one `Sizes`, so they agree.  A symbol's size is, first to last:

1. the size the user gives (``place(mod, dims={"n": 1024})``, ``--dim n=1024``);
2. the function's own upper bound, ``R.func_attr({"tir_var_upper_bound": {"n": 1024}})``
   as TVM's frontends print it: the largest size the function is compiled for,
   which is also what TVM's memory planner sizes buffers by, so a placement is
   weighed at the size where moving a tensor costs most;
3. the bound another function of the module gives a symbol of that name;
4. `DEFAULT_DIM` (or the function's ``tir_var_lower_bound`` when that is
   larger), with one warning per symbol on the ``vdplace`` logger, naming it.

`Sizes.assumed` lists every symbol a figure used, with its size, so a report
can say what it assumes ("assuming n=1024").  An unknown shape (no rank)
counts its element size once.  Dims are read with Python's `ast` over
integers only (names, literals, ``+ - * // %``, ``T.min``, ``T.max``); the
text is never executed.
"""

from __future__ import annotations

import ast
import logging
import numbers
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

from .dtype import itemsize
from .struct_info import StructInfo, TensorStructInfo, TupleStructInfo

if TYPE_CHECKING:
    from .module import IRModule

DEFAULT_DIM = 4  # also `runtime.random_inputs`' size for a symbolic dim `dims` does not name
UPPER, LOWER = "tir_var_upper_bound", "tir_var_lower_bound"

log = logging.getLogger(__name__)


class DimError(ValueError):
    """A dim whose text cannot be read or evaluated over integers."""


@lru_cache(maxsize=4096)
def _parse(dim: str) -> ast.expr:
    try:
        return ast.parse(dim, mode="eval").body
    except SyntaxError:
        raise DimError(f"cannot read symbolic dimension {dim!r}") from None


def evaluate(dim: int | str, size_of: Callable[[str], int]) -> int:
    """`dim`'s value, each symbol's size from `size_of` (whose own errors pass through); `DimError` otherwise."""
    if type(dim) is int:
        return dim
    return _eval(_parse(dim), size_of, dim)  # type: ignore[arg-type]


def _eval(node: ast.expr, size_of: Callable[[str], int], dim: str) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return size_of(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, size_of, dim)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 2:
        head = node.func.value
        if isinstance(head, ast.Name) and head.id == "T" and node.func.attr in ("min", "max") and not node.keywords:
            values = [_eval(arg, size_of, dim) for arg in node.args]
            return min(values) if node.func.attr == "min" else max(values)
    if isinstance(node, ast.BinOp):
        a = _eval(node.left, size_of, dim)
        b = _eval(node.right, size_of, dim)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.FloorDiv) and b != 0:
            return a // b
        if isinstance(node.op, ast.Mod) and b != 0:
            return a % b
    raise DimError(f"cannot evaluate symbolic dimension {dim!r}")


def check_dims(dims: Mapping[str, int] | None) -> dict[str, int]:
    """User-given sizes, checked: identifiers mapped to positive ints (`ValueError` naming the bad one)."""
    out: dict[str, int] = {}
    for name, size in (dims or {}).items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"dims: {name!r} is not a symbol name")
        if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 1:
            raise ValueError(f"dims: {name}={size!r} is not a positive integer")
        out[name] = int(size)
    return out


def parse_dim(spec: str) -> tuple[str, int]:
    """``"n=1024"`` as ``("n", 1024)`` (what ``--dim`` takes); `ValueError` saying how to write it."""
    name, sep, value = spec.partition("=")
    name = name.strip()
    try:
        size = int(value)
    except ValueError:
        size = 0
    if not sep or not name.isidentifier() or size < 1:
        raise ValueError(f"--dim {spec!r}: write NAME=SIZE with a positive integer size, e.g. n=1024")
    return name, size


class Sizes:
    """The size of every symbolic dim of one module (the module docstring's order), and bytes under it.

    `assumed` maps each symbol some figure used to its size, in order of
    first use (``"f:n"`` instead of ``"n"`` where functions give one name
    different sizes); `defaulted` lists the symbols that got the default.
    """

    __slots__ = ("user", "bounds", "lower", "any_bound", "assumed", "defaulted", "_cache", "_env", "works")

    def __init__(self, mod: IRModule | None = None, dims: Mapping[str, int] | None = None) -> None:
        self.user = check_dims(dims)
        self.bounds: dict[str, dict[str, int]] = {}
        self.lower: dict[str, dict[str, int]] = {}
        self.any_bound: dict[str, int] = {}
        for fname, func in mod.functions.items() if mod is not None else ():
            attrs = getattr(func, "attrs", None) or {}
            self.bounds[fname] = _bound_map(attrs.get(UPPER))
            self.lower[fname] = _bound_map(attrs.get(LOWER))
            for name, size in self.bounds[fname].items():
                self.any_bound.setdefault(name, size)
        self.assumed: dict[str, int] = {}
        self.defaulted: list[str] = []
        self._cache: dict[tuple[str, str], int] = {}
        self._env: dict[str, Callable[[str], int]] = {}
        # The work of op calls at these sizes, keyed by op, function and signature (`cost.model.OpInfo.work`):
        # a large module repeats a few signatures hundreds of thousands of times.
        self.works: dict[tuple, object] = {}

    def size(self, name: str, func: str = "") -> int:
        """The size of symbol `name` in function `func` (recorded in `assumed`; the default warns once)."""
        key = (func, name)
        found = self._cache.get(key)
        if found is not None:
            return found
        size = self.user.get(name)
        if size is None:
            size = self.bounds.get(func, {}).get(name)
        if size is None:
            size = self.any_bound.get(name)
        if size is None:
            size = max(DEFAULT_DIM, self.lower.get(func, {}).get(name, 0))
            if name not in self.defaulted:
                self.defaulted.append(name)
                log.warning(
                    "symbolic dimension %r has no size: weighed as %d (give one with dims={%r: N} or --dim %s=N, "
                    "or a tir_var_upper_bound in the function's attributes)",
                    name,
                    size,
                    name,
                    name,
                )
        self._cache[key] = size
        label = name if self.assumed.get(name, size) == size else f"{func}:{name}"
        self.assumed.setdefault(label, size)
        return size

    def dim(self, d: int | str, func: str = "") -> int:
        """A dim's size in `func`: an int as it is, a symbolic one evaluated (never below 0)."""
        if type(d) is int:
            return d
        env = self._env.get(func)
        if env is None:
            env = self._env[func] = lambda name: self.size(name, func)
        try:
            return max(evaluate(d, env), 0)
        except DimError:  # unreadable, a division by zero, an operator outside the grammar: the default
            return DEFAULT_DIM

    def nbytes(self, sinfo: TensorStructInfo, func: str = "") -> int:
        """Bytes of a tensor in `func`: its element size times every dim's size."""
        size = itemsize(sinfo.dtype)
        shape = sinfo.shape
        if shape is not None:
            for d in shape:
                size *= d if type(d) is int else self.dim(d, func)
        return size

    def resolve(self, sinfo: StructInfo, func: str = "") -> StructInfo:
        """`sinfo` with every symbolic dim of its tensors replaced by its size (for work estimates)."""
        if type(sinfo) is TensorStructInfo:
            shape = sinfo.shape
            if shape is None or all(type(d) is int for d in shape):
                return sinfo
            return TensorStructInfo(tuple(self.dim(d, func) for d in shape), sinfo.dtype, sinfo.ndim, sinfo.vdevice)
        if type(sinfo) is TupleStructInfo:
            fields = tuple(self.resolve(f, func) for f in sinfo.fields)
            return sinfo if fields == sinfo.fields else TupleStructInfo(fields)
        return sinfo

    def describe(self) -> str:
        """``"n=1024, m=4 (default)"``: what the figures assume; empty when no symbol was sized."""
        parts = []
        for label, size in self.assumed.items():
            name = label.rpartition(":")[2]
            parts.append(f"{label}={size}" + (" (default)" if name in self.defaulted else ""))
        return ", ".join(parts)


def _bound_map(value: object) -> dict[str, int]:
    """A ``tir_var_*_bound`` attribute as names to ints (entries that are not plain ints are skipped)."""
    if not isinstance(value, Mapping):
        return {}
    return {str(k): v for k, v in value.items() if type(v) is int}
