"""Conflict diagnostics: every independent conflict, minimal, in source terms, with checked fixes.

`find_conflicts(cs)` is the entry point.  `placement.diagnose_core` finds the
conflicts over equality classes (integers only); this module proves each one
minimal (`placement.diagnose_verify`), names its parts the way the user wrote
them (variables, functions, lines, devices as ``"cuda:0"``), and asks
`placement.diagnose_fixes` for fixes that were re-checked on the constraint
graph.  The renderings (`report_text`, `report_json`, `report_html`) only read
the `Conflict` objects built here.

A `Conflict` is a minimal unsatisfiable set of hard constraints: its pins and
domains (`pins`), and the equalities of its `path`.  Soft hint edges are
never part of one; under ``strict_hints`` a hint's edge is an ordinary
equality with the rule ``hint_on_device (strict)``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from vdplace.ir.op import get_op, has_op
from vdplace.ir.span import Span
from vdplace.ir.vdevice import VDevice, kind_ordinal

from .constraints import (
    RULE_ALIAS,
    RULE_ANNOTATION,
    RULE_CALL_ARG,
    RULE_CALL_RESULT,
    RULE_CONSTANT,
    RULE_FUNC_RESULT,
    RULE_GET_ITEM,
    RULE_HINT,
    RULE_HINT_STRICT,
    RULE_HOST,
    RULE_IF,
    RULE_PARAM,
    RULE_RETURN,
    RULE_SAME,
    RULE_SUPPORTED,
    RULE_TO_VDEVICE,
    RULE_TUPLE_FIELD,
    ConstraintSet,
    Domain,
    Equal,
    Pin,
    Site,
)
from .diagnose_core import ConstraintGraph, RawConflict, complete, find_raw_conflicts
from .diagnose_verify import structurally_minimal, z3_minimal
from .errors import PlacementInternalError

# Conflicts with at most this many constraints are also proven minimal by Z3's
# deletion pass (one check per constraint); larger ones by the linear-time
# structural certificate only.
Z3_VERIFY_LIMIT = 200
# The summary (str of PlacementConflict) lists at most this many chain steps.
SUMMARY_STEPS = 12


# -- names ----------------------------------------------------------------------


def device_name(vdevices: Sequence[VDevice], index: int) -> str:
    """``"cuda:0"`` (kind and ordinal among that kind), with the scope only when not global."""
    v = vdevices[index]
    name = f"{v.kind}:{kind_ordinal(vdevices, index)}"
    return name if v.memory_scope == "global" else f"{name}:{v.memory_scope}"


def site_name(site: Site) -> str:
    """A short name for graph nodes and chains: ``x``, ``t[1]``, ``f.return``, ``R.add(...)``."""
    leaf = "".join(f"[{i}]" for i in site.path)
    if site.kind == "return":
        return f"{site.func}.return{leaf}"
    if site.name.startswith("<") and site.name.endswith(">"):
        inner = site.name[1:-1]
        return ("constant" if inner == "const" else f"{inner}(...)") + leaf
    return f"{site.name}{leaf}"


def site_ref(site: Site) -> str:
    """The site as a sentence names it: "`x`", "the return value of `f`", "a nested R.add"."""
    leaf = "".join(f"[{i}]" for i in site.path)
    if site.kind == "return":
        return f"the return value{' field ' + leaf if leaf else ''} of `{site.func}`"
    if site.name == "<const>":
        return "a constant"
    if site.name.startswith("<") and site.name.endswith(">"):
        return f"a nested `{site.name[1:-1]}(...)`"
    return f"`{site.name}{leaf}`"


def _template(rule: str) -> re.Pattern[str]:
    """A regex reading back a rule written from a constraints.RULE_* template."""
    parts = re.split(r"\{(\w+)\}", rule)
    out = []
    for i, part in enumerate(parts):
        out.append(re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)")
    return re.compile("^" + "".join(out) + "$")


_RULES = {
    name: _template(text)
    for name, text in {
        "same": RULE_SAME,
        "host": RULE_HOST,
        "supported": RULE_SUPPORTED,
        "tuple_field": RULE_TUPLE_FIELD,
        "get_item": RULE_GET_ITEM,
        "call_arg": RULE_CALL_ARG,
        "call_result": RULE_CALL_RESULT,
    }.items()
}
_FIXED_RULES = {
    RULE_ALIAS: "alias",
    RULE_CONSTANT: "constant",
    RULE_IF: "if",
    RULE_FUNC_RESULT: "func_result",
    RULE_HINT_STRICT: "hint_strict",
    RULE_ANNOTATION: "annotation",
    RULE_PARAM: "param",
    RULE_RETURN: "return",
    RULE_HINT: "hint",
    RULE_TO_VDEVICE: "to_vdevice",
}


def classify_rule(rule: str) -> tuple[str, dict[str, str]]:
    """(rule family, its placeholders): ``("call_arg", {"index": "0", "func": "f"})``; ``("other", {})``."""
    fixed = _FIXED_RULES.get(rule)
    if fixed is not None:
        return fixed, {}
    for name, pattern in _RULES.items():
        m = pattern.match(rule)
        if m:
            return name, m.groupdict()
    return "other", {}


# Equalities written (input, output) and (output, input) by placement.extract.
_INPUT_FIRST = {"same", "call_arg", "hint_strict"}
_OUTPUT_FIRST = {"alias", "tuple_field", "get_item", "constant", "if", "call_result", "func_result"}


def edge_direction(eq: Equal) -> tuple[int, int] | None:
    """(input site, output site) of an equality: the value that flows in and the one it becomes."""
    family, _ = classify_rule(eq.rule)
    if family in _INPUT_FIRST:
        return eq.a, eq.b
    if family in _OUTPUT_FIRST:
        return eq.b, eq.a
    return None


# -- the objects ----------------------------------------------------------------


class Device:
    """A vdevice of the module as reports name it."""

    __slots__ = ("index", "name", "vdevice")

    def __init__(self, vdevices: Sequence[VDevice], index: int) -> None:
        self.index = index
        self.name = device_name(vdevices, index)
        self.vdevice = vdevices[index]

    def __repr__(self) -> str:
        return f"Device({self.name!r})"


class Requirement:
    """One pin or domain of a conflict: who asks for which device, and where."""

    __slots__ = ("kind", "rule", "site", "span", "devices", "constraint", "description")

    def __init__(self, cs: ConstraintSet, constraint: Pin | Domain) -> None:
        self.constraint = constraint
        self.kind = "pin" if isinstance(constraint, Pin) else "domain"
        self.rule = constraint.rule
        self.site: Site = cs.sites[constraint.site]
        self.span: Span | None = constraint.span
        allowed = (constraint.device,) if isinstance(constraint, Pin) else sorted(constraint.allowed)
        self.devices = [Device(cs.vdevices, d) for d in allowed]
        self.description = self._describe()

    @property
    def variable(self) -> str:
        return site_name(self.site)

    @property
    def function(self) -> str:
        return self.site.func

    @property
    def device(self) -> Device | None:
        """The one device a pin asks for (None for a domain)."""
        return self.devices[0] if self.kind == "pin" else None

    def _describe(self) -> str:
        ref = site_ref(self.site)
        family, fields = classify_rule(self.rule)
        if self.kind == "domain":
            op = fields.get("op", "")
            wanted = _supported_types(op)
            if not self.devices:
                return f"{ref} is computed by R.{op}, which runs on no device of the module ({wanted})"
            names = ", ".join(f'"{d.name}"' for d in self.devices)
            return f"{ref} is computed by R.{op}, which runs only on {names}"
        dev = f'"{self.devices[0].name}"'
        if family == "annotation":
            return f"{ref} is annotated {dev}"
        if family == "param":
            return f"parameter {ref} of `{self.site.func}` is annotated {dev}"
        if family == "return":
            return f"{ref} is annotated {dev}"
        if family == "hint":
            return f"{ref} is hinted to {dev} by R.hint_on_device"
        if family == "to_vdevice":
            return f"{ref} is copied to {dev} by R.to_vdevice"
        if family == "host":
            return f"{ref} is produced by R.{fields.get('op', '?')}, which puts its result on the host {dev}"
        return f"{ref} must be on {dev} ({self.rule})"

    def __repr__(self) -> str:
        return f"Requirement({self.description})"


def _supported_types(op: str) -> str:
    if op and has_op(op):
        types = get_op(op).device_types
        if types:
            return "supported: " + ", ".join(sorted(types))
    return "no supported device declared"


class Step:
    """One equality of a conflict's chain, from `source` to `target` (in chain order)."""

    __slots__ = ("rule", "text", "source", "target", "span", "binding", "constraint")

    def __init__(self, cs: ConstraintSet, eq: Equal, source: int, target: int) -> None:
        self.constraint = eq
        self.rule = eq.rule
        self.span: Span | None = eq.span
        direction = edge_direction(eq)
        if direction is not None and classify_rule(eq.rule)[0] == "func_result":
            if eq.span == cs.sites[direction[0]].span:
                self.span = None  # it only repeats where the returned variable was defined
        self.source: Site = cs.sites[source]
        self.target: Site = cs.sites[target]
        origin = eq.origin
        var = getattr(origin, "var", None)
        self.binding: str | None = getattr(var, "name", None)
        self.text = _step_text(cs, eq)

    def __repr__(self) -> str:
        return f"Step({site_name(self.source)} -> {site_name(self.target)}: {self.text})"


