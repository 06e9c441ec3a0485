"""From Z3's class-level core to a site-level minimal core and a message in source terms.

Z3 proves a class unsatisfiable with a few pins and domains.  The sites of
those facts are joined inside the class by hard equalities; a shortest path
between two conflicting pins in the equality graph is already a minimal
unsatisfiable set (LIBRARIES.md: drop any edge and the pins are no longer
tied), so the core is: the facts plus the Equal chain between their sites.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from vdplace.ir.expr import Binding, Call, Constant, Function, GlobalVar, If, Tuple, TupleGetItem, Var
from vdplace.ir.module import IRModule
from vdplace.ir.span import Span
from vdplace.ir.vdevice import VDevice, vdevice_name

from .classes import Classes
from .constraints import (
    RULE_ANNOTATION,
    RULE_HINT,
    RULE_PARAM,
    RULE_RETURN,
    RULE_TO_VDEVICE,
    ConstraintSet,
    Domain,
    Equal,
    Pin,
    Site,
)
from .errors import Constraint, PlacementConflict


def build_conflict(
    mod: IRModule,
    cs: ConstraintSet,
    classes: Classes,
    class_cores: Sequence[Sequence[Pin | Domain]],
    more: int = 0,
) -> PlacementConflict:
    """A `PlacementConflict` whose `cores` are site-level minimal cores, one per conflicting class."""
    of = classes.of
    wanted = {of[_site(fact)] for core in class_cores for fact in core}
    adjacency: dict[int, list[tuple[int, Equal]]] = {}
    for eq in cs.equals:
        if of[eq.a] in wanted:
            adjacency.setdefault(eq.a, []).append((eq.b, eq))
            adjacency.setdefault(eq.b, []).append((eq.a, eq))
    cores: list[list[Constraint]] = []
    paths: list[list[Equal]] = []
    for facts in class_cores:
        chain: list[Equal] = []
        seen: set[int] = set()
        start = _site(facts[0])
        for fact in facts[1:]:
            for eq in _shortest_path(adjacency, start, _site(fact)):
                if id(eq) not in seen:
                    seen.add(id(eq))
                    chain.append(eq)
        cores.append([*facts, *chain])
        paths.append(chain)
    text = "\n\n".join(_describe(mod, cs, facts, chain) for facts, chain in zip(class_cores, paths, strict=True))
    if len(class_cores) > 1 or more:
        total = len(class_cores) + more
        text = f"{total} independent placement conflicts\n\n" + text
    if more:
        text += f"\n\n... and {more} more conflicting group(s) not shown"
    return PlacementConflict(text, cs, cores[0], cores, module=mod)


def _site(fact: Pin | Domain) -> int:
    return fact.site


def _shortest_path(adjacency: dict[int, list[tuple[int, Equal]]], src: int, dst: int) -> list[Equal]:
    """BFS over the equality graph; the Equal constraints along a shortest src-dst path."""
    if src == dst:
        return []
    back: dict[int, tuple[int, Equal]] = {}
    queue = deque([src])
    visited = {src}
    while queue:
        node = queue.popleft()
        for nxt, eq in adjacency.get(node, ()):
            if nxt in visited:
                continue
            visited.add(nxt)
            back[nxt] = (node, eq)
            if nxt == dst:
                path: list[Equal] = []
                while nxt != src:
                    nxt, eq = back[nxt]
                    path.append(eq)
                path.reverse()
                return path
            queue.append(nxt)
    raise RuntimeError("internal error: conflicting facts of one class are not connected")


# -- the message ------------------------------------------------------------------


def _describe(mod: IRModule, cs: ConstraintSet, facts: Sequence[Pin | Domain], chain: Sequence[Equal]) -> str:
    sites = cs.sites
    pins = [f for f in facts if isinstance(f, Pin)]
    domains = [f for f in facts if isinstance(f, Domain)]
    names = [_site_name(sites[f.site]) for f in facts]
    unique = list(dict.fromkeys(names))
    if len(pins) >= 2:
        head = f"placement conflict: {' and '.join(unique)} must share a device, but they are pinned to different ones"
    elif pins and domains:
        head = f"placement conflict: {unique[0]} is pinned to a device its operation does not support"
    else:
        head = f"placement conflict: no declared vdevice supports every operation on {unique[0]}"
    lines = [head]
    for fact in facts:
        lines.append("  " + _describe_fact(mod, cs, fact))
    if chain:
        lines.append("  they are joined by:")
        last = None
        for eq in chain:
            key = (id(eq.origin), eq.rule)
            if key == last:
                continue
            last = key
            lines.append(f"    {_where(eq.span)}{_origin_text(mod, eq.origin, eq.span)}   [{eq.rule}]")
    return "\n".join(lines)


def _describe_fact(mod: IRModule, cs: ConstraintSet, fact: Pin | Domain) -> str:
    site = cs.sites[fact.site]
    if isinstance(fact, Pin):
        device = _device_name(cs.vdevices, fact.device)
        how = {
            RULE_ANNOTATION: "by its annotation",
            RULE_PARAM: "by its parameter annotation",
            RULE_RETURN: "by the return annotation",
            RULE_HINT: "by R.hint_on_device",
            RULE_TO_VDEVICE: "by R.to_vdevice",
        }.get(fact.rule, f"by the rule '{fact.rule}'")
        if fact.rule == RULE_RETURN and fact.span is None and mod.source is not None:
            how = "by its return type (inferred from the function body)"
        text = f"{_site_name(site)} is pinned to {device} {how}"
    else:
        allowed = (
            ", ".join(_device_name(cs.vdevices, d) for d in sorted(fact.allowed)) or "none of the declared vdevices"
        )
        text = f"{_site_name(site)} may only be on {allowed} ({fact.rule})"
    where = _where(fact.span).rstrip(": ")
    source = _origin_text(mod, fact.origin, fact.span)
    text += f", at {where}" if where else ""
    return text + (f": {source}" if source else "")


def _site_name(site: Site) -> str:
    leaf = "".join(f"[{i}]" for i in site.path)
    if site.kind == "return":
        return f"the return value{leaf} of {site.func}"
    if site.kind == "param":
        return f"parameter {site.name}{leaf} of {site.func}"
    if site.kind == "value":
        return f"the value {site.name}{leaf} in {site.func}"
    return f"{site.name}{leaf}"


def _device_name(vdevices: Sequence[VDevice], index: int) -> str:
    return vdevice_name(vdevices, vdevices[index])


def _where(span: Span | None) -> str:
    if span is None:
        return ""
    return f"line {span.line} ({span.location()}): "


def _origin_text(mod: IRModule, origin: object, span: Span | None) -> str:
    """The source line of a binding when the module kept its text, else a rendering of the node."""
    if span is not None and mod.source:
        lines = mod.source.splitlines()
        if 1 <= span.line <= len(lines):
            return lines[span.line - 1].strip()
    if isinstance(origin, Binding):
        return f"{origin.var.name} = {render(origin.value)}"
    if isinstance(origin, Var):
        return f"parameter {origin.name}"
    if isinstance(origin, Function):
        return "the function's return annotation"
    return ""


def render(expr: object) -> str:
    """A one-line TVMScript-like rendering of an expression, for messages only."""
    if isinstance(expr, Var):
        return expr.name
    if isinstance(expr, Call):
        args = ", ".join(render(a) for a in expr.args)
        if isinstance(expr.op, GlobalVar):
            return f"cls.{expr.op.name}({args})"
        return f"R.{expr.op.name}({args})"
    if isinstance(expr, Tuple):
        inner = ", ".join(render(f) for f in expr.fields)
        return f"({inner},)" if len(expr.fields) == 1 else f"({inner})"
    if isinstance(expr, TupleGetItem):
        return f"{render(expr.tuple_value)}[{expr.index}]"
    if isinstance(expr, Constant):
        return "R.const(...)"
    if isinstance(expr, If):
        return f"R.If({render(expr.cond)}, ...)"
    return type(expr).__name__
