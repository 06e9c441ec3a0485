"""Struct-info annotations, shape dims, devices and vdevices, read from AST nodes.

These are the parts of the text that denote *static* things (types, device
names) rather than relax values; they depend only on the module's vdevice
list and the function's declared symbolic dims, which is why the function
parser can cache their results by source text.
"""

from __future__ import annotations

import ast
import keyword
from collections.abc import Sequence
from typing import TypeGuard

from ..errors import ParseError, VDeviceLookupError
from ..struct_info import (
    DTYPES,
    Dim,
    FuncStructInfo,
    ObjectStructInfo,
    PrimStructInfo,
    ShapeStructInfo,
    StructInfo,
    TensorStructInfo,
    TupleStructInfo,
)
from ..vdevice import (
    DEVICE_TYPE_CODES,
    KIND_TO_DEVICE_TYPE,
    TVM_DEVICE_FUNCS,
    DeviceSpec,
    Target,
    VDevice,
    lookup_vdevice,
)
from .literals import MAX_DEPTH, bind_arguments, describe, dotted, int_literal, literal, str_literal, too_deep
from .source import Source, quiet_parse

_DIM_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)


_MIN_MAX = ("T.min", "T.max")


def _is_min_max(node: ast.AST) -> TypeGuard[ast.Call]:
    """``T.min(a, b)`` or ``T.max(a, b)``: two positional arguments, nothing else."""
    return isinstance(node, ast.Call) and dotted(node.func) in _MIN_MAX and len(node.args) == 2 and not node.keywords


_MAX_DIM_TEXT = 200
_OBJECT = ObjectStructInfo()

# Annotation names that may be written without a call: ``x: R.Tensor``.
_BARE = {
    "R.Tensor": TensorStructInfo(),
    "R.Object": _OBJECT,
    "R.Tuple": TupleStructInfo(()),
    "R.Shape": ShapeStructInfo(),
}


