"""Devices that slow each other (`CostModel.contention`): the `Time` schedule re-timed for it.

Random programs of tests/placement/test_schedule.py, placed without contention; their schedule re-timed
(`placement.schedule.contention.contended`) is checked from the events alone against an integration written
here: each event lasts its uncontended time plus (factor - 1) times the seconds both devices were busy
during it (ops and senders' shares); every order of the schedule is kept (so no device or link runs two
tasks at once and every op still starts after its operands arrive); the peaks keep their bytes; the bound
stays below the makespan and `optimal` is claimed only within tolerance.  `place` under a contended model
reports exactly that re-timed schedule, pinned by hand on a small program.
"""

from __future__ import annotations

import itertools
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.placement.test_schedule import NAMES, Program, check_operands_ready, module_peaks, programs, solve
from tests.placement.test_schedule_send import PROGRAM, US, model
from vdplace import ir
from vdplace.ir.vdevice import VDevice
from vdplace.placement import CostModel, Time, place
from vdplace.placement.cost.jsonfile import loads
from vdplace.placement.schedule.contention import contended

pytest.importorskip("ortools")

CPU, GPU = VDevice("llvm", 0), VDevice("cuda", 0)
REL = 1e-9


def _busy(events) -> dict[str, list[tuple[float, float]]]:
    out: dict[str, list[tuple[float, float]]] = {name: [] for name in NAMES.values()}
    for e in events:
        if e.kind == "op" and e.end > e.start:
            out[e.device].append((e.start, e.end))
        elif e.kind == "copy" and e.send > 0:
            out[e.device[0]].append((e.start, e.start + e.send))
    return out


def _stretched(start: float, end: float, busy: dict[str, list[tuple[float, float]]], factor: float) -> float:
    """Seconds from `start` to `end` once every moment both devices are busy runs `factor` times slower."""
    cuts = sorted({start, end, *(t for spans in busy.values() for s, e in spans for t in (s, e) if start < t < end)})
    total = 0.0
    for a, b in itertools.pairwise(cuts):
        mid = (a + b) / 2
        both = all(any(s <= mid < e for s, e in spans) for spans in busy.values())
        total += (b - a) * (factor if both else 1.0)
    return total


def _check_contended(prog: Program, result, factor: float) -> None:
    before = result.schedule
    after = contended(before, lambda a, b: factor if a != b else 1.0)
    assert after is not before and before.uncontended is None  # the input is not touched
    assert after.uncontended == before.makespan and len(after.events) == len(before.events)
    busy = _busy(before.events)
    for old, new in zip(before.events, after.events, strict=True):
        assert (old.kind, old.name, old.device) == (new.kind, new.name, new.device)
        assert new.start >= old.start * (1 - 1e-12) and new.duration >= old.duration * (1 - 1e-12)
        want_start = _stretched(0.0, old.start, busy, factor)
        want = _stretched(old.start, old.end, busy, factor)
        assert math.isclose(new.start, want_start, rel_tol=REL, abs_tol=1e-18), (old, new, want_start)
        assert math.isclose(new.duration, want, rel_tol=REL, abs_tol=1e-18), (old, new, want)
        if old.send:
            share = _stretched(old.start, old.start + old.send, busy, factor)
            assert math.isclose(new.send, share, rel_tol=REL, abs_tol=1e-18)
    # every order kept: the points of time sort the same way, ties included
    points = [(e.start, e.end) for e in before.events]
    mapped = [(e.start, e.end) for e in after.events]
    flat_before = [t for pair in points for t in pair]
    flat_after = [t for pair in mapped for t in pair]
    for (i, a), (j, b) in itertools.combinations(enumerate(flat_before), 2):
        x, y = flat_after[i], flat_after[j]
        if a < b:
            assert x < y or math.isclose(x, y, rel_tol=1e-12)
        elif a > b:
            assert x > y or math.isclose(x, y, rel_tol=1e-12)
        else:
            assert x == y
    # one task at a time on each device and link
    for name, spans in _busy(after.events).items():
        spans.sort()
        for (s1, e1), (s2, e2) in itertools.pairwise(spans):
            assert s2 >= e1 * (1 - 1e-12), (name, (s1, e1), (s2, e2))
    links = {e.device for e in after.events if e.kind == "copy"}
    for pair in links:
        spans = sorted((e.start, e.end) for e in after.events if e.kind == "copy" and e.device == pair)
        for (_, e1), (s2, _) in itertools.pairwise(spans):
            assert s2 >= e1 * (1 - 1e-12)
    assert after.peak_memory == before.peak_memory
    assert after.makespan >= before.makespan * (1 - 1e-12) >= before.lower_bound * (1 - 1e-12)
    assert after.lower_bound == before.lower_bound <= after.makespan * (1 + 1e-12)
    assert after.optimal == (after.makespan - after.lower_bound <= after.tolerance)
    if factor == 1.0:
        assert mapped == points and after.optimal == before.optimal


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.sampled_from([1.0, 1.25, 2.0, 3.5]))
def test_a_contended_schedule_stretches_only_where_both_devices_work(prog: Program, factor: float) -> None:
    _, result = solve(prog)
    _check_contended(prog, result, factor)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(max_ops=5), st.sampled_from([1.5, 3.0]))