def _step_text(cs: ConstraintSet, eq: Equal) -> str:
    """The rule, with the names it relates: "argument 0 of cls.f is parameter `x` of `f`"."""
    family, fields = classify_rule(eq.rule)
    direction = edge_direction(eq)
    if direction is None:
        return eq.rule
    src, out = (cs.sites[s] for s in direction)
    if family == "call_arg":
        return f"argument {fields['index']} of cls.{fields['func']} is parameter {site_ref(out)} of `{out.func}`"
    if family == "call_result":
        return f"{site_ref(out)} is the result of cls.{fields['func']}"
    if family == "tuple_field":
        return f"{site_ref(src)} is field {fields['index']} of tuple {_tuple_ref(out)}"
    if family == "get_item":
        return f"{site_ref(out)} is field {fields['index']} of tuple {_tuple_ref(src)}"
    if family == "alias":
        return f"{site_ref(out)} is an alias of {site_ref(src)}"
    if family == "func_result":
        return f"{site_ref(src)} is {site_ref(out)}"
    if family == "if":
        return f"{site_ref(src)} is a branch result of the If that binds {site_ref(out)}"
    if family == "hint_strict":
        return f"{site_ref(out)} = R.hint_on_device({site_ref(src)}, ...) is strict: no copy between them"
    if family == "constant":
        return f"{site_ref(out)} is bound to a constant"
    return eq.rule


