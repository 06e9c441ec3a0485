"""The normalizer: struct-info inference, vdevice included, forward only.

The parser and the builder call these as they build each node, so every
expression of a module carries its inferred struct info.  The device of a
call's result follows the op's device rule:

* ``same``: the device all known tensor arguments agree on (arguments with
  no device do not change it); arguments on different devices leave the
  result's device unknown, and placement reports the conflict with its
  evidence.  Parsing never fails on device disagreement;
* ``host``: the module's host vdevice (`host_vdevice`), wherever the arguments are;
* ``explicit``: the vdevice the call names (``R.to_vdevice``,
  ``R.hint_on_device``), which must be in the module's list.

These are functions over struct infos, not a walk over a module: struct
infos are shallow, and nothing here visits expressions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .call_dims import call_return
from .errors import InferenceError, VDeviceLookupError
from .expr import Expr
from .op import Op
from .span import Span
from .struct_info import (
    FuncStructInfo,
    ObjectStructInfo,
    ShapeStructInfo,
    StructInfo,
    TensorStructInfo,
    TupleStructInfo,
    replace_vdevices,
    tensor_leaves,
)
from .vdevice import DeviceSpec, VDevice, describe, lookup_device


def host_vdevice(vdevices: Sequence[VDevice]) -> VDevice | None:
    """The host: the last CPU entry of the list, else the last entry (None for an empty list).

    Ops with the ``host`` device rule put their result there; their
    arguments may be anywhere.
    """
    for v in reversed(vdevices):
        if v.device_type == "cpu":
            return v
    return vdevices[-1] if vdevices else None


def hint_target(vdevices: Sequence[VDevice], device: DeviceSpec, memory_scope: str, span: Span | None) -> VDevice:
    """The vdevice a ``hint_on_device`` names: first entry on that device with that scope."""
    try:
        return lookup_device(vdevices, device, memory_scope)
    except LookupError as err:
        raise VDeviceLookupError(str(err), span) from None


def explicit_device(op: Op, attrs: dict[str, Any], vdevices: Sequence[VDevice], span: Span | None) -> VDevice:
    """The device an ``explicit``-rule op puts its result on."""
    if op.name == "to_vdevice":
        dst = attrs["dst_vdevice"]
        if dst not in vdevices:
            raise VDeviceLookupError(
                f"R.to_vdevice: {dst!r} is not in the module's vdevice list ({describe(vdevices)})", span
            )
        return dst
    return hint_target(vdevices, attrs["device"], attrs.get("memory_scope", "global"), span)


def common_device(args: Sequence[Expr]) -> VDevice | None:
    """The one device all known tensor leaves of `args` are on, or None."""
    found: VDevice | None = None
    for arg in args:
        for _, leaf in tensor_leaves(arg.struct_info):
            dev = leaf.vdevice
            if dev is None:
                continue
            if found is None:
                found = dev
            elif dev != found:
                return None
    return found


def call_struct_info(
    op: Op, args: Sequence[Expr], attrs: dict[str, Any], vdevices: Sequence[VDevice], span: Span | None
) -> StructInfo:
    """Infer a call's struct info: the op's shape/dtype rule, then its device rule."""
    try:
        sinfo = op.infer([a.struct_info for a in args], attrs)
    except InferenceError as err:
        if err.span is None:
            raise InferenceError(err.reason, span) from None
        raise
    if op.device_rule == "same":
        device = common_device(args)
    elif op.device_rule == "host":
        device = host_vdevice(vdevices)
    else:
        device = explicit_device(op, attrs, vdevices, span)
    if device is None:
        return sinfo
    return replace_vdevices(sinfo, lambda path, leaf: device)


def tuple_struct_info(fields: Sequence[Expr]) -> TupleStructInfo:
    return TupleStructInfo([f.struct_info for f in fields])


def get_item_struct_info(value: Expr, index: int, span: Span | None) -> StructInfo:
    sinfo = value.struct_info
    if not isinstance(sinfo, TupleStructInfo):
        raise InferenceError(f"cannot index a value of type {sinfo!r}: it is not a tuple", span)
    if not 0 <= index < len(sinfo.fields):
        raise InferenceError(f"tuple index {index} is out of range for a tuple of {len(sinfo.fields)} fields", span)
    return sinfo.fields[index]


def join(a: StructInfo, b: StructInfo) -> StructInfo:
    """The most precise struct info that covers both (an If's result)."""
    if a == b:
        return a
    if isinstance(a, TensorStructInfo) and isinstance(b, TensorStructInfo):
        vdevice = a.vdevice if a.vdevice == b.vdevice else None
        dtype = a.dtype if a.dtype == b.dtype else ""
        if a.shape is not None and b.shape is not None and len(a.shape) == len(b.shape):
            shape = tuple(x if x == y else "?" for x, y in zip(a.shape, b.shape, strict=True))
            if "?" not in shape:
                return TensorStructInfo(shape, dtype, vdevice=vdevice)
        ndim = a.ndim if a.ndim == b.ndim else -1
        return TensorStructInfo(None, dtype, ndim, vdevice)
    if isinstance(a, TupleStructInfo) and isinstance(b, TupleStructInfo) and len(a.fields) == len(b.fields):
        return TupleStructInfo([join(x, y) for x, y in zip(a.fields, b.fields, strict=True)])
    if isinstance(a, ShapeStructInfo) and isinstance(b, ShapeStructInfo):
        return ShapeStructInfo(None, a.ndim if a.ndim == b.ndim else -1)
    return ObjectStructInfo()


def merge_annotation(annotation: StructInfo, inferred: StructInfo, span: Span | None, what: str) -> StructInfo:
    """Check a written annotation against the inferred struct info and combine them.

    Shapes and dtypes must agree where both are known.  The annotation's
    vdevice wins (it is a pin; a disagreement is placement's to report); where
    the annotation names none, the inferred one is kept.
    """
    if isinstance(annotation, ObjectStructInfo):
        return inferred
    if isinstance(annotation, TensorStructInfo):
        if not isinstance(inferred, TensorStructInfo):
            if isinstance(inferred, ObjectStructInfo):
                return annotation
            raise InferenceError(f"{what} is annotated as a tensor but its value is {inferred!r}", span)
        if annotation.dtype and inferred.dtype and annotation.dtype != inferred.dtype:
            raise InferenceError(
                f"{what} is annotated with dtype {annotation.dtype} but its value has dtype {inferred.dtype}", span
            )
        if annotation.ndim >= 0 and inferred.ndim >= 0 and annotation.ndim != inferred.ndim:
            raise InferenceError(
                f"{what} is annotated with rank {annotation.ndim} but its value has rank {inferred.ndim}", span
            )
        if annotation.shape is not None and inferred.shape is not None:
            for x, y in zip(annotation.shape, inferred.shape, strict=False):
                if isinstance(x, int) and isinstance(y, int) and x != y:
                    raise InferenceError(
                        f"{what} is annotated with shape {annotation.shape} but its value has shape {inferred.shape}",
                        span,
                    )
        shape = annotation.shape if annotation.shape is not None else inferred.shape
        dtype = annotation.dtype or inferred.dtype
        vdevice = annotation.vdevice if annotation.vdevice is not None else inferred.vdevice
        ndim = annotation.ndim if annotation.ndim >= 0 else inferred.ndim
        return TensorStructInfo(shape, dtype, ndim, vdevice)
    if isinstance(annotation, TupleStructInfo):
        if not isinstance(inferred, TupleStructInfo) or len(inferred.fields) != len(annotation.fields):
            if isinstance(inferred, ObjectStructInfo):
                return annotation
            raise InferenceError(f"{what} is annotated as {annotation!r} but its value is {inferred!r}", span)
        return TupleStructInfo(
            [
                merge_annotation(a, b, span, f"{what} field {i}")
                for i, (a, b) in enumerate(zip(annotation.fields, inferred.fields, strict=True))
            ]
        )
    if type(annotation) is not type(inferred) and not isinstance(inferred, ObjectStructInfo):
        raise InferenceError(f"{what} is annotated as {annotation!r} but its value is {inferred!r}", span)
    return annotation


def global_call_struct_info(name: str, callee: FuncStructInfo, args: Sequence[Expr], span: Span | None) -> StructInfo:
    """A call of a module function returns the callee's declared return struct info, in the caller's dims.

    The callee's symbolic dims are bound from the argument shapes and
    substituted into its return struct info (`call_dims.call_return`).
    """
    if len(args) != len(callee.params):
        raise InferenceError(f"cls.{name} takes {len(callee.params)} argument(s) but {len(args)} were given", span)
    for i, (param, arg) in enumerate(zip(callee.params, args, strict=True)):
        sinfo = arg.struct_info
        if sinfo is not param:  # one struct info agrees with itself (a parsed module shares them)
            merge_annotation(param, sinfo, span, f"argument {i} of cls.{name}")
    return call_return(name, callee.params, [a.struct_info for a in args], callee.ret, span)
