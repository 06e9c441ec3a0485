"""Cost-aware placement (`place(mod, cost=...)`): plans against a brute force, limits, the placed module's cost.

The brute force enumerates every assignment of the coarsened units and prices
it with its own code (below), never the solvers' objective: compute from the
problem's per-unit kernel sums, copies from the relaxed uses, one copy per
value and destination, the first copy into a physical device paying.
"""

from __future__ import annotations

import itertools
import random
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.strategies import small_modules
from vdplace import ir, placement, runtime
from vdplace.ir.vdevice import VDevice, vdevice_name
from vdplace.placement.cost import CostModel
from vdplace.placement.cost.evaluate import evaluate
from vdplace.placement.cost.mincut import solve_mincut
from vdplace.placement.cost.problem import coarsen
from vdplace.placement.errors import PlacementConflict, PlacementError
from vdplace.placement.extract.extract import extract
from vdplace.placement.report import render_html, render_json, render_text

CPU, GPU0, GPU1 = VDevice("llvm", 0), VDevice("cuda", 0), VDevice("cuda", 1)
TEXTURE = VDevice("cuda", 0, "global.texture")
DEVICE_SETS = ([CPU, GPU0], [CPU, GPU0, GPU1], [CPU, GPU0, TEXTURE])


def random_model(seed: int, vdevices: list[VDevice], limits: bool) -> CostModel:
    """Kernel times per (function, variable, device) drawn from `seed`; some ops cannot run off the CPU."""
    rng = random.Random(seed)
    table: dict[tuple[str, str, str], float | None] = {}
    rates = {(a, b): rng.choice([0.0, 1e-3, 5e-3, 2e-2]) for a in range(3) for b in range(3)}

    def kernel(op, name: str) -> float | None:
        key = (op.function, op.name, name)
        if key not in table:
            r = random.Random(f"{seed}:{key}")
            table[key] = None if (not name.startswith("llvm") and r.random() < 0.15) else r.choice([0.1, 0.5, 1, 2, 4])
        return table[key]

    names = [vdevice_name(vdevices, v) for v in vdevices]

    def copy(nbytes: int, src: str, dst: str) -> float:
        return 0.05 + nbytes * rates[names.index(src), names.index(dst)]

    memory = {names[1]: rng.choice([64, 160, 400])} if limits and rng.random() < 0.7 else {}
    return CostModel(kernel_time=kernel, copy_time=copy, memory=memory)


def brute_force(mod: ir.IRModule, model: CostModel) -> float | None:
    """The least cost over every assignment of the units that fits the limits; None when none fits."""
    co = coarsen(extract(mod), model)
    p = co.problem
    k = p.num_devices
    options = [[d for d in range(k) if p.compute[u][d] is not None] for u in range(p.num_units)]
    roots: dict[int, list[tuple[int, int]]] = {}
    for use in co.uses:
        roots.setdefault(use.root, []).append((co.classes.of[use.root], co.classes.of[use.consumer]))
    best = None
    for plan in itertools.product(*options):
        total = sum(p.compute[u][d] for u, d in enumerate(plan))
        memory = [0] * k
        for u, d in enumerate(plan):
            memory[d] += p.memory[u]
        for root, pairs in roots.items():
            home = plan[pairs[0][0]]
            nbytes = co.ex.constraints.sites[root].nbytes
            dests = sorted({plan[c] for _, c in pairs} - {home})
            paid = set()
            for d in dests:
                memory[d] += nbytes
                phys = p.vdevices[d].physical
                if phys != p.vdevices[home].physical and phys not in paid:
                    paid.add(phys)
                    total += model.copy(nbytes, p.vdevices[home], p.vdevices[d], p.vdevices)
        if any(lim is not None and memory[d] > lim for d, lim in enumerate(p.limits)):
            continue
        best = total if best is None else min(best, total)
    return best


