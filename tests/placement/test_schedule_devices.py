"""The time objective on more than two vdevices: two like GPUs (symmetry breaking), two scopes of one GPU.

Random small programs (hypothesis), each checked against an exhaustive search
written here (every placement, every order of every task, branch and bound)
from the placed module's events alone:

* ``gpus``: llvm:0, cuda:0, cuda:1.  cuda:1 is either cuda:0's twin (the same
  kernel times, links and limit: CP-SAT breaks the symmetry between them) or
  differs in its kernel times or its memory limit (no symmetry to break);
  either way nothing beats the makespan, and a claimed optimum is the optimum.
* ``scopes``: llvm:0 (the host) and two memory scopes of one GPU (global,
  and texture: the second cuda vdevice, printed ``cuda:1:texture``); the
  parameters pinned to GPU global memory, the ops run on the GPU: the two
  scopes' ops share the GPU's stream (one at a time), a copy between them
  takes no link and no time, and CP-SAT schedules them (proved optimal).
"""

from __future__ import annotations

import copy
import itertools
import math
from dataclasses import dataclass, field
from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.placement.test_schedule import _best_order
from vdplace import ir
from vdplace.placement import CostModel, PlacementConflict, Time, place

pytest.importorskip("ortools")

BANDWIDTH = 25e9
TIMES = (0.0, 1e-6, 2e-6, 3e-6, 5e-6, 8e-6)
LATENCIES = (1e-6, 4e-6, 1e-5)
HOST = "llvm:0:global"
LAYOUTS = {
    "gpus": (HOST, "cuda:0:global", "cuda:1:global"),
    "scopes": (HOST, "cuda:0:global", "cuda:1:texture"),  # the second cuda vdevice: texture memory of GPU 0
}
PHYSICAL = {HOST: "cpu", "cuda:0:global": "gpu0", "cuda:1:global": "gpu1", "cuda:1:texture": "gpu0"}
DECLARED = {
    "gpus": 'I.vdevice("llvm", 0), I.vdevice("cuda", 0), I.vdevice("cuda", 1)',
    "scopes": 'I.vdevice("llvm", 0), I.vdevice("cuda", 0, "global"), I.vdevice("cuda", 0, "texture")',
}


def physical(name: str) -> str:
    return PHYSICAL[name]


@dataclass
class Program:
    layout: str
    side: int
    params: list[str]
    num_input: int
    ops: list[tuple[str, str, tuple[str, ...]]]  # (name, op, operands)
    times: dict[tuple[str, str], float | None]  # (op name, vdevice name)
    latency: dict[tuple[str, str], float]  # (physical src, physical dst)
    limits: dict[str, int] = field(default_factory=dict)

    @property
    def devices(self) -> tuple[str, ...]:
        return LAYOUTS[self.layout]

    @property
    def nbytes(self) -> int:
        return self.side * self.side * 4

    def copy_seconds(self, src: str, dst: str) -> float:
        if physical(src) == physical(dst):
            return 0.0
        return self.latency[physical(src), physical(dst)] + self.nbytes / BANDWIDTH

    def text(self) -> str:
        t = f'R.Tensor(({self.side}, {self.side}), "float32")'
        pinned = f'R.Tensor(({self.side}, {self.side}), "float32", "cuda:0")'  # GPU 0's global memory
        params = ", ".join(f"{p}: {pinned if self.layout == 'scopes' else t}" for p in self.params)
        lines = [
            "@I.ir_module",
            "class M:",
            f'    I.module_global_infos({{"vdevice": [{DECLARED[self.layout]}]}})',
            "    @R.function",
            f"    def main({params}) -> {t}:",
            f'        R.func_attr({{"num_input": {self.num_input}}})',
        ]
        lines += [f"        {name} = R.{op}({', '.join(args)})" for name, op, args in self.ops]
        lines.append(f"        return {self.ops[-1][0]}")
        return "\n".join(lines) + "\n"

    def model(self) -> CostModel:
        def kernel(op, vdevice: str) -> float | None:
            return self.times[op.name, vdevice]

        def copy(nbytes: int, src: str, dst: str) -> float:
            return self.latency[physical(src), physical(dst)] + nbytes / BANDWIDTH

        return CostModel(kernel, copy)


