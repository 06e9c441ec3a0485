"""Conflict finding on hand-built constraint sets: which conflicts, their shape, proofs and fixes."""

from __future__ import annotations

import pytest

from vdplace.ir.vdevice import VDevice
from vdplace.placement.diagnose import find_conflicts, summarize
from vdplace.placement.diagnose.verify import structurally_minimal, z3_minimal
from vdplace.placement.model.constraints import ConstraintSet, Domain, Equal, Pin
from vdplace.placement.model.rules import Rule, RuleKind

CPU, GPU0, GPU1 = 0, 1, 2

ALIAS = Rule.of(RuleKind.ALIAS)
ANNOTATION = Rule.of(RuleKind.ANNOTATION)


def chain(n: int, ndev: int = 3) -> ConstraintSet:
    """Sites s0..s{n-1} joined in a line by aliases."""
    cs = ConstraintSet([VDevice("llvm"), VDevice("cuda", 0), VDevice("cuda", 1)][:ndev])
    for i in range(n):
        cs.add_site("main", f"s{i}", (), None, 4, "binding")
    for i in range(n - 1):
        cs.equals.append(Equal(i + 1, i, ALIAS, None))
    return cs


def pin(cs: ConstraintSet, site: int, device: int, rule: Rule = ANNOTATION) -> Pin:
    p = Pin(site, device, rule, None)
    cs.pins.append(p)
    return p


def domain(cs: ConstraintSet, site: int, allowed, op: str = "matmul") -> Domain:
    d = Domain(site, frozenset(allowed), Rule.of(RuleKind.SUPPORTED, op=op), None)
    cs.domains.append(d)
    return d


def test_two_pins_and_the_chain_between_them():
    cs = chain(6)
    a, b = pin(cs, 1, CPU), pin(cs, 4, GPU0)
    conflicts, omitted = find_conflicts(cs)
    assert omitted == 0 and len(conflicts) == 1
    (c,) = conflicts
    assert [r.constraint for r in c.pins] == [a, b]
    assert [s.id for s in c.sites] == [1, 2, 3, 4]
    assert [(s.source.id, s.target.id) for s in c.path] == [(1, 2), (2, 3), (3, 4)]
    assert c.verified == "z3"
    assert c.title == '`s1` must be on "llvm:0" but `s4` on "cuda:0"'


def test_satisfiable_sets_have_no_conflict():
    cs = chain(4)
    pin(cs, 0, GPU0)
    pin(cs, 3, GPU0)
    domain(cs, 2, {GPU0, GPU1})
    assert find_conflicts(cs) == ([], 0)


def test_neighbouring_pins_only():
    """A(cpu) - B(cuda) - C(cpu): A-B and B-C, not A-C; dropping the hint B resolves both."""
    cs = chain(7)
    pa, pb, pc = pin(cs, 0, CPU), pin(cs, 3, GPU0, Rule.of(RuleKind.HINT)), pin(cs, 6, CPU)
    conflicts, _ = find_conflicts(cs)
    assert [[r.constraint for r in c.pins] for c in conflicts] == [[pa, pb], [pb, pc]]
    drop_b = [f for c in conflicts for f in c.fixes if f.kind == "drop_pin" and f._remove == (pb,)]
    assert drop_b and all(f.resolves == [1, 2] for f in drop_b)
    # changing A to cuda resolves only the first conflict, and creates nothing new
    change_a = [f for f in conflicts[0].fixes if f.kind == "change_pin" and f._remove == (pa,)]
    assert change_a and change_a[0].resolves == [1]
    remaining, _ = find_conflicts(change_a[0].apply(cs))
    assert [[r.constraint for r in c.pins] for c in remaining] == [[pb, pc]]


def test_same_device_pins_do_not_hide_the_boundary():
    """A(cpu) B(cpu) C(cuda) D(cuda): one conflict, B-C."""
    cs = chain(4)
    pins = [pin(cs, 0, CPU), pin(cs, 1, CPU), pin(cs, 2, GPU0), pin(cs, 3, GPU0)]
    (c,), _ = find_conflicts(cs)
    assert [r.constraint for r in c.pins] == pins[1:3]
    assert len(c.path) == 1


def test_two_pins_on_one_site():
    cs = chain(2)
    a, b = pin(cs, 1, CPU, ANNOTATION), pin(cs, 1, GPU0, Rule.of(RuleKind.HINT))
    (c,), _ = find_conflicts(cs)
    assert [r.constraint for r in c.pins] == [a, b] and c.path == []
    assert "both" in c.title


def test_empty_domain_is_a_conflict_by_itself():
    cs = chain(2)
    d = domain(cs, 0, set(), op="nn.conv2d")
    (c,), _ = find_conflicts(cs)
    assert c.constraints == [d]
    assert "no device of the module" in c.title
    assert c.fixes == []


def test_pin_outside_a_domain():
    cs = chain(3)
    p = pin(cs, 0, CPU)
    d = domain(cs, 2, {GPU0, GPU1})
    (c,), _ = find_conflicts(cs)
    assert [r.constraint for r in c.pins] == [p, d] and len(c.path) == 2
    change = [f for f in c.fixes if f.kind == "change_pin"]
    assert change and 'to "cuda:0"' in change[0].message