def _runs_like_reference(mod: ir.IRModule, placed: ir.IRModule) -> None:
    exe = runtime.VirtualMachine(runtime.compile(placed), simulate_missing=True)
    inputs = runtime.random_inputs(mod, "main", rng=np.random.default_rng(3))
    got, want = exe.run("main", *inputs), runtime.run_reference(mod, "main", *inputs)
    for g, w in zip(_flat(got), _flat(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)


def _flat(value):
    if isinstance(value, tuple):
        for v in value:
            yield from _flat(v)
    else:
        yield value


@st.composite
def cases(draw: st.DrawFn, limits: bool = True):
    vdevices = draw(st.sampled_from(DEVICE_SETS))
    mod = draw(small_modules(vdevices=vdevices, allow_conflicts=False))
    return mod, random_model(draw(st.integers(0, 10**6)), vdevices, limits)


@pytest.mark.parametrize("solver", ["highs", "z3"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_plan_is_the_brute_force_optimum(solver, case) -> None:
    mod, model = case
    try:
        want = brute_force(mod, model)
    except PlacementError:
        with pytest.raises(PlacementError):
            placement.place(mod, cost=model, backend=solver)
        return
    if want is None:
        with pytest.raises((PlacementConflict, PlacementError)):
            placement.place(mod, cost=model, backend=solver)
        return
    result = placement.place(mod, cost=model, time_limit_s=30, backend=solver)
    cost = result.cost
    assert cost.optimal
    if result.cost.method not in ("trivial", "mincut", "lagrange"):
        assert result.cost.method.endswith({"highs": "milp", "z3": "maxsat"}[solver])
    assert cost.total == pytest.approx(want, rel=1e-9, abs=1e-12)
    assert cost.lower_bound <= cost.total + 1e-12
    for name, limit in cost.limits.items():
        assert cost.memory[name] <= limit
    again = evaluate(result.module, model)
    assert again.total == pytest.approx(cost.total, rel=1e-12, abs=1e-15)
    assert list(again.memory.values()) == list(cost.memory.values())
    _runs_like_reference(mod, result.module)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mincut_agrees_with_brute_force(data) -> None:
    mod = data.draw(small_modules(vdevices=[CPU, GPU0], allow_conflicts=False))
    model = random_model(data.draw(st.integers(0, 10**6)), [CPU, GPU0], limits=False)
    try:
        co = coarsen(extract(mod), model)
    except PlacementError:
        return
    p = co.problem
    if any(all(t is None for t in row) for row in p.compute):
        return
    plan, cut = solve_mincut(p)
    assert all(p.compute[u][d] is not None for u, d in enumerate(plan))
    assert cut == pytest.approx(brute_force(mod, model), rel=1e-9, abs=1e-12)


HEADER = """
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})
"""


def _module(body: str) -> ir.IRModule:
    return ir.parse(HEADER + body)


def _fixed(times: dict[str, float], copy: float = 1.0, memory: dict | None = None) -> CostModel:
    """Kernel times by op name on cuda (the CPU always takes 10 s); `None` values cannot run on cuda."""

    def kernel(op, vdevice: str) -> float | None:
        return 10.0 if vdevice.startswith("llvm") else times.get(op.op, 1.0)

    return CostModel(kernel_time=kernel, copy_time=lambda n, s, d: copy, memory=memory)


def _to_vdevice(mod: ir.IRModule) -> list[str]:
    return [line.strip() for line in ir.script(mod).splitlines() if "R.to_vdevice" in line]


def test_one_copy_per_value_and_destination() -> None:
    mod = _module("""
    @R.function
    def main(x: R.Tensor((4,), "float32", "llvm")) -> R.Tensor((4,), "float32"):
        a = R.exp(x)
        b = R.negative(x)
        c = R.add(a, b)
        return c
""")
    result = placement.place(mod, cost=_fixed({}))
    assert [line.split(":")[0] for line in _to_vdevice(result.module)] == ["x_cuda_0_global"]
    assert result.cost.total == pytest.approx(3 * 1.0 + 1.0)
    assert result.cost.optimal and result.cost.method == "mincut"
    assert [t.var for t in result.cost.transfers] == ["x_cuda_0_global"]
    assert all(copy.inserted for copy in result.copies)
    _runs_like_reference(mod, result.module)


def test_unsupported_op_stays_off_and_a_copy_returns() -> None:
    mod = _module("""
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        a = R.exp(x)
        b = R.tanh(a)
        c = R.negative(b)
        return c
""")
    result = placement.place(mod, cost=_fixed({"tanh": None}, copy=0.5))
    devices = {k.split(":")[1]: v.kind for k, v in result.devices.items() if v is not None}
    assert devices["b"] == "llvm" and devices["a"] == "cuda" and devices["c"] == "cuda"
    assert result.cost.total == pytest.approx(1 + 10 + 1 + 0.5 + 0.5)


def test_hint_result_is_pinned_its_input_is_free() -> None:
    mod = _module("""
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        a = R.exp(x)
        h = R.hint_on_device(a, R.device(1, 0))
        c = R.negative(h)
        return c
""")
    result = placement.place(mod, cost=_fixed({}))
    assert result.devices["main:h"].kind == "llvm"
    assert result.devices["main:a"].kind == "cuda"
    assert len(_to_vdevice(result.module)) == 1


def test_to_vdevice_already_there_is_an_alias() -> None:
    mod = _module("""
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        a = R.exp(x)
        m = R.to_vdevice(a, "cuda")
        c = R.negative(m)
        return c
""")
    result = placement.place(mod, cost=_fixed({}))
    assert _to_vdevice(result.module) == [] and result.cost.transfer == 0
    assert result.cost.total == pytest.approx(2.0)


def test_callee_placed_once_for_every_call_site() -> None:
    mod = _module("""
    @R.function
    def f(y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        z = R.exp(y)
        return z

    @R.function
    def main(x: R.Tensor((4,), "float32", "llvm")) -> R.Tensor((4,), "float32"):
        cls = M
        a = cls.f(x)
        b = cls.f(a)
        return b
""")
    result = placement.place(mod, cost=_fixed({}, copy=0.25))
    assert result.devices["f:z"].kind == "cuda"
    assert result.cost.compute == pytest.approx(1.0)  # the callee counts once
    assert result.cost.transfer == pytest.approx(0.25)
    _runs_like_reference(mod, result.module)


def test_memory_limit_is_respected_and_reported() -> None:
    body = """
    @R.function
    def main(x: R.Tensor((64,), "float32"), w: R.Tensor((64,), "float32")) -> R.Tensor((64,), "float32"):
        a = R.multiply(x, w)
        b = R.exp(a)
        c = R.add(b, w)
        return c
"""
    free = placement.place(_module(body), cost=_fixed({}))
    assert free.cost.memory["cuda:0:global"] == 5 * 256
    tight = placement.place(_module(body), cost=_fixed({}, memory={"cuda:0": 600}))
    assert tight.cost.memory["cuda:0:global"] <= 600 and tight.cost.optimal
    assert tight.cost.total > free.cost.total


def test_pinned_bytes_over_the_limit_is_a_conflict_naming_them() -> None:
    mod = _module("""
    @R.function
    def main(x: R.Tensor((64,), "float32", "cuda")) -> R.Tensor((64,), "float32"):
        a = R.exp(x)
        return a
""")
    with pytest.raises(PlacementConflict) as info:
        placement.place(mod, cost=_fixed({}, memory={"cuda:0": "100B"}))
    text = str(info.value)
    assert "cuda:0:global" in text and "256 bytes" in text and "100 bytes" in text and "main:x" in text
    assert "<module>:7: main:x" in text  # the pinned parameter's source line


def test_a_value_that_a_pin_reads_counts_where_the_pin_is() -> None:
    """`a` runs anywhere, but the hint pinned on cuda reads it: its bytes live there or are copied there."""
    mod = _module("""
    @R.function
    def main(x: R.Tensor((64,), "float32", "cuda"), w: R.Tensor((64,), "float32")) -> R.Tensor((64,), "float32"):
        a = R.multiply(x, w)
        b = R.hint_on_device(a, R.device(device_type=2, index=0))
        return b
""")
    with pytest.raises(PlacementConflict) as info:
        placement.place(mod, cost=_fixed({}, memory={"cuda:0": "300B"}))
    text = str(info.value)
    assert "512 bytes must live there" in text and "<module>:7: main:x: 256 bytes, pinned there" in text
    assert "<module>:8: main:a: 256 bytes, lives there or is copied there" in text
    document = render_json(info.value)
    assert (document["kind"], document["vdevice"], document["required_bytes"]) == ("memory", "cuda:0:global", 512)
    assert [(item["label"], item["line"]) for item in document["items"]] == [("main:x", 7), ("main:a", 8)]
    assert "main:a" in render_text(info.value) and "<title>" in render_html(info.value)


@pytest.mark.parametrize("solver", ["highs", "z3"])
def test_time_limit_gives_a_fitting_plan_and_a_bound(solver) -> None:
    lines = ["    @R.function", '    def main(x: R.Tensor((64,), "float32")) -> R.Tensor((64,), "float32"):']
    prev = "x"
    for i in range(300):
        op = ("exp", "negative", "tanh")[i % 3]
        lines.append(f"        v{i} = R.{op}({prev})")
        prev = f"v{i}"
    lines.append(f"        return {prev}")
    three = HEADER.replace('I.vdevice("cuda", 0)]', 'I.vdevice("cuda", 0), I.vdevice("cuda", 1)]')
    mod = ir.parse(three + "\n".join(lines))

    def kernel(op, vdevice: str) -> float:
        return [3.0, 1.0, 1.5][zlib.crc32(f"{op.name}{vdevice}".encode()) % 3]

    model = CostModel(kernel_time=kernel, copy_time=lambda n, s, d: 0.7, memory={"cuda:0": 20000})
    result = placement.place(mod, cost=model, time_limit_s=1.0, backend=solver)
    cost = result.cost
    assert cost.lower_bound <= cost.total and cost.memory["cuda:0:global"] <= 20000
    assert cost.optimal or cost.gap > 0


def test_cost_options_are_checked() -> None:
    mod = _module("""
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        a = R.exp(x)
        return a
""")
    with pytest.raises(TypeError):
        placement.place(mod, cost={"cuda": 1})
    with pytest.raises(ValueError):
        placement.place(mod, cost=CostModel(), time_limit_s=0)
    with pytest.raises(ValueError):
        placement.place(mod, cost=CostModel(), strict_hints=True)
    with pytest.raises(ValueError, match="unknown cost solver 'gurobi'"):
        placement.place(mod, cost=CostModel(), backend="gurobi")
    with pytest.raises(PlacementError):
        placement.place(mod, cost=CostModel(memory={"tpu:0": 10}))


def test_cli_place_with_cost_and_memory(tmp_path, capsys) -> None:
    from vdplace.cli import main

    source = tmp_path / "m.py"
    source.write_text(
        HEADER
        + """
    @R.function
    def main(x: R.Tensor((64, 64), "float32", "cuda"), w: R.Tensor((64, 64), "float32")):
        a = R.matmul(x, w)
        b = R.exp(a)
        return b
"""
    )
    costs = tmp_path / "costs.json"
    CostModel.roofline().to_json(str(costs))
    assert main(["place", str(source), "--cost", str(costs), "--memory", "cuda:0=1MiB"]) == 0
    err = capsys.readouterr().err
    assert "estimated time" in err and "cuda:0:global: compute" in err and "proved optimal" in err
    assert main(["place", str(source), "--memory", "cuda:0=10KiB"]) == 1
    assert "memory limit of cuda:0:global exceeded" in capsys.readouterr().err
    assert main(["place", str(source), "--memory", "cuda:0=lots"]) == 2


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_lagrangian_bound_and_repaired_plans(data) -> None:
    from vdplace.placement.cost.lagrange import lagrangian
    from vdplace.placement.cost.objective import plan_cost
    from vdplace.placement.cost.repair import fit, improve

    mod = data.draw(small_modules(vdevices=[CPU, GPU0], allow_conflicts=False))
    model = random_model(data.draw(st.integers(0, 10**6)), [CPU, GPU0], limits=True)
    try:
        p = coarsen(extract(mod), model).problem
    except PlacementError:
        return
    if any(all(t is None for t in row) for row in p.compute) or p.limits[1] is None:
        return
    want = brute_force(mod, model)
    result = lagrangian(p, 5.0)
    if want is None:
        assert result.plan is None
        return
    assert result.lower_bound <= want * (1 + 1e-9) + 1e-12
    if result.plan is not None:
        assert plan_cost(p, result.plan).feasible and result.cost.total >= want * (1 - 1e-9) - 1e-12
    start = [1 if p.compute[u][1] is not None else 0 for u in range(p.num_units)]
    fitted = fit(p, start, deadline=float("inf"))
    if fitted is not None:
        assert plan_cost(p, fitted).feasible
        better = improve(p, fitted, deadline=float("inf"))
        assert plan_cost(p, better).feasible and plan_cost(p, better).total <= plan_cost(p, fitted).total + 1e-12


def test_cli_adds_vdevices_to_frontend_output(tmp_path, capsys) -> None:
    """Frontend output declares no vdevice: --vdevice adds them; without, a one-line error naming the file."""
    from vdplace.cli import main

    source = tmp_path / "m.py"
    source.write_text(
        "\n".join(line for line in HEADER.splitlines() if "module_global_infos" not in line)
        + """
    @R.function
    def main(x: R.Tensor((64, 64), "float32"), w: R.Tensor((64, 64), "float32")):
        a = R.matmul(x, w)
        return a
"""
    )
    assert main(["place", str(source), "--memory", "cuda:0=1MiB"]) == 2
    assert f"error: {source}: cost-aware placement needs the module to declare its vdevices" in capsys.readouterr().err
    assert main(["place", str(source), "--vdevice", "llvm:0", "--vdevice", "cuda:0", "--memory", "cuda:0=1MiB"]) == 0
    out = capsys.readouterr()
    assert 'I.vdevice("cuda", 0, "global")' in out.out and "proved optimal" in out.err
    assert main(["place", str(source), "--vdevice", "cuda:x"]) == 2
    assert "--vdevice 'cuda:x'" in capsys.readouterr().err


def test_an_unbound_constant_and_a_more_precise_annotation_cost_the_same_placed() -> None:
    # The frontend leaves a weight as an unbound `metadata[...]` constant (its shape unknown), so the
    # multiply infers an unknown shape that its annotation makes (2, 3): the plan counts the work of
    # the annotated result, which placement writes into the placed call.
    mod = _module("""
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        y: R.Tensor((2, 3), "float32") = R.multiply(x, metadata["ir.GenericConst"][0])
        return y
""")
    assert mod["main"].body.blocks[0].bindings[0].value.struct_info.ndim == -1
    result = placement.place(mod, cost=CostModel.roofline())
    assert result.cost.total == pytest.approx(evaluate(result.module, CostModel.roofline()).total)


def test_a_constant_read_only_for_its_shape_is_held_nowhere() -> None:
    mod = _module("""
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        s: R.Shape([4]) = R.shape_of(R.const([1.0, 2.0, 3.0, 4.0], "float32"))
        y = R.reshape(x, s)
        return y
""")
    result = placement.place(mod, cost=_fixed({}))
    assert sum(result.cost.memory.values()) == 2 * 16  # x and y; not the constant
    _runs_like_reference(mod, result.module)
