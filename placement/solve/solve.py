"""Decide one device per equality class: propagation for what is trivial, a backend for the rest.

After `classes.collapse`, what is left between classes is small: each class
may carry pins (a device it must be on), domains (the devices its ops
support), and soft hint edges to other classes (a copy of so many bytes if
they end on different physical devices).  Classes are independent in every
*hard* constraint, so `solve` runs four steps, each a function below:

1. `class_facts`: pins and domains per class.  A class whose pins and domains
   have no device in common is unsatisfiable on its own (classes are
   independent in every hard constraint, so this is exact), and `solve`
   stops there with `ClassSolution.conflicting`; `placement.diagnose`
   explains the conflicts from the constraint set.
2. `default_devices`: every class gets its pin, else a device its domains
   allow (the policy's device if allowed, else the lowest index), else the
   default policy's device (``none``: unplaced, ``first``: entry 0,
   ``host``: `ir.normalize.host_vdevice`).  A class with no soft edge keeps it.
3. `decide_separable`: a free class whose soft edges all end at pinned
   classes contributes to the objective through its own device only, so it
   takes its cheapest allowed device (exact, linear).  Every copy op pins its
   result, so this decides every class the current rules produce.  The
   objective is lexicographic (`backend` has it in full): bytes moved, by
   copies and by uploads of entry runtime inputs (`starts`) off the host,
   then hints not honoured, then inputs moved off the host, then copy ops
   that are not aliases.  A class whose only soft facts are starts keeps
   its default (the policy decides where nothing else does).
   `propagate_components`: of what is left, a component of classes joined
   by soft edges whose pinned classes all agree on one device that every
   free class allows costs nothing on that device, which no placement can
   beat (weights are non-negative): its free classes take that device.
4. `decision_problem`: every other component becomes a backend `Problem`
   (one variable per free class, the pinned ends fixed), and the backend's
   devices replace the defaults of step 2.

``propagate=False`` gives the backend every constrained class instead (pins
and domains as hard facts); it exists so tests can check that propagation
and the backend agree, and so backends can be measured on large problems.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from vdplace.ir.normalize import host_vdevice
from vdplace.ir.vdevice import VDevice
from vdplace.placement.model.classes import Classes
from vdplace.placement.model.constraints import ConstraintSet, pin_columns
from vdplace.placement.model.rules import RuleKind
from vdplace.placement.model.union_find import UnionFind
from vdplace.placement.solve.backend import Backend, Problem, SoftEdge

POLICIES = ("none", "first", "host")


class ClassSolution:
    """Per-class devices (vdevice index or None), or the conflicting classes, plus the backend's statistics.

    `conflicting` lists, ascending, the classes whose pins and domains have no
    device in common; when it is not empty, `devices` is empty and the module
    has no placement (`placement.diagnose` explains why, from the constraints).
    """

    __slots__ = ("devices", "conflicting", "variables", "soft", "status")

    def __init__(self, devices: list[int | None] | None = None) -> None:
        self.devices: list[int | None] = devices if devices is not None else []
        self.conflicting: list[int] = []
        self.variables = 0
        self.soft = 0
        self.status = "unused"


class ClassFacts:
    """Per class: its pinned device (`pin`), the devices its domains allow (`allowed`), and the conflicts.

    `conflicting` lists, ascending, the classes whose pins and domains have no device in common.
    """

    __slots__ = ("pin", "allowed", "conflicting")

    def __init__(self, pin: list[int | None], allowed: dict[int, frozenset[int]], conflicting: list[int]) -> None:
        self.pin = pin
        self.allowed = allowed
        self.conflicting = conflicting

    def hard(self, c: int) -> list[frozenset[int]]:
        """Class c's hard facts as device sets: its allowed devices, then its pin."""
        out = []
        if c in self.allowed:
            out.append(self.allowed[c])
        pin = self.pin[c]
        if pin is not None:
            out.append(frozenset((pin,)))
        return out


def solve(
    cs: ConstraintSet,
    classes: Classes,
    backend: Backend,
    *,
    default: str = "none",
    propagate: bool = True,
    timeout_ms: int | None = None,
) -> ClassSolution:
    """A device per class (`ClassSolution.devices`), or the conflicting classes (`conflicting`)."""
    policy_device = default_device(default, cs.vdevices)
    facts = class_facts(cs, classes)
    if facts.conflicting:
        out = ClassSolution()
        out.conflicting = facts.conflicting
        out.status = "unsat"
        return out
    out = ClassSolution(default_devices(facts, len(classes), policy_device))
    edges = soft_edges(cs, classes)
    if not edges and propagate:
        return out
    starts = start_costs(cs, classes, edges)
    if propagate:
        physical = [v.physical for v in cs.vdevices]
        coupled = decide_separable(edges, facts, out.devices, physical, starts, cs.host_devices)
        undecided, fixed = propagate_components(coupled, facts, out.devices, starts, cs.host_devices)
    else:
        undecided, fixed = constrained_classes(edges, facts, len(classes)), {}
    if not undecided:
        return out
    problem = decision_problem(cs, undecided, facts, fixed, edges, timeout_ms, starts)
    answer = backend.solve(problem)
    out.variables = answer.variables
    out.soft = answer.soft
    out.status = answer.status
    for c, d in answer.devices.items():
        out.devices[c] = d
    return out


