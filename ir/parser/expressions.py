"""Parsing relax values: variables, op and module-function calls, tuples, ``t[i]`` and builtins.

The builtins are ``R.const``, ``R.shape``, ``R.prim_value``, ``R.str`` and
``R.tuple``.  Every value is built normalized: its struct info (vdevice
included) is inferred as it is parsed, by `ir.normalize`.  Nesting is bounded
by `MAX_DEPTH` so a pathological expression is a located error, not a
RecursionError.
"""

from __future__ import annotations

import ast
import difflib
import math
from typing import Any

import numpy as np

from ..dtype import to_numpy
from ..errors import InferenceError, ParseError
from ..expr import Call, Constant, Expr, GlobalVar, PrimValue, ShapeExpr, StringImm, Tuple, TupleGetItem, Var
from ..normalize import call_struct_info, get_item_struct_info, global_call_struct_info, tuple_struct_info
from ..op import (
    ATTR,
    DEVICE,
    INDICES,
    OUT_TY,
    PRIM_FUNC,
    REQUIRED,
    SHAPE,
    STRING,
    TENSOR,
    TENSORS,
    VARIADIC,
    VDEVICE,
    Op,
    Param,
)
from ..span import Span
from ..struct_info import (
    DTYPES,
    PrimStructInfo,
    ShapeStructInfo,
    StructInfo,
    TensorStructInfo,
    TupleStructInfo,
    replace_vdevices,
)
from .literals import MAX_DEPTH, bind_arguments, describe, dotted, literal, metadata_ref, too_deep
from .state import FunctionState

# R.<name> that are statements or static things, never values: a clearer error than "unknown op".
NOT_VALUES = {
    "output": "R.output(...) is a statement: the last line of a 'with R.dataflow():' block",
    "dataflow": "R.dataflow() opens a block: write 'with R.dataflow():'",
    "func_attr": "R.func_attr({...}) is a statement at the top of a function body",
    "function": "R.function is a decorator",
    "device": "R.device(...) names a device: it is only an argument of an op such as R.hint_on_device",
    "Tensor": "R.Tensor is an annotation, not a value",
    "Tuple": "R.Tuple is an annotation, not a value (build a tuple with (a, b))",
    "Shape": "R.Shape is an annotation, not a value (build a shape with R.shape([...]))",
    "Prim": "R.Prim is an annotation, not a value (build one with R.prim_value(...))",
    "Object": "R.Object is an annotation, not a value",
    "Callable": "R.Callable is an annotation, not a value",
}
_PRIM_DTYPES = {f"T.{d}": d for d in DTYPES}
# Keywords read under another parameter's name: TVM before 0.27 wrote ``out_sinfo=`` and ``struct_info=``.
_KEYWORD_ALIASES: dict[tuple[str, str | None], str] = {
    ("call_tir", "out_sinfo"): "out_ty",
    ("match_cast", "struct_info"): "ty",
    ("call_packed", "sinfo_args"): "ty_args",
}
EXPR_KINDS = (TENSOR, TENSORS, SHAPE)


