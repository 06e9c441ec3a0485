"""Suggested fixes for conflicts, each re-checked on the constraint graph before it is offered.

Three kinds of edit, each simulated on the constraints before it is offered:

* *insert a copy*: ``x_cuda0 = R.to_vdevice(x, "cuda:0")`` before the binding
  that ties `x` to the other side of the chain (or, under strict hints,
  replace the hint by an explicit ``R.to_vdevice``).  Simulated as: the
  equalities of that binding between the two sites are removed and the
  consumer side gets a pin to the copy's device.
* *drop* a hint or the vdevice of an annotation (the pin is removed);
* *change* the device of an annotation, a hint or a ``to_vdevice`` (the pin
  is replaced).

A fix is offered when (1) it resolves the conflict: the conflict's pins and
domains no longer all meet in one equality class, or the changed pin agrees
with the others; and (2) it creates no new conflict.  Removing constraints
cannot create one (every minimal conflict of a subset is one of the whole
set); a new or changed pin to device d creates none when every pin and
domain of its class (after the edit) allows d, or already clashes with
another pin on d of that class (that clash is an existing conflict).
Checking touches only the class of the conflict.  (3) It trades no conflict
for another: when the class still has no placement after the edit (another
pin stood behind the one changed, dropped or cut off), its conflicts are
found again with the edit made and must all be conflicts the diagnosis
already found (`_no_new_conflict`).

Each fix carries its `Plan` (`plans`): where its edit goes in the text.
"""

from __future__ import annotations

from collections.abc import Sequence

from vdplace.ir import progress
from vdplace.ir.span import Span
from vdplace.ir.vdevice import DeviceSpec, lookup_device
from vdplace.placement.diagnose.conflict import Conflict, Fix
from vdplace.placement.diagnose.core import PIN, ConstraintGraph, RawConflict, Unary, component_conflicts, intersect
from vdplace.placement.diagnose.names import device_name, edge_direction, site_name
from vdplace.placement.diagnose.plans import copy_plan, expression, hint_device, identifier, pin_plan
from vdplace.placement.model.constraints import Equal, Pin
from vdplace.placement.model.rules import Rule, RuleKind

# Candidate edges tried for a copy, per conflict (each try is one BFS over the class).
MAX_COPY_TRIES = 4


def suggest_fixes(graph: ConstraintGraph, conflicts: Sequence[Conflict]) -> None:
    """Fill `conflict.fixes` (and each fix's `resolves`) for the reported conflicts."""
    with progress.stage("check fixes", total=len(conflicts)) as tick:
        for done, conflict in enumerate(conflicts):
            conflict.fixes = _fixes(graph, conflict, conflicts)
            tick(done + 1)


def _fixes(graph: ConstraintGraph, conflict: Conflict, conflicts: Sequence[Conflict]) -> list[Fix]:
    """The checked fixes of one conflict: a copy first, then one edit per pin."""
    raw = conflict.raw
    found: list[Fix] = []
    copy = _copy_fix(graph, raw, conflicts)
    if copy is not None:
        found.append(copy)
    for u in raw.unary:
        if u.kind == PIN:
            fix = _pin_fix(graph, raw, u, conflicts)
            if fix is not None:
                found.append(fix)
    return found


# -- copies -------------------------------------------------------------------------


