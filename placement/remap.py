"""Rebuild a module with every vdevice reference sent through a mapping.

References are: tensor struct infos everywhere (parameters, binding
variables, binding annotations, nested values, tuple leaves, If results,
return struct infos), ``to_vdevice``'s ``dst_vdevice`` and the device a
``hint_on_device`` names.  The input is never mutated: every variable is
rebuilt and uses follow a variable map.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vdplace.ir.expr import (
    Binding,
    Call,
    Constant,
    DataflowVar,
    Expr,
    Function,
    If,
    SeqExpr,
    Tuple,
    TupleGetItem,
    Var,
)
from vdplace.ir.module import IRModule
from vdplace.ir.op import Op
from vdplace.ir.span import Span
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from vdplace.ir.vdevice import VDevice

# (vdevice, span of the reference) -> the vdevice to use instead
VDeviceMap = Callable[[VDevice, Span | None], VDevice]
# (hint call attrs, span) -> new attrs (or the same object)
HintMap = Callable[[dict[str, Any], Span | None], dict[str, Any]]


def remap_module(mod: IRModule, vdevices: list[VDevice], fn: VDeviceMap, hint_fn: HintMap) -> IRModule:
    """A new module with list `vdevices` and every reference replaced by ``fn(old, span)``."""
    return _Remapper(fn, hint_fn).module(mod, vdevices)


class _Remapper:
    def __init__(self, fn: VDeviceMap, hint_fn: HintMap) -> None:
        self.fn = fn
        self.hint_fn = hint_fn
        self.vmap: dict[Var, Var] = {}
        self.span: Span | None = None

    def module(self, mod: IRModule, vdevices: list[VDevice]) -> IRModule:
        functions = {name: self.function(func) for name, func in mod.functions.items()}
        return mod.replace(functions=functions, vdevices=vdevices)

    def sinfo(self, sinfo: StructInfo | None) -> StructInfo | None:
        if type(sinfo) is TensorStructInfo:
            if sinfo.vdevice is None:
                return sinfo
            return sinfo.with_vdevice(self.fn(sinfo.vdevice, self.span))
        if type(sinfo) is TupleStructInfo:
            fields = tuple(self.sinfo(f) for f in sinfo.fields)
            return sinfo if fields == sinfo.fields else TupleStructInfo(fields)  # type: ignore[arg-type]
        return sinfo

    def var(self, var: Var) -> Var:
        new = type(var)(var.name, self.sinfo(var.struct_info), var.span)
        self.vmap[var] = new
        return new

    def function(self, func: Function) -> Function:
        self.span = func.span
        params = []
        for p in func.params:
            self.span = p.span
            params.append(self.var(p))
        body = self.seq(func.body)
        self.span = func.ret_span or func.span
        ret = self.sinfo(func.ret_struct_info)
        return Function(params, body, ret, func.attrs, func.span, func.ret_span)  # type: ignore[arg-type]

    def seq(self, seq: SeqExpr) -> SeqExpr:
        blocks = []
        for block in seq.blocks:
            bindings = []
            for b in block.bindings:
                self.span = b.span or b.var.span
                value = self.expr(b.value)
                self.span = b.span or b.var.span
                annotation = self.sinfo(b.annotation) if b.annotation is not None else None
                bindings.append(Binding(self.var(b.var), value, annotation, b.span))
            blocks.append(type(block)(bindings, block.span))
        return SeqExpr(blocks, self.expr(seq.body), None, seq.span)

    def expr(self, e: Expr) -> Expr:
        t = type(e)
        if t is Var or t is DataflowVar:
            return self.vmap[e]  # type: ignore[index]
        if t is Call:
            args = [self.expr(a) for a in e.args]  # type: ignore[attr-defined]
            attrs = e.attrs  # type: ignore[attr-defined]
            op = e.op  # type: ignore[attr-defined]
            span = e.span or self.span
            if type(op) is Op and op.name == "to_vdevice":
                attrs = {**attrs, "dst_vdevice": self.fn(attrs["dst_vdevice"], span)}
            elif type(op) is Op and op.name == "hint_on_device":
                attrs = self.hint_fn(dict(attrs), span)
            return Call(op, args, attrs, self.sinfo(e.struct_info), e.span)
        if t is Tuple:
            return Tuple([self.expr(f) for f in e.fields], self.sinfo(e.struct_info), e.span)  # type: ignore[attr-defined]
        if t is TupleGetItem:
            return TupleGetItem(self.expr(e.tuple_value), e.index, self.sinfo(e.struct_info), e.span)  # type: ignore[attr-defined]
        if t is Constant:
            return Constant(e.data, self.sinfo(e.struct_info), e.span)  # type: ignore[attr-defined, arg-type]
        if t is If:
            return If(
                self.expr(e.cond),  # type: ignore[attr-defined]
                self.seq(e.true_branch),  # type: ignore[attr-defined]
                self.seq(e.false_branch),  # type: ignore[attr-defined]
                self.sinfo(e.struct_info),
                e.span,
            )
        if isinstance(e, Var):
            return self.vmap[e]
        return e
