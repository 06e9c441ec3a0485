"""Symbolic shape dimensions at run time: bind ``"n"`` from an input, evaluate ``"n * 2"``.

A dim string is evaluated as placement sizes one (`ir.sizes.evaluate`: Python's
`ast` over integers only, names, literals, + - * // %, ``T.min`` and ``T.max``);
the text is never executed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

from vdplace.ir import sizes
from vdplace.ir.op import INDICES

from .errors import InputError


def is_name(dim: object) -> TypeGuard[str]:
    """True for a dim that is a bare symbol (``"n"``), which an input shape can bind."""
    return isinstance(dim, str) and dim.isidentifier()


def evaluate(dim: int | str, env: Mapping[str, int]) -> int:
    """`dim`'s size with its symbols bound by `env` (`ir.sizes.evaluate`); `InputError` when it has none."""
    if isinstance(dim, int):
        return dim

    def size_of(name: str) -> int:
        if name not in env:
            raise InputError(f"symbolic dimension {dim!r}: {name!r} is not bound by any input shape")
        return env[name]

    try:
        return sizes.evaluate(dim, size_of)
    except sizes.DimError as err:
        raise InputError(str(err)) from None


def has_symbols(value: Any) -> bool:
    """Whether an attribute value holds a symbolic dim somewhere (a str inside a shape tuple)."""
    if isinstance(value, (tuple, list)):
        return any(isinstance(v, str) or has_symbols(v) for v in value)
    return False


def symbolic_attrs(op: Any, attrs: Mapping[str, Any]) -> dict[str, Any]:
    """The attributes of a call of `op` that hold symbolic positions (`ir.op.INDICES`), resolved per run."""
    return {p.name: attrs[p.name] for p in op.params if p.kind == INDICES and has_symbols(attrs.get(p.name))}


def resolve(value: Any, env: Mapping[str, int]) -> Any:
    """`value` with every symbolic dim inside tuples/lists replaced by its size."""
    if isinstance(value, (tuple, list)):
        return type(value)(evaluate(v, env) if isinstance(v, str) else resolve(v, env) for v in value)
    return value
