"""AnnotateOps: put every call of the named ops on a device, with fallback.

    annotate_ops(mod, {"matmul": "cuda", "nn.softmax": VDevice("llvm")}, fallback_device="llvm")

Each call of a mapped op gets its tensor inputs hinted onto the op's device
(``a_cuda0 = R.hint_on_device(a, ...)`` bindings before it; nested calls get
nested hints), so the op and its result land there while its inputs stay
free: placement inserts a copy exactly where an input lives elsewhere, and
the result's consumers follow it unless something else asks for them.  An op
with no tensor input has its result pinned instead (a binding annotation).

An op whose `Op.device_types` does not include the mapped device's type runs
on `fallback_device` instead; with no fallback, or a fallback that does not
support it either, that is an error.  A device that a
hint cannot name exactly (an entry shadowed by an earlier entry on the same
physical device and scope) is reached with ``R.to_vdevice`` instead.

The result is a new module, re-normalized forward so that every struct info
is consistent with the inserted hints; run `place` on it to decide the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vdplace.ir.errors import VDeviceLookupError
from vdplace.ir.expr import (
    Binding,
    BindingBlock,
    Call,
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
from vdplace.ir.normalize import (
    call_struct_info,
    get_item_struct_info,
    hint_target,
    join,
    merge_annotation,
    tuple_struct_info,
)
from vdplace.ir.op import Op, get_op, has_op
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from vdplace.ir.vdevice import DeviceSpec, VDevice, describe, lookup_vdevice, vdevice_name
from vdplace.ir.visitor import ExprMutator
from vdplace.placement.errors import PlacementError
from vdplace.placement.extract.extraction import declared_return
from vdplace.placement.rewrite.module_pass import module_pass


@module_pass("AnnotateOps")
def annotate_ops(
    mod: IRModule,
    op_device_map: Mapping[str, VDevice | str],
    fallback_device: VDevice | str | None = None,
) -> IRModule:
    """A new module where every call of a mapped op is hinted onto its device (or the fallback)."""
    vdevices = list(mod.vdevices)
    fallback = None if fallback_device is None else _resolve(vdevices, fallback_device, "fallback_device")
    targets: dict[str, VDevice] = {}
    for name, device in op_device_map.items():
        if not has_op(name):
            raise ValueError(f"annotate_ops: no op named {name!r} (write names as in R.<name>, e.g. 'nn.relu')")
        op = get_op(name)
        if op.device_rule == "explicit":
            raise ValueError(f"annotate_ops: R.{name} names its own device and cannot be annotated")
        vdevice = _resolve(vdevices, device, f"the device of R.{name}")
        if not op.supports(vdevice.device_type):
            if fallback is None:
                raise ValueError(
                    f"annotate_ops: R.{name} does not run on {vdevice.device_type} "
                    f"({vdevice_name(vdevices, vdevice)}) and no fallback_device was given"
                )
            if not op.supports(fallback.device_type):
                raise ValueError(
                    f"annotate_ops: R.{name} runs neither on {vdevice.device_type} nor on the fallback "
                    f"device {vdevice_name(vdevices, fallback)}"
                )
            vdevice = fallback
        targets[name] = vdevice
    return _Annotator(vdevices, targets).mutate_module(mod)


def _resolve(vdevices: list[VDevice], device: VDevice | str, what: str) -> VDevice:
    if isinstance(device, VDevice):
        if device not in vdevices:
            raise ValueError(
                f"annotate_ops: {what} {device!r} is not in the module's vdevice list ({describe(vdevices)})"
            )
        return device
    if isinstance(device, str):
        try:
            return lookup_vdevice(vdevices, device)
        except LookupError as err:
            raise ValueError(f"annotate_ops: {what}: {err}") from None
    raise TypeError(f"annotate_ops: {what} must be a VDevice or a name like 'cuda:0', got {type(device).__name__}")


class _Annotator(ExprMutator):
    """Rebuilds each function, inserting hints and re-running forward inference on every node."""

    def __init__(self, vdevices: list[VDevice], targets: dict[str, VDevice]) -> None:
        super().__init__()
        self.vdevices = vdevices
        self.targets = targets
        self.hint_op = get_op("hint_on_device")
        self.to_vdevice_op = get_op("to_vdevice")
        self.bindings: list[Binding] = []  # the enclosing bindings, innermost last
        self.dataflow: list[bool] = []  # per enclosing block: is it a dataflow block
        self.pending: list[Binding] = []  # hint bindings to emit before the current binding
        self.pin: VDevice | None = None  # the device to pin the current binding's result on
        self.names: set[str] = set()  # names taken in the current function

    # -- functions, blocks and bindings ----------------------------------------------
    def enter_function(self, func: Function) -> None:
        self.names = {p.name for p in func.params}

    def visit_function(self, func: Function, params: tuple[Var, ...], body: SeqExpr) -> Function:
        # A return type inferred from the body follows the re-normalized body; a written one stays.
        ret = func.ret_struct_info if declared_return(func) is not None else body.struct_info
        return Function(params, body, ret, func.attrs, func.span, func.ret_span)

    def enter_seq_expr(self, seq: SeqExpr) -> None:
        for block in seq.blocks:
            for b in block.bindings:
                self.names.add(b.var.name)

    def visit_seq_expr(self, seq: SeqExpr, blocks: tuple, body: Expr) -> SeqExpr:
        return SeqExpr(blocks, body, None, seq.span)

    def enter_block(self, block: BindingBlock) -> None:
        self.dataflow.append(block.is_dataflow)

    def visit_block(self, block: BindingBlock, bindings: tuple[Binding, ...]) -> BindingBlock:
        self.dataflow.pop()
        return type(block)(bindings, block.span)

    def enter_binding(self, binding: Binding) -> None:
        self.bindings.append(binding)

    def visit_binding(self, binding: Binding, var: Var, value: Expr) -> list[Binding]:
        self.bindings.pop()
        annotation = binding.annotation
        if self.pin is not None:
            annotation = _with_device(annotation or value.struct_info, self.pin)
            self.pin = None
        sinfo = value.struct_info
        if annotation is not None:
            sinfo = merge_annotation(annotation, sinfo, binding.span, f"variable {var.name}")
        new_var = var.rebuilt(sinfo)
        out = [*self.pending, Binding(new_var, value, annotation, binding.span)]
        self.pending = []
        return out

    # -- expressions, re-normalized ---------------------------------------------------
    def visit_call(self, call: Call, args: tuple[Expr, ...]) -> Expr:
        op = call.op
        if type(op) is Op and op.name in self.targets:
            top = bool(self.bindings) and self.bindings[-1].value is call
            return self.annotated_call(call, list(args), self.targets[op.name], top)
        return self.recall(call, list(args))

    def visit_tuple(self, tup: Tuple, fields: tuple[Expr, ...]) -> Expr:
        return Tuple(fields, tuple_struct_info(fields), tup.span)

    def visit_tuple_get_item(self, item: TupleGetItem, tuple_value: Expr) -> Expr:
        return TupleGetItem(
            tuple_value, item.index, get_item_struct_info(tuple_value, item.index, item.span), item.span
        )

    def visit_if(self, node: If, cond: Expr, true_branch: SeqExpr, false_branch: SeqExpr) -> Expr:
        joined = join(true_branch.struct_info, false_branch.struct_info)
        return If(cond, true_branch, false_branch, joined, node.span)

    def recall(self, call: Call, args: list[Expr]) -> Call:
        op = call.op
        if type(op) is Op:
            sinfo = call_struct_info(op, args, dict(call.attrs), self.vdevices, call.span)
        else:
            sinfo = call.struct_info  # a module function returns its declared struct info
        return call.rebuilt(args, sinfo)

    def annotated_call(self, call: Call, args: list[Expr], target: VDevice, top: bool) -> Expr:
        """The call with its tensor inputs moved to `target`.

        A call with no tensor input is moved itself: nested, it is wrapped in a
        hint; as a binding's value (`top`), that binding's result is pinned.
        """
        moved = False
        for i, arg in enumerate(args):
            args[i], did = self.move(arg, target, top)
            moved = moved or did
        new_call = self.recall(call, args)
        if moved:
            return new_call
        if top:
            self.pin = target
            return new_call
        return self.device_call(new_call, target)

    def move(self, e: Expr, target: VDevice, top: bool) -> tuple[Expr, bool]:
        sinfo = e.struct_info
        if type(sinfo) is TensorStructInfo:
            moved = self.device_call(e, target)
            if not top:
                return moved, True
            var_cls = DataflowVar if self.dataflow and self.dataflow[-1] else Var
            var = var_cls(self.fresh(e, target), moved.struct_info, e.span)
            self.pending.append(Binding(var, moved, None, e.span))
            return var, True
        if type(sinfo) is TupleStructInfo:
            fields = []
            did = False
            for i in range(len(sinfo.fields)):
                item = TupleGetItem(e, i, get_item_struct_info(e, i, e.span), e.span)
                new, moved_field = self.move(item, target, top)
                fields.append(new)
                did = did or moved_field
            return Tuple(fields, tuple_struct_info(fields), e.span), did
        return e, False

    def device_call(self, e: Expr, target: VDevice) -> Call:
        spec = DeviceSpec(target.device_type, target.vdevice_id)
        attrs: dict[str, Any] = {"device": spec, "memory_scope": target.memory_scope}
        try:
            exact = hint_target(self.vdevices, spec, target.memory_scope, e.span) == target
        except VDeviceLookupError as err:  # cannot happen: target is in the list
            raise PlacementError(err.reason, e.span) from None
        if exact:
            sinfo = call_struct_info(self.hint_op, [e], attrs, self.vdevices, e.span)
            return Call(self.hint_op, [e], attrs, sinfo, e.span)
        attrs = {"dst_vdevice": target}
        sinfo = call_struct_info(self.to_vdevice_op, [e], attrs, self.vdevices, e.span)
        return Call(self.to_vdevice_op, [e], attrs, sinfo, e.span)

    def fresh(self, e: Expr, target: VDevice) -> str:
        base = e.name if isinstance(e, Var) else "arg"
        ordinal = vdevice_name(self.vdevices, target).rsplit(":", 1)[0].replace(":", "")
        name = f"{base}_{ordinal}"
        k = 1
        while name in self.names:
            k += 1
            name = f"{base}_{ordinal}_{k}"
        self.names.add(name)
        return name


def _with_device(sinfo: StructInfo, device: VDevice) -> StructInfo:
    if type(sinfo) is TensorStructInfo:
        return sinfo.with_vdevice(device)
    if type(sinfo) is TupleStructInfo:
        return TupleStructInfo([_with_device(f, device) for f in sinfo.fields])
    return sinfo