def _tuple_ref(leaf: Site) -> str:
    """The tuple a leaf site belongs to: "`t`" for t[1], "`t[0]`" for t[0][1]."""
    if leaf.name.startswith("<"):
        return "(a nested tuple)"
    return "`" + leaf.name + "".join(f"[{i}]" for i in leaf.path[:-1]) + "`"


class Fix:
    """A suggested edit, re-checked on the constraint graph before it is offered.

    `resolves` lists the numbers (1-based) of the reported conflicts the edit
    resolves; `apply(cs)` returns the constraint set with the edit made, so a
    caller can re-solve it.
    """

    __slots__ = ("kind", "message", "span", "resolves", "_remove", "_add")

    def __init__(
        self,
        kind: str,
        message: str,
        span: Span | None,
        remove: Sequence[Pin | Equal | Domain],
        add: Sequence[Pin],
    ) -> None:
        self.kind = kind  # "insert_copy", "hint_to_copy", "drop_pin", "change_pin"
        self.message = message
        self.span = span
        self.resolves: list[int] = []
        self._remove = tuple(remove)
        self._add = tuple(add)

    @property
    def line(self) -> int | None:
        return None if self.span is None else self.span.line

    def apply(self, cs: ConstraintSet) -> ConstraintSet:
        """A new constraint set with this fix made (`cs` is not changed)."""
        gone = {id(c) for c in self._remove}
        out = ConstraintSet(cs.vdevices)
        out.sites = cs.sites
        out.pins = [p for p in cs.pins if id(p) not in gone] + list(self._add)
        out.equals = [e for e in cs.equals if id(e) not in gone]
        out.prefers = list(cs.prefers)
        out.domains = [d for d in cs.domains if id(d) not in gone]
        return out

    def __repr__(self) -> str:
        return f"Fix({self.kind}: {self.message})"