def test_three_domains_clash_only_together():
    """{cpu, gpu0}, {gpu0, gpu1}, {cpu, gpu1}: no two clash, the three do; joined by a tree."""
    cs = chain(5)
    cs.add_site("main", "branch", (), None, 4, "binding")  # site 5 hangs off site 2
    cs.equals.append(Equal(5, 2, ALIAS, None))
    ds = [domain(cs, 0, {CPU, GPU0}), domain(cs, 4, {GPU0, GPU1}), domain(cs, 5, {CPU, GPU1})]
    (c,), _ = find_conflicts(cs)
    assert {id(r.constraint) for r in c.pins} == {id(d) for d in ds}
    assert not c.is_path
    assert {(s.constraint.a, s.constraint.b) for s in c.path} == {(1, 0), (2, 1), (3, 2), (4, 3), (5, 2)}
    assert c.verified == "z3"


def test_permissive_domain_between_exclusive_ones():
    """{cpu} - {cpu, gpu0} - {gpu0}: no neighbouring pair clashes; relaxation finds the ends."""
    cs = chain(5)
    a, _, b = domain(cs, 0, {CPU}), domain(cs, 2, {CPU, GPU0}), domain(cs, 4, {GPU0})
    (c,), _ = find_conflicts(cs)
    assert [r.constraint for r in c.pins] == [a, b] and c.is_path and len(c.path) == 4


def test_a_permissive_domain_does_not_hide_two_pins():
    """cpu - {cpu, gpu0} - gpu0: the pins clash across the domain's site."""
    cs = chain(5)
    a, b = pin(cs, 0, CPU), pin(cs, 4, GPU0)
    domain(cs, 2, {CPU, GPU0})
    (c,), _ = find_conflicts(cs)
    assert [r.constraint for r in c.pins] == [a, b] and len(c.path) == 4


def test_many_interchangeable_domains():
    """Blocks {cpu} {cpu,gpu0} {gpu0}: 99 block boundaries clash as neighbours; relaxation adds the
    clash the permissive domains hide that no boundary uses (the two ends)."""
    cs = chain(300)
    for i in range(0, 300, 3):
        domain(cs, i, {CPU})
        domain(cs, i + 1, {CPU, GPU0})
        domain(cs, i + 2, {GPU0})
    conflicts, omitted = find_conflicts(cs, limit=1000)
    assert len(conflicts) == 100 and omitted == 0
    relaxed = [c for c in conflicts if c.raw.kind == "relaxed"]
    assert [[r.site.id for r in c.pins] for c in relaxed] == [[0, 299]]
    shown, omitted = find_conflicts(cs, limit=3)
    assert len(shown) == 3 and omitted == 97


def test_cycles_take_the_shortest_chain_and_no_single_copy():
    """A ladder: every edge lies on a cycle, so no one copy separates the pins."""
    cs = chain(6)
    for i in range(4):
        cs.equals.append(Equal(i, i + 2, Rule.of(RuleKind.SAME, op="add"), None))
    pin(cs, 0, CPU)
    pin(cs, 5, GPU0)
    (c,), _ = find_conflicts(cs)
    assert len(c.path) == 3  # 0 -> 2 -> 4 -> 5
    assert not [f for f in c.fixes if f.kind == "insert_copy"]
    assert [f.kind for f in c.fixes] == ["change_pin", "change_pin"]


def test_limit_and_omitted():
    cs = chain(12)
    for i in range(0, 12, 2):
        pin(cs, i, CPU if i % 4 == 0 else GPU0)
    conflicts, omitted = find_conflicts(cs, limit=2)
    assert len(conflicts) == 2 and omitted == 3
    assert [c.number for c in conflicts] == [1, 2]
    assert "5 independent conflicts" in summarize(conflicts, omitted)
    assert "3 more" in summarize(conflicts, omitted)


def test_soft_preferences_never_conflict():
    from vdplace.placement.model.constraints import Prefer

    cs = chain(1)
    cs.add_site("main", "t", (), None, 4, "binding")
    pin(cs, 0, CPU)
    pin(cs, 1, GPU0)
    cs.prefers.append(Prefer(0, 1, 64, Rule.of(RuleKind.HINT), None))
    assert find_conflicts(cs) == ([], 0)


def test_summary_names_the_pins_and_the_chain():
    cs = chain(4)
    pin(cs, 0, CPU)
    pin(cs, 3, GPU0)
    conflicts, omitted = find_conflicts(cs)
    text = summarize(conflicts, omitted)
    for name in ("s0", "s1", "s2", "s3"):
        assert f"`{name}`" in text or f"{name} " in text or f" {name}" in text


@pytest.mark.parametrize("extra", ["edge", "pin"])
def test_proofs_reject_sets_that_are_not_minimal(extra):
    cs = chain(4)
    p0, p3 = pin(cs, 0, CPU), pin(cs, 3, GPU0)
    unary = [p0, p3]
    edges = list(cs.equals)
    assert z3_minimal(unary + edges, 3) and structurally_minimal(unary, edges, 3)
    if extra == "edge":
        cs.equals.append(Equal(0, 3, ALIAS, None))
        edges = list(cs.equals)  # a cycle: any single edge can go
    else:
        unary.append(pin(cs, 1, CPU))  # the pin at s1 is redundant... together with s0
        unary = [p0, unary[2], p3]
    assert not z3_minimal(unary + edges, 3)
    assert not structurally_minimal(unary, edges, 3)
    assert not z3_minimal(edges, 3)  # satisfiable