class ExprParser:
    """Reads the values of one function body against its `FunctionState`: its scope, its module, its
    signature; builds no bindings.

    `expr` reads a value; `shape_arg`, `attr` and `infer` are the pieces of an op call the fast path reuses.
    """

    __slots__ = ("state", "src", "module", "sig", "static")

    def __init__(self, state: FunctionState) -> None:
        self.state = state
        # The parts of the state that stay the same objects all through the function.
        self.src = state.src
        self.module = state.module
        self.sig = state.sig
        self.static = state.static

    def expr(self, node: ast.expr, depth: int) -> Expr:
        """A relax value: a variable, a call, a tuple, ``t[i]``, or a builtin such as ``R.const``."""
        if depth > MAX_DEPTH:
            raise too_deep(self.src, node)
        if isinstance(node, ast.Name):
            return self._lookup(node.id, node)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        if isinstance(node, (ast.Tuple, ast.List)):
            fields = [self.expr(e, depth + 1) for e in node.elts]
            return Tuple(fields, tuple_struct_info(fields), self.src.span(node))
        if isinstance(node, ast.Subscript):
            ref = metadata_ref(node)
            if ref is not None:  # a constant whose value is not in the text
                return Constant(None, TensorStructInfo(), self.src.span(node), ref)
            return self._get_item(node, depth)
        if isinstance(node, ast.Attribute):
            name = dotted(node)
            if name is not None:
                head, _, rest = name.partition(".")
                if head in self.state.aliases and rest in self.module.signatures:
                    gv = GlobalVar(rest, self.src.span(node))
                    gv.struct_info = self.module.callee_struct_info(rest, node)
                    return gv
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool)):
            return self._prim(node, node, depth)  # a bare prim value argument, as TVM prints it: R.clip(x, 0, 6)
        if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
            return self._prim(node, node, depth)  # -1
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) and self._is_symbolic(node):
            return self._prim(node, node, depth)  # n * 3
        raise self.src.error(f"unsupported expression: {describe(node)}", node)

    def _lookup(self, name: str, node: ast.Name) -> Var | PrimValue:
        """The variable `name` in scope, or a declared symbolic dim as a prim value; else an error at `node`."""
        var = self.state.scope.get(name)
        if var is not None:
            return var
        if name in self.state.dead:
            raise self.src.error(
                f"{name!r} is local to the dataflow block at line {self.state.dead[name]}: "
                "list it in that block's R.output(...) to use it after the block",
                node,
            )
        if name in self.sig.symbols:  # a symbolic dim as a prim value: R.arange(0, n, 1)
            return self._prim(node, node, 0)
        if name in self.state.aliases:
            raise self.src.error(f"{name!r} is the module: call its functions as {name}.f(...)", node)
        raise self.src.error(f"undefined variable {name!r}", node)

    def _get_item(self, node: ast.Subscript, depth: int) -> TupleGetItem:
        value = self.expr(node.value, depth + 1)
        index = node.slice
        if not (isinstance(index, ast.Constant) and type(index.value) is int):
            raise self.src.error(f"a tuple index must be an integer literal, got {describe(index)}", index)
        span = self.src.span(node)
        return TupleGetItem(value, index.value, get_item_struct_info(value, index.value, span), span)

    def _call(self, node: ast.Call, depth: int) -> Expr:
        name = dotted(node.func)
        if name is None:
            raise self.src.error(
                f"unsupported call of {describe(node.func)}: only R.<op>(...) and cls.<function>(...) can be called",
                node,
            )
        if name in _PRIM_DTYPES:  # T.float64(0.5) as an argument, as TVM prints a typed prim value
            return self._prim(node, node, depth)
        head, _, rest = name.partition(".")
        if head == "R" and rest:
            builtin = BUILTINS.get(rest)
            if builtin is not None:
                return builtin(self, node, depth)
            if rest in NOT_VALUES:
                raise self.src.error(NOT_VALUES[rest], node)
            op = self.module.op(rest)
            if op is None:
                raise self.src.error(f"unknown op R.{rest}{self._suggest(rest)}", node.func)
            return self._op_call(op, node, depth)
        if head in self.state.aliases and rest and "." not in rest:
            if rest in self.module.prim_funcs:
                raise self.src.error(
                    f"cls.{rest} is a TIR function: call it with R.call_tir(cls.{rest}, (args, ...), out_ty=...)", node
                )
            return self._function_call(rest, node, depth)
        raise self.src.error(
            f"unknown function {name}: a call is R.<op>(...) or cls.<function>(...) of this module", node.func
        )

    def _suggest(self, name: str) -> str:
        close = difflib.get_close_matches(name, self.module.op_names(), n=1, cutoff=0.75)
        return f" (did you mean R.{close[0]}?)" if close else ""

    def _op_call(self, op: Op, node: ast.Call, depth: int) -> Call:
        at = _variadic_at(op)
        if at >= 0:
            return self._variadic_call(op, node, depth, at)
        if any((op.name, kw.arg) in _KEYWORD_ALIASES for kw in node.keywords):
            keywords = [ast.keyword(_KEYWORD_ALIASES.get((op.name, kw.arg), kw.arg), kw.value) for kw in node.keywords]
            node = ast.Call(node.func, node.args, keywords, **{a: getattr(node, a) for a in node._attributes})
        bound = bind_arguments(self.src, node, self.module.param_names(op), f"R.{op.name}")
        args: list[Expr] = []
        attrs: dict[str, Any] = {}
        for param, arg in zip(op.params, bound, strict=True):
            self._param_arg(op, param, arg, node, depth, args, attrs)
        span = self.src.span(node)
        return Call(op, args, attrs, self.infer(op, args, attrs, span), span)

    def _param_arg(
        self, op: Op, param: Param, arg: ast.expr | None, node: ast.Call, depth: int, args: list, attrs: dict
    ) -> None:
        """Read the argument `arg` (None: not given) of `param` into `args` or `attrs`."""
        kind = param.kind
        if arg is None:
            if param.default is REQUIRED or kind in EXPR_KINDS:
                raise self.src.error(f"R.{op.name} is missing its argument {param.name!r}", node)
            attrs[param.name] = param.default
        elif kind == SHAPE:
            args.append(self.shape_arg(op, param.name, arg, depth + 1))
        elif kind in EXPR_KINDS:
            args.append(self.expr(arg, depth + 1))
        else:
            attrs[param.name] = self.attr(op, kind, param.name, arg)

    def _variadic_call(self, op: Op, node: ast.Call, depth: int, at: int) -> Call:
        """A call of an op whose parameter `at` takes any number of values (``R.print(a, b, format="{} {}")``).

        As in TVM's Python functions, the positional arguments from `at` on are
        its values and the parameters after it are keywords; by keyword, it
        takes one value or a list of them (``format_args=[a, b]``).
        """
        what = f"R.{op.name}"
        variadic = op.params[at]
        values = list(node.args[at:])
        keywords = []
        for kw in node.keywords:
            if kw.arg != variadic.name:
                keywords.append(kw)
            elif values:
                raise self.src.error(f"{what} got multiple values for argument {variadic.name!r}", kw)
            else:
                values = list(kw.value.elts) if isinstance(kw.value, (ast.List, ast.Tuple)) else [kw.value]
        others = op.params[:at] + op.params[at + 1 :]
        head = ast.Call(func=node.func, args=node.args[:at], keywords=keywords)
        bound = bind_arguments(self.src, head, tuple(p.name for p in others), what)
        args: list[Expr] = []
        attrs: dict[str, Any] = {}
        for param, arg in zip(others[:at], bound[:at], strict=True):
            self._param_arg(op, param, arg, node, depth, args, attrs)
        args.extend(self.expr(v, depth + 1) for v in values)
        for param, arg in zip(others[at:], bound[at:], strict=True):
            self._param_arg(op, param, arg, node, depth, args, attrs)
        span = self.src.span(node)
        return Call(op, args, attrs, self.infer(op, args, attrs, span), span)

    def attr(self, op: Op, kind: str, name: str, node: ast.expr) -> Any:
        """An attribute argument, read statically according to its parameter kind."""
        if kind == ATTR:
            return literal(self.src, node)
        if kind == INDICES:  # ints, or symbolic dims where TVM slices a dynamic length: ``(0,), (s,)``
            if isinstance(node, (ast.Tuple, ast.List)):
                return tuple(self._index(e) for e in node.elts)
            return literal(self.src, node)
        if kind == STRING:  # "..." or R.str("..."), as TVM prints a format string
            if isinstance(node, ast.Call) and dotted(node.func) == "R.str":
                return self._string(node, 0).value
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                return node.value
            raise self.src.error(f'R.{op.name} argument {name!r} must be a string: "..." or R.str("...")', node)
        if kind == DEVICE:
            return self.static.device(node)
        if kind == PRIM_FUNC:
            return self._prim_func_ref(op, name, node)
        if kind == OUT_TY:  # an annotation, or a list of them for several outputs (a tuple result)
            if isinstance(node, (ast.List, ast.Tuple)):  # one in a list is that one, as in TVM
                fields = [self.static.struct_info(e) for e in node.elts]
                sinfo: StructInfo = fields[0] if len(fields) == 1 else TupleStructInfo(fields)
            else:
                sinfo = self.static.struct_info(node)
            # The result's device is placement's (the binding's annotation pins it); TVM writes a match_cast's
            # annotation whole, vdevice included, as its binding's.
            return replace_vdevices(sinfo, lambda path, leaf: None)
        if kind == VDEVICE:
            vdevice = self.static.vdevice_ref(node)
            if vdevice is None:
                raise self.src.error(f"R.{op.name} argument {name!r} needs a vdevice", node)
            return vdevice
        raise self.src.error(f"R.{op.name}: parameter {name!r} has an unknown kind {kind!r}", node)

    def _prim_func_ref(self, op: Op, name: str, node: ast.expr) -> Any:
        """``cls.f`` naming a ``@T.prim_func`` of the module: that `tir.PrimFunc`."""
        ref = dotted(node) or ""
        head, _, fname = ref.partition(".")
        if not (head in self.state.aliases or head == self.module.class_name) or not fname or "." in fname:
            raise self.src.error(
                f"R.{op.name} argument {name!r} names a TIR function: cls.<name>, got {describe(node)}", node
            )
        func = self.module.prim_funcs.get(fname)
        if func is None:
            kind = "an @R.function, not a @T.prim_func" if fname in self.module.signatures else "not defined"
            raise self.src.error(f"R.{op.name}: {ref} is {kind}", node)
        return func

    def _index(self, node: ast.expr) -> int | str:
        """One position of an `INDICES` attribute: an int (negative counts from the end) or a symbolic dim."""
        value = node.operand if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) else node
        if isinstance(value, ast.Constant) and type(value.value) is int:
            return -value.value if value is not node else value.value
        return self.static.dim(node, 1)

    def shape_arg(self, op: Op, name: str, node: ast.expr, depth: int) -> Expr:
        """A shape argument: a dims list (``[3, n]``), ``R.shape([...])`` or a shape-valued variable."""
        if isinstance(node, (ast.List, ast.Tuple)):
            values = self.static.dims(node, depth, f"R.{op.name} argument {name!r}")
            return ShapeExpr(values, ShapeStructInfo(values), self.src.span(node))
        value = self.expr(node, depth)
        if not isinstance(value.struct_info, ShapeStructInfo):
            raise self.src.error(
                f"R.{op.name} argument {name!r} must be a shape (a dims list, R.shape([...]) or R.shape_of(x)), "
                f"got a value of type {value.struct_info!r}",
                node,
            )
        return value

    def infer(self, op: Op, args: list[Expr], attrs: dict[str, Any], span: Span) -> StructInfo:
        if op.name == "hint_on_device" and self.module.implies_vdevices:
            self.module.imply_vdevice(attrs["device"], attrs.get("memory_scope", "global"))
        try:
            return call_struct_info(op, args, attrs, self.state.vdevices, span)
        except ParseError as err:
            if err.span is None:
                raise type(err)(err.reason, span) from None
            raise
        except Exception as err:  # an op's inference choked on odd attributes: still the user's error
            raise InferenceError(f"R.{op.name}: cannot infer the result ({type(err).__name__}: {err})", span) from None

    def _function_call(self, name: str, node: ast.Call, depth: int) -> Call:
        if name not in self.module.signatures:
            defined = ", ".join(self.module.signatures) or "none"
            raise self.src.error(f"call to undefined function {name!r} (the module defines: {defined})", node.func)
        if node.keywords:
            raise self.src.error(f"cls.{name} takes positional arguments only", node.keywords[0])
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.src.error("'*' arguments are not supported", arg)
            args.append(self.expr(arg, depth + 1))
        callee = self.module.callee_struct_info(name, node)
        span = self.src.span(node)
        sinfo = global_call_struct_info(name, callee, args, span)
        return Call(GlobalVar(name, self.src.span(node.func)), args, None, sinfo, span)

    # -- builtins ---------------------------------------------------------------
    def _const(self, node: ast.Call, depth: int) -> Constant:
        value_node, dtype_node = bind_arguments(self.src, node, ("value", "dtype"), "R.const")
        if value_node is None:
            raise self.src.error("R.const needs a value", node)
        value = literal(self.src, value_node, seq=list)
        if isinstance(value, str) and value.lower() in NONFINITE:
            value = NONFINITE[value.lower()]  # R.const("-inf", "float32"), as TVM prints it
        if not _is_numeric(value, 0):
            raise self.src.error(
                f"R.const takes a number, a bool or nested lists of them, got {describe(value_node)}", value_node
            )
        dtype = None if dtype_node is None else (self.static.dtype(dtype_node) or None)
        try:
            if dtype is None:
                data = np.asarray(value)
                # TVM's defaults: Python ints are int32 and floats float32.
                dtype = {"int64": "int32", "float64": "float32"}.get(str(data.dtype), str(data.dtype))
                _check_range(value, data.dtype if dtype == str(data.dtype) else np.dtype(dtype), dtype)
                data = data.astype(dtype)
            else:
                _check_range(value, to_numpy(dtype), dtype)
                data = np.asarray(value, dtype=to_numpy(dtype))
        except (ValueError, OverflowError, TypeError) as err:
            raise self.src.error(
                f"R.const: cannot make a {dtype or ''} array from this value: {err}", value_node
            ) from None
        if dtype not in DTYPES:
            raise self.src.error(f"R.const: unsupported dtype {dtype!r}", node)
        return Constant(data, TensorStructInfo(data.shape, dtype), self.src.span(node))

    def _shape(self, node: ast.Call, depth: int) -> ShapeExpr:
        values = self.static.dims(node, depth, "R.shape")
        return ShapeExpr(values, ShapeStructInfo(values), self.src.span(node))

    def _prim_value(self, node: ast.Call, depth: int) -> PrimValue:
        (value_node,) = bind_arguments(self.src, node, ("value",), "R.prim_value")
        if value_node is None:
            raise self.src.error("R.prim_value needs a value", node)
        return self._prim(value_node, node, depth)

    def _prim(self, value_node: ast.expr, node: ast.expr, depth: int) -> PrimValue:
        """A prim value from ``3``, ``T.int32(3)``, ``T.float64(0.5)``, ``True``, ``n`` or ``n * 3``.

        The bare forms are how TVM prints prim value arguments (``R.clip(x, 0,
        6)``, ``R.arange(0, n, 1)``); a symbolic one (a declared dim, or
        arithmetic of dims) is an int64 whose value the run binds.
        """
        dtype = None
        if isinstance(value_node, ast.Call):
            dtype = _PRIM_DTYPES.get(dotted(value_node.func) or "")
            if dtype is not None:
                (inner,) = bind_arguments(self.src, value_node, ("value",), f"T.{dtype}")
                if inner is None:
                    raise self.src.error(f"T.{dtype}(...) needs a value here", value_node)
                value_node = inner
        if self._is_symbolic(value_node):
            if dtype not in (None, "int64"):
                raise self.src.error(f"a symbolic prim value is an int64, not a {dtype}", value_node)
            value: Any = self.static.dim(value_node, depth)
            return PrimValue(value, "int64", PrimStructInfo("int64", value), self.src.span(node))
        value = literal(self.src, value_node)
        if isinstance(value, str) and value.lower() in NONFINITE and dtype is not None and dtype.startswith("float"):
            value = NONFINITE[value.lower()]  # T.float64("inf"), as TVM prints a non-finite prim value
        if not isinstance(value, (int, float, bool)):
            raise self.src.error(f"R.prim_value takes a number or a bool, got {describe(value_node)}", value_node)
        if dtype is None:
            dtype = "bool" if isinstance(value, bool) else "int64" if isinstance(value, int) else "float64"
        elif dtype == "bool":
            if not isinstance(value, bool):
                raise self.src.error(f"T.bool takes True or False, got {value!r}", value_node)
        elif dtype.startswith(("int", "uint")):
            if not isinstance(value, int) or isinstance(value, bool):
                raise self.src.error(f"T.{dtype} takes an integer, got {value!r}", value_node)
        else:
            if isinstance(value, bool):
                raise self.src.error(f"T.{dtype} takes a number, got {value!r}", value_node)
            value = float(value)
        if dtype.startswith(("int", "uint")):
            info = np.iinfo(to_numpy(dtype))
            if not info.min <= value <= info.max:
                raise self.src.error(f"{value} does not fit in {dtype} ([{info.min}, {info.max}])", value_node)
        return PrimValue(value, dtype, PrimStructInfo(dtype, value), self.src.span(node))

    def _is_symbolic(self, node: ast.expr) -> bool:
        """Whether `node` names a declared symbolic dim (alone or in arithmetic), not a relax variable."""
        names = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
        return bool(names) and all(n in self.sig.symbols and n not in self.state.scope for n in names)

    def _string(self, node: ast.Call, depth: int) -> StringImm:
        (value_node,) = bind_arguments(self.src, node, ("value",), "R.str")
        if not (isinstance(value_node, ast.Constant) and isinstance(value_node.value, str)):
            raise self.src.error("R.str takes a string literal", node)
        return StringImm(value_node.value, self.src.span(node))

    def _tuple(self, node: ast.Call, depth: int) -> Tuple:
        if node.keywords:
            raise self.src.error("R.tuple takes its fields positionally", node.keywords[0])
        fields = [self.expr(e, depth + 1) for e in node.args]
        return Tuple(fields, tuple_struct_info(fields), self.src.span(node))