class Conflict:
    """A minimal unsatisfiable set of hard constraints, in source terms."""

    __slots__ = ("number", "pins", "path", "sites", "is_path", "fixes", "verified", "raw", "title")

    def __init__(self, cs: ConstraintSet, graph: ConstraintGraph, raw: RawConflict, number: int) -> None:
        self.number = number
        self.raw = raw
        self.pins = [Requirement(cs, u.constraint) for u in raw.unary]
        self.is_path = raw.is_path
        self.sites: list[Site] = [cs.sites[s] for s in raw.sites]
        if raw.is_path:
            self.path = [Step(cs, graph.edges[e], raw.sites[i], raw.sites[i + 1]) for i, e in enumerate(raw.edges)]
        else:
            self.path = [Step(cs, graph.edges[e], graph.edges[e].a, graph.edges[e].b) for e in raw.edges]
        self.fixes: list[Fix] = []
        self.verified = ""
        self.title = self._title()

    @property
    def constraints(self) -> list[Pin | Domain | Equal]:
        """The minimal unsatisfiable set itself."""
        return [r.constraint for r in self.pins] + [s.constraint for s in self.path]

    @property
    def span(self) -> Span | None:
        """Where the report points first: the first pin with a span."""
        return next((r.span for r in self.pins if r.span is not None), None)

    def _title(self) -> str:
        reqs = self.pins
        pins = [r for r in reqs if r.kind == "pin"]
        domains = [r for r in reqs if r.kind == "domain"]
        if len(reqs) == 1 and domains:
            return f"no device of the module can compute {site_ref(reqs[0].site)}"
        if len(pins) == 2 and not domains:
            a, b = pins
            if a.site is b.site:
                return f'{site_ref(a.site)} must be on both "{a.devices[0].name}" and "{b.devices[0].name}"'
            first, second = a.devices[0].name, b.devices[0].name
            return f'{site_ref(a.site)} must be on "{first}" but {site_ref(b.site)} on "{second}"'
        if len(pins) == 1 and len(domains) == 1:
            p, d = pins[0], domains[0]
            op = classify_rule(d.rule)[1].get("op", "?")
            return f'{site_ref(p.site)} must be on "{p.devices[0].name}", where R.{op} does not run'
        return "no device satisfies " + ", ".join(site_ref(r.site) for r in reqs) + " together"

    def summary(self, source_lines: Sequence[str] | None = None) -> str:
        """A few lines naming every pinned variable, the chain that joins them, and its bindings' text."""
        lines = [f"conflict {self.number}: {self.title}"]
        for req in self.pins:
            lines.append(f"  - {req.description}{_at(req.span)}")
        if self.path:
            lines.append("  joined by: " + _chain_text(self))
            lines.extend(_binding_lines(self.path, source_lines))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Conflict({self.number}: {self.title})"


def _at(span: Span | None) -> str:
    return "" if span is None else f" (line {span.line})"


def _binding_lines(steps: Sequence[Step], source_lines: Sequence[str] | None) -> list[str]:
    """``at file:line:col: s = R.add(x1, y1)`` for each distinct binding of the chain (the first few)."""
    seen: set[tuple[str | None, int]] = set()
    out: list[str] = []
    for step in steps:
        span = step.span
        if span is None or (span.file, span.line) in seen:
            continue
        seen.add((span.file, span.line))
        if len(out) == SUMMARY_STEPS:
            out.append("    ...")
            break
        text = ""
        if source_lines is not None and 0 < span.line <= len(source_lines):
            text = ": " + source_lines[span.line - 1].strip()
        out.append(f"    at {span.location()}{text}")
    return out


