"""Build modules from Python, with the same normalization the parser applies.

mb = ModuleBuilder([VDevice("llvm"), VDevice("cuda", 0)])
f = mb.function("main", [("x", tensor((2, 3), "float32"))])
with f.dataflow():
    y = f.emit("add", f.params[0], f.params[0])
    z = f.emit("nn.relu", y, output=True)
f.finish(z)
mod = mb.get()
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .errors import InferenceError
from .expr import (
    Binding,
    BindingBlock,
    Call,
    DataflowBlock,
    DataflowVar,
    Expr,
    Function,
    GlobalVar,
    If,
    SeqExpr,
    ShapeExpr,
    Tuple,
    TupleGetItem,
    Var,
)
from .module import IRModule
from .normalize import (
    call_struct_info,
    get_item_struct_info,
    global_call_struct_info,
    join,
    merge_annotation,
    tuple_struct_info,
)
from .op import REQUIRED, SHAPE, VARIADIC, Op, get_op
from .span import Span
from .struct_info import FuncStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo
from .vdevice import VDevice


def tensor(
    shape: Sequence[int | str] | None, dtype: str = "float32", vdevice: VDevice | None = None
) -> TensorStructInfo:
    """Shorthand for a tensor struct info."""
    return TensorStructInfo(shape, dtype, vdevice=vdevice)


class SeqBuilder:
    """Collects binding blocks; the base of function bodies and If branches."""

    def __init__(self, module: ModuleBuilder) -> None:
        self.module = module
        self._blocks: list[BindingBlock] = []
        self._current: list[Binding] = []
        self._in_dataflow = False
        self._counter = 0

    # -- values (not bound) ---------------------------------------------------
    def call(self, op_name: str, *args: Expr, span: Span | None = None, **attrs: Any) -> Call:
        """A normalized call of a registered op; attributes take their defaults."""
        op = get_op(op_name)
        args = self._expr_args(op, args, attrs, span)
        full = {}
        for param in op.attr_params:
            if param.name in attrs:
                full[param.name] = attrs.pop(param.name)
            elif param.default is REQUIRED:
                raise InferenceError(f"R.{op_name}: missing attribute {param.name!r}", span)
            else:
                full[param.name] = param.default
        if attrs:
            raise InferenceError(f"R.{op_name}: unknown attribute(s) {sorted(attrs)}", span)
        fixed = sum(1 for p in op.expr_params if p.kind != VARIADIC)
        variadic = fixed < len(op.expr_params)
        if len(args) < fixed or (len(args) > fixed and not variadic):
            at_least = "at least " if variadic else ""
            raise InferenceError(f"R.{op_name} takes {at_least}{fixed} argument(s), got {len(args)}", span)
        sinfo = call_struct_info(op, args, full, self.module.vdevices, span)
        return Call(op, args, full, sinfo, span)

    @staticmethod
    def _expr_args(op: Op, args: tuple[Expr, ...], attrs: dict[str, Any], span: Span | None) -> tuple[Expr, ...]:
        """The expression arguments in parameter order; a shape given by keyword becomes a `ShapeExpr`."""
        given = list(args)
        out: list[Expr] = []
        params = op.expr_params
        for i, param in enumerate(params):
            if param.kind == VARIADIC:  # every argument the expression parameters after it leave over
                take = max(len(given) - (len(params) - i - 1), 0)
                out.extend(given[:take])
                del given[:take]
            elif param.kind == SHAPE and param.name in attrs:
                value = attrs.pop(param.name)
                if isinstance(value, Expr):
                    out.append(value)
                    continue
                if not isinstance(value, (tuple, list)):
                    raise InferenceError(f"R.{op.name}: {param.name} must be a shape (a tuple of dims), got {value!r}")
                out.append(ShapeExpr(tuple(value), ShapeStructInfo(tuple(value)), span))
            elif given:
                out.append(given.pop(0))
            else:
                break
        return tuple(out + given)

    def call_function(self, name: str, *args: Expr, span: Span | None = None) -> Call:
        callee = self.module.signature(name)
        sinfo = global_call_struct_info(name, callee, args, span)
        return Call(GlobalVar(name), args, None, sinfo, span)

    def tuple(self, *fields: Expr) -> Tuple:
        return Tuple(fields, tuple_struct_info(fields))

    def get_item(self, value: Expr, index: int) -> TupleGetItem:
        return TupleGetItem(value, index, get_item_struct_info(value, index, None))

    # -- bindings -------------------------------------------------------------
    def emit(
        self,
        value: str | Expr,
        *args: Expr,
        name: str | None = None,
        annotation: StructInfo | None = None,
        output: bool = False,
        **attrs: Any,
    ) -> Var:
        """Bind `value` (an expression, or an op name called on `args`) to a new variable."""
        expr = self.call(value, *args, **attrs) if isinstance(value, str) else value
        sinfo = expr.struct_info
        if annotation is not None:
            sinfo = merge_annotation(annotation, sinfo, None, name or "binding")
        if name is None:
            name = f"lv{self._counter}" if self._in_dataflow and not output else f"gv{self._counter}"
            self._counter += 1
        var_cls = DataflowVar if self._in_dataflow and not output else Var
        var = var_cls(name, sinfo)
        self._current.append(Binding(var, expr, annotation))
        return var

    def emit_if(self, cond: Expr, true_branch: SeqExpr, false_branch: SeqExpr, name: str | None = None) -> Var:
        sinfo = join(true_branch.struct_info, false_branch.struct_info)
        return self.emit(If(cond, true_branch, false_branch, sinfo), name=name)

    def branch(self) -> SeqBuilder:
        """A builder for one If branch; finish it with `seq(result)`."""
        return SeqBuilder(self.module)

    @contextmanager
    def dataflow(self) -> Iterator[None]:
        self._flush()
        self._in_dataflow = True
        try:
            yield
        finally:
            self._in_dataflow = False
            if self._current:
                self._blocks.append(DataflowBlock(self._current))
                self._current = []

    def _flush(self) -> None:
        if self._current:
            self._blocks.append(BindingBlock(self._current))
            self._current = []

    def seq(self, body: Expr) -> SeqExpr:
        self._flush()
        return SeqExpr(self._blocks, body)


class FunctionBuilder(SeqBuilder):
    def __init__(
        self,
        module: ModuleBuilder,
        name: str,
        params: Sequence[tuple[str, StructInfo]],
        ret: StructInfo | None,
        private: bool,
        pure: bool = True,
    ) -> None:
        super().__init__(module)
        self.name = name
        self.params = [Var(pname, sinfo) for pname, sinfo in params]
        self._ret = ret
        self._private = private
        self._pure = pure

    def finish(self, body: Expr, ret: StructInfo | None = None) -> Function:
        """Close the function with result `body` and add it to the module."""
        ret = ret or self._ret
        sinfo = body.struct_info if ret is None else merge_annotation(ret, body.struct_info, None, "return value")
        attrs: dict[str, Any] = {"private": True} if self._private else {}
        if not self._pure:  # it may call impure ops (R.print, R.assert_op), outside dataflow blocks
            attrs["pure"] = False
        func = Function(self.params, self.seq(body), sinfo, attrs)
        self.module.add(self.name, func)
        return func


class ModuleBuilder:
    def __init__(self, vdevices: Sequence[VDevice] = (), attrs: dict[str, Any] | None = None, name: str = "Module"):
        self.vdevices = list(vdevices)
        self.attrs = dict(attrs or {})
        self.name = name
        self.functions: dict[str, Function] = {}

    def function(
        self,
        name: str,
        params: Sequence[tuple[str, StructInfo]],
        ret: StructInfo | None = None,
        private: bool = False,
        pure: bool = True,
    ) -> FunctionBuilder:
        """A builder of function `name`; `pure=False` declares it may call impure ops (``R.print``)."""
        return FunctionBuilder(self, name, params, ret, private, pure)

    def add(self, name: str, func: Function) -> None:
        if name in self.functions:
            raise InferenceError(f"function {name!r} is defined twice")
        self.functions[name] = func

    def signature(self, name: str) -> FuncStructInfo:
        if name not in self.functions:
            raise InferenceError(f"call to undefined function {name!r} (build callees first)")
        return self.functions[name].struct_info

    def get(self) -> IRModule:
        return IRModule(self.functions, self.vdevices, self.attrs, self.name)