BUILTINS = {
    "const": ExprParser._const,
    "shape": ExprParser._shape,
    "prim_value": ExprParser._prim_value,
    "str": ExprParser._string,
    "tuple": ExprParser._tuple,
}


_VARIADIC_AT: dict[Op, int] = {}


def _variadic_at(op: Op) -> int:
    """The index of the op's `VARIADIC` parameter, -1 when it has none (kept per op)."""
    at = _VARIADIC_AT.get(op)
    if at is None:
        at = _VARIADIC_AT[op] = next((i for i, p in enumerate(op.params) if p.kind == VARIADIC), -1)
    return at


# The strings R.const reads as non-finite floats.
NONFINITE = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def _is_numeric(value: Any, depth: int) -> bool:
    if isinstance(value, (bool, int, float)):
        return True
    if isinstance(value, list) and depth < MAX_DEPTH:
        return all(_is_numeric(v, depth + 1) for v in value)
    return False


def _check_range(value: object, target: np.dtype, dtype: str) -> None:
    """`OverflowError` when an integer of `value` does not fit `target`, an integer dtype (`dtype` names it).

    NumPy before 2.0 wraps such a value around (300 as int8 is 44), and every
    NumPy wraps when the default int32 is applied to a Python int: the
    constant would silently hold another number.
    """
    if target.kind not in "iu":
        return
    info = np.iinfo(target)
    for item in np.asarray(value, dtype=object).ravel():
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool) and not info.min <= item <= info.max:
            raise OverflowError(f"Python integer {item} out of bounds for {dtype}")
