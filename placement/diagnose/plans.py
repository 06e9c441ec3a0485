"""The `Plan` of a fix: what changes in the module's text, from the constraints the fix edits.

`fixes` decides *whether* an edit resolves a conflict on the constraint
graph; this module says *where in the text* that edit goes, in the module's
terms (the statement's position, the variable names, the device's name), so
that `report.edits` can write it as text edits without knowing the rules.
A fix gets no plan (None) where the text cannot be named: a module built in
Python (no positions), an unnamed value, a return type inferred from the
body.
"""

from __future__ import annotations

from vdplace.ir.expr import Binding, Function, Var
from vdplace.ir.span import Span
from vdplace.ir.vdevice import VDevice
from vdplace.placement.diagnose.conflict import Plan
from vdplace.placement.diagnose.names import device_name, edge_direction
from vdplace.placement.model.constraints import ConstraintSet, Equal, Pin, Site
from vdplace.placement.model.rules import RuleKind

# The equalities a copy before their binding cuts: the binding reads the copied value.
_READS = {RuleKind.SAME, RuleKind.CALL_ARG, RuleKind.ALIAS, RuleKind.TUPLE_FIELD, RuleKind.GET_ITEM}


def expression(site: Site) -> str | None:
    """How the text names a site's value (``x``, ``t[1]``), or None for unnamed values."""
    if site.kind not in ("param", "binding") or site.name.startswith("<"):
        return None
    return site.name + "".join(f"[{i}]" for i in site.path)


def identifier(text: str) -> str:
    """`text` as a variable name: every character that cannot be in one becomes ``_``."""
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in text)


def copy_name(expr: str, vdevices: list[VDevice], device: int) -> str:
    """The name of a copy of `expr` on `device`: ``x_cuda0`` for x on "cuda:0"."""
    name = device_name(vdevices, device)
    return identifier(f"{expr}_{vdevices[device].kind}{name.split(':')[1]}")


def hint_device(vd: VDevice) -> str:
    """How `R.hint_on_device` names `vd`: ``tvm.cuda(0)``, with its memory scope when not global."""
    scope = "" if vd.memory_scope == "global" else f', memory_scope="{vd.memory_scope}"'
    return f"tvm.{vd.device_type}({vd.vdevice_id}){scope}"


def copy_plan(cs: ConstraintSet, eq: Equal, src: int, out: int, device: int) -> Plan | None:
    """The text of a copy that cuts `eq` (from `src` to `out`) and puts the `out` side on `device`."""
    direction = edge_direction(eq)
    if direction is None:
        return None
    family = eq.rule.kind
    dev = device_name(cs.vdevices, device)
    origin = eq.origin
    expr = expression(cs.sites[src])
    if family is RuleKind.HINT_STRICT:
        span = _statement(origin)
        return None if span is None else Plan("hint_to_copy", span, device=dev, target=_bound(origin))
    if family is RuleKind.CALL_RESULT:
        span, target = _statement(origin), expression(cs.sites[out])
        if span is None or target is None or cs.sites[out].path:
            return None
        return Plan("copy_result", span, name=copy_name(target, cs.vdevices, device), device=dev, target=target)
    if expr is None:
        return None
    name = copy_name(expr, cs.vdevices, device)
    if family is RuleKind.FUNC_RESULT:
        body = getattr(origin, "body", None) if isinstance(origin, Function) else None
        span = getattr(body, "span", None)
        return None if span is None else Plan("copy_return", span, expr=expr, name=name, device=dev)
    span = _statement(origin)
    if span is None:
        return None
    if family is RuleKind.IF:
        assert isinstance(origin, Binding)
        return Plan("copy_branch", span, expr=expr, name=name, device=dev, target=origin.var.name)
    if family in _READS:
        return Plan("copy_use", span, expr=expr, name=name, device=dev, target=_bound(origin))
    return None


def pin_plan(cs: ConstraintSet, pin: Pin, device: int | None) -> Plan | None:
    """The text of dropping `pin` (`device` None) or moving it to `device`."""
    family = pin.rule.kind
    site = cs.sites[pin.site]
    dev = None if device is None else device_name(cs.vdevices, device)
    origin = pin.origin
    if family is RuleKind.HINT:
        span = _statement(origin)
        if span is None:
            return None
        if device is None:
            return Plan("drop_hint", span, target=_bound(origin))
        return Plan("set_hint", span, device=dev, hint=hint_device(cs.vdevices[device]), target=_bound(origin))
    if family is RuleKind.TO_VDEVICE:
        span = _statement(origin)
        return None if span is None or dev is None else Plan("set_copy", span, device=dev, target=_bound(origin))
    action = "drop_vdevice" if device is None else "set_vdevice"
    if family is RuleKind.ANNOTATION:
        span = _statement(origin)
        where = "binding"
    elif family is RuleKind.PARAM and isinstance(origin, Var):
        span, where = pin.span, "param"
    elif family is RuleKind.RETURN and isinstance(origin, Function):
        span, where = pin.span, "return"
    else:
        return None
    if span is None:
        return None
    return Plan(action, span, device=dev, target=site.name, where=where, leaf=site.path)


def _bound(origin: object) -> str | None:
    """The variable a binding statement binds."""
    return origin.var.name if isinstance(origin, Binding) else None


def _statement(origin: object) -> Span | None:
    """The span of the binding statement `origin` is (None for anything else, or without a position)."""
    return origin.span if isinstance(origin, Binding) else None
