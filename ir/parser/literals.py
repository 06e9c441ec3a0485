"""Reading values out of AST nodes without executing anything.

The parser never calls `eval`, `exec` or `ast.literal_eval`: every value in
the text (attributes, dims, target dicts) is read here by looking at node
types one by one, with an explicit depth limit, so hostile text can neither
run code nor exhaust Python's recursion limit.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from ..errors import ParseError
from ..metadata import MetadataRef
from .source import Source

# Deepest nesting of expressions / literals the parser follows.  Python's own
# tokenizer stops at 200 nested brackets; real TVMScript stays far below this.
MAX_DEPTH = 100

# Node types described in words, for messages such as "expected a literal, got a lambda".
_WORDS = {
    ast.Lambda: "a lambda",
    ast.BinOp: "an arithmetic expression",
    ast.BoolOp: "a boolean expression",
    ast.Compare: "a comparison",
    ast.UnaryOp: "a unary expression",
    ast.IfExp: "a conditional expression",
    ast.JoinedStr: "an f-string",
    ast.Starred: "a starred expression",
    ast.Dict: "a dict",
    ast.Set: "a set",
    ast.List: "a list",
    ast.Tuple: "a tuple",
    ast.ListComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a generator expression",
    ast.Await: "an await expression",
    ast.Yield: "a yield expression",
    ast.YieldFrom: "a yield expression",
    ast.NamedExpr: "an assignment expression",
    ast.Subscript: "a subscript",
    ast.Slice: "a slice",
}


def dotted(node: ast.AST) -> str | None:
    """``R.nn.relu`` for an Attribute chain ending in a Name, else None (iterative)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    parts.reverse()
    return ".".join(parts)


def describe(node: ast.AST) -> str:
    """A short description of a node for error messages (never the whole text)."""
    if isinstance(node, ast.Name):
        return f"the name {node.id!r}"
    if isinstance(node, ast.Attribute):
        name = dotted(node)
        return f"{name}" if name else f"the attribute .{node.attr} of an expression"
    if isinstance(node, ast.Call):
        name = dotted(node.func)
        if name:
            return f"a call to {name}"
        if isinstance(node.func, ast.Attribute):
            return f"a call to .{node.func.attr}(...) of an expression"
        return "a call of an expression"
    if isinstance(node, ast.Constant):
        text = repr(node.value)
        return f"the literal {text if len(text) <= 40 else text[:37] + '...'}"
    return _WORDS.get(type(node), f"a {type(node).__name__} expression")


def too_deep(src: Source, node: ast.AST) -> ParseError:
    return src.error(f"expression nested more than {MAX_DEPTH} levels deep", node)


def literal(
    src: Source, node: ast.AST, depth: int = 0, seq: Callable[[list], Any] = tuple, metadata: bool = False
) -> Any:
    """A literal value: number, string, True/False/None, list/tuple (as `seq`), dict.

    Negative numbers (``-1``) are literals too; with `metadata`, so is a
    reference ``metadata["kind"][i]`` (a `MetadataRef`).  Anything else is a
    `ParseError`.
    """
    if depth > MAX_DEPTH:
        raise too_deep(src, node)
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        raise src.error(f"expected a literal value, got {describe(node)}", node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = node.operand
        if (
            isinstance(operand, ast.Constant)
            and isinstance(operand.value, (int, float))
            and not isinstance(operand.value, bool)
        ):
            return -operand.value if isinstance(node.op, ast.USub) else operand.value
        raise src.error(f"expected a literal value, got {describe(node)}", node)
    if isinstance(node, (ast.List, ast.Tuple)):
        return seq([literal(src, e, depth + 1, seq, metadata) for e in node.elts])
    if isinstance(node, ast.Dict):
        out: dict[Any, Any] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                raise src.error("'**' is not allowed in a literal dict", v)
            key = literal(src, k, depth + 1, seq)
            if not isinstance(key, (str, int, bool)) and key is not None:
                raise src.error(f"a dict key must be a string or a number, got {describe(k)}", k)
            out[key] = literal(src, v, depth + 1, seq, metadata)
        return out
    if isinstance(node, ast.Call):
        number: int | float | None = typed_int(node)
        if number is None:
            number = typed_float(node)
        if number is not None:
            return number
    if isinstance(node, ast.Subscript) and metadata:
        ref = metadata_ref(node)
        if ref is not None:
            return ref
    raise src.error(f"expected a literal value (number, string, True/False/None, list), got {describe(node)}", node)


# Integer constructors TVM's printer writes for an int of that width inside attribute lists.
TYPED_INTS = frozenset({"T.int64", "T.int32", "T.int16", "T.int8", "T.uint64", "T.uint32", "T.uint16", "T.uint8"})


def typed_int(node: ast.Call) -> int | None:
    """``T.int64(3)`` (or another width) with one integer literal argument as that int; None otherwise."""
    if dotted(node.func) not in TYPED_INTS or len(node.args) != 1 or node.keywords:
        return None
    arg = node.args[0]
    negative = isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub)
    if isinstance(arg, ast.UnaryOp) and negative:
        arg = arg.operand
    if isinstance(arg, ast.Constant) and type(arg.value) is int:
        return -arg.value if negative else arg.value
    return None