@st.composite
def programs(draw, layout: str, limits: bool = False) -> Program:
    n_params = draw(st.integers(1, 2))
    params = [f"p{i}" for i in range(n_params)]
    values = list(params)
    ops = []
    for i in range(draw(st.integers(1, 4 - n_params // 2))):
        op = draw(st.sampled_from(["add", "multiply", "nn.relu"]))
        args = tuple(draw(st.sampled_from(values)) for _ in range(1 if op == "nn.relu" else 2))
        ops.append((f"v{i}", op, args))
        values.append(f"v{i}")
    unread = sorted(set(params) - {a for _, _, args in ops for a in args})
    for k, p in enumerate(unread):  # every parameter is read
        ops.append((f"w{k}", "add", (ops[-1][0], p)))
    devices = LAYOUTS[layout]
    twin = layout == "gpus" and draw(st.booleans())  # cuda:1 is cuda:0's twin
    times: dict[tuple[str, str], float | None] = {}
    for name, _, _ in ops:
        times[name, devices[0]] = draw(st.sampled_from(TIMES)) if layout == "gpus" else None
        times[name, devices[1]] = draw(st.sampled_from((*TIMES, None) if layout == "gpus" else TIMES))
        times[name, devices[2]] = times[name, devices[1]] if twin else draw(st.sampled_from((*TIMES, None)))
    phys = sorted({physical(d) for d in devices})
    latency = {(a, b): draw(st.sampled_from(LATENCIES)) for a in phys for b in phys if a != b}
    if twin:  # the twins' links alike too
        for a in phys:
            if a not in ("gpu0", "gpu1"):
                latency[a, "gpu1"] = latency[a, "gpu0"]
                latency["gpu1", a] = latency["gpu0", a]
        latency["gpu1", "gpu0"] = latency["gpu0", "gpu1"]
    prog = Program(
        layout, draw(st.sampled_from([4, 64, 256])), params, draw(st.integers(0, n_params)), ops, times, latency
    )
    if limits:
        cap = draw(st.integers(2, 2 + len(ops))) * prog.nbytes
        if twin and draw(st.booleans()):
            prog.limits = {devices[1]: cap, devices[2]: cap}  # twins with one limit: still symmetric
        else:
            prog.limits = {draw(st.sampled_from(devices)): cap}
    return prog


def solve(prog: Program):
    mod = ir.parse(prog.text(), filename="prog.py")
    return place(mod, objective=Time(prog.model(), memory=prog.limits), time_limit_s=20)


# -- the exhaustive search ------------------------------------------------------------------------------------


def exhaustive_better(prog: Program, bound: float) -> float | None:
    """A makespan below `bound` (relative 1e-9) that fits the limits, over every placement and order; or None."""
    ops = {name: args for name, _, args in prog.ops}
    units = prog.params + list(ops)
    target, best = bound * (1 - 1e-9), None
    for choice in itertools.product(prog.devices, repeat=len(units)):
        home = dict(zip(units, choice, strict=True))
        if prog.layout == "scopes" and any(home[p] != "cuda:0:global" for p in prog.params):
            continue  # pinned
        if any(prog.times[name, home[name]] is None for name in ops):
            continue
        tasks: dict[str, tuple[tuple, float, list[str]]] = {}  # name -> (resource, seconds, predecessors)
        ready: dict[str, str | None] = {}
        for i, p in enumerate(prog.params):
            ready[p] = None
            if i < prog.num_input and home[p] != HOST:
                tasks["up:" + p] = (_link(HOST, home[p], "up:" + p), prog.copy_seconds(HOST, home[p]), [])
                ready[p] = "up:" + p
        for name, args in ops.items():
            ready[name] = name
            preds = []
            for a in dict.fromkeys(args):
                if home[a] == home[name]:
                    preds += [ready[a]] if ready[a] else []
                    continue
                copy = f"copy:{a}:{home[name]}"
                if copy not in tasks:
                    secs = prog.copy_seconds(home[a], home[name])
                    tasks[copy] = (_link(home[a], home[name], copy), secs, [ready[a]] if ready[a] else [])
                preds.append(copy)
            tasks[name] = (("dev", physical(home[name])), prog.times[name, home[name]], preds)
        found = _best_order(tasks, target, partial(_fits, prog, home, tasks))
        if found is not None:
            target, best = found * (1 - 1e-9), found
    return best


def _link(src: str, dst: str, task: str) -> tuple:
    """A copy's resource: its link direction, or (between scopes of one device) none shared."""
    return ("link", physical(src), physical(dst)) if physical(src) != physical(dst) else ("free", task)


def _fits(prog: Program, home, tasks, starts, ends, span) -> bool:
    """Liveness peaks within the limits (docs/schedule.md): stays [device, start, end, value, where]."""
    if not prog.limits:
        return True
    stays = []
    for i, p in enumerate(prog.params):
        up = "up:" + p
        if up in tasks:
            stays += [[HOST, 0.0, ends[up], p, "host"], [home[p], starts[up], ends[up], p, home[p]]]
        else:
            stays.append([home[p], 0.0, span if i >= prog.num_input else 0.0, p, home[p]])
    for name, _, _ in prog.ops:
        stays.append([home[name], starts[name], ends[name], name, home[name]])
    for t in tasks:
        if t.startswith("copy:"):
            _, v, d = t.split(":", 2)
            stays.append([d, starts[t], ends[t], v, d])
            _extend(stays, v, home[v], ends[t])
    for name, _, args in prog.ops:
        for a in args:
            _extend(stays, a, home[name], ends[name])
    last = prog.ops[-1][0]
    _extend(stays, last, home[last], span)
    for dev, limit in prog.limits.items():
        points = []
        for s in stays:
            if s[0] == dev and s[2] > s[1]:
                points += [(s[1], 1, prog.nbytes), (s[2], 0, -prog.nbytes)]
        current = 0
        for _, _, delta in sorted(points):
            current += delta
            if current > limit:
                return False
    return True


def _extend(stays: list, value: str, where: str, end: float) -> None:
    for s in stays:
        if s[3] == value and s[4] == where:
            s[2] = max(s[2], end)


# -- the checks -------------------------------------------------------------------------------------------------


def check_events(prog: Program, s) -> None:
    """Durations as the model says; one op at a time per physical device, one copy per link direction."""
    for e in s.events:
        if e.kind == "op":
            want = prog.times[e.name, e.device]
        else:
            want = prog.copy_seconds(*e.device)
        assert want is not None and math.isclose(e.end - e.start, want, rel_tol=1e-9, abs_tol=1e-18), (e, want)
    groups: dict[tuple, list] = {}
    for e in s.events:
        key = ("dev", physical(e.device)) if e.kind == "op" else ("link", *map(physical, e.device))
        if e.kind == "op" or key[1] != key[2]:
            groups.setdefault(key, []).append(e)
    for group in groups.values():
        group.sort(key=lambda e: (e.start, e.end))
        for a, b in itertools.pairwise(group):
            if a.end > a.start and b.end > b.start:
                assert b.start >= a.end * (1 - 1e-12), (a, b)
    assert s.lower_bound <= s.makespan * (1 + 1e-12)
    for dev, limit in prog.limits.items():
        assert s.peak_memory[dev] <= limit


def check_optimum(prog: Program, must_prove: bool) -> None:
    try:
        result = solve(prog)
    except PlacementConflict as err:
        if "(proved)" in err.message:
            assert exhaustive_better(prog, math.inf) is None
        return
    s = result.schedule
    check_events(prog, s)
    better = exhaustive_better(prog, s.makespan - s.tolerance)
    assert better is None, f"the exhaustive search found {better!r} < {s.makespan!r}"
    if must_prove:
        assert s.optimal and s.method in ("cp-sat", "list")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs("gpus", limits=False))
def test_twin_gpus_symmetry_keeps_the_optimum(prog: Program) -> None:
    check_optimum(prog, must_prove=True)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs("gpus", limits=True))
def test_gpus_with_limits_never_claim_a_wrong_optimum(prog: Program) -> None:
    check_optimum(prog, must_prove=False)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs("scopes", limits=False))
