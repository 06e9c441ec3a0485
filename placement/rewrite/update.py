"""UpdateVDevice: append, replace or reset the module's vdevice list.

    update_vdevice(mod, VDevice("cuda", 1))            append (no reference changes)
    update_vdevice(mod, VDevice("metal", 1), index=3)  replace entry 3
    update_vdevice(mod, [VDevice("llvm"), ...])        reset the whole list

Every reference follows its entry: tensor struct infos (parameters, bindings,
annotations, tuple leaves, return types), ``to_vdevice`` destinations and the
device a ``hint_on_device`` names.  TVM leaves ``to_vdevice`` pointing at the
removed entry; vdplace does not.

How references map (vdevices are values, so references are too): a
reference whose vdevice is still in the new list keeps it; otherwise it moves
to the new entry *at the same position* as its old entry (that is what
replacing entry ``index`` means, and how a reset list is read); a reference
to an old position the new list no longer has is an error naming the
reference.  A hint names a device (type and id), not an entry: when the
entry it resolved to is replaced, the hint is rewritten to name the new
entry's device and memory scope.

Two things TVM does that vdplace reproduces, so that results compare equal:

* TVM fills a target's defaults in (``"metal"`` becomes a dict with ``keys``,
  ``max_num_threads``...).  vdplace cannot know TVM's defaults, so a new
  vdevice whose target is a bare kind takes the attributes of the list's
  existing target of that kind, when the list has exactly one such
  description; otherwise it stays as given.
* A function's return struct info without a vdevice takes the one its body
  now has (forward inference, as the normalizer does for a return type that
  names no device).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vdplace.ir.expr import Function
from vdplace.ir.module import IRModule
from vdplace.ir.normalize import merge_annotation
from vdplace.ir.span import Span
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from vdplace.ir.vdevice import DeviceSpec, VDevice, describe, lookup_device
from vdplace.placement.errors import PlacementError
from vdplace.placement.rewrite.module_pass import module_pass
from vdplace.placement.rewrite.remap import HintMap, VDeviceMap, remap_module


@module_pass("UpdateVDevice")
def update_vdevice(mod: IRModule, new_vdevice: VDevice | Sequence[VDevice], index: int | None = None) -> IRModule:
    """A new module with the updated vdevice list and every reference updated (the input is untouched)."""
    old = list(mod.vdevices)
    new = _new_list(old, new_vdevice, index)
    follow, follow_hint = _reference_maps(old, new)
    updated = remap_module(mod, new, follow, follow_hint)
    functions = {name: _infer_return(func) for name, func in updated.functions.items()}
    return updated.replace(functions=functions)


def _new_list(old: list[VDevice], new_vdevice: VDevice | Sequence[VDevice], index: int | None) -> list[VDevice]:
    """The vdevice list after appending, replacing entry `index`, or resetting it."""
    if isinstance(new_vdevice, VDevice):
        new_vdevice = _complete_target(new_vdevice, old)
        if index is None:
            return old + [new_vdevice]
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"index must be an int or None, got {index!r}")
        if not 0 <= index < len(old):
            raise IndexError(
                f"update_vdevice: index {index} is out of range; the module declares {len(old)} vdevice(s)"
            )
        new = list(old)
        new[index] = new_vdevice
        return new
    if isinstance(new_vdevice, (list, tuple)):
        if index is not None:
            raise ValueError("update_vdevice: give an index only with a single vdevice, not with a list")
        for v in new_vdevice:
            if not isinstance(v, VDevice):
                raise TypeError(f"update_vdevice: list entries must be VDevice, got {type(v).__name__}")
        return list(new_vdevice)
    raise TypeError(f"update_vdevice: expected a VDevice or a list of them, got {type(new_vdevice).__name__}")


def _reference_maps(old: list[VDevice], new: list[VDevice]) -> tuple[VDeviceMap, HintMap]:
    """Where a vdevice reference and a hint's device go when list `old` becomes `new`."""
    kept = set(new)
    position: dict[VDevice, int] = {}
    for i, v in enumerate(old):
        position.setdefault(v, i)

    def follow(vdevice: VDevice, span: Span | None) -> VDevice:
        if vdevice in kept:
            return vdevice
        i = position.get(vdevice)
        if i is None:
            raise PlacementError(f"{vdevice!r} is used but is not in the module's vdevice list ({describe(old)})", span)
        if i >= len(new):
            raise PlacementError(
                f"{vdevice!r} (entry {i} of the old list) is still used, but the new list has only "
                f"{len(new)} entries: it has nothing to map to",
                span,
            )
        return new[i]

    def follow_hint(attrs: dict[str, Any], span: Span | None) -> dict[str, Any]:
        spec: DeviceSpec = attrs["device"]
        scope = attrs.get("memory_scope", "global")
        try:
            before = lookup_device(old, spec, scope)
        except LookupError as err:
            raise PlacementError(f"R.hint_on_device: {err}", span) from None
        after = follow(before, span)
        try:
            if lookup_device(new, spec, scope) == after:
                return attrs
        except LookupError:
            pass
        attrs["device"] = DeviceSpec(after.device_type, after.vdevice_id)
        attrs["memory_scope"] = after.memory_scope
        return attrs

    return follow, follow_hint


def _complete_target(vdevice: VDevice, vdevices: Sequence[VDevice]) -> VDevice:
    """A bare-kind target borrows the attributes of the list's one description of that kind."""
    if vdevice.target.attrs:
        return vdevice
    described = {v.target for v in vdevices if v.target.kind == vdevice.kind and v.target.attrs}
    if len(described) != 1:
        return vdevice
    (target,) = described
    return VDevice(target, vdevice.vdevice_id, vdevice.memory_scope)


def _infer_return(func: Function) -> Function:
    """Fill a return struct info's missing vdevices from the body's (the normalizer's forward rule)."""
    ret = _fill(func.ret_struct_info, func.body.struct_info)
    if ret is func.ret_struct_info:
        return func
    ret = merge_annotation(ret, func.body.struct_info, func.ret_span, "the return value")
    return Function(func.params, func.body, ret, func.attrs, func.span, func.ret_span)


def _fill(ret: StructInfo, body: StructInfo) -> StructInfo:
    if type(ret) is TensorStructInfo and type(body) is TensorStructInfo:
        if ret.vdevice is None and body.vdevice is not None:
            return ret.with_vdevice(body.vdevice)
        return ret
    if type(ret) is TupleStructInfo and type(body) is TupleStructInfo and len(ret.fields) == len(body.fields):
        fields = tuple(_fill(r, b) for r, b in zip(ret.fields, body.fields, strict=True))
        return ret if all(a is b for a, b in zip(fields, ret.fields, strict=True)) else TupleStructInfo(fields)
    return ret
