"""Rebuild a module with every vdevice reference sent through a mapping.

References are: tensor struct infos everywhere (parameters, binding
variables, binding annotations, nested values, tuple leaves, If results,
return struct infos), ``to_vdevice``'s ``dst_vdevice`` and the device a
``hint_on_device`` names.  The input is never mutated (an `ExprMutator`
builds new nodes; a node with nothing to remap is shared).

The mapping gets the span of each reference for its error messages: the
reference's own span where it has one, else the enclosing binding's (a
parameter's own, a return struct info's ``ret_span``), else the function's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vdplace.ir.expr import Binding, Call, Constant, Expr, Function, If, SeqExpr, Tuple, TupleGetItem, Var
from vdplace.ir.module import IRModule
from vdplace.ir.op import Op
from vdplace.ir.span import Span
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from vdplace.ir.vdevice import VDevice
from vdplace.ir.visitor import ExprMutator

# (vdevice, span of the reference) -> the vdevice to use instead
VDeviceMap = Callable[[VDevice, Span | None], VDevice]
# (hint call attrs, span) -> new attrs (or the same object)
HintMap = Callable[[dict[str, Any], Span | None], dict[str, Any]]


def remap_module(mod: IRModule, vdevices: list[VDevice], fn: VDeviceMap, hint_fn: HintMap) -> IRModule:
    """A new module with list `vdevices` and every reference replaced by ``fn(old, span)``."""
    return _Remapper(fn, hint_fn).mutate_module(mod).replace(vdevices=vdevices)


class _Remapper(ExprMutator):
    def __init__(self, fn: VDeviceMap, hint_fn: HintMap) -> None:
        super().__init__()
        self.fn = fn
        self.hint_fn = hint_fn
        self.function_span: Span | None = None
        self.binding_spans: list[Span | None] = []  # innermost binding last

    @property
    def span(self) -> Span | None:
        return self.binding_spans[-1] if self.binding_spans else self.function_span

    def sinfo(self, sinfo: StructInfo, span: Span | None) -> StructInfo:
        if type(sinfo) is TensorStructInfo:
            if sinfo.vdevice is None:
                return sinfo
            return sinfo.with_vdevice(self.fn(sinfo.vdevice, span))
        if type(sinfo) is TupleStructInfo:
            fields = tuple(self.sinfo(f, span) for f in sinfo.fields)
            return sinfo if fields == sinfo.fields else TupleStructInfo(fields)
        return sinfo

    # -- definitions --------------------------------------------------------------
    def enter_function(self, func: Function) -> None:
        self.function_span = func.span

    def visit_function(self, func: Function, params: tuple[Var, ...], body: SeqExpr) -> Function:
        ret = self.sinfo(func.ret_struct_info, func.ret_span or func.span)
        if params is func.params and body is func.body and ret is func.ret_struct_info:
            return func
        return Function(params, body, ret, func.attrs, func.span, func.ret_span)

    def visit_var_def(self, var: Var) -> Var:
        span = self.binding_spans[-1] if self.binding_spans else var.span  # a parameter: its own span
        sinfo = self.sinfo(var.struct_info, span)
        return var if sinfo is var.struct_info else var.rebuilt(sinfo)

    def enter_binding(self, binding: Binding) -> None:
        self.binding_spans.append(binding.span or binding.var.span)

    def visit_binding(self, binding: Binding, var: Var, value: Expr) -> Binding:
        span = self.binding_spans.pop()
        annotation = binding.annotation
        if annotation is not None:
            annotation = self.sinfo(annotation, span)
        if var is binding.var and value is binding.value and annotation is binding.annotation:
            return binding
        return Binding(var, value, annotation, binding.span)

    def visit_seq_expr(self, seq: SeqExpr, blocks: tuple, body: Expr) -> SeqExpr:
        if blocks is seq.blocks and body is seq.body:
            return seq
        return SeqExpr(blocks, body, None, seq.span)  # its struct info is its body's

    # -- expressions: struct infos and the attributes that name a device -----------------
    def visit_call(self, call: Call, args: tuple[Expr, ...]) -> Expr:
        span = call.span or self.span
        attrs = call.attrs
        op = call.op
        if type(op) is Op and op.name == "to_vdevice":
            attrs = {**attrs, "dst_vdevice": self.fn(attrs["dst_vdevice"], span)}
        elif type(op) is Op and op.name == "hint_on_device":
            attrs = self.hint_fn(dict(attrs), span)
        return Call(op, args, attrs, self.sinfo(call.struct_info, self.span), call.span)

    def visit_tuple(self, tup: Tuple, fields: tuple[Expr, ...]) -> Expr:
        return Tuple(fields, self.sinfo(tup.struct_info, self.span), tup.span)

    def visit_tuple_get_item(self, item: TupleGetItem, tuple_value: Expr) -> Expr:
        return TupleGetItem(tuple_value, item.index, self.sinfo(item.struct_info, self.span), item.span)

    def visit_constant(self, const: Constant) -> Expr:
        sinfo = self.sinfo(const.struct_info, self.span)
        return const.with_struct_info(sinfo)

    def visit_if(self, node: If, cond: Expr, true_branch: SeqExpr, false_branch: SeqExpr) -> Expr:
        return If(cond, true_branch, false_branch, self.sinfo(node.struct_info, self.span), node.span)