# -- 1. pins, domains and the conflicts they show -------------------------------------


def class_facts(cs: ConstraintSet, classes: Classes) -> ClassFacts:
    """Pins and domains per class; a class with two pins or a pin outside its domains is a conflict."""
    of = classes.of
    pin: list[int | None] = [None] * len(classes)
    bad: set[int] = set()
    for site, device in zip(*pin_columns(cs.pins), strict=True):
        c = of[site]
        d = pin[c]
        if d is None:
            pin[c] = device
        elif d != device:
            bad.add(c)
    allowed: dict[int, frozenset[int]] = {}
    for dom in cs.domains:
        c = of[dom.site]
        prev = allowed.get(c)
        allowed[c] = dom.allowed if prev is None else prev & dom.allowed
    for c, devs in allowed.items():
        d = pin[c]
        if not devs or (d is not None and d not in devs):
            bad.add(c)
    return ClassFacts(pin, allowed, sorted(bad))


# -- 2. the default policy --------------------------------------------------------------


def default_device(policy: str, vdevices: Sequence[VDevice]) -> int | None:
    """The device a class nothing constrains gets under `policy`."""
    if policy not in POLICIES:
        raise ValueError(f"unknown default policy {policy!r}; use one of {', '.join(POLICIES)}")
    if not vdevices or policy == "none":
        return None
    if policy == "first":
        return 0
    host = host_vdevice(vdevices)
    return next(i for i, v in enumerate(vdevices) if v == host)


def default_devices(facts: ClassFacts, num_classes: int, policy_device: int | None) -> list[int | None]:
    """Each class's pin, else a device its domains allow (the policy's if it can), else the policy's device."""
    devices = list(facts.pin)
    for c, devs in facts.allowed.items():
        if devices[c] is None:
            devices[c] = policy_device if policy_device in devs else min(devs)
    for c in range(num_classes):
        if devices[c] is None and c not in facts.allowed:
            devices[c] = policy_device
    return devices


# -- 3. soft edges and propagation ------------------------------------------------------


def soft_edges(cs: ConstraintSet, classes: Classes) -> list[SoftEdge]:
    """The copy ops' edges between distinct classes, summed per pair, in ascending ``(a, b)`` order."""
    of = classes.of
    edges: dict[tuple[int, int], SoftEdge] = {}
    for pref in cs.prefers:
        ca = of[pref.a]
        cb = of[pref.b]
        if ca == cb:
            continue
        key = (ca, cb) if ca < cb else (cb, ca)
        hint = 1 if pref.rule.kind is RuleKind.HINT else 0
        edge = edges.get(key)
        if edge is None:
            edges[key] = SoftEdge(key[0], key[1], pref.weight, 1, hint)
        else:
            edge.weight += pref.weight
            edge.count += 1
            edge.hints += hint
    return [edges[key] for key in sorted(edges)]


def start_costs(cs: ConstraintSet, classes: Classes, edges: list[SoftEdge]) -> dict[int, tuple[int, int]]:
    """Per class on a soft edge: the bytes and the number of its entry runtime inputs (`ConstraintSet.starts`)."""
    if not cs.starts:
        return {}
    on_edges = {c for e in edges for c in (e.a, e.b)}
    out: dict[int, tuple[int, int]] = {}
    for start in cs.starts:
        c = classes.of[start.site]
        if c in on_edges:
            nbytes, count = out.get(c, (0, 0))
            out[c] = (nbytes + start.weight, count + 1)
    return out


def decide_separable(
    edges: list[SoftEdge],
    facts: ClassFacts,
    devices: list[int | None],
    physical: Sequence[Hashable],
    starts: dict[int, tuple[int, int]] | None = None,
    host: frozenset[int] = frozenset(),
) -> list[SoftEdge]:
    """Decide every free class whose soft edges all end at pinned classes (into `devices`); the edges left.

    Such a class's share of the objective depends on its own device only, so
    its cheapest allowed device is optimal whatever the others get.  Every
    copy op pins its result, so today every soft edge has a pinned end and
    this decides every class; an edge between two free classes is left, with
    every edge of its classes, for propagation and the backend.
    """
    pin = facts.pin
    coupled = {c for e in edges if pin[e.a] is None and pin[e.b] is None for c in (e.a, e.b)}
    ends: dict[int, list[SoftEdge]] = {}
    left: list[SoftEdge] = []
    for e in edges:
        free_a = pin[e.a] is None
        if free_a == (pin[e.b] is None) or e.a in coupled or e.b in coupled:
            if free_a or pin[e.b] is None:
                left.append(e)  # both free, or one end coupled elsewhere; both pinned: a constant
            continue
        ends.setdefault(e.a if free_a else e.b, []).append(e)
    num_devices = len(physical)
    no_start = (0, 0)
    for c, incident in ends.items():
        fixed_ends: list[tuple[int, int, int, int]] = []
        for e in incident:
            end = pin[e.b] if e.a == c else pin[e.a]
            assert end is not None, "the other end of an edge in `ends` is pinned"
            fixed_ends.append((end, e.weight, e.count, e.hints))
        allowed = facts.allowed.get(c) or range(num_devices)
        start = starts.get(c, no_start) if starts else no_start
        devices[c] = _cheapest(fixed_ends, sorted(allowed), devices[c], physical, start, host)
    return left


