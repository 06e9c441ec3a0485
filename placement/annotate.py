"""annotate_ops (seed 003): put every call of the named ops on a device, with fallback.

    annotate_ops(mod, {"matmul": "cuda", "nn.softmax": VDevice("llvm")}, fallback_device="llvm")

Each call of a mapped op gets its tensor inputs hinted onto the op's device
(``a_cuda0 = R.hint_on_device(a, ...)`` bindings before it; nested calls get
nested hints), so the op and its result land there while its inputs stay
free: placement inserts a copy exactly where an input lives elsewhere, and
the result's consumers follow it unless something else asks for them.  An op
with no tensor input has its result pinned instead (a binding annotation).

An op whose `Op.device_types` does not include the mapped device's type runs
on `fallback_device` instead (seed 003's fallback); with no fallback, or a
fallback that does not support it either, that is an error.  A device that a
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

from .errors import PlacementError
from .extract import declared_return


def annotate_ops(
    mod: IRModule,
    op_device_map: Mapping[str, VDevice | str],
    fallback_device: VDevice | str | None = None,
) -> IRModule:
    """A new module where every call of a mapped op is hinted onto its device (or the fallback)."""
    if not isinstance(mod, IRModule):
        raise TypeError(f"annotate_ops() takes an IRModule, not {type(mod).__name__}")
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
    return _Annotator(mod, vdevices, targets).run()


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


class _Annotator:
    """Rebuilds each function, inserting hints and re-running forward inference."""

    def __init__(self, mod: IRModule, vdevices: list[VDevice], targets: dict[str, VDevice]) -> None:
        self.mod = mod
        self.vdevices = vdevices
        self.targets = targets
        self.vmap: dict[Var, Var] = {}
        self.hint_op = get_op("hint_on_device")
        self.to_vdevice_op = get_op("to_vdevice")
        self.pending: list[Binding] = []  # hint bindings to emit before the current binding
        self.in_dataflow = False
        self.names: set[str] = set()

    def run(self) -> IRModule:
        functions = {}
        for name, func in self.mod.functions.items():
            self.names = {p.name for p in func.params}
            params = []
            for p in func.params:
                new = type(p)(p.name, p.struct_info, p.span)
                self.vmap[p] = new
                params.append(new)
            body = self.seq(func.body)
            # A return type inferred from the body follows the re-normalized body; a written one stays.
            ret = func.ret_struct_info if declared_return(func) is not None else body.struct_info
            functions[name] = Function(params, body, ret, func.attrs, func.span, func.ret_span)
        return self.mod.replace(functions=functions)

    def seq(self, seq: SeqExpr) -> SeqExpr:
        for block in seq.blocks:
            for b in block.bindings:
                self.names.add(b.var.name)
        outer_dataflow = self.in_dataflow
        blocks = []
        for block in seq.blocks:
            self.in_dataflow = block.is_dataflow
            bindings: list[Binding] = []
            for b in block.bindings:
                value = b.value
                annotation = b.annotation
                if type(value) is Call and type(value.op) is Op and value.op.name in self.targets:
                    target = self.targets[value.op.name]
                    new_value, pinned = self.annotated_call(value, target, top=True)
                    if pinned:
                        annotation = _with_device(annotation or new_value.struct_info, target)
                else:
                    new_value = self.expr(value)
                bindings.extend(self.pending)
                self.pending = []
                sinfo = new_value.struct_info
                if annotation is not None:
                    sinfo = merge_annotation(annotation, sinfo, b.span, f"variable {b.var.name}")
                var = type(b.var)(b.var.name, sinfo, b.var.span)
                self.vmap[b.var] = var
                bindings.append(Binding(var, new_value, annotation, b.span))
            blocks.append(type(block)(bindings, block.span))
        self.in_dataflow = outer_dataflow
        body = self.expr(seq.body)
        return SeqExpr(blocks, body, None, seq.span)

    # -- expressions, re-normalized ---------------------------------------------
    def expr(self, e: Expr) -> Expr:
        t = type(e)
        if t is Var or t is DataflowVar:
            return self.vmap[e]  # type: ignore[index]
        if t is Call:
            op = e.op  # type: ignore[attr-defined]
            if type(op) is Op and op.name in self.targets:
                new, _ = self.annotated_call(e, self.targets[op.name], top=False)  # type: ignore[arg-type]
                return new
            return self.recall(e, [self.expr(a) for a in e.args])  # type: ignore[attr-defined, arg-type]
        if t is Tuple:
            fields = [self.expr(f) for f in e.fields]  # type: ignore[attr-defined]
            return Tuple(fields, tuple_struct_info(fields), e.span)
        if t is TupleGetItem:
            value = self.expr(e.tuple_value)  # type: ignore[attr-defined]
            return TupleGetItem(value, e.index, get_item_struct_info(value, e.index, e.span), e.span)  # type: ignore[attr-defined]
        if t is If:
            tb = self.seq(e.true_branch)  # type: ignore[attr-defined]
            fb = self.seq(e.false_branch)  # type: ignore[attr-defined]
            return If(self.expr(e.cond), tb, fb, join(tb.struct_info, fb.struct_info), e.span)  # type: ignore[attr-defined]
        if t is Constant or not isinstance(e, Var):
            return e
        return self.vmap[e]

    def recall(self, call: Call, args: list[Expr]) -> Call:
        op = call.op
        if type(op) is Op:
            sinfo = call_struct_info(op, args, dict(call.attrs), self.vdevices, call.span)
        else:
            sinfo = call.struct_info  # a module function returns its declared struct info
        return Call(op, args, call.attrs, sinfo, call.span)

    def annotated_call(self, call: Call, target: VDevice, top: bool) -> tuple[Expr, bool]:
        """The call with its tensor inputs moved to `target`; True when the result must be pinned."""
        args: list[Expr] = []
        moved = False
        for arg in call.args:
            new, did = self.move(self.expr(arg), target, top)
            args.append(new)
            moved = moved or did
        new_call = self.recall(call, args)
        if moved:
            return new_call, False
        if top:
            return new_call, True
        return self.device_call(new_call, target), False

    def move(self, e: Expr, target: VDevice, top: bool) -> tuple[Expr, bool]:
        sinfo = e.struct_info
        if type(sinfo) is TensorStructInfo:
            moved = self.device_call(e, target)
            if not top:
                return moved, True
            var_cls = DataflowVar if self.in_dataflow else Var
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
