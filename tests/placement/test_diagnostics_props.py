"""Property tests of conflict diagnostics: every reported core is a minimal unsatisfiable set.

Two sources of inputs: random modules from `tests.support.strategies` (with
conflicting annotations allowed, strict hints on or off), and random
constraint graphs drawn directly (dense pins and domains, so conflicts with
several pins, three-way domain clashes and cycles are common).  Decisions
here use their own union-find oracle and Z3 over one variable per site,
never the code under test.
"""

from __future__ import annotations

import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.strategies import generated_modules
from vdplace.ir.vdevice import VDevice
from vdplace.placement.diagnose import find_conflicts
from vdplace.placement.extract.extract import extract
from vdplace.placement.model.constraints import ConstraintSet, Domain, Equal, Pin
from vdplace.placement.model.rules import Rule, RuleKind

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ALIAS = Rule.of(RuleKind.ALIAS)
ANNOTATION = Rule.of(RuleKind.ANNOTATION)


# -- oracles --------------------------------------------------------------------------


def _allowed(c: Pin | Domain) -> frozenset[int]:
    return frozenset((c.device,)) if isinstance(c, Pin) else frozenset(c.allowed)


def classes(constraints, num_sites: int) -> list[int]:
    parent = list(range(num_sites))

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    for c in constraints:
        if isinstance(c, Equal):
            parent[find(c.a)] = find(c.b)
    return [find(s) for s in range(num_sites)]


def satisfiable(constraints, num_sites: int, num_devices: int) -> bool:
    """Exact for pins, domains and equalities: every class's constraints share a device."""
    root = classes(constraints, num_sites)
    common: dict[int, frozenset[int]] = {}
    for c in constraints:
        if not isinstance(c, Equal):
            r = root[c.site]
            common[r] = common.get(r, frozenset(range(num_devices))) & _allowed(c)
    return all(common.values())


def z3_satisfiable(cs: ConstraintSet) -> bool:
    solver = z3.Solver()
    v = [z3.Int(f"v{i}") for i in range(len(cs.sites))]
    n = len(cs.vdevices)
    for x in v:
        solver.add(x >= 0, x < n)
    for p in cs.pins:
        solver.add(v[p.site] == p.device)
    for e in cs.equals:
        solver.add(v[e.a] == v[e.b])
    for d in cs.domains:
        solver.add(z3.Or([v[d.site] == k for k in d.allowed] + [z3.BoolVal(False)]))
    return solver.check() == z3.sat


# -- the properties -------------------------------------------------------------------


def check_conflicts(cs: ConstraintSet) -> None:
    n_sites, n_dev = len(cs.sites), len(cs.vdevices)
    hard = [*cs.pins, *cs.equals, *cs.domains]
    sat = satisfiable(hard, n_sites, n_dev)
    if n_sites <= 400:
        assert sat == z3_satisfiable(cs)
    conflicts, omitted = find_conflicts(cs, limit=10_000)
    assert omitted == 0
    assert bool(conflicts) == (not sat)
    root = classes(hard, n_sites)
    for c in conflicts:
        core = c.constraints
        assert all(not hasattr(x, "weight") for x in core)  # soft edges never take part
        assert not satisfiable(core, n_sites, n_dev), c
        for i in range(len(core)):
            assert satisfiable(core[:i] + core[i + 1 :], n_sites, n_dev), (c, core[i])
        assert c.verified in ("z3", "structure")
    # every class without a placement shows at least one reported conflict
    common: dict[int, frozenset[int]] = {}
    for x in [*cs.pins, *cs.domains]:
        common[root[x.site]] = common.get(root[x.site], frozenset(range(n_dev))) & _allowed(x)
    bad = {r for r, devs in common.items() if not devs}
    assert bad == {root[c.pins[0].site.id] for c in conflicts}
    for c in conflicts:
        check_fixes(cs, c)


