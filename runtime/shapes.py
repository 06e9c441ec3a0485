"""Symbolic shape dimensions at run time: bind ``"n"`` from an input, evaluate ``"n * 2"``.

A dim string is read with Python's `ast` and evaluated over integers only
(names, literals, + - * // %, ``T.min`` and ``T.max``); the text is never executed.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, TypeGuard

from vdplace.ir.op import INDICES

from .errors import InputError


@lru_cache(maxsize=1024)
def _parse(dim: str) -> ast.expr:
    try:
        return ast.parse(dim, mode="eval").body
    except SyntaxError:
        raise InputError(f"cannot read symbolic dimension {dim!r}") from None


def _eval(node: ast.expr, env: Mapping[str, int], dim: str) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise InputError(f"symbolic dimension {dim!r}: {node.id!r} is not bound by any input shape")
        return env[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, env, dim)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 2:
        head = node.func.value
        if isinstance(head, ast.Name) and head.id == "T" and node.func.attr in ("min", "max") and not node.keywords:
            values = [_eval(arg, env, dim) for arg in node.args]
            return min(values) if node.func.attr == "min" else max(values)
    if isinstance(node, ast.BinOp):
        a = _eval(node.left, env, dim)
        b = _eval(node.right, env, dim)
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
    raise InputError(f"cannot evaluate symbolic dimension {dim!r}")


def is_name(dim: object) -> TypeGuard[str]:
    """True for a dim that is a bare symbol (``"n"``), which an input shape can bind."""
    return isinstance(dim, str) and dim.isidentifier()


def evaluate(dim: int | str, env: Mapping[str, int]) -> int:
    if isinstance(dim, int):
        return dim
    return _eval(_parse(dim), env, dim)


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