class StaticReader:
    """Reads annotations, dims and devices for one function (or the module level).

    `symbols` holds the names declared with ``n = T.int64()`` in the function;
    a bare name in a shape must be one of them.
    """

    __slots__ = ("src", "vdevices", "symbols", "_dims")

    def __init__(self, src: Source, vdevices: Sequence[VDevice], symbols: set[str] | None = None) -> None:
        self.src = src
        self.vdevices = vdevices
        self.symbols: set[str] = set() if symbols is None else symbols
        self._dims: dict[str, Dim] = {}

    # -- dims -----------------------------------------------------------------
    def dim(self, node: ast.AST, depth: int) -> Dim:
        """One shape dim: a non-negative int, a symbolic string, a declared name, or arithmetic of these."""
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, int) and not isinstance(value, bool):
                if value < 0:
                    raise self.src.error(f"a shape dim must not be negative, got {value}", node)
                return value
            if isinstance(value, str):
                return self.dim_string(value, node)
            raise self.src.error(f"a shape dim must be an int or a symbolic name, got {describe(node)}", node)
        if isinstance(node, ast.Name):
            return self._symbol(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
            raise self.src.error(f"a shape dim must not be negative, got {ast.unparse(node)}", node)
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) or (isinstance(node, ast.Call) and dotted(node.func) in _MIN_MAX):
            self._check_dim_expr(node, depth, declared=True)
            return self._symbolic(node)
        if isinstance(node, ast.Call) and (dotted(node.func) or "").startswith("T."):
            return self._tir_int(node)
        raise self.src.error(f"a shape dim must be an int or a symbolic name, got {describe(node)}", node)

    def _symbolic(self, node: ast.AST) -> str:
        """The normalized text of a checked dim expression, which must involve a name."""
        if not any(isinstance(n, ast.Name) for n in ast.walk(node)):
            raise self.src.error("a shape dim must be a non-negative int or involve a symbolic name", node)
        return ast.unparse(node)

    def _symbol(self, node: ast.Name) -> str:
        if node.id in self.symbols:
            return node.id
        raise self.src.error(
            f"undefined symbolic dim {node.id!r}: declare it with '{node.id} = T.int64()' or write it as a string",
            node,
        )

    def _tir_int(self, node: ast.Call) -> int:
        """``T.int64(4)`` as a dim."""
        if len(node.args) == 1 and not node.keywords:
            value = int_literal(self.src, node.args[0], f"{dotted(node.func)}(...)")
            if value >= 0:
                return value
        raise self.src.error(f"a shape dim must be an int or a symbolic name, got {describe(node)}", node)

    def _check_dim_expr(self, node: ast.AST, depth: int, declared: bool) -> None:
        """Only ints, names and + - * // % may appear in a symbolic dim."""
        if depth > MAX_DEPTH:
            raise too_deep(self.src, node)
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return
        if isinstance(node, ast.Name):
            if declared:
                self._symbol(node)
            return
        if isinstance(node, ast.BinOp) and isinstance(node.op, _DIM_BINOPS):
            self._check_dim_expr(node.left, depth + 1, declared)
            self._check_dim_expr(node.right, depth + 1, declared)
            return
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            self._check_dim_expr(node.operand, depth + 1, declared)
            return
        if _is_min_max(node):  # ``T.min(n, 16)``: what TVM prints for a slice of a symbolic length
            for arg in node.args:
                self._check_dim_expr(arg, depth + 1, declared)
            return
        raise self.src.error(
            f"a symbolic dim may use only ints, names, + - * // % and T.min/T.max, got {describe(node)}", node
        )

    def dim_string(self, text: str, node: ast.AST) -> Dim:
        """A dim written as a string: ``"n"`` or ``"n * 2"`` (normalized to one spelling)."""
        cached = self._dims.get(text)
        if cached is not None:
            return cached
        if text.isidentifier() and not keyword.iskeyword(text):
            result: Dim = text
        else:
            if not text.strip() or len(text) > _MAX_DIM_TEXT:
                raise self.src.error(f"cannot read symbolic dim {text[:40]!r}", node)
            try:
                tree = quiet_parse(text.strip(), "eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                raise self.src.error(f"cannot read symbolic dim {text!r}: not an expression", node) from None
            try:
                self._check_dim_expr(tree, 0, declared=False)
            except ParseError as err:
                raise self.src.error(f"cannot read symbolic dim {text!r}: {err.reason}", node) from None
            if isinstance(tree, ast.Constant):
                assert type(tree.value) is int  # the only constant `_check_dim_expr` lets through
                result = tree.value
            else:
                try:
                    result = self._symbolic(tree)
                except ParseError as err:
                    raise self.src.error(f"cannot read symbolic dim {text!r}: {err.reason}", node) from None
        self._dims[text] = result
        return result

    def dims(self, node: ast.AST, depth: int, what: str) -> tuple[Dim, ...]:
        """A list/tuple of dims, or ``R.shape([...])``."""
        if depth > MAX_DEPTH:
            raise too_deep(self.src, node)
        if isinstance(node, ast.Call) and dotted(node.func) == "R.shape":
            (values,) = bind_arguments(self.src, node, ("values",), "R.shape")
            if values is None:
                raise self.src.error("R.shape needs a list of dims", node)
            node = values
        if not isinstance(node, (ast.Tuple, ast.List)):
            raise self.src.error(f"{what} must be a tuple or list of dims, got {describe(node)}", node)
        return tuple(self.dim(e, depth + 1) for e in node.elts)

    # -- struct info ------------------------------------------------------------
    def struct_info(self, node: ast.AST, depth: int = 0) -> StructInfo:
        """A struct-info annotation: ``R.Tensor((2, 3), "float32", "cuda:0")``, ``R.Tuple(...)``, ..."""
        if depth > MAX_DEPTH:
            raise too_deep(self.src, node)
        if isinstance(node, (ast.Attribute, ast.Name)):
            name = dotted(node)
            if name in _BARE:
                return _BARE[name]
            raise self._bad_annotation(node)
        if not isinstance(node, ast.Call):
            raise self._bad_annotation(node)
        name = dotted(node.func)
        if name == "R.Tensor":
            return self._tensor(node)
        if name == "R.Tuple":
            return self._tuple(node, depth)
        if name == "R.Shape":
            values, ndim = bind_arguments(self.src, node, ("values", "ndim"), "R.Shape")
            ndim_value = -1 if ndim is None else self._ndim(ndim)
            if values is None or (isinstance(values, ast.Constant) and values.value is None):
                return ShapeStructInfo(None, ndim_value)
            dims = self.dims(values, depth + 1, "R.Shape values")
            if ndim is not None and ndim_value != len(dims):
                raise self.src.error(f"R.Shape has {len(dims)} values but ndim={ndim_value}", ndim)
            return ShapeStructInfo(dims)
        if name == "R.Prim":
            dtype, value = bind_arguments(self.src, node, ("dtype", "value"), "R.Prim")
            if dtype is None:
                raise self.src.error('R.Prim needs a dtype, e.g. R.Prim("int64")', node)
            prim_value = None
            if value is not None:
                prim_value = literal(self.src, value)
                if not isinstance(prim_value, (int, float, bool)):
                    raise self.src.error(f"R.Prim value must be a number or a bool, got {describe(value)}", value)
            return PrimStructInfo(self.dtype(dtype), prim_value)
        if name == "R.Object":
            bind_arguments(self.src, node, (), "R.Object")
            return _OBJECT
        if name == "R.Callable":
            params, ret = bind_arguments(self.src, node, ("params", "ret"), "R.Callable")
            if params is None or ret is None or not isinstance(params, (ast.List, ast.Tuple)):
                raise self.src.error("R.Callable needs a list of parameter struct infos and a return struct info", node)
            return FuncStructInfo(
                [self.struct_info(p, depth + 1) for p in params.elts], self.struct_info(ret, depth + 1)
            )
        raise self._bad_annotation(node)

    def _bad_annotation(self, node: ast.AST) -> ParseError:
        return self.src.error(
            "unsupported annotation: expected R.Tensor, R.Tuple, R.Shape, R.Prim, R.Object or R.Callable, "
            f"got {describe(node)}",
            node,
        )

    def _tensor(self, node: ast.Call) -> TensorStructInfo:
        args = node.args
        names: tuple[str, ...] = ("shape", "dtype", "vdevice", "ndim")
        # R.Tensor("float32", ndim=2): a leading string is the dtype, not a shape.
        if args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
            names = ("dtype", "vdevice", "ndim")
        bound = dict(zip(names, bind_arguments(self.src, node, names, "R.Tensor"), strict=True))
        shape_node, ndim_node = bound.get("shape"), bound["ndim"]
        dtype_node, vdevice_node = bound["dtype"], bound["vdevice"]
        shape = None
        if shape_node is not None and not (isinstance(shape_node, ast.Constant) and shape_node.value is None):
            shape = self.dims(shape_node, 1, "R.Tensor shape")
        ndim = -1 if ndim_node is None else self._ndim(ndim_node)
        if shape is not None and ndim_node is not None and ndim != len(shape):
            raise self.src.error(f"R.Tensor has a shape of rank {len(shape)} but ndim={ndim}", ndim_node)
        dtype = "" if dtype_node is None else self.dtype(dtype_node)
        vdevice = None if vdevice_node is None else self.vdevice_ref(vdevice_node)
        return TensorStructInfo(shape, dtype, ndim, vdevice)

    def _tuple(self, node: ast.Call, depth: int) -> TupleStructInfo:
        if node.keywords:
            raise self.src.error("R.Tuple takes its fields positionally", node.keywords[0])
        elts: list[ast.expr] = list(node.args)
        if len(elts) == 1 and isinstance(elts[0], (ast.List, ast.Tuple)):
            elts = list(elts[0].elts)
        return TupleStructInfo([self.struct_info(e, depth + 1) for e in elts])

    def _ndim(self, node: ast.AST) -> int:
        value = int_literal(self.src, node, "ndim")
        if value < -1:
            raise self.src.error(f"ndim must be -1 (unknown) or a rank >= 0, got {value}", node)
        return value

    def dtype(self, node: ast.AST) -> str:
        if isinstance(node, ast.Constant) and node.value is None:
            return ""
        text = str_literal(self.src, node, "a dtype")
        if text and text not in DTYPES:
            raise self.src.error(f"unknown dtype {text!r} (known: {', '.join(sorted(DTYPES))})", node)
        return text

    # -- devices ----------------------------------------------------------------
    def vdevice_ref(self, node: ast.AST) -> VDevice | None:
        """A vdevice named in an annotation or op argument: ``"cuda:0:global"`` or ``I.vdevice(...)``."""
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        if isinstance(node, ast.Call) and dotted(node.func) == "I.vdevice":
            return self.vdevice_decl(node)
        name = str_literal(self.src, node, "a vdevice")
        try:
            return lookup_vdevice(self.vdevices, name)
        except LookupError as err:
            reason = str(err) if repr(name) in str(err) else f"unknown vdevice {name!r}: {err}"
            raise self.src.error(reason, node, VDeviceLookupError) from None

    def vdevice_decl(self, node: ast.AST) -> VDevice:
        """``I.vdevice(target, vdevice_id=0, memory_scope="global")`` as a value."""
        if not (isinstance(node, ast.Call) and dotted(node.func) == "I.vdevice"):
            raise self.src.error(f"expected I.vdevice(...), got {describe(node)}", node)
        target, vid, scope = bind_arguments(self.src, node, ("target", "vdevice_id", "memory_scope"), "I.vdevice")
        if target is None:
            raise self.src.error('I.vdevice needs a target, e.g. I.vdevice("cuda", 0)', node)
        spec = literal(self.src, target, seq=list)
        if not isinstance(spec, (str, dict)):
            raise self.src.error(f"a target must be a string or a dict, got {describe(target)}", target)
        index = 0 if vid is None else int_literal(self.src, vid, "vdevice_id")
        memory_scope = "global" if scope is None else str_literal(self.src, scope, "memory_scope")
        try:
            parsed = Target.parse(spec)
        except ValueError as err:
            raise self.src.error(f"bad target: {err}", target) from None
        try:
            return VDevice(parsed, index, memory_scope)
        except ValueError as err:
            raise self.src.error(f"bad vdevice: {err}", node) from None

    def device(self, node: ast.AST) -> DeviceSpec:
        """A runtime device: ``tvm.cuda(1)``, ``tvm.cpu()``, ``tvm.device("cuda", 0)``, ``R.device(2, 0)``."""
        name = dotted(node.func) if isinstance(node, ast.Call) else None
        if name is None:
            raise self.src.error(
                f"expected a device such as tvm.cuda(0) or R.device(device_type=2, index=0), got {describe(node)}",
                node,
            )
        assert isinstance(node, ast.Call)
        if name == "R.device":
            code_node, index_node = bind_arguments(self.src, node, ("device_type", "index"), "R.device")
            if code_node is None:
                raise self.src.error("R.device needs a device_type code (1 = cpu, 2 = cuda, ...)", node)
            code = int_literal(self.src, code_node, "device_type")
            if code not in DEVICE_TYPE_CODES:
                known = ", ".join(f"{c} = {t}" for c, t in sorted(DEVICE_TYPE_CODES.items()))
                raise self.src.error(f"unknown device type code {code} (known: {known})", code_node)
            return DeviceSpec(DEVICE_TYPE_CODES[code], self._device_index(index_node))
        if name in ("tvm.device", "tvm.runtime.device"):
            kind_node, index_node = bind_arguments(self.src, node, ("dev_type", "dev_id"), name)
            if kind_node is None:
                raise self.src.error(f'{name} needs a device type, e.g. {name}("cuda", 0)', node)
            kind = str_literal(self.src, kind_node, "a device type")
            device_type = TVM_DEVICE_FUNCS.get(kind) or KIND_TO_DEVICE_TYPE.get(kind)
            if device_type is None:
                raise self.src.error(f"unknown device type {kind!r}", kind_node)
            return DeviceSpec(device_type, self._device_index(index_node))
        head, _, func = name.partition(".")
        if head == "tvm" and func in TVM_DEVICE_FUNCS:
            (index_node,) = bind_arguments(self.src, node, ("dev_id",), name)
            return DeviceSpec(TVM_DEVICE_FUNCS[func], self._device_index(index_node))
        raise self.src.error(
            f"unknown device {name}(...): expected tvm.cpu(), tvm.cuda(i), tvm.device(...) or R.device(...)", node
        )

    def _device_index(self, node: ast.AST | None) -> int:
        if node is None:
            return 0
        index = int_literal(self.src, node, "a device index")
        if index < 0:
            raise self.src.error(f"a device index must not be negative, got {index}", node)
        return index