def _copy_fix(graph: ConstraintGraph, raw: RawConflict, conflicts: Sequence[Conflict]) -> Fix | None:
    cs = graph.cs
    candidates = []
    assert raw.edges is not None, "a shown conflict is completed (`core.complete`)"
    for pos, e in enumerate(raw.edges):
        eq = graph.edges[e]
        direction = edge_direction(eq)
        if direction is None:
            continue
        src, out = direction
        family = eq.rule.kind
        if family is RuleKind.CALL_RESULT:
            if expression(cs.sites[out]) is None or cs.sites[out].path:
                continue
        elif family is not RuleKind.HINT_STRICT and expression(cs.sites[src]) is None:
            continue
        candidates.append((family is not RuleKind.HINT_STRICT, cs.sites[src].nbytes, pos, e, src, out, family))
    candidates.sort(key=lambda c: c[:3])  # a strict hint made a copy first, then the fewest bytes
    for _, _, _, e, src, out, family in candidates[:MAX_COPY_TRIES]:
        eq = graph.edges[e]
        cut = _binding_edges(graph, e)
        reach = graph.reachable((out,), cut)
        inside = [u for u in raw.unary if u.site in reach]
        outside = [u for u in raw.unary if u.site not in reach]
        if not inside or not outside:
            continue  # another chain still joins them: this copy would not help
        whole = _class_unary(graph, out)
        others = [u for u in whole if u.site in reach]
        if family is RuleKind.HINT_STRICT:
            device = _hint_device(graph, out, eq)
            if device is None or device not in intersect(inside, graph.universe):
                continue
            new_pin = None
        else:
            device = next((d for d in sorted(intersect(inside, graph.universe)) if _harmless(others, d, None)), None)
            if device is None:
                continue
            new_pin = Pin(out, device, Rule.of(RuleKind.TO_VDEVICE), eq.span, eq.origin)
        consumer = others + ([Unary(PIN, -1, out, frozenset((device,)), new_pin)] if new_pin is not None else [])
        producer = [u for u in whole if u.site not in reach]
        if not (_no_new_conflict(graph, whole, consumer, cut) and _no_new_conflict(graph, whole, producer, cut)):
            continue  # the copy would bring out a conflict its binding stood between
        fix = Fix(
            "hint_to_copy" if family is RuleKind.HINT_STRICT else "insert_copy",
            _copy_message(graph, eq, src, out, device, family),
            eq.span,
            [graph.edges[x] for x in sorted(cut)],
            [new_pin] if new_pin is not None else [],
            copy_plan(graph.cs, eq, src, out, device),
        )
        fix.resolves = [
            c.number
            for c in conflicts
            if _split(c.raw, reach)
            and (new_pin is None or device in intersect([u for u in c.raw.unary if u.site in reach], graph.universe))
        ]
        return fix
    return None


def _binding_edges(graph: ConstraintGraph, e: int) -> frozenset[int]:
    """Edge `e` and its parallels from the same binding (``R.add(x, x)`` ties x to the result twice)."""
    eq = graph.edges[e]
    if eq.origin is None:
        return frozenset((e,))
    return frozenset(x for v, x in graph.adj[eq.a] if v == eq.b and graph.edges[x].origin is eq.origin) | {e}


def _split(raw: RawConflict, reach: set[int]) -> bool:
    inside = sum(1 for u in raw.unary if u.site in reach)
    return 0 < inside < len(raw.unary)


def _hint_device(graph: ConstraintGraph, out: int, eq: Equal) -> int | None:
    """The device the strict hint of `eq` names (its pin on the hint's result)."""
    for u in graph.unary_at.get(out, ()):
        if u.kind == PIN and u.constraint.origin is eq.origin and u.constraint.rule.kind is RuleKind.HINT:
            return next(iter(u.allowed))
    return None


def _copy_message(graph: ConstraintGraph, eq: Equal, src: int, out: int, device: int, family: RuleKind) -> str:
    cs = graph.cs
    name = device_name(cs.vdevices, device)
    site = cs.sites[src]
    expr = expression(site) or site_name(site)
    where = _where(eq.span, eq.origin, site.func)
    if family is RuleKind.HINT_STRICT:
        return f'replace the `R.hint_on_device` {where} by an explicit copy `R.to_vdevice({expr}, "{name}")`'
    vd = cs.vdevices[device]
    copy = identifier(f"{expr}_{vd.kind}{name.split(':')[1]}")
    text = f'`{copy} = R.to_vdevice({expr}, "{name}")`'
    if family is RuleKind.CALL_RESULT:
        target = expression(cs.sites[out]) or "the result"
        call = f"{target}_{vd.kind}{name.split(':')[1]}"
        callee = eq.rule.get("func", "?")
        return (
            f"bind the call of cls.{callee} {where} to `{call}` instead of `{target}`, "
            f'then copy it: `{target} = R.to_vdevice({call}, "{name}")`'
        )
    if family is RuleKind.IF:
        return f"copy the branch result: {text} at the end of the branch, and end the branch in `{copy}`"
    if family is RuleKind.FUNC_RESULT:
        return f"insert {text} just before `return {expr}` in `{site.func}`, and return `{copy}`"
    return f"insert {text} {_before(eq.span, eq.origin, site.func)} and use `{copy}` there instead of `{expr}`"