def test_two_scopes_of_one_gpu_share_its_stream(prog: Program) -> None:
    check_optimum(prog, must_prove=True)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs("scopes", limits=True))
def test_two_scopes_with_limits(prog: Program) -> None:
    check_optimum(prog, must_prove=False)


def test_scopes_run_one_op_at_a_time_and_copy_free() -> None:
    """Two independent ops, each fastest on its own scope of one GPU: they run one after the other (one
    stream), and the value one scope reads from the other is copied without a link, in no time."""
    prog = Program(
        "scopes",
        4,
        ["p0"],
        0,
        [("a", "nn.relu", ("p0",)), ("b", "nn.relu", ("p0",)), ("c", "add", ("a", "b"))],
        {},
        {("cpu", "gpu0"): 1e-3, ("gpu0", "cpu"): 1e-3},
    )
    for name, cpu, glob, tex in (("a", None, 3e-6, 5e-6), ("b", None, 5e-6, 3e-6), ("c", None, 1e-6, 2e-6)):
        prog.times[name, HOST], prog.times[name, "cuda:0:global"], prog.times[name, "cuda:1:texture"] = cpu, glob, tex
    result = solve(prog)
    s = result.schedule
    check_events(prog, s)
    assert s.optimal and s.method == "cp-sat"
    ops = {e.name: e for e in s.events if e.kind == "op"}
    assert {ops["a"].device, ops["b"].device} == {"cuda:0:global", "cuda:1:texture"}
    assert math.isclose(s.makespan, 3e-6 + 3e-6 + 1e-6, rel_tol=1e-6)  # one stream: a, b, then c
    assert any(e.kind == "copy" and e.start == e.end for e in s.events)
    assert exhaustive_better(prog, s.makespan - s.tolerance) is None


