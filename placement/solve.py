"""Decide one device per equality class: propagation for what is trivial, Z3 for the rest.

After `classes.collapse`, what is left between classes is small: each class
may carry pins (a device it must be on), domains (the devices its ops
support), and soft hint edges to other classes (a copy of so many bytes if
they end on different physical devices).  Classes are independent in every
*hard* constraint, so:

* a class whose pins and domains disagree is unsatisfiable on its own; Z3
  proves it with tracked assumptions and returns a subset-minimal core
  (`class_cores`), which `placement.core` expands to the site level;
* a class with no soft edges is decided by its pin, else its domain, else the
  default policy (``none`` leaves it unplaced, ``first`` takes entry 0,
  ``host`` takes `ir.normalize.host_vdevice`);
* a component of classes joined by soft edges whose pinned classes all agree
  on one device that every free class allows costs nothing on that device,
  which no placement can beat (weights are non-negative);
* every other soft component goes to Z3 as weighted MaxSMT
  (`Optimize.add_soft`, default maxres engine), one variable per free class.

``propagate=False`` gives Z3 every constrained class instead (pins and
domains as hard constraints); it exists so tests can check that propagation
and Z3 agree, and so the encodings can be measured on large problems.

The objective is the bytes that cross *physical* devices (vdevices with the
same device type and id share memory).  Only when two list entries share a
physical device is there a second, lexicographically smaller objective: the
number of hint edges whose ends are on different entries, so that a hint
still becomes a plain alias where it can.

Encodings: bit-vectors of ceil(log2 n) bits with an upper bound when n is
not a power of two, or a Z3 ``EnumSort`` with one constant per vdevice.
Measured with ``benchmarks/bench_place.py --encodings`` (propagation off, so
Z3 decides every constrained class; 2 vdevices; solve phase, seconds):

    family (bindings)              classes  soft   bit-vector  EnumSort
    transformer (103k)               1044   2084      0.213      0.194
    transformer_dense (37.5k)        2502   5000      1.728      1.634
    transformer_dense (125k)         8335  16666     11.452      7.914

Below a few hundred classes the two are within noise (about 10-40 ms, most
of it creating the context).  EnumSort was never slower beyond that, so it
is the default (`DEFAULT_ENCODING`); with propagation on, the benchmark
families leave Z3 at most 2 variables and the choice does not show.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from vdplace.ir.normalize import host_vdevice

from .classes import Classes
from .constraints import ConstraintSet, Domain, Pin

POLICIES = ("none", "first", "host")
ENCODINGS = ("bv", "enum")
DEFAULT_ENCODING = "enum"
MAX_CORES = 50  # independent conflicts explained by Z3; more are counted, not proven one by one


class ClassSolution:
    """Per-class devices (vdevice index or None), or the proven conflicts, plus solver statistics."""

    __slots__ = ("devices", "class_cores", "more_conflicts", "z3_variables", "z3_soft", "z3_status")

    def __init__(self) -> None:
        self.devices: list[int | None] = []
        self.class_cores: list[list[Pin | Domain]] = []
        self.more_conflicts = 0
        self.z3_variables = 0
        self.z3_soft = 0
        self.z3_status = "unused"


def default_device(policy: str, vdevices: Sequence) -> int | None:
    """The device a class nothing constrains gets under `policy`."""
    if policy not in POLICIES:
        raise ValueError(f"unknown default policy {policy!r}; use one of {', '.join(POLICIES)}")
    if not vdevices or policy == "none":
        return None
    if policy == "first":
        return 0
    host = host_vdevice(vdevices)
    return next(i for i, v in enumerate(vdevices) if v == host)


def solve(
    cs: ConstraintSet,
    classes: Classes,
    *,
    default: str = "none",
    encoding: str = DEFAULT_ENCODING,
    propagate: bool = True,
    timeout_ms: int | None = None,
) -> ClassSolution:
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}; use one of {', '.join(ENCODINGS)}")
    policy_device = default_device(default, cs.vdevices)
    n = len(classes)
    of = classes.of
    out = ClassSolution()

    # Pins and domains per class; a class with two pins or a pin outside its domain is a conflict.
    pin_dev: list[int | None] = [None] * n
    bad: set[int] = set()
    for pin in cs.pins:
        c = of[pin.site]
        d = pin_dev[c]
        if d is None:
            pin_dev[c] = pin.device
        elif d != pin.device:
            bad.add(c)
    allowed: dict[int, frozenset[int]] = {}
    for dom in cs.domains:
        c = of[dom.site]
        prev = allowed.get(c)
        allowed[c] = dom.allowed if prev is None else prev & dom.allowed
    for c, devs in allowed.items():
        d = pin_dev[c]
        if not devs or (d is not None and d not in devs):
            bad.add(c)
    if bad:
        _explain_conflicts(cs, classes, sorted(bad), encoding, out)
        return out

    # Soft edges between classes, summed per pair.
    edges: dict[tuple[int, int], list[int]] = {}
    for pref in cs.prefers:
        ca = of[pref.a]
        cb = of[pref.b]
        if ca == cb:
            continue
        key = (ca, cb) if ca < cb else (cb, ca)
        acc = edges.get(key)
        if acc is None:
            edges[key] = [pref.weight, 1]
        else:
            acc[0] += pref.weight
            acc[1] += 1

    devices: list[int | None] = list(pin_dev)
    free_default = policy_device
    for c, devs in allowed.items():
        if devices[c] is None:
            devices[c] = _pick(free_default, devs)
    for c in range(n):
        if devices[c] is None and c not in allowed:
            devices[c] = free_default
    out.devices = devices
    if not edges and propagate:
        return out

    # Components over soft edges (classes only).
    comp_parent: dict[int, int] = {}

    def find(x: int) -> int:
        root = x
        while comp_parent.get(root, root) != root:
            root = comp_parent[root]
        while x != root:
            nxt = comp_parent.get(x, x)
            comp_parent[x] = root
            x = nxt
        return root

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            comp_parent[max(ra, rb)] = min(ra, rb)
    components: dict[int, list[int]] = {}
    for c in sorted({c for key in edges for c in key}):
        components.setdefault(find(c), []).append(c)

    z3_classes: list[int] = []  # classes Z3 decides, in ascending order
    fixed: dict[int, int] = {}  # classes whose device is known (pinned), as seen by Z3
    for members in components.values():
        free = [c for c in members if pin_dev[c] is None]
        if not free and propagate:
            continue
        pinned = {pin_dev[c] for c in members if pin_dev[c] is not None}
        if propagate and len(pinned) == 1:
            (d,) = pinned
            if all(d in allowed.get(c, (d,)) for c in free):
                for c in free:
                    devices[c] = d
                continue
        if propagate:
            z3_classes.extend(free)
            for c in members:
                if pin_dev[c] is not None:
                    fixed[c] = pin_dev[c]  # type: ignore[assignment]
        else:
            z3_classes.extend(members)
    if not propagate:
        in_soft = set(z3_classes)
        z3_classes.extend(c for c in range(n) if c not in in_soft and (pin_dev[c] is not None or c in allowed))
    if not z3_classes:
        return out
    z3_classes.sort()
    _optimize(cs, z3_classes, fixed, pin_dev if not propagate else None, allowed, edges, encoding, timeout_ms, out)
    return out


def _pick(preferred: int | None, allowed: frozenset[int]) -> int:
    if preferred is not None and preferred in allowed:
        return preferred
    return min(allowed)


class _Encoder:
    """Finite-domain variables over vdevice indices, as bit-vectors or an EnumSort."""

    def __init__(self, n: int, encoding: str, ctx: z3.Context) -> None:
        self.n = n
        self.ctx = ctx
        self.encoding = encoding
        if encoding == "enum":
            self.sort, self.values = z3.EnumSort("VDev", [f"d{i}" for i in range(n)], ctx=ctx)
        else:
            self.width = max(1, (n - 1).bit_length())
            self.sort = z3.BitVecSort(self.width, ctx)
            self.values = [z3.BitVecVal(i, self.width, ctx) for i in range(n)]

    def var(self, name: str) -> z3.ExprRef:
        return z3.Const(name, self.sort)

    def range_constraint(self, v: z3.ExprRef) -> z3.BoolRef | None:
        """Keep a bit-vector inside 0..n-1 (an EnumSort needs nothing)."""
        if self.encoding == "bv" and self.n != 1 << self.width:
            return z3.ULE(v, self.values[self.n - 1])
        return None

    def member(self, v: z3.ExprRef, devs) -> z3.BoolRef:
        devs = sorted(devs)
        if not devs:
            return z3.BoolVal(False, self.ctx)
        if len(devs) == 1:
            return v == self.values[devs[0]]
        return z3.Or([v == self.values[d] for d in devs])

    def value(self, model: z3.ModelRef, v: z3.ExprRef) -> int:
        got = model.eval(v, model_completion=True)
        if self.encoding == "enum":
            return int(str(got)[1:])  # constants are named d0, d1, ...
        return got.as_long()


def _optimize(
    cs: ConstraintSet,
    z3_classes: list[int],
    fixed: dict[int, int],
    hard_pins: list[int | None] | None,
    allowed: dict[int, frozenset[int]],
    edges: dict[tuple[int, int], list[int]],
    encoding: str,
    timeout_ms: int | None,
    out: ClassSolution,
) -> None:
    ctx = z3.Context()
    n = len(cs.vdevices)
    enc = _Encoder(n, encoding, ctx)
    opt = z3.Optimize(ctx=ctx)
    opt.set("random_seed", 0)
    if timeout_ms is not None:
        opt.set("timeout", int(timeout_ms))
    variables = {c: enc.var(f"c{c}") for c in z3_classes}
    for c, v in variables.items():
        bound = enc.range_constraint(v)
        if bound is not None:
            opt.add(bound)
        if c in allowed:
            opt.add(enc.member(v, allowed[c]))
        if hard_pins is not None and hard_pins[c] is not None:
            opt.add(v == enc.values[hard_pins[c]])
    physical = [v.physical for v in cs.vdevices]
    shared = len(set(physical)) != len(physical)
    groups: list[list[int]] = []
    if shared:
        by_phys: dict[tuple, list[int]] = {}
        for i, p in enumerate(physical):
            by_phys.setdefault(p, []).append(i)
        groups = list(by_phys.values())
    scale = sum(count for _, count in edges.values()) + 1 if shared else 1
    # Edges from a variable to fixed classes are summed per (variable, device): one soft
    # constraint per device instead of one per edge (the objective is the same).
    to_fixed: dict[tuple[int, int], list[int]] = {}
    between: list[tuple[int, int, int, int]] = []
    for (a, b), (weight, count) in sorted(edges.items()):
        va = variables.get(a)
        vb = variables.get(b)
        if va is None and vb is None:
            continue  # both ends fixed: the cost is a constant
        if va is None or vb is None:
            c, d = (b, fixed[a]) if va is None else (a, fixed[b])
            acc = to_fixed.setdefault((c, d), [0, 0])
            acc[0] += weight
            acc[1] += count
        else:
            between.append((a, b, weight, count))
    soft = 0
    for (c, d), (weight, count) in sorted(to_fixed.items()):
        v = variables[c]
        same_entry = v == enc.values[d]
        same_phys = enc.member(v, [i for i in range(n) if physical[i] == physical[d]]) if shared else same_entry
        soft += _add_soft(opt, same_phys, same_entry, weight, count, scale, shared)
    for a, b, weight, count in between:
        va, vb = variables[a], variables[b]
        same_entry = va == vb
        same_phys = z3.Or([z3.And(enc.member(va, g), enc.member(vb, g)) for g in groups]) if shared else same_entry
        soft += _add_soft(opt, same_phys, same_entry, weight, count, scale, shared)
    out.z3_variables = len(variables)
    out.z3_soft = soft
    result = opt.check()
    out.z3_status = str(result)
    if result == z3.unsat:  # cannot happen: conflicts were separated out before
        raise RuntimeError("internal error: the soft-constraint problem is unsatisfiable")
    # On a timeout Z3 may have no model, or one that breaks hard constraints (seen with maxres
    # interrupted early); then keep the devices `solve` filled in first (each class's pin, else a
    # device its domain allows, else the policy's): they satisfy every hard constraint, only the
    # bytes copied may be more than the minimum.
    try:
        model = opt.model()
    except z3.Z3Exception:
        return
    chosen = {c: enc.value(model, v) for c, v in variables.items()}
    if result != z3.sat:
        for c, d in chosen.items():
            pinned = hard_pins[c] if hard_pins is not None else None
            if not 0 <= d < n or (pinned is not None and d != pinned) or (c in allowed and d not in allowed[c]):
                out.z3_status = "unknown (kept the propagation answer)"
                return
    for c, d in chosen.items():
        out.devices[c] = d


def _add_soft(opt, same_phys, same_entry, weight: int, count: int, scale: int, shared: bool) -> int:
    """Soft constraints of one (aggregated) edge: bytes across physical devices, then entries differing."""
    added = 0
    if weight > 0:
        opt.add_soft(same_phys, weight * scale)
        added += 1
    if shared or weight == 0:
        opt.add_soft(same_entry, count)
        added += 1
    return added


def _explain_conflicts(cs: ConstraintSet, classes: Classes, bad: list[int], encoding: str, out: ClassSolution) -> None:
    """Prove each conflicting class unsatisfiable with Z3 and keep a subset-minimal core of it."""
    chosen = bad[:MAX_CORES]
    out.more_conflicts = len(bad) - len(chosen)
    wanted = set(chosen)
    of = classes.of
    facts: dict[int, list[Pin | Domain]] = {c: [] for c in chosen}
    for pin in cs.pins:
        c = of[pin.site]
        if c in wanted:
            facts[c].append(pin)
    for dom in cs.domains:
        c = of[dom.site]
        if c in wanted:
            facts[c].append(dom)
    for c in chosen:
        # The deletion pass drops earlier literals first: put facts with no source
        # position (inferred return types, generated code) first, so that the core
        # keeps what the user wrote wherever a choice exists.
        facts[c].sort(key=lambda fact: fact.span is not None)
    ctx = z3.Context()
    enc = _Encoder(max(1, len(cs.vdevices)), encoding, ctx)
    solver = z3.Solver(ctx=ctx)
    solver.set("random_seed", 0)
    solver.set("core.minimize", True)
    for c in chosen:
        v = enc.var(f"c{c}")
        literals = []
        for i, fact in enumerate(facts[c]):
            lit = z3.Bool(f"k{c}_{i}", ctx)
            body = v == enc.values[fact.device] if isinstance(fact, Pin) else enc.member(v, fact.allowed)
            solver.add(z3.Implies(lit, body))
            literals.append(lit)
        bound = enc.range_constraint(v)
        if bound is not None:
            solver.add(bound)
        core = _minimal_core(solver, literals)
        out.z3_variables += 1
        index = {lit.get_id(): i for i, lit in enumerate(literals)}
        out.class_cores.append([facts[c][index[lit.get_id()]] for lit in core])
    out.z3_status = "unsat"


def _minimal_core(solver: z3.Solver, literals: list[z3.BoolRef]) -> list[z3.BoolRef]:
    """Z3's core, then one deletion pass so that no literal can be dropped."""
    if solver.check(*literals) != z3.unsat:
        raise RuntimeError("internal error: a class flagged as conflicting is satisfiable")
    core_ids = {lit.get_id() for lit in solver.unsat_core()}
    core = [lit for lit in literals if lit.get_id() in core_ids]
    i = 0
    while i < len(core):
        trial = core[:i] + core[i + 1 :]
        if solver.check(*trial) == z3.unsat:
            core = trial
        else:
            i += 1
    return core
