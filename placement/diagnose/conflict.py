"""The objects a diagnosis is made of: a `Conflict` with its `Requirement`s, `Step`s and `Fix`es (and their `Plan`s).

A `Conflict` is a minimal unsatisfiable set of hard constraints in source
terms: its pins and domains (`pins`, one `Requirement` each) and the
equalities of its `path` (one `Step` each), which join the requirements'
sites in a chain (`is_path`) or, for three or more sites, a tree.  Soft hint
edges are never part of one; under ``strict_hints`` a hint's edge is an
ordinary equality of kind `RuleKind.HINT_STRICT`.

Invariants every rendering relies on: a `Requirement` names at least one
device for a pin (exactly one) and any number for a domain; for a chain,
``len(sites) == len(path) + 1`` and step i goes from ``sites[i]`` to
``sites[i + 1]``; `number` is the conflict's 1-based position in its
diagnosis, which `Fix.resolves` refers to.  The objects are built by
`find.find_conflicts` and only read afterwards (fixes are filled in once).
"""

from __future__ import annotations

from collections.abc import Sequence

from vdplace.ir.op import get_op, has_op
from vdplace.ir.span import Span
from vdplace.ir.vdevice import VDevice
from vdplace.placement.diagnose.core import ConstraintGraph, RawConflict
from vdplace.placement.diagnose.names import device_name, edge_direction, site_name, site_ref, tuple_ref
from vdplace.placement.model.constraints import ConstraintSet, Domain, Equal, Pin, Site
from vdplace.placement.model.rules import RuleKind


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
        family, fields = self.rule.kind, self.rule
        if self.kind == "domain":
            op = fields.get("op", "")
            wanted = _supported_types(op)
            if not self.devices:
                return f"{ref} is computed by R.{op}, which runs on no device of the module ({wanted})"
            names = ", ".join(f'"{d.name}"' for d in self.devices)
            return f"{ref} is computed by R.{op}, which runs only on {names}"
        dev = f'"{self.devices[0].name}"'
        if family is RuleKind.ANNOTATION:
            return f"{ref} is annotated {dev}"
        if family is RuleKind.PARAM:
            return f"parameter {ref} of `{self.site.func}` is annotated {dev}"
        if family is RuleKind.RETURN:
            return f"{ref} is annotated {dev}"
        if family is RuleKind.HINT:
            return f"{ref} is hinted to {dev} by R.hint_on_device"
        if family is RuleKind.TO_VDEVICE:
            return f"{ref} is copied to {dev} by R.to_vdevice"
        if family is RuleKind.HOST:
            return f"{ref} is produced by R.{fields.get('op', '?')}, which puts its result on the host {dev}"
        return f"{ref} must be on {dev} ({self.rule.text})"

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
        if direction is not None and eq.rule.kind is RuleKind.FUNC_RESULT:
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
    family, fields = eq.rule.kind, eq.rule
    direction = edge_direction(eq)
    if direction is None:
        return eq.rule.text
    src, out = (cs.sites[s] for s in direction)
    if family is RuleKind.CALL_ARG:
        return f"argument {fields['index']} of cls.{fields['func']} is parameter {site_ref(out)} of `{out.func}`"
    if family is RuleKind.CALL_RESULT:
        return f"{site_ref(out)} is the result of cls.{fields['func']}"
    if family is RuleKind.TUPLE_FIELD:
        return f"{site_ref(src)} is field {fields['index']} of tuple {tuple_ref(out)}"
    if family is RuleKind.GET_ITEM:
        return f"{site_ref(out)} is field {fields['index']} of tuple {tuple_ref(src)}"
    if family is RuleKind.ALIAS:
        return f"{site_ref(out)} is an alias of {site_ref(src)}"
    if family is RuleKind.FUNC_RESULT:
        return f"{site_ref(src)} is {site_ref(out)}"
    if family is RuleKind.IF:
        return f"{site_ref(src)} is a branch result of the If that binds {site_ref(out)}"
    if family is RuleKind.HINT_STRICT:
        return f"{site_ref(out)} = R.hint_on_device({site_ref(src)}, ...) is strict: no copy between them"
    if family is RuleKind.CONSTANT:
        return f"{site_ref(out)} is bound to a constant"
    return eq.rule.text