def _where(span: Span | None, origin: object, func: str, subject: str | None = None) -> str:
    """Where an edit goes: a line when the module has source positions, else the binding."""
    if span is not None:
        return f"at line {span.line}"
    var = getattr(origin, "var", None)
    if var is not None and var.name != subject:
        return f"at the binding of `{var.name}` in `{func}`"
    return f"in `{func}`"


def _before(span: Span | None, origin: object, func: str) -> str:
    if span is not None:
        return f"before line {span.line}"
    var = getattr(origin, "var", None)
    if var is not None:
        return f"before the binding of `{var.name}` in `{func}`"
    return f"in `{func}`"


# -- pins -----------------------------------------------------------------------------

_DROPPABLE = {RuleKind.HINT, RuleKind.ANNOTATION, RuleKind.PARAM, RuleKind.RETURN}
_CHANGEABLE = {RuleKind.HINT, RuleKind.ANNOTATION, RuleKind.PARAM, RuleKind.RETURN, RuleKind.TO_VDEVICE}


def _pin_fix(graph: ConstraintGraph, raw: RawConflict, u: Unary, conflicts: Sequence[Conflict]) -> Fix | None:
    """Drop a hint, else change the pin's device; for annotations the other way round."""
    pin = u.constraint
    if not isinstance(pin, Pin):
        return None  # a domain: no rule kind of it can be dropped or changed
    family = pin.rule.kind
    order = ("drop", "change") if family is RuleKind.HINT else ("change", "drop")
    for kind in order:
        if kind == "drop" and family in _DROPPABLE:
            others = [w for w in _class_unary(graph, u.site) if w is not u]
            if not _no_new_conflict(graph, [*others, u], others):
                continue
            plan = pin_plan(graph.cs, pin, None)
            fix = Fix("drop_pin", _drop_message(graph, u, family), pin.span, [pin], [], plan)
            fix.resolves = [c.number for c in conflicts if u.key in c.raw.key]
            return fix
        if kind == "change" and family in _CHANGEABLE:
            changed = _change_fix(graph, raw, u, pin, family, conflicts)
            if changed is not None:
                return changed
    return None


def _change_fix(
    graph: ConstraintGraph, raw: RawConflict, u: Unary, pin: Pin, family: RuleKind, conflicts: Sequence[Conflict]
) -> Fix | None:
    """Move `pin` (`u`'s constraint) to a device that resolves the conflict and makes no new one, if any."""
    rest = [w for w in raw.unary if w is not u]
    others = [w for w in _class_unary(graph, u.site) if w is not u]
    for device in sorted(intersect(rest, graph.universe)):
        if not _harmless(others, device, u) or not _clear(graph, others, u, device):
            continue
        message = _change_message(graph, u, family, device)
        if message is None:
            continue
        new = Pin(pin.site, device, pin.rule, pin.span, pin.origin)
        fix = Fix("change_pin", message, pin.span, [pin], [new], pin_plan(graph.cs, pin, device))
        fix.resolves = [
            c.number
            for c in conflicts
            if u.key in c.raw.key and device in intersect([w for w in c.raw.unary if w is not u], graph.universe)
        ]
        return fix
    return None