def _binding_of(step: Step) -> str:
    """The suffix ", in the binding of `r`" when the step's binding is neither of its two sites."""
    if step.binding is None or step.binding in (step.source.name, step.target.name):
        return ""
    return f", in the binding of `{step.binding}`"


def _chain_text(conflict: Conflict) -> str:
    steps = conflict.path
    if not conflict.is_path:
        parts = [
            f"{site_name(s.source)} = {site_name(s.target)}{_at(s.span)}{_binding_of(s)}" for s in steps[:SUMMARY_STEPS]
        ]
        more = len(steps) - len(parts)
        return "; ".join(parts) + (f"; ... {more} more" if more > 0 else "")
    names = [site_name(conflict.sites[0])]
    half = SUMMARY_STEPS // 2
    for i, step in enumerate(steps):
        if len(steps) > SUMMARY_STEPS and half <= i < len(steps) - half:
            if i == half:
                names.append(f"... ({len(steps) - 2 * half} more steps)")
            continue
        names.append(f"{site_name(step.target)} [{step.text}{_at(step.span)}{_binding_of(step)}]")
    return " -> ".join(names)


# -- entry points -----------------------------------------------------------------


def find_conflicts(cs: ConstraintSet, *, limit: int = 10, fixes: bool = True) -> tuple[list[Conflict], int]:
    """The module's independent conflicts, minimal and explained: (first `limit` of them, how many more).

    Which conflicts count as independent is described in
    `placement.diagnose_core`; they are ordered by the position of their first
    pin.  Each one is proven minimal (Z3 deletion pass up to
    `Z3_VERIFY_LIMIT` constraints, the structural certificate always); a
    proof that fails is a bug and raises `PlacementInternalError`.
    """
    graph = ConstraintGraph(cs)
    raws = find_raw_conflicts(graph)
    raws.sort(key=lambda r: _position(cs, r))
    shown = [complete(graph, raw) for raw in raws[: max(0, limit)]]
    conflicts = [Conflict(cs, graph, raw, i + 1) for i, raw in enumerate(shown)]
    for conflict in conflicts:
        conflict.verified = _verify(cs, conflict)
    if fixes and conflicts:
        from .diagnose_fixes import suggest_fixes

        suggest_fixes(graph, conflicts)
    return conflicts, len(raws) - len(shown)


def _position(cs: ConstraintSet, raw: RawConflict) -> tuple:
    spans = [u.constraint.span for u in raw.unary if u.constraint.span is not None]
    first = min(((s.file or "", s.line, s.col) for s in spans), default=("\uffff", 0, 0))
    return (first, sorted(u.key for u in raw.unary))


def _verify(cs: ConstraintSet, conflict: Conflict) -> str:
    unary = [r.constraint for r in conflict.pins]
    edges = [s.constraint for s in conflict.path]
    n = len(cs.vdevices)
    if not structurally_minimal(unary, edges, n):
        raise PlacementInternalError(f"conflict {conflict.number} failed its minimality certificate")
    if len(unary) + len(edges) > Z3_VERIFY_LIMIT:
        return "structure"
    if not z3_minimal(conflict.constraints, n):
        raise PlacementInternalError(f"conflict {conflict.number} failed Z3's deletion pass")
    return "z3"


def summarize(conflicts: Sequence[Conflict], omitted: int, source: str | None = None) -> str:
    """The message of a `PlacementConflict`: one paragraph per conflict and what was left out."""
    total = len(conflicts) + omitted
    head = "no placement exists: " + ("1 conflict" if total == 1 else f"{total} independent conflicts")
    source_lines = None if source is None else source.splitlines()
    parts = [head] + [c.summary(source_lines) for c in conflicts]
    if omitted:
        parts.append(f"... and {omitted} more conflict(s) not shown")
    return "\n".join(parts)