def _cheapest(
    fixed_ends: list[tuple[int, int, int, int]],
    allowed: list[int],
    default: int | None,
    physical: Sequence[Hashable],
    start: tuple[int, int] = (0, 0),
    host: frozenset[int] = frozenset(),
) -> int:
    """The allowed device minimizing (bytes moved, hints not honoured, inputs moved off the host, copy ops
    not aliased); ties: `default`, else the lowest."""
    best: tuple[int, int, int, int, int] | None = None
    choice = allowed[0]
    for d in allowed:
        moved, inputs = (0, 0) if d in host else start
        apart = 0
        unhonoured = 0
        for end, weight, count, hints in fixed_ends:
            if end != d:
                apart += count
                unhonoured += hints
                if physical[end] != physical[d]:
                    moved += weight
        key = (moved, unhonoured, inputs, apart, 0 if d == default else 1)
        if best is None or key < best:
            best = key
            choice = d
    return choice


def soft_components(edges: list[SoftEdge], num_classes: int) -> list[list[int]]:
    """The classes joined by soft edges, per component, each ascending; components by smallest class."""
    uf = UnionFind(num_classes)
    uf.union_edges(edges)
    components: dict[int, list[int]] = {}
    for c in sorted({c for edge in edges for c in (edge.a, edge.b)}):
        components.setdefault(uf.find(c), []).append(c)
    return list(components.values())


def propagate_components(
    edges: list[SoftEdge],
    facts: ClassFacts,
    devices: list[int | None],
    starts: dict[int, tuple[int, int]] | None = None,
    host: frozenset[int] = frozenset(),
) -> tuple[list[int], dict[int, int]]:
    """Decide the components one device settles (into `devices`); the free classes left and their fixed ends."""
    pin = facts.pin
    undecided: list[int] = []
    fixed: dict[int, int] = {}
    for members in soft_components(edges, len(devices)):
        free = [c for c in members if pin[c] is None]
        if not free:
            continue
        d = _agreed_device(members, free, facts)
        if d is not None and d not in host and starts and any(c in starts for c in free):
            d = None  # an input would leave the host: not free, so the backend weighs it
        if d is not None:
            for c in free:
                devices[c] = d
            continue
        undecided.extend(free)
        for c in members:
            d = pin[c]
            if d is not None:
                fixed[c] = d
    return sorted(undecided), fixed


def _agreed_device(members: list[int], free: list[int], facts: ClassFacts) -> int | None:
    """The one device the pinned members agree on, when every free member allows it."""
    pinned = {facts.pin[c] for c in members if facts.pin[c] is not None}
    if len(pinned) != 1:
        return None
    (d,) = pinned
    if all(d in facts.allowed.get(c, (d,)) for c in free):
        return d
    return None


def constrained_classes(edges: list[SoftEdge], facts: ClassFacts, num_classes: int) -> list[int]:
    """Without propagation: every class on a soft edge, pinned or with a domain."""
    on_edges = {c for edge in edges for c in (edge.a, edge.b)}
    return [c for c in range(num_classes) if c in on_edges or facts.pin[c] is not None or c in facts.allowed]


# -- 4. what is left, for the backend ---------------------------------------------------


def decision_problem(
    cs: ConstraintSet,
    undecided: list[int],
    facts: ClassFacts,
    fixed: dict[int, int],
    edges: list[SoftEdge],
    timeout_ms: int | None,
    starts: dict[int, tuple[int, int]] | None = None,
) -> Problem:
    """The backend's problem: the undecided classes with their hard facts, the fixed ends, every soft edge,
    the starts of the undecided classes."""
    hard = {c: devs for c in undecided if (devs := facts.hard(c))}
    return Problem(
        classes=undecided,
        num_devices=len(cs.vdevices),
        facts=hard,
        fixed=fixed,
        edges=edges,
        physical=[v.physical for v in cs.vdevices],
        timeout_ms=timeout_ms,
        starts={c: starts[c] for c in undecided if c in starts} if starts else {},
        host=cs.host_devices,
    )