def _harmless(others: Sequence[Unary], device: int, replaced: Unary | None) -> bool:
    """A pin to `device` among `others` clashes with nothing that does not already clash."""
    forced = {next(iter(w.allowed)) for w in others if len(w.allowed) == 1 and w is not replaced}
    return all(device in w.allowed or device in forced for w in others if w is not replaced)


def _clear(graph: ConstraintGraph, others: Sequence[Unary], u: Unary, device: int) -> bool:
    """Pin `u` moved to `device` brings out no conflict its class did not have (`_no_new_conflict`)."""
    if all(device in w.allowed for w in others):
        return True
    moved = Unary(u.kind, u.index, u.site, frozenset((device,)), u.constraint)
    return _no_new_conflict(graph, [*others, u], [*others, moved])


def _no_new_conflict(
    graph: ConstraintGraph, before: list[Unary], after: list[Unary], cut: frozenset[int] = frozenset()
) -> bool:
    """Every conflict of the class with the pins and domains `after` is one it has with `before`.

    A fix can resolve the conflict it was offered for and still bring out
    another, one the reported conflict stood between (a pin on "cuda:0"
    between one on "llvm:0" and another on "cuda:0"): such a fix trades one
    conflict for another and is not offered.  `after` are the pins and
    domains of one class once the edges `cut` are gone (a copy's side).
    Free when that class has a placement; else its conflicts are found
    again (a search over the class; the conflicts before are those the
    diagnosis found, `ConstraintGraph.found`, when it ran).
    """
    if not after or intersect(after, graph.universe):
        return True
    known = graph.found if graph.found is not None else {c.key for c in component_conflicts(graph, before)}
    return all(c.key in known for c in component_conflicts(graph, after, cut))


def _class_unary(graph: ConstraintGraph, site: int) -> list[Unary]:
    return graph.unary_by_component().get(graph.component_of()[site], [])


def _drop_message(graph: ConstraintGraph, u: Unary, family: RuleKind) -> str:
    site = graph.cs.sites[u.site]
    name = site_name(site)
    where = _where(u.constraint.span, u.constraint.origin, site.func, name)
    if family is RuleKind.HINT:
        source = _hint_input(u)
        plain = f" (write `{name} = {source}`)" if source else ""
        return f"drop the `R.hint_on_device` {where}{plain}"
    if family is RuleKind.PARAM:
        return f"remove the vdevice from the annotation of parameter `{name}` of `{site.func}` {where}"
    if family is RuleKind.RETURN:
        return f"remove the vdevice from the return annotation of `{site.func}` {where}"
    return f"remove the vdevice from the annotation of `{name}` {where}"


def _change_message(graph: ConstraintGraph, u: Unary, family: RuleKind, device: int) -> str | None:
    cs = graph.cs
    site = cs.sites[u.site]
    name = device_name(cs.vdevices, device)
    vname = site_name(site)
    where = _where(u.constraint.span, u.constraint.origin, site.func, vname)
    if family is RuleKind.HINT:
        vd = cs.vdevices[device]
        spec = DeviceSpec(vd.device_type, vd.vdevice_id)
        try:
            if lookup_device(cs.vdevices, spec, vd.memory_scope) != vd:
                return None  # a hint names the first entry on a device; this one it cannot name
        except LookupError:
            return None
        arg = _hint_input(u) or "..."
        return f"change the hint {where} to `R.hint_on_device({arg}, {hint_device(vd)})`"
    if family is RuleKind.PARAM:
        return f'change the annotation of parameter `{vname}` of `{site.func}` {where} to "{name}"'
    if family is RuleKind.RETURN:
        return f'change the return annotation of `{site.func}` {where} to "{name}"'
    if family is RuleKind.TO_VDEVICE:
        return f'change the destination of the `R.to_vdevice` {where} to "{name}"'
    return f'change the annotation of `{vname}` {where} to "{name}"'


def _hint_input(u: Unary) -> str | None:
    value = getattr(u.constraint.origin, "value", None)
    args = getattr(value, "args", ())
    name = getattr(args[0], "name", None) if args else None
    return name