class Plan:
    """What a fix changes in the module's text, in the module's own terms; `report.edits` writes the text edits.

    `action`, and the fields it reads (`span` is always the statement or
    annotation the edit is made in; `device` a vdevice name as the module's
    list names it, ``"cuda:0"``; `name` the base name of a new variable):

    * ``copy_use``: insert ``name = R.to_vdevice(expr, device)`` before the
      binding at `span`, and read `name` there instead of `expr`;
    * ``copy_result``: bind the call at `span` to `name` instead of `target`,
      then ``target = R.to_vdevice(name, device)`` (with the annotation
      `target` had);
    * ``copy_branch``: in the If at `span`, the branch ending in ``target =
      expr`` copies `expr` first and ends in ``target = name``;
    * ``copy_return``: the copy before the ``return`` at `span`, which then
      returns `name` instead of `expr`;
    * ``hint_to_copy``: the hint of the binding at `span` becomes
      ``R.to_vdevice(<its input>, device)``;
    * ``drop_hint``: the hint of the binding at `span` becomes its input;
    * ``drop_vdevice`` / ``set_vdevice``: the vdevice of the annotation at
      `span` (a binding's, a parameter's or a return's: `where`; of the tuple
      leaf `leaf`) is removed / becomes `device`;
    * ``set_hint``: the hint at `span` names `device` (the expression `hint`);
    * ``set_copy``: the ``R.to_vdevice`` at `span` copies to `device`.
    """

    __slots__ = ("action", "span", "expr", "name", "device", "target", "where", "leaf", "hint")

    def __init__(
        self,
        action: str,
        span: Span,
        *,
        expr: str | None = None,
        name: str | None = None,
        device: str | None = None,
        target: str | None = None,
        where: str = "binding",
        leaf: tuple[int, ...] = (),
        hint: str | None = None,
    ) -> None:
        self.action = action
        self.span = span
        self.expr = expr
        self.name = name
        self.device = device
        self.target = target
        self.where = where  # "binding", "param" or "return": what `span` covers for an annotation edit
        self.leaf = leaf
        self.hint = hint

    def __repr__(self) -> str:
        return f"Plan({self.action} at {self.span!r})"


class Fix:
    """A suggested edit, re-checked on the constraint graph before it is offered.

    `resolves` lists the numbers (1-based) of the reported conflicts the edit
    resolves; `apply(cs)` returns the constraint set with the edit made, so a
    caller can re-solve it; `removed` are the constraints it takes away;
    `plan` (None where the edit cannot be written as text, e.g. without
    source positions, and for ``specialize``) says what changes in the text.
    """

    __slots__ = ("kind", "message", "span", "resolves", "plan", "_remove", "_add")

    def __init__(
        self,
        kind: str,
        message: str,
        span: Span | None,
        remove: Sequence[Pin | Equal | Domain],
        add: Sequence[Pin],
        plan: Plan | None = None,
    ) -> None:
        self.kind = kind  # "insert_copy", "hint_to_copy", "drop_pin", "change_pin", "specialize" (changes nothing)
        self.message = message
        self.span = span
        self.resolves: list[int] = []
        self.plan = plan
        self._remove = tuple(remove)
        self._add = tuple(add)

    @property
    def line(self) -> int | None:
        return None if self.span is None else self.span.line

    @property
    def removed(self) -> tuple[Pin | Equal | Domain, ...]:
        """The constraints the edit takes away (a copy: the equalities of the binding it cuts)."""
        return self._remove

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
    """A minimal unsatisfiable set of hard constraints, in source terms.

    `pins` (requirements), `path` (steps) and `sites` as in the module
    docstring; `title` is its one-line headline; `raw` the integer-level
    finding it was built from (`core.RawConflict`); `verified` says how its
    minimality was proven (``"z3"`` or ``"structure"``); `fixes` are the
    checked edits that resolve it.
    """

    __slots__ = ("number", "pins", "path", "sites", "is_path", "fixes", "verified", "raw", "title")

    def __init__(self, cs: ConstraintSet, graph: ConstraintGraph, raw: RawConflict, number: int) -> None:
        self.number = number
        self.raw = raw
        self.pins = [Requirement(cs, u.constraint) for u in raw.unary]
        self.is_path = raw.is_path
        sites, edges = raw.sites, raw.edges
        assert sites is not None and edges is not None, "built from a completed conflict (`core.complete`)"
        self.sites: list[Site] = [cs.sites[s] for s in sites]
        if raw.is_path:
            self.path = [Step(cs, graph.edges[e], sites[i], sites[i + 1]) for i, e in enumerate(edges)]
        else:
            self.path = [Step(cs, graph.edges[e], graph.edges[e].a, graph.edges[e].b) for e in edges]
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
            op = d.rule.get("op", "?")
            return f'{site_ref(p.site)} must be on "{p.devices[0].name}", where R.{op} does not run'
        return "no device satisfies " + ", ".join(site_ref(r.site) for r in reqs) + " together"

    def __repr__(self) -> str:
        return f"Conflict({self.number}: {self.title})"