def test_free_plan_renamed_onto_the_unlimited_twin() -> None:
    """A plan without limits that puts everything on cuda:0, where a limit forbids it, runs as fast renamed onto
    its unlimited twin cuda:1 (`solve._best_renaming`): that is the plan kept, fitting the limits."""
    from vdplace.placement.cost.problem import coarsen
    from vdplace.placement.extract.extract import extract
    from vdplace.placement.schedule.graph import build_graph
    from vdplace.placement.schedule.list_scheduler import list_schedule
    from vdplace.placement.schedule.search import Plan
    from vdplace.placement.schedule.solve import _best_renaming, with_limits

    ops = [("a", "nn.relu", ("p0",)), ("b", "nn.relu", ("a",))]
    prog = Program("gpus", 64, ["p0"], 1, ops, {}, {})
    for name, _, _ in ops:
        prog.times[name, HOST], prog.times[name, "cuda:0:global"], prog.times[name, "cuda:1:global"] = 1e-3, 1e-6, 1e-6
    prog.latency = {(a, b): 1e-6 for a in ("cpu", "gpu0", "gpu1") for b in ("cpu", "gpu0", "gpu1") if a != b}
    model = prog.model()
    g = build_graph(coarsen(extract(ir.parse(prog.text(), filename="prog.py")), model), model)
    with_limits(g, {"cuda:0:global": prog.nbytes})
    free = copy.copy(g)
    free.limits = [None] * g.num_devices
    on_gpu0 = [1] * g.num_units
    timing = list_schedule(free, on_gpu0)
    assert Plan(g, on_gpu0, timing).excess > 0
    plan = _best_renaming(g, free, [list(a) for a in free.allowed], on_gpu0, timing)
    assert plan.excess == 0 and set(plan.placement) == {2} and plan.makespan == timing.makespan


def test_twelve_like_gpus_are_renamed_in_a_few_ways_at_once() -> None:
    """A class of 12 interchangeable vdevices has 479M permutations: the renamings tried are the first
    `symmetry.RENAMINGS`, drawn without listing the rest (a 5 s call with one of them capped ran past 15 min)."""
    from vdplace.ir.vdevice import VDevice
    from vdplace.placement.cost.problem import coarsen
    from vdplace.placement.extract.extract import extract
    from vdplace.placement.schedule.graph import build_graph
    from vdplace.placement.schedule.symmetry import RENAMINGS, renamings, symmetric_classes

    text = """
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((64, 64), "float32"), w: R.Tensor((64, 64), "float32")) -> R.Tensor((64, 64), "float32"):
        R.func_attr({"num_input": 1})
        a = R.matmul(x, w)
        b = R.nn.relu(a)
        return b
"""
    mod = ir.parse(text).replace(vdevices=[VDevice("llvm", 0)] + [VDevice("cuda", i) for i in range(12)])
    model = CostModel.roofline()
    g = build_graph(coarsen(extract(mod), model), model)
    allowed = [list(a) for a in g.allowed]
    assert [len(c) for c in symmetric_classes(g, allowed)] == [12]
    found = renamings(g, allowed)
    assert len(found) == RENAMINGS and len({tuple(sorted(r.items())) for r in found}) == RENAMINGS