def test_place_reports_the_contended_schedule_and_it_stays_consistent(prog: Program, factor: float) -> None:
    mod = ir.parse(prog.text(), filename="prog.py")
    m = prog.model()
    m.contention = {("llvm:0", "cuda:0"): factor}
    result = place(mod, objective=Time(m, memory=prog.limits), time_limit_s=20)
    s = result.schedule
    assert s.uncontended is not None and s.makespan >= s.uncontended * (1 - 1e-12) >= s.lower_bound * (1 - 1e-12)
    assert s.optimal == (s.makespan - s.lower_bound <= s.tolerance)
    check_operands_ready(prog, mod, result)  # the placed module follows the re-timed schedule's order
    assert s.peak_memory == module_peaks(prog, result)  # liveness from the placed module and the re-timed events
    assert s.as_dict()["uncontended_makespan"] == s.uncontended


def test_an_op_beside_the_other_devices_work_is_stretched_by_hand():
    mod = ir.parse(PROGRAM)
    # Without contention: a [0, 10] on the CPU, its copy [10, 30] while c runs [10, 35], b [30, 40] on the GPU.
    free = place(mod, objective=Time(model(None))).schedule
    assert free.makespan == pytest.approx(40 * US) and free.optimal and free.uncontended is None
    slow = model(None)
    slow.contention = {("cuda:0", "llvm:0"): 2.0}  # either order of the pair
    s = place(mod, objective=Time(slow)).schedule
    # [30, 35] has both devices busy: it lasts 10 us; c [10, 40], b [30, 45].
    ops = {e.name: e for e in s.events if e.kind == "op"}
    assert ops["c"].start == pytest.approx(10 * US) and ops["c"].end == pytest.approx(40 * US)
    assert ops["b"].start == pytest.approx(30 * US) and ops["b"].end == pytest.approx(45 * US)
    assert s.makespan == pytest.approx(45 * US) and s.uncontended == pytest.approx(40 * US)
    assert s.lower_bound == pytest.approx(40 * US) and not s.optimal and s.status == "contended"
    assert "without the devices' contention" in s.describe()
    assert json.loads(json.dumps(s.as_dict()))["uncontended_makespan"] == pytest.approx(40 * US)


def test_work_on_one_device_is_not_stretched_and_stays_optimal():
    mod = ir.parse(PROGRAM)
    only_cpu = CostModel(lambda op, d: 5 * US if d.startswith("llvm") else None, lambda n, s, d: 20 * US)
    only_cpu.contention = {("llvm:0", "cuda:0"): 3.0}
    s = place(mod, objective=Time(only_cpu)).schedule
    assert s.makespan == pytest.approx(15 * US) == s.uncontended and s.optimal and s.status == "optimal"


def test_slowdown_matches_device_keys_either_way_and_not_on_one_physical_device():
    scope = VDevice("llvm", 0, "shared")
    vds = [CPU, GPU, scope]
    m = CostModel()
    assert m.slowdown(CPU, GPU, vds) == 1.0  # no entry
    m.contention = {("llvm:0", "cuda:0"): 1.7}
    assert m.slowdown(CPU, GPU, vds) == m.slowdown(GPU, CPU, vds) == 1.7
    assert m.slowdown(CPU, scope, vds) == 1.0  # one physical device
    m.contention = {("cpu", "cuda"): 1.2}  # device types match as table keys do
    assert m.slowdown(GPU, CPU, vds) == 1.2


def test_a_cost_file_keeps_contention_and_says_where_it_is_wrong(tmp_path):
    m = CostModel.roofline()
    m.contention = {("llvm:0", "cuda:0"): 1.45}
    path = tmp_path / "costs.json"
    m.to_json(str(path))
    assert json.loads(path.read_text())["contention"] == [{"devices": ["llvm:0", "cuda:0"], "factor": 1.45}]
    assert CostModel.from_json(str(path)).contention == {("llvm:0", "cuda:0"): 1.45}
    assert "contention" not in json.loads(CostModel.roofline().to_json())  # none, no key
    head = '{"format": "vdplace-cost/1", "contention": '
    bad = {
        '[{"devices": ["llvm:0", "cuda:0"], "factor": 0.5}]}': r"\$.contention\[0\].factor: expected a number >= 1",
        '[{"devices": ["llvm:0", "llvm:0"], "factor": 2}]}': r"\$.contention\[0\].devices: a device does not",
        '[{"devices": ["llvm:0"], "factor": 2}]}': r"\$.contention\[0\].devices: expected two device keys",
        '[{"devices": ["llvm:0", "tpu:0"], "factor": 2}]}': r"\$.contention\[0\].devices\[1\]",
        '{"llvm:0": 2}}': r"\$.contention: expected a list",
        '[{"devices": ["llvm:0", "cuda:0"]}]}': r"\$.contention\[0\]: missing 'factor'",
    }
    for tail, message in bad.items():
        with pytest.raises(ValueError, match=message):
            loads(head + tail, "costs.json")
