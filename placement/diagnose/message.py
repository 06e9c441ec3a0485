"""`PlacementConflict.message`: each conflict's facts with their source lines, and the bindings joining them.

The terse, line-oriented form of the conflicts (``str()`` of the exception is
the fuller `summary.summarize`).  Per conflict: a head line saying what
clashes, one line per pin or domain (the site, its device as the vdevice
list names it, ``"cuda:0:global"``, the rule, where, and the source line),
then the chain of equalities, one line per binding (a long chain: the first
and last `chain.KEEP` bindings and its landmarks, ``… N bindings, lines a–b
…`` between; a long source line quoted around the binding, `quote`).
Without source text (a module built in Python) a binding is rendered from
its IR node instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from vdplace.ir.expr import Binding, Call, Constant, Function, GlobalVar, If, Tuple, TupleGetItem, Var
from vdplace.ir.span import Span
from vdplace.ir.vdevice import VDevice, vdevice_name
from vdplace.placement.diagnose.chain import Gap, landmarks, shorten
from vdplace.placement.diagnose.conflict import Conflict
from vdplace.placement.diagnose.core import DOMAIN
from vdplace.placement.diagnose.quote import quote_span
from vdplace.placement.model.constraints import ConstraintSet, Domain, Equal, Pin, Site
from vdplace.placement.model.rules import RuleKind

_PINNED_BY = {
    RuleKind.ANNOTATION: "by its annotation",
    RuleKind.PARAM: "by its parameter annotation",
    RuleKind.RETURN: "by the return annotation",
    RuleKind.HINT: "by R.hint_on_device",
    RuleKind.TO_VDEVICE: "by R.to_vdevice",
}


def conflict_message(
    conflicts: Sequence[Conflict], omitted: int, cs: ConstraintSet, lines: Sequence[str] | None = None
) -> str:
    """One paragraph per conflict, headed by the count when there is more than one; `lines`: the source's lines."""
    text = "\n\n".join(_describe(cs, *_facts_and_chain(c), lines, landmarks(c)) for c in conflicts)
    total = len(conflicts) + omitted
    if total > 1:
        text = f"{total} independent placement conflicts\n\n" + text
    if omitted:
        text += f"\n\n... and {omitted} more conflicting group(s) not shown"
    return text


def _facts_and_chain(conflict: Conflict) -> tuple[list[Pin | Domain], list[Equal]]:
    """The conflict's pins before its domains (those without a position first), and its equalities.

    A chain is read from the first fact's site, so it is reversed when that
    fact sits at the chain's far end.
    """
    unary = sorted(conflict.raw.unary, key=lambda u: (u.kind == DOMAIN, u.constraint.span is not None, u.index))
    facts = [u.constraint for u in unary]
    chain = [step.constraint for step in conflict.path]
    sites = conflict.sites
    if conflict.is_path and len(sites) > 1 and facts[0].site == sites[-1].id != sites[0].id:
        chain.reverse()
    return facts, chain


def _describe(
    cs: ConstraintSet,
    facts: Sequence[Pin | Domain],
    chain: Sequence[Equal],
    lines: Sequence[str] | None,
    marks: frozenset[int],
) -> str:
    sites = cs.sites
    pins = [f for f in facts if isinstance(f, Pin)]
    domains = [f for f in facts if isinstance(f, Domain)]
    unique = list(dict.fromkeys(_site_name(sites[f.site]) for f in facts))
    if len(pins) >= 2:
        head = f"placement conflict: {' and '.join(unique)} must share a device, but they are pinned to different ones"
    elif pins and domains:
        head = f"placement conflict: {unique[0]} is pinned to a device its operation does not support"
    else:
        head = f"placement conflict: no declared vdevice supports every operation on {unique[0]}"
    out = [head] + ["  " + _describe_fact(cs, fact, lines) for fact in facts]
    if chain:
        out.append("  they are joined by:")
        for eq in shorten(_one_per_binding(chain), _same, marks=marks):
            if isinstance(eq, Gap):
                out.append(f"    {eq}")
            else:
                out.append(f"    {_where(eq.span)}{_origin_text(eq.origin, eq.span, lines)}   [{eq.rule.text}]")
    return "\n".join(out)


def _one_per_binding(chain: Sequence[Equal]) -> list[Equal]:
    """The chain without the repeats of a binding's rule (``R.add(x, x)`` joins x to the result twice)."""
    out: list[Equal] = []
    last = None
    for eq in chain:
        key = (id(eq.origin), eq.rule)
        if key != last:
            last = key
            out.append(eq)
    return out


def _same(eq: Equal) -> Equal:
    return eq


def _describe_fact(cs: ConstraintSet, fact: Pin | Domain, lines: Sequence[str] | None) -> str:
    site = cs.sites[fact.site]
    if isinstance(fact, Pin):
        how = _PINNED_BY.get(fact.rule.kind, f"by the rule '{fact.rule.text}'")
        if fact.rule.kind is RuleKind.RETURN and fact.span is None and lines is not None:
            how = "by its return type (inferred from the function body)"
        text = f"{_site_name(site)} is pinned to {_device_name(cs.vdevices, fact.device)} {how}"
    else:
        names = ", ".join(_device_name(cs.vdevices, d) for d in sorted(fact.allowed))
        text = f"{_site_name(site)} may only be on {names or 'none of the declared vdevices'} ({fact.rule.text})"
    where = _where(fact.span).rstrip(": ")
    quoted = _origin_text(fact.origin, fact.span, lines)
    text += f", at {where}" if where else ""
    return text + (f": {quoted}" if quoted else "")


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
    return "" if span is None else f"line {span.line} ({span.location()}): "


def _origin_text(origin: object, span: Span | None, lines: Sequence[str] | None) -> str:
    """The source line of a binding when the module kept its text, else a rendering of the node."""
    if span is not None and lines and 1 <= span.line <= len(lines):
        text = lines[span.line - 1]
        end = span.end_col - 1 if span.end_line == span.line else len(text)
        return quote_span(text, span.col - 1, end)
    if isinstance(origin, Binding):
        return f"{origin.var.name} = {_render(origin.value)}"
    if isinstance(origin, Var):
        return f"parameter {origin.name}"
    if isinstance(origin, Function):
        return "the function's return annotation"
    return ""


def _render(expr: object) -> str:
    """A one-line TVMScript-like rendering of an expression, for messages only."""
    if isinstance(expr, Var):
        return expr.name
    if isinstance(expr, Call):
        args = ", ".join(_render(a) for a in expr.args)
        prefix = "cls" if isinstance(expr.op, GlobalVar) else "R"
        return f"{prefix}.{expr.op.name}({args})"
    if isinstance(expr, Tuple):
        inner = ", ".join(_render(f) for f in expr.fields)
        return f"({inner},)" if len(expr.fields) == 1 else f"({inner})"
    if isinstance(expr, TupleGetItem):
        return f"{_render(expr.tuple_value)}[{expr.index}]"
    if isinstance(expr, Constant):
        return "R.const(...)"
    if isinstance(expr, If):
        return f"R.If({_render(expr.cond)}, ...)"
    return type(expr).__name__
