"""Properties of `place` on random modules (tests/support/strategies.py).

* Any module: the answer satisfies every constraint of the set (checked here
  again, independently of `place`'s own check), placing the result again
  changes nothing, the input is not mutated, and a module that comes with a
  witness placement is never reported as a conflict.
* Small modules: satisfiable/unsatisfiable agrees with brute-force
  enumeration of every assignment of every site, and the bytes the placed
  module's copies move (hints, the user's ``to_vdevice``) equal the minimum
  over every realized assignment; no value is copied twice to one vdevice
  where the first copy is visible.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

from tests.support.strategies import generated_modules, small_generated
from vdplace import ir
from vdplace.ir.builder import ModuleBuilder, tensor
from vdplace.ir.vdevice import DeviceSpec, VDevice
from vdplace.placement import PlacementConflict, place
from vdplace.placement.extract.extract import extract
from vdplace.placement.model.entry import uploaded_bytes
from vdplace.placement.rewrite.realize import realize
from vdplace.placement.solve.check import check

from .test_moves import _unread_copies, _vars

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_BRUTE_SITES = 7


@SETTINGS
@given(generated_modules())
def test_random_modules_place_consistently(g):
    mod = g.module
    before = ir.script(mod)
    try:
        p = place(mod)
    except PlacementConflict as err:
        assert g.witness is None, f"a module with a witness placement was reported as a conflict:\n{err}"
        assert err.core, "a conflict must come with its core"
        return
    finally:
        assert ir.script(mod) == before, "place() mutated its input"
    assert check(p.constraints, p.assignment) == []
    again = place(p.module)
    assert ir.structural_equal(again.module, p.module)
    assert again.copies == [] or all(not c.inserted for c in again.copies)


@SETTINGS
@given(generated_modules())
def test_policies_only_differ_on_unconstrained_sites(g):
    try:
        none = place(g.module)
    except PlacementConflict:
        return
    first = place(g.module, default="first")
    assert check(first.constraints, first.assignment) == []
    for a, b in zip(none.assignment, first.assignment, strict=True):
        assert b == (0 if a is None else a)


def _brute_force(mod, strict: bool = False):
    """(satisfiable, minimum bytes moved) over every assignment of a device to every site.

    Each assignment that satisfies every hard constraint is realized, and its
    cost is what the copies of *that placed module* move across physical
    devices, plus the runtime inputs of ``main`` it puts off the host: the
    objective is checked against the program, not against the constraint model.
    """
    ex = extract(mod, strict_hints=strict)
    cs = ex.constraints
    n = len(cs.vdevices)
    best = None
    for assignment in itertools.product(range(n), repeat=len(cs.sites)):
        if any(assignment[p.site] != p.device for p in cs.pins):
            continue
        if any(assignment[e.a] != assignment[e.b] for e in cs.equals):
            continue
        if any(assignment[d.site] not in d.allowed for d in cs.domains):
            continue
        ex2 = extract(mod, strict_hints=strict)  # realizing spends an extraction
        placed, copies = realize(ex2, list(assignment))
        cost = sum(c.nbytes for c in copies if c.physical) + uploaded_bytes(mod, placed, ex2.sizes)
        if best is None or cost < best:
            best = cost
    return best is not None, best


def _copies_per_value(mod) -> list[str]:
    """Every ``R.to_vdevice`` of `mod` whose value is already visible on its destination.

    An independent reading of the placed module: a value is a variable modulo
    aliases (``y = x``) and copies (``to_vdevice`` holds its input's value);
    a variable is visible for the rest of its sequence, a dataflow variable
    only to the end of its block; devices come from the struct infos.  A copy
    from a copy that nothing else reads is the program's own round trip, read
    as written (issue 29: bypassing it would leave a copy nothing reads), and
    is not counted; an alias ``y = x`` is no read of x there (`_transit`).
    """
    repeats: list[str] = []
    for fname, func in mod.functions.items():
        visible: dict = {}
        for p in func.params:
            visible.setdefault((p, getattr(p.struct_info, "vdevice", None)), []).append(p)
        _walk_copies(fname, func.body, {}, visible, repeats, _transit(func))
    return repeats


def _transit(func) -> set:
    """The ``to_vdevice`` results of `func` that only other ``to_vdevice`` calls read, with their aliases.

    An alias ``y = x`` names x's value again and is no read of it: a read of y is a read of x.
    """
    root: dict = {}
    copies, other_reads = set(), set(_vars(func.body.body))
    for b in ir.iter_bindings(func):
        v = b.value
        if isinstance(v, ir.Var):
            root[b.var] = root.get(v, v)
        elif isinstance(v, ir.Call) and getattr(v.op, "name", "") == "to_vdevice":
            copies.add(b.var)
            if not isinstance(v.args[0], ir.Var):
                other_reads |= _vars(v.args[0])
        else:
            other_reads |= _vars(v)
    transit = copies - {root.get(x, x) for x in other_reads}
    return transit | {x for x, r in root.items() if r in transit}


def _walk_copies(fname: str, seq, root: dict, visible: dict, repeats: list[str], transit: set) -> None:
    visible = {k: list(v) for k, v in visible.items()}
    for block in seq.blocks:
        for b in block.bindings:
            v = b.value
            if isinstance(v, ir.Var):
                root[b.var] = root.get(v, v)
            elif isinstance(v, ir.Call) and getattr(v.op, "name", "") == "to_vdevice" and isinstance(v.args[0], ir.Var):
                value = root.get(v.args[0], v.args[0])
                if visible.get((value, v.attrs["dst_vdevice"])) and v.args[0] not in transit:
                    repeats.append(f"{fname}: {b.var.name} copies {value.name} again to {v.attrs['dst_vdevice']}")
                root[b.var] = value
            elif isinstance(v, ir.If):
                _walk_copies(fname, v.true_branch, root, visible, repeats, transit)
                _walk_copies(fname, v.false_branch, root, visible, repeats, transit)
            key = (root.get(b.var, b.var), getattr(b.var.struct_info, "vdevice", None))
            visible.setdefault(key, []).append(b.var)
        if isinstance(block, ir.DataflowBlock):
            visible = {k: [w for w in ws if not isinstance(w, ir.DataflowVar)] for k, ws in visible.items()}


def test_a_round_trip_through_a_reused_replica_is_the_programs_own():
    """`fork1` reuses `fork0` (an alias of it in the placed module) and only `v0`, a copy back, reads it: the
    program's own round trip, read as written (issue 29), and `_copies_per_value` does not count it; with
    `fork0` returned as well, `v0` is `p0` itself."""
    head = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice({"kind": "cuda", "arch": "sm_80"}, 0)]})

    @R.function
    def main(p0: R.Tensor((1,), "float32", "cuda:1")):
        fork0 = R.hint_on_device(p0, R.device(device_type=2, index=0))
        fork1 = R.hint_on_device(p0, R.device(device_type=2, index=0))
        v0 = R.to_vdevice(fork1, "cuda:1")
"""
    own = place(ir.parse(head + "        return v0\n", "m.py")).module
    assert 'v0: R.Tensor((1,), dtype="float32", vdevice="cuda:1:global") = R.to_vdevice(fork1, ' in ir.script(own)
    assert _copies_per_value(own) == [] and _unread_copies(own) == []
    read = place(ir.parse(head + "        return (v0, fork0)\n", "m.py")).module
    assert 'v0: R.Tensor((1,), dtype="float32", vdevice="cuda:1:global") = p0' in ir.script(read)
    assert _copies_per_value(read) == [] and _unread_copies(read) == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(small_generated())
def test_small_modules_agree_with_brute_force(g):
    cs = extract(g.module).constraints
    assume(len(cs.sites) <= MAX_BRUTE_SITES and len(cs.vdevices) ** len(cs.sites) <= 20_000)
    satisfiable, minimum = _brute_force(g.module)
    try:
        p = place(g.module)
    except PlacementConflict:
        assert not satisfiable
        return
    assert satisfiable
    assert p.stats.bytes_copied + p.stats.bytes_uploaded == minimum
    assert sum(c.nbytes for c in p.copies if c.physical) == p.stats.bytes_copied
    note(ir.script(p.module))
    assert _copies_per_value(p.module) == []
    assert _unread_copies(p.module) == []  # issue 29: no copy whose result nothing reads


DEVICE_POOL = [
    VDevice("llvm", 0),
    VDevice("cuda", 0),
    VDevice({"kind": "cuda", "arch": "sm_80"}, 0),  # the same physical device as cuda(0)
    VDevice("cuda", 1),
]


@st.composite
def hinted_modules(draw):
    """Small modules dense in hints and copies, tensors of different sizes (so weights differ).

    The shared strategy rarely draws several hints in a few sites; MaxSMT
    optimality needs modules where where-to-copy is a real choice.
    """
    vdevices = draw(st.lists(st.sampled_from(DEVICE_POOL), min_size=2, max_size=3, unique=True))
    mb = ModuleBuilder(vdevices)
    params = []
    for i in range(draw(st.integers(1, 2))):
        size = draw(st.sampled_from([1, 4, 16]))
        pinned = draw(st.sampled_from([None, *vdevices])) if draw(st.booleans()) else None
        params.append((f"p{i}", tensor((size,), "float32", pinned)))
    f = mb.function("main", params)
    values = list(f.params)
    if draw(st.booleans()):
        # A fork: one value hinted onto two devices, so where it lives is a MaxSMT choice.
        x = draw(st.sampled_from(values))
        a, b = draw(st.lists(st.sampled_from(vdevices), min_size=2, max_size=2, unique=True))
        for j, target in enumerate((a, b)):
            spec = DeviceSpec(target.device_type, target.vdevice_id)
            values.append(f.emit("hint_on_device", x, name=f"fork{j}", device=spec))
    for i in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["hint", "hint", "copy", "copy", "alias", "unary", "add", "sum"]))
        # Hints on parameters often leave a free class between differently pinned ones: a MaxSMT choice.
        pool = list(f.params) if kind == "hint" and draw(st.booleans()) else values
        x = draw(st.sampled_from(pool))
        name = f"v{i}"
        if kind in ("hint", "copy"):
            target = draw(st.sampled_from(vdevices))
            if kind == "hint":
                spec = DeviceSpec(target.device_type, target.vdevice_id)
                values.append(f.emit("hint_on_device", x, name=name, device=spec))
            else:
                values.append(f.emit("to_vdevice", x, name=name, dst_vdevice=target))
        elif kind == "alias":
            values.append(f.emit(x, name=name))
        elif kind == "unary":
            values.append(f.emit("negative", x, name=name))
        elif kind == "sum":
            values.append(f.emit("sum", x, name=name, axis=[0], keepdims=True))
        else:
            y = draw(st.sampled_from(values))
            if x.struct_info.shape != y.struct_info.shape and 1 not in (x.struct_info.shape[0], y.struct_info.shape[0]):
                y = x
            values.append(f.emit("add", x, y, name=name))
    outs = draw(st.lists(st.sampled_from(values[len(params) :] or values), min_size=1, max_size=2))
    f.finish(outs[0] if len(outs) == 1 else f.tuple(*outs))
    return mb.get()


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(hinted_modules())
def test_hint_heavy_modules_copy_the_brute_force_minimum(mod):
    cs = extract(mod).constraints
    assume(len(cs.vdevices) ** len(cs.sites) <= 50_000)
    satisfiable, minimum = _brute_force(mod)
    try:
        p = place(mod)
    except PlacementConflict:
        assert not satisfiable
        return
    assert satisfiable
    assert p.stats.bytes_copied + p.stats.bytes_uploaded == minimum
    assert sum(c.nbytes for c in p.copies if c.physical) == p.stats.bytes_copied
    note(ir.script(p.module))
    assert _copies_per_value(p.module) == []
    assert _unread_copies(p.module) == []  # issue 29: no copy whose result nothing reads


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(small_generated())
def test_small_modules_strict_hints_agree_with_brute_force(g):
    cs = extract(g.module, strict_hints=True).constraints
    assume(len(cs.sites) <= MAX_BRUTE_SITES and len(cs.vdevices) ** len(cs.sites) <= 20_000)
    satisfiable, _ = _brute_force(g.module, strict=True)
    try:
        p = place(g.module, strict_hints=True)
    except PlacementConflict:
        assert not satisfiable
        return
    assert satisfiable
    assert [c for c in p.copies if c.inserted] == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_modules())
def test_z3_everywhere_agrees_with_propagation(g):
    try:
        fast = place(g.module)
    except PlacementConflict:
        with pytest.raises(PlacementConflict):
            place(g.module, propagate=False)
        return
    slow = place(g.module, propagate=False, backend="z3-enum")
    assert check(slow.constraints, slow.assignment) == []
    assert slow.stats.bytes_copied == fast.stats.bytes_copied
