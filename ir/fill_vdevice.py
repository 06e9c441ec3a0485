"""`fill_vdevice`: put every tensor that has no vdevice on one given vdevice.

This is how a module that declares no vdevice at all (what TVM's frontends
print) runs: the runtime fills it with the host before compiling.  It is not
placement: nothing is solved and no copy is inserted, so it is only sound
when the module has no device constraints of its own (the runtime uses it
only for a module whose vdevice list is empty).

Contract: returns a new module (the input is never mutated) whose vdevice
list is the input's plus `vdevice` when it was missing, and in which every
tensor leaf of every struct info without a vdevice (parameters, binding
variables and annotations, call, tuple, constant and If results, function
returns) has `vdevice`; leaves that had one keep it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

from .expr import Binding, Call, Constant, Expr, Function, If, SeqExpr, Tuple, TupleGetItem, Var
from .module import IRModule
from .mutator import ExprMutator
from .struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from .vdevice import Target, VDevice

# The host a module that declares no vdevice runs on, and that `place(default="host")` adds to it.
HOST_VDEVICE = VDevice(Target("llvm"))


def fill_vdevice(mod: IRModule, vdevice: VDevice) -> IRModule:
    """`mod` with every tensor that has no vdevice on `vdevice` (see the module docstring)."""
    filled = _Filler(vdevice).mutate_module(mod)
    vdevices = mod.vdevices if vdevice in mod.vdevices else [*mod.vdevices, vdevice]
    return filled.replace(vdevices=vdevices)


class _Filler(ExprMutator):
    """Rebuilds each node whose struct info gains a vdevice; shares everything else."""

    def __init__(self, vdevice: VDevice) -> None:
        super().__init__()
        self.vdevice = vdevice
        self._done: dict[int, StructInfo] = {}
        self._alive: list[StructInfo] = []  # keeps the ids in `_done` valid

    @overload
    def fill(self, sinfo: StructInfo) -> StructInfo: ...

    @overload
    def fill(self, sinfo: None) -> None: ...

    def fill(self, sinfo: StructInfo | None) -> StructInfo | None:
        """`sinfo` with `vdevice` on each tensor leaf that has none; the same object when nothing changes."""
        if sinfo is None:
            return None
        out = self._done.get(id(sinfo))
        if out is None:
            out = self._fill(sinfo)
            self._done[id(sinfo)] = out
            self._alive.append(sinfo)
        return out

    def _fill(self, sinfo: StructInfo) -> StructInfo:
        if isinstance(sinfo, TensorStructInfo):
            return sinfo if sinfo.vdevice is not None else sinfo.with_vdevice(self.vdevice)
        if isinstance(sinfo, TupleStructInfo):
            fields = tuple(self.fill(f) for f in sinfo.fields)
            same = all(a is b for a, b in zip(fields, sinfo.fields, strict=True))
            return sinfo if same else TupleStructInfo(fields)
        return sinfo

    def visit_var_def(self, var: Var) -> Var:
        sinfo = self.fill(var.struct_info)
        if sinfo is var.struct_info:
            return var
        return var.rebuilt(sinfo)

    def visit_binding(self, binding: Binding, var: Var, value: Expr) -> Binding | Sequence[Binding]:
        annotation = self.fill(binding.annotation)
        if var is binding.var and value is binding.value and annotation is binding.annotation:
            return binding
        return Binding(var, value, annotation, binding.span)

    def visit_function(self, func: Function, params: tuple[Var, ...], body: SeqExpr) -> Function:
        ret = self.fill(func.ret_struct_info)
        if params is func.params and body is func.body and ret is func.ret_struct_info:
            return func
        return Function(params, body, ret, func.attrs, func.span, func.ret_span)

    def visit_seq_expr(self, seq: SeqExpr, blocks: tuple, body: Expr) -> SeqExpr:
        sinfo = self.fill(seq.struct_info)
        if blocks is seq.blocks and body is seq.body and sinfo is seq.struct_info:
            return seq
        return SeqExpr(blocks, body, sinfo, seq.span)

    def visit_if(self, node: If, cond: Expr, true_branch: SeqExpr, false_branch: SeqExpr) -> Expr:
        sinfo = self.fill(node.struct_info)
        if cond is node.cond and true_branch is node.true_branch and false_branch is node.false_branch:
            if sinfo is node.struct_info:
                return node
        return If(cond, true_branch, false_branch, sinfo, node.span)

    def visit_call(self, call: Call, args: tuple[Expr, ...]) -> Expr:
        sinfo = self.fill(call.struct_info)
        if args is call.args and sinfo is call.struct_info:
            return call
        return call.rebuilt(args, sinfo)

    def visit_tuple(self, tup: Tuple, fields: tuple[Expr, ...]) -> Expr:
        sinfo = self.fill(tup.struct_info)
        if fields is tup.fields and sinfo is tup.struct_info:
            return tup
        return Tuple(fields, sinfo, tup.span)

    def visit_tuple_get_item(self, item: TupleGetItem, tuple_value: Expr) -> Expr:
        sinfo = self.fill(item.struct_info)
        if tuple_value is item.tuple_value and sinfo is item.struct_info:
            return item
        return TupleGetItem(tuple_value, item.index, sinfo, item.span)

    def visit_constant(self, const: Constant) -> Expr:
        sinfo = self.fill(const.struct_info)
        return const.with_struct_info(sinfo)