def check_fixes(cs: ConstraintSet, conflict) -> None:
    """Each fix resolves its conflict and adds no clash that was not there already."""
    n_sites, n_dev = len(cs.sites), len(cs.vdevices)
    for fix in conflict.fixes:
        assert conflict.number in fix.resolves
        fixed = fix.apply(cs)
        hard = [*fixed.pins, *fixed.equals, *fixed.domains]
        kept = [r.constraint for r in conflict.pins if any(r.constraint is p for p in hard)]
        root = classes(hard, n_sites)
        # resolved: the conflict's surviving pins/domains have a common device in each class after the fix,
        # counting any pin the fix added to those classes
        added = [p for p in fixed.pins if not any(p is q for q in cs.pins)]
        by_class: dict[int, frozenset[int]] = {}
        for x in kept + added:
            if x in added and root[x.site] not in {root[k.site] for k in kept}:
                continue
            by_class[root[x.site]] = by_class.get(root[x.site], frozenset(range(n_dev))) & _allowed(x)
        assert all(by_class.values()), (conflict, fix)
        # no new clash: a pair that clashes after the fix clashed before, or involves an added pin
        # whose device another pin of that class already forced (an existing clash in new clothes)
        old_root = classes([*cs.pins, *cs.equals, *cs.domains], n_sites)
        unary = [*fixed.pins, *fixed.domains]
        for i, u in enumerate(unary):
            for w in unary[i + 1 :]:
                if root[u.site] != root[w.site] or (_allowed(u) & _allowed(w)):
                    continue
                new = [x for x in (u, w) if any(x is a for a in added)]
                if not new:
                    assert old_root[u.site] == old_root[w.site], (fix, u, w)
                    continue
                x = new[0]
                forced = [
                    p for p in unary if p is not x and root[p.site] == root[x.site] and _allowed(p) == _allowed(x)
                ]
                assert forced, (fix, u, w)


# -- inputs ---------------------------------------------------------------------------


@SETTINGS
@given(generated_modules(max_functions=2, max_bindings=8), st.booleans())
def test_random_modules(gen, strict):
    cs = extract(gen.module, strict_hints=strict).constraints
    check_conflicts(cs)


@st.composite
def constraint_sets(draw) -> ConstraintSet:
    n_dev = draw(st.integers(2, 4))
    cs = ConstraintSet([VDevice("cuda", i) for i in range(n_dev)])
    n = draw(st.integers(1, 14))
    for i in range(n):
        cs.add_site("main", f"s{i}", (), None, 4, "binding")
    sites = st.integers(0, n - 1)
    for a, b in draw(st.lists(st.tuples(sites, sites), max_size=2 * n)):
        cs.equals.append(Equal(a, b, ALIAS, None))
    for s, d in draw(st.lists(st.tuples(sites, st.integers(0, n_dev - 1)), max_size=6)):
        cs.pins.append(Pin(s, d, ANNOTATION, None))
    # mostly non-empty domains of two or more devices: three of them can clash with no two clashing
    devs = st.frozensets(st.integers(0, n_dev - 1), min_size=1, max_size=n_dev) | st.just(frozenset())
    for s, allowed in draw(st.lists(st.tuples(sites, devs), max_size=4)):
        cs.domains.append(Domain(s, allowed, Rule.of(RuleKind.SUPPORTED, op="matmul"), None))
    return cs


@SETTINGS
@given(constraint_sets())
def test_random_constraint_graphs(cs):
    check_conflicts(cs)


@st.composite
def domain_trees(draw) -> ConstraintSet:
    """Trees of sites with at most one wide domain (or, rarely, a pin) each: clashes among three
    domains and permissive domains between exclusive ones, which only relaxation finds."""
    n_dev = draw(st.integers(3, 4))
    cs = ConstraintSet([VDevice("cuda", i) for i in range(n_dev)])
    n = draw(st.integers(3, 12))
    for i in range(n):
        cs.add_site("main", f"s{i}", (), None, 4, "binding")
        if i:
            cs.equals.append(Equal(i, draw(st.integers(0, i - 1)), ALIAS, None))
        what = draw(st.sampled_from(["none", "domain", "domain", "pin"]))
        if what == "domain":
            allowed = draw(st.frozensets(st.integers(0, n_dev - 1), min_size=1, max_size=n_dev - 1))
            cs.domains.append(Domain(i, allowed, Rule.of(RuleKind.SUPPORTED, op="matmul"), None))
        elif what == "pin":
            cs.pins.append(Pin(i, draw(st.integers(0, n_dev - 1)), ANNOTATION, None))
    return cs


@SETTINGS
@given(domain_trees())
def test_random_domain_trees(cs):
    check_conflicts(cs)


def test_modules_produce_conflicts():
    """The module strategy does reach unsatisfiable modules (else the property above says little)."""
    from hypothesis import find

    gen = find(
        generated_modules(max_functions=2, max_bindings=8),
        lambda g: (
            not satisfiable(
                [*(cs := extract(g.module).constraints).pins, *cs.equals, *cs.domains], len(cs.sites), len(cs.vdevices)
            )
        ),
        settings=settings(max_examples=500, deadline=None, database=None),
    )
    conflicts, _ = find_conflicts(extract(gen.module).constraints)
    assert conflicts
