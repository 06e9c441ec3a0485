"""Reading TIR scalar expressions from the Python AST, each with its dtype.

A bare Python number is *weak*: it takes the dtype of the operand it meets
(``x[i] * 2`` with ``x`` float32 multiplies by ``T.float32(2)``), as TVM's
parser does; alone it is int32, float32 or bool.  Two typed operands of
different integer widths meet at the wider one (an explicit `Cast`); any
other mix of dtypes is a `ParseError` at the operator.
"""

from __future__ import annotations

import ast
import math

from ..dtype import is_float
from ..errors import ParseError
from ..parser.literals import describe, dotted, typed_int
from ..parser.source import Source
from .nodes import BinOp, Buffer, Cast, Const, Domain, Expr, Intrin, Load, Select, Unary, Var, variables

MAX_DEPTH = 200  # TOPI prints at most ~25 levels; printing, running and comparing recurse per level

SCALAR_DTYPES = frozenset(
    {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64"}
    | {"bfloat16"}
)
_BINOPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
}  # fmt: skip
_COMPARE = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_INT_ONLY = frozenset({"//", "%", "&", "|", "^", "<<", ">>"})
# Intrinsics by arity; each gives its operands' dtype unless listed in `_BOOL_RESULT`.
UNARY_INTRINSICS = frozenset(
    {"exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos"}
    | {"atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "floor", "ceil", "round"}
    | {"nearbyint", "trunc", "fabs", "abs", "bitwise_not", "isnan", "isinf", "isfinite", "likely"}
)
BINARY_INTRINSICS = frozenset(
    {"max", "min", "pow", "fmod", "atan2", "hypot", "copysign", "floordiv", "floormod", "truncdiv", "truncmod"}
    | {"bitwise_and", "bitwise_or", "bitwise_xor", "shift_left", "shift_right"}
)
DTYPE_INTRINSICS = frozenset({"max_value", "min_value", "infinity"})
_BOOL_RESULT = frozenset({"isnan", "isinf", "isfinite", "likely"})
_INT_INTRINSICS = frozenset({"floordiv", "floormod", "truncdiv", "truncmod", "bitwise_and", "bitwise_or"}) | {
    "bitwise_xor", "shift_left", "shift_right", "bitwise_not"
}  # fmt: skip
# Operators TVM prints as calls where Python's spelling would mean something else (``T.Div``: integer
# division truncating toward zero) and their binary-operator forms.
_CALL_OPERATORS = {"Div": "/", "FloorDiv": "//", "FloorMod": "%", "Add": "+", "Sub": "-", "Mul": "*"}
_FLOAT_WORDS = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def is_int(dtype: str) -> bool:
    return dtype.startswith(("int", "uint"))


def _bits(dtype: str) -> int:
    return int(dtype.removeprefix("u").removeprefix("int"))


def _weak(node: ast.expr) -> bool:
    """A bare Python number or bool, possibly negated: it takes its partner's dtype."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


class ExprReader:
    """Reads expressions over `buffers` and the variables in `scope` (both shared with the statement reader)."""

    def __init__(self, src: Source, buffers: dict[str, Buffer], scope: dict[str, tuple[Var, Domain]]) -> None:
        self.src = src
        self.buffers = buffers
        self.scope = scope
        # The function's symbols (``n = T.int64()``, ``n: T.int64``, the module's ``TypeVar``s), and those read.
        self.symbols: dict[str, Var] = {}
        self.used: set[str] = set()
        # ``T.let`` names -> (value, buffers it loads); a name whose buffers a later store wrote is stale.
        self.lets: dict[str, tuple[Expr, frozenset[str]]] = {}
        self.stale: set[str] = set()

    def written(self, buffer: str) -> None:
        """A store to `buffer` was read: a let reading it can no longer stand for its value."""
        self.stale.update(name for name, (_, reads) in self.lets.items() if buffer in reads)

    def error(self, reason: str, node: ast.AST) -> ParseError:
        return self.src.error(f"TIR: {reason}", node)

    def read(self, node: ast.expr, depth: int = 0) -> Expr:
        if depth > MAX_DEPTH:
            raise self.error(f"expression nested more than {MAX_DEPTH} levels deep", node)
        d = depth + 1
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            name = node.id
            if name in self.scope:
                return self.scope[name][0]
            if name in self.lets:
                if name in self.stale:
                    raise self.error(f"let {name!r} is used after a store to a buffer its value reads", node)
                return self.lets[name][0]
            if name in self.symbols:
                self.used.add(name)
                return self.symbols[name]
            if name in self.buffers:
                raise self.error(f"buffer {name!r} is used without indices", node)
            raise self.error(f"unknown name {name!r}", node)
        if isinstance(node, ast.Subscript):
            return self.load(node, d)
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise self.error(f"the operator in {describe(node)} is not read", node)
            return self.binary(op, node.left, node.right, node, d)
        if isinstance(node, ast.Compare):
            return self.compare(node, d)
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            values = [self.boolean(v, d) for v in node.values]
            out = values[0]
            for value in values[1:]:
                out = BinOp(op, out, value, "bool")
            return out
        if isinstance(node, ast.UnaryOp):
            return self.unary(node, d)
        if isinstance(node, ast.Call):
            return self.call(node, d)
        raise self.error(f"this expression is not read: {describe(node)}", node)

    def extent(self, node: ast.expr, symbols_only: bool = False) -> tuple[int | Expr, str]:
        """A loop, axis or buffer extent and its dtype: ``T.int64(4)``, a bare ``4`` (int32), or an integer
        expression (``n * T.int64(2)``; of the function's symbols only if `symbols_only`, as a buffer's
        dims are; a loop's may name enclosing loop and block variables), never a negative literal."""
        value: int | None = None
        if isinstance(node, ast.Constant) and type(node.value) is int:
            value, dtype = node.value, "int32"
        elif isinstance(node, ast.Call):
            value, dtype = typed_int(node), (dotted(node.func) or "")[2:]  # ``T.int64(4)``: int64
        if value is None:
            expr = self.read(node)
            if not is_int(expr.dtype):
                raise self.error(f"an extent must be an integer, got a {expr.dtype} value", node)
            bound = sorted(variables(expr) - self.symbols.keys())
            if bound and symbols_only:
                raise self.error(f"a buffer dim may name only symbols, not the variable {bound[0]!r}", node)
            return expr, expr.dtype
        if value < 0:
            raise self.error(f"a negative extent {value}", node)
        return value, dtype

    def dim(self, node: ast.expr) -> int | Expr:
        """A buffer dim: an extent, or one written as a string (``"n * T.int64(2)"``, as TVM prints some)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                inner = ast.parse(node.value.strip(), mode="eval").body
                return self.extent(inner, symbols_only=True)[0]
            except (SyntaxError, ParseError) as err:
                reason = err.reason if isinstance(err, ParseError) else "invalid syntax"
                raise self.error(f"cannot read the dim {node.value!r}: {reason}", node) from None
        return self.extent(node, symbols_only=True)[0]

    def constant(self, node: ast.Constant) -> Const:
        value = node.value
        if type(value) is bool:
            return Const(value, "bool")
        if type(value) is int:
            return Const(value, "int32")
        if type(value) is float:
            return Const(value, "float32")
        raise self.error(f"a constant must be a number, got {describe(node)}", node)

    def boolean(self, node: ast.expr, depth: int) -> Expr:
        value = self.read(node, depth)
        if value.dtype != "bool":
            raise self.error(f"a condition must be bool, got a {value.dtype} value", node)
        return value

    def load(self, node: ast.Subscript, depth: int = 0) -> Load:
        """``buffer[i, j]`` (``buffer[()]`` for a 0-d buffer)."""
        base = node.value
        if not (isinstance(base, ast.Name) and base.id in self.buffers):
            raise self.error(f"only buffers are indexed, got {describe(base)}", base)
        buffer = self.buffers[base.id]
        index = node.slice
        items = index.elts if isinstance(index, ast.Tuple) else [index]
        if len(items) != len(buffer.shape):
            raise self.error(f"buffer {buffer.name!r} has {len(buffer.shape)} dims, indexed with {len(items)}", node)
        indices = []
        for item in items:
            if isinstance(item, ast.Slice):
                raise self.error(f"buffer {buffer.name!r}: a slice is read only in T.reads/T.writes", item)
            value = self.read(item, depth)
            if _weak(item) and isinstance(value, Const) and value.dtype != "bool":  # a weak number reads to a Const
                value = Const(int(value.value), "int32")
            if not is_int(value.dtype):
                raise self.error(f"buffer {buffer.name!r} is indexed with a {value.dtype} value", item)
            indices.append(value)
        return Load(buffer, tuple(indices))

    def retype(self, value: Expr, node: ast.expr, dtype: str) -> Expr:
        """A weak constant `value` (read from `node`) as a constant of `dtype`."""
        assert isinstance(value, Const)  # what a weak number reads to
        v = value.value
        if dtype == "bool":
            raise self.error(f"the number {v!r} meets a bool value", node)
        if is_int(dtype):
            if isinstance(v, float) and not v.is_integer():
                raise self.error(f"the number {v!r} meets a {dtype} value", node)
            return Const(int(v), dtype)
        return Const(float(v), dtype)

    def coerce(self, value: Expr, node: ast.expr, dtype: str, what: str) -> Expr:
        """`value` as `dtype` for `what`: a weak constant takes it; another value must have it."""
        if value.dtype == dtype:
            return value
        if _weak(node):
            return self.retype(value, node, dtype)
        raise self.error(f"{what} needs a {dtype} value, got {value.dtype}", node)

    def pair(self, left: ast.expr, right: ast.expr, node: ast.AST, depth: int, what: str) -> tuple[Expr, Expr]:
        """Both operands, of one dtype (see the module docstring)."""
        a, b = self.read(left, depth), self.read(right, depth)
        if a.dtype == b.dtype:
            return a, b
        weak_a, weak_b = _weak(left), _weak(right)
        if weak_a and not weak_b:
            return self.retype(a, left, b.dtype), b
        if weak_b and not weak_a:
            return a, self.retype(b, right, a.dtype)
        if is_int(a.dtype) and is_int(b.dtype) and a.dtype.startswith("int") == b.dtype.startswith("int"):
            wide = max(a.dtype, b.dtype, key=_bits)
            return (a if a.dtype == wide else Cast(wide, a)), (b if b.dtype == wide else Cast(wide, b))
        if weak_a and weak_b:  # an int literal and a float literal: float32
            return self.retype(a, left, "float32"), self.retype(b, right, "float32")
        raise self.error(f"the operands of {what} have dtypes {a.dtype} and {b.dtype}", node)

    def binary(self, op: str, left: ast.expr, right: ast.expr, node: ast.AST, depth: int) -> Expr:
        a, b = self.pair(left, right, node, depth, repr(op))
        if op in _INT_ONLY and not is_int(a.dtype) and not (op in ("&", "|", "^") and a.dtype == "bool"):
            raise self.error(f"{op!r} takes integers, got {a.dtype}", node)
        return BinOp(op, a, b, a.dtype)

    def compare(self, node: ast.Compare, depth: int) -> Expr:
        out: Expr | None = None
        left = node.left
        for op_node, right in zip(node.ops, node.comparators, strict=True):
            op = _COMPARE.get(type(op_node))
            if op is None:
                raise self.error(f"the comparison in {describe(node)} is not read", node)
            a, b = self.pair(left, right, node, depth, repr(op))
            term = BinOp(op, a, b, "bool")
            out = term if out is None else BinOp("and", out, term, "bool")
            left = right
        assert out is not None  # a comparison has at least one operator
        return out

    def unary(self, node: ast.UnaryOp, depth: int) -> Expr:
        if isinstance(node.op, ast.USub):
            value = self.read(node.operand, depth)
            if type(value) is Const and value.dtype != "bool":
                return Const(-value.value, value.dtype)
            return Unary("-", value, value.dtype)
        if isinstance(node.op, ast.Not):
            return Unary("not", self.boolean(node.operand, depth), "bool")
        if isinstance(node.op, ast.Invert):  # bitwise: on a bool, logical not
            value = self.read(node.operand, depth)
            if not is_int(value.dtype) and value.dtype != "bool":
                raise self.error(f"'~' takes an integer or a bool, got {value.dtype}", node)
            return Unary("~", value, value.dtype)
        raise self.error(f"the operator in {describe(node)} is not read", node)

    def call(self, node: ast.Call, depth: int) -> Expr:
        name = dotted(node.func) or ""
        if node.keywords:
            raise self.error(f"{name or describe(node.func)} takes positional arguments only here", node)
        word = name[2:] if name.startswith("T.") else ""
        args = node.args
        if word in SCALAR_DTYPES:
            return self.typed_constant(node, word)
        if word == "Cast" and len(args) == 2:
            dtype = self.dtype_arg(args[0])
            return Cast(dtype, self.read(args[1], depth))
        if word in ("if_then_else", "Select") and len(args) == 3:
            cond = self.boolean(args[0], depth)
            a, b = self.pair(args[1], args[2], node, depth, f"T.{word}")
            return Select(cond, a, b, word == "if_then_else")
        if word in _CALL_OPERATORS and len(args) == 2:
            return self.binary(_CALL_OPERATORS[word], args[0], args[1], node, depth)
        if word == "Mod" and len(args) == 2:  # truncated modulo
            word = "truncmod"
        if word in BINARY_INTRINSICS and len(args) == 2:
            a, b = self.pair(args[0], args[1], node, depth, f"T.{word}")
            if word in _INT_INTRINSICS and not is_int(a.dtype):
                raise self.error(f"T.{word} takes integers, got {a.dtype}", node)
            return Intrin(word, (a, b), a.dtype)
        if word in UNARY_INTRINSICS and len(args) == 1:
            a = self.read(args[0], depth)
            if _weak(args[0]) and is_int(a.dtype) and word not in _INT_INTRINSICS and word != "abs":
                a = self.retype(a, args[0], "float32")
            if word in _INT_INTRINSICS and not is_int(a.dtype):
                raise self.error(f"T.{word} takes an integer, got {a.dtype}", node)
            return Intrin(word, (a,), "bool" if word in _BOOL_RESULT else a.dtype)
        if word in DTYPE_INTRINSICS and len(args) == 1:
            return Intrin(word, (), self.dtype_arg(args[0]))
        raise self.error(f"{describe(node)} is not a TIR intrinsic vdplace reads", node)

    def dtype_arg(self, node: ast.expr) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in SCALAR_DTYPES:
            return node.value
        raise self.error(f'expected a dtype string such as "float32", got {describe(node)}', node)

    def typed_constant(self, node: ast.Call, dtype: str) -> Const:
        """``T.float32(0.5)``, ``T.int64(-1)``, ``T.float32("inf")``, ``T.bool(True)``."""
        if len(node.args) != 1:
            raise self.error(f"T.{dtype} takes one value", node)
        arg = node.args[0]
        negative = isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub)
        inner = arg.operand if isinstance(arg, ast.UnaryOp) and negative else arg
        value = inner.value if isinstance(inner, ast.Constant) else None
        if isinstance(value, str) and is_float(dtype) and value in _FLOAT_WORDS and not negative:
            return Const(_FLOAT_WORDS[value], dtype)
        if dtype == "bool" and type(value) is bool and not negative:
            return Const(value, "bool")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and dtype != "bool":
            number = -value if negative else value
            if is_int(dtype):
                if isinstance(number, float) and not number.is_integer():
                    raise self.error(f"T.{dtype} takes an integer, got {number!r}", node)
                return Const(int(number), dtype)
            return Const(float(number), dtype)
        raise self.error(f"T.{dtype} takes a number literal, got {describe(arg)}", node)