# Float constructors TVM's printer writes inside attribute lists (resize2d's roi=[T.float32(0.0), ...]).
TYPED_FLOATS = frozenset({"T.float16", "T.float32", "T.float64"})


def typed_float(node: ast.Call) -> float | None:
    """``T.float32(0.5)`` (or another width) with one number literal argument as that float; None otherwise."""
    if dotted(node.func) not in TYPED_FLOATS or len(node.args) != 1 or node.keywords:
        return None
    arg = node.args[0]
    negative = isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub)
    if isinstance(arg, ast.UnaryOp) and negative:
        arg = arg.operand
    if isinstance(arg, ast.Constant) and isinstance(arg.value, (int, float)) and not isinstance(arg.value, bool):
        return -float(arg.value) if negative else float(arg.value)
    return None


def metadata_ref(node: ast.Subscript) -> MetadataRef | None:
    """``metadata["kind"][i]`` as a `MetadataRef`; None for any other subscript."""
    inner, index = node.value, node.slice
    if not (isinstance(index, ast.Constant) and type(index.value) is int and index.value >= 0):
        return None
    if not (isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name) and inner.value.id == "metadata"):
        return None
    kind = inner.slice
    if not (isinstance(kind, ast.Constant) and isinstance(kind.value, str)):
        return None
    return MetadataRef(kind.value, index.value)


def str_literal(src: Source, node: ast.AST, what: str) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    raise src.error(f"{what} must be a string literal, got {describe(node)}", node)


def int_literal(src: Source, node: ast.AST, what: str) -> int:
    value = literal(src, node) if isinstance(node, (ast.Constant, ast.UnaryOp)) else None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise src.error(f"{what} must be an integer literal, got {describe(node)}", node)


def bool_literal(src: Source, node: ast.AST, what: str) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    raise src.error(f"{what} must be True or False, got {describe(node)}", node)


def bind_arguments(src: Source, call: ast.Call, names: tuple[str, ...], what: str) -> list[ast.expr | None]:
    """Match a call's positional and keyword arguments to parameter `names`.

    Returns one node (or None when not given) per name.  Too many arguments,
    an unknown or repeated keyword, ``*args`` and ``**kwargs`` are errors.
    """
    args = call.args
    if len(args) > len(names):
        expected = ", ".join(names) if names else "no arguments"
        raise src.error(
            f"{what} takes at most {len(names)} argument(s) ({expected}), got {len(args)}", args[len(names)]
        )
    bound: list[ast.expr | None] = [None] * len(names)
    for i, arg in enumerate(args):
        if isinstance(arg, ast.Starred):
            raise src.error(f"{what}: '*' arguments are not supported", arg)
        bound[i] = arg
    for kw in call.keywords:
        if kw.arg is None:
            raise src.error(f"{what}: '**' arguments are not supported", kw)
        try:
            index = names.index(kw.arg)
        except ValueError:
            expected = ", ".join(names) if names else "none"
            raise src.error(f"{what} got an unknown keyword argument {kw.arg!r} (parameters: {expected})", kw) from None
        if bound[index] is not None:
            raise src.error(f"{what} got multiple values for argument {kw.arg!r}", kw)
        bound[index] = kw.value
    return bound
