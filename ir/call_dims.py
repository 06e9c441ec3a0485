"""A call of a module function: the callee's symbolic dims bound from the argument shapes, as TVM does.

A helper declared ``def f(a: R.Tensor(("k", 4))) -> R.Tensor(("k", 4))``
and called on a ``(3, 4)`` tensor returns a ``(3, 4)`` tensor: each bare
symbol of a parameter's shape (``"k"``) is bound to the argument's dim at the
same place (an int, or the caller's own symbolic dim), and the callee's
return struct info is rewritten with those bindings.  Arithmetic of bound
symbols becomes an int when every symbol is an int (``"k * 2"`` -> 6), and
otherwise the same arithmetic of the caller's dims.  A return dim naming a
symbol no argument binds (an argument of unknown shape) leaves that tensor's
shape unknown, its rank kept, as TVM's ``EraseToWellDefined`` does: the
callee's names mean nothing in the caller.

Two arguments that bind one symbol to two different ints, or a parameter dim
written as arithmetic (``"k * 2"``) whose bound value differs from the
argument's int, are an `InferenceError` at the call.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from .errors import InferenceError
from .span import Span
from .struct_info import Dim, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo

# A name in a dim expression; the attribute of ``T.min`` / ``T.max`` is not one.
_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*")
_MIN_MAX = {"min": min, "max": max}


def has_symbolic_dims(sinfo: StructInfo) -> bool:
    """Whether some tensor or shape inside `sinfo` has a symbolic dim."""
    dims = _dims(sinfo)
    if dims is not None:
        return any(type(d) is str for d in dims)
    if isinstance(sinfo, TupleStructInfo):
        return any(has_symbolic_dims(f) for f in sinfo.fields)
    return False


def call_return(
    name: str, params: Sequence[StructInfo], args: Sequence[StructInfo], ret: StructInfo, span: Span | None
) -> StructInfo:
    """`ret`, the return struct info of ``cls.<name>``, in the caller's terms for arguments of struct info `args`."""
    if not has_symbolic_dims(ret):
        return ret
    env: dict[str, tuple[Dim, int]] = {}
    for i, (param, arg) in enumerate(zip(params, args, strict=True)):
        _bind(param, arg, env, i, name, span)
    values = {sym: value for sym, (value, _) in env.items()}
    for i, (param, arg) in enumerate(zip(params, args, strict=True)):
        _check_arithmetic(param, arg, values, i, name, span)
    return _substitute(ret, values, name, span)


def _dims(sinfo: StructInfo) -> tuple[Dim, ...] | None:
    if isinstance(sinfo, TensorStructInfo):
        return sinfo.shape
    if isinstance(sinfo, ShapeStructInfo):
        return sinfo.values
    return None


def _pairs(param: StructInfo, arg: StructInfo):
    """(parameter dim, argument dim) at every place both shapes give, through tuples."""
    pd, ad = _dims(param), _dims(arg)
    if pd is not None and ad is not None and type(param) is type(arg) and len(pd) == len(ad):
        yield from zip(pd, ad, strict=True)
    elif isinstance(param, TupleStructInfo) and isinstance(arg, TupleStructInfo):
        for p, a in zip(param.fields, arg.fields, strict=False):
            yield from _pairs(p, a)


def _bind(
    param: StructInfo, arg: StructInfo, env: dict[str, tuple[Dim, int]], index: int, name: str, span: Span | None
) -> None:
    for p, a in _pairs(param, arg):
        if type(p) is not str or not p.isidentifier():
            continue
        if p not in env:
            env[p] = (a, index)
            continue
        bound, where = env[p]
        if type(bound) is int and type(a) is int and bound != a:
            raise InferenceError(
                f"cls.{name}: its symbolic dim {p} is {bound} by argument {where} but {a} by argument {index}", span
            )


def _check_arithmetic(
    param: StructInfo, arg: StructInfo, values: dict[str, Dim], index: int, name: str, span: Span | None
) -> None:
    for p, a in _pairs(param, arg):
        if type(p) is str and not p.isidentifier() and type(a) is int:
            value = _in_caller(p, values, name, span)
            if type(value) is int and value != a:
                raise InferenceError(
                    f"cls.{name}: argument {index} has dim {a} where the parameter has {p} = {value}", span
                )


def _substitute(sinfo: StructInfo, values: dict[str, Dim], name: str, span: Span | None) -> StructInfo:
    if isinstance(sinfo, TensorStructInfo) and sinfo.shape is not None:
        dims = _dims_in_caller(sinfo.shape, values, name, span)
        return TensorStructInfo(dims, sinfo.dtype, sinfo.ndim, sinfo.vdevice)
    if isinstance(sinfo, ShapeStructInfo) and sinfo.values is not None:
        return ShapeStructInfo(_dims_in_caller(sinfo.values, values, name, span), sinfo.ndim)
    if isinstance(sinfo, TupleStructInfo):
        return TupleStructInfo([_substitute(f, values, name, span) for f in sinfo.fields])
    return sinfo


def _dims_in_caller(dims: tuple[Dim, ...], values: dict[str, Dim], name: str, span: Span | None) -> tuple | None:
    """`dims` with the callee's symbols replaced; None (shape unknown) when one names an unbound symbol."""
    out: list[Dim] = []
    for d in dims:
        if type(d) is not str:
            out.append(d)
            continue
        value = _in_caller(d, values, name, span)
        if value is None:
            return None
        out.append(value)
    return tuple(out)


def _in_caller(dim: str, values: dict[str, Dim], name: str, span: Span | None) -> Dim | None:
    """Dim expression `dim` of the callee with its symbols replaced by `values`; None if one is unbound."""
    if dim.isidentifier():
        return values.get(dim)
    names = {m for m in _NAME.findall(dim) if m != "T"}
    if not names <= values.keys():
        return None
    text = _NAME.sub(lambda m: m[0] if m[0] == "T" else _operand(values[m[0]]), dim)
    node = ast.parse(text, mode="eval").body
    if all(type(values[n]) is int for n in names):
        value = _evaluate(node)
        if value is None or value < 0:
            raise InferenceError(f"cls.{name}: its dim {dim} is {text} for these arguments, not a size", span)
        return value
    return ast.unparse(node)


def _operand(value: Dim) -> str:
    if isinstance(value, int) or value.isidentifier():
        return str(value)
    return f"({value})"


def _evaluate(node: ast.expr) -> int | None:
    """The value of integer arithmetic (+ - * // %, unary -, T.min, T.max); None where it is not defined."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _evaluate(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.BinOp):
        a, b = _evaluate(node.left), _evaluate(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and b != 0:
            return a // b if isinstance(node.op, ast.FloorDiv) else a % b
        return None
    func = getattr(node, "func", None)
    if isinstance(node, ast.Call) and isinstance(func, ast.Attribute) and func.attr in _MIN_MAX and len(node.args) == 2:
        first, second = _evaluate(node.args[0]), _evaluate(node.args[1])
        return None if first is None or second is None else _MIN_MAX[func.attr]((first, second))
    return None
