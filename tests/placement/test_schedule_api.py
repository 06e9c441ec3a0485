"""The time objective through `place()` and the CLI: results, errors, conflicts, determinism, large programs."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from vdplace import ir
from vdplace.bench.generators import build_transformer
from vdplace.cli import main
from vdplace.placement import CostModel, PlacementConflict, PlacementError, PlacementInternalError, Time, place
from vdplace.placement.cost.problem import coarsen
from vdplace.placement.extract.extract import extract
from vdplace.placement.schedule.place import check_schedule
from vdplace.placement.schedule.solve import evaluate_plan, solve_time

pytest.importorskip("ortools")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DEVICES = '{"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]}'
EXAMPLE = f"""
@I.ir_module
class M:
    I.module_global_infos({DEVICES})
    @R.function
    def main(x: R.Tensor((256, 256), "float32"), w: R.Tensor((256, 256), "float32")) -> R.Tensor((256, 256), "float32"):
        R.func_attr({{"num_input": 1}})
        a = R.matmul(x, w)
        b = R.nn.softmax(a)
        c = R.matmul(b, w)
        d = R.add(a, c)
        return d
"""


def kernel_time(op, vdevice: str) -> float | None:
    if op.op == "nn.softmax" and vdevice.startswith("cuda"):
        return None
    return op.work.flops / (20e12 if vdevice.startswith("cuda") else 0.2e12)


MODEL = CostModel(kernel_time, copy_time=lambda nbytes, src, dst: 1e-5 + nbytes / 25e9)


def parse(text: str = EXAMPLE):
    return ir.parse(text, filename="m.py")


def test_schedule_of_the_example() -> None:
    mod = parse()
    result = place(mod, objective=Time(MODEL))
    s = result.schedule
    assert result.cost is None and s is not None
    assert s.optimal and s.gap == 0.0 and s.lower_bound <= s.makespan
    assert {e.kind for e in s.events} == {"op", "copy"}
    ops = {e.name: e for e in s.events if e.kind == "op"}
    assert set(ops) == {"a", "b", "c", "d"} and ops["b"].device == "llvm:0:global"
    # every copy event is named by the binding that makes it in the placed module
    copies = {c.var for c in result.copies}
    uploads = {e.name for e in s.events if e.kind == "copy" and e.name not in copies}
    assert uploads <= {"x"}  # the runtime input, uploaded from the host
    assert all(isinstance(e.device, tuple) and len(e.device) == 2 for e in s.events if e.kind == "copy")
    assert set(s.peak_memory) == {"llvm:0:global", "cuda:0:global"}
    assert "makespan" in s.describe() and "proved optimal" in s.describe()
    assert json.loads(json.dumps(s.as_dict()))["makespan"] == s.makespan


def test_runtime_inputs_start_on_the_host_and_weights_where_placed() -> None:
    text = f"""
@I.ir_module
class M:
    I.module_global_infos({DEVICES})
    @R.function
    def main(
        x: R.Tensor((64, 64), "float32", "cuda:0"), w: R.Tensor((64, 64), "float32", "cuda:0")
    ) -> R.Tensor((64, 64), "float32"):
        R.func_attr({{"num_input": 1}})
        a = R.matmul(x, w)
        return a
"""
    s = place(ir.parse(text, filename="m.py"), objective=Time(MODEL)).schedule
    upload = next(e for e in s.events if e.name == "x")
    assert upload.kind == "copy" and upload.device == ("llvm:0:global", "cuda:0:global") and upload.start == 0.0
    assert upload.nbytes == 64 * 64 * 4
    assert not any(e.name == "w" for e in s.events)  # a weight is where it is placed when the run starts
    a = next(e for e in s.events if e.name == "a")
    assert a.start >= upload.end


def test_the_schedule_is_checked_against_the_placed_module() -> None:
    mod = parse()
    result = place(mod, objective=Time(MODEL))
    s = result.schedule
    check_schedule(s, result.module, result.copies, Time(MODEL))
    op = next(e for e in s.events if e.kind == "op" and e.end > e.start)
    op.end += 1e-3
    with pytest.raises(PlacementInternalError, match="lasts"):
        check_schedule(s, result.module, result.copies, Time(MODEL))


def test_recursion_and_branches_are_refused_where_they_are() -> None:
    # calls of module functions are scheduled (tests/placement/test_schedule_calls.py); recursion is not
    calls = f"""
@I.ir_module
class M:
    I.module_global_infos({DEVICES})
    @R.function
    def f(x: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        y = R.add(x, x)
        z = M.f(y)
        return z
    @R.function
    def main(x: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        y = M.f(x)
        return y
"""
    with pytest.raises(PlacementError) as err:
        place(ir.parse(calls, filename="calls.py"), objective=Time(MODEL))
    assert "calls.py:8:" in str(err.value) and "'f'" in str(err.value) and "recursion" in str(err.value)
    branch = f"""
@I.ir_module
class M:
    I.module_global_infos({DEVICES})
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        if c:
            y = R.add(x, x)
        else:
            y = R.multiply(x, x)
        return y
"""
    with pytest.raises(PlacementError) as err:
        place(ir.parse(branch, filename="branch.py"), objective=Time(MODEL))
    assert "branch.py:" in str(err.value) and "R.If" in str(err.value)


def test_memory_conflict_names_the_device_the_moment_the_op_and_the_values() -> None:
    text = f"""
@I.ir_module
class M:
    I.module_global_infos({DEVICES})
    @R.function
    def main(x: R.Tensor((64, 64), "float32")) -> R.Tuple(R.Tensor((64, 64), "float32"), R.Tensor((64, 64), "float32")):
        a = R.nn.relu(x)
        b = R.nn.relu(a)
        c = R.nn.relu(b)
        t = (a, c)
        return t
"""

    def gpu_only(op, vdevice: str) -> float | None:
        return 1e-6 if vdevice.startswith("cuda") else None

    model = CostModel(gpu_only, lambda n, s, d: 1e-6)
    with pytest.raises(PlacementConflict) as err:  # a lives to the end; b and c: three values at c's run
        place(ir.parse(text, filename="m.py"), objective=Time(model, memory={"cuda:0": 2 * 64 * 64 * 4}))
    message = err.value.message
    assert "memory limit of cuda:0:global exceeded" in message and "(proved)" in message
    assert "while main:c runs there (m.py:9)" in message
    assert "main:a" in message and "main:b" in message
    explanation = err.value.explanation.as_dict()
    assert explanation["vdevice"] == "cuda:0:global" and explanation["limit_bytes"] == 2 * 64 * 64 * 4
    # with room for the three values it places
    result = place(ir.parse(text, filename="m.py"), objective=Time(model, memory={"cuda:0": 3 * 64 * 64 * 4}))
    assert result.schedule.peak_memory["cuda:0:global"] <= 3 * 64 * 64 * 4


def test_an_op_too_big_for_every_device_is_proved_at_once() -> None:
    with pytest.raises(PlacementConflict) as err:
        place(parse(), objective=Time(MODEL, memory={"cuda:0": "300KiB", "llvm:0": "300KiB"}))
    assert "(proved)" in err.value.message and "m.py:" in err.value.message


def test_symbolic_dims_are_timed_at_the_bound_or_the_size_given() -> None:
    """Durations of ops on a symbolic dim follow its ``tir_var_upper_bound``, or `dims` where given, in the
    schedule and in its check against the placed module alike."""
    text = EXAMPLE.replace('(256, 256), "float32"), w', '("n", 256), "float32"), w', 1)
    text = text.replace('-> R.Tensor((256, 256), "float32")', '-> R.Tensor(("n", 256), "float32")', 1)
    text = text.replace(
        'R.func_attr({"num_input": 1})', 'R.func_attr({"num_input": 1, "tir_var_upper_bound": {"n": 128}})'
    )
    assert '"n"' in text and "tir_var_upper_bound" in text
    for dims, rows in ((None, 128), ({"n": 64}, 64)):
        result = place(parse(text), objective=Time(MODEL), dims=dims)
        (a,) = [e for e in result.schedule.events if e.kind == "op" and e.name == "a"]
        flops = 2 * rows * 256 * 256
        assert a.end - a.start == pytest.approx(flops / (20e12 if a.device.startswith("cuda") else 0.2e12))
        assert result.stats.dims == {"n": rows}


def test_limits_and_tensors_past_64_bit_integers_place() -> None:
    """A limit no plan reaches (2**63 bytes and more) places as without it and is reported as given; tensors whose
    bytes pass 64-bit integers (a dim of 2**62) are placed within a limit without the exact solver's integers."""
    free = place(parse(), objective=Time(MODEL))
    for limit in (2**63 - 1, 10**23):
        capped = place(parse(), objective=Time(MODEL, memory={"cuda:0": limit}))
        assert capped.schedule.optimal and capped.schedule.makespan == free.schedule.makespan
        assert capped.schedule.limits == {"cuda:0:global": limit}
    rows = "(4611686018427387904, 256)"  # x, and every value made from it: 2**72 bytes each
    huge = parse(
        EXAMPLE.replace("x: R.Tensor((256, 256)", f"x: R.Tensor({rows}").replace(
            "-> R.Tensor((256, 256)", f"-> R.Tensor({rows}"
        )
    )
    result = place(huge, objective=Time(MODEL, memory={"cuda:0": "1GiB"}))
    assert result.schedule.peak_memory["cuda:0:global"] <= 2**30
    assert result.schedule.lower_bound <= result.schedule.makespan


def test_the_same_module_and_model_give_the_same_plan(monkeypatch) -> None:
    """Where no step is ended by the wall clock (`Schedule.stopped`), the plan is the same on every run: here
    CP-SAT's deterministic limit is made small enough for any machine to reach it before the clock."""
    from vdplace.placement.schedule import cpsat

    monkeypatch.setattr(cpsat, "DETERMINISTIC_PER_SECOND", 0.01)
    model = CostModel.roofline({"cpu": {"flops": 5e10, "bandwidth": 2e10, "overhead": 5e-6}})
    for mod, exact in ((build_transformer(36), True), (build_transformer(600), False)):
        runs = [place(mod, objective=Time(model, exact=exact), time_limit_s=3).schedule for _ in range(2)]
        assert runs[0].method == ("cp-sat" if exact else "list")
        assert all("clock" not in s.stopped.values() for s in runs)
        first, second = ([(e.name, e.device, e.start) for e in s.events] for s in runs)
        assert first == second


def test_a_large_program_gets_a_plan_within_the_time_limit_and_its_gap() -> None:
    mod = build_transformer(2400)
    model = CostModel.roofline({"cpu": {"flops": 5e10, "bandwidth": 2e10, "overhead": 5e-6}})
    co = coarsen(extract(mod), model)
    start = time.perf_counter()
    sol = solve_time(co, model, time_limit_s=3)
    assert time.perf_counter() - start <= 3 + 1
    s = sol.schedule
    assert sol.method == "list" and s.lower_bound <= s.makespan and 0.0 <= s.gap < 1.0
    # never worse than the cost objective's plan, one of its start plans
    from vdplace.placement.cost.solve import solve_cost

    cost_plan = solve_cost(co.problem).plan
    assert s.makespan <= evaluate_plan(co, model, cost_plan).makespan * (1 + 1e-12)


def test_time_takes_a_cost_model_and_no_other_objectives_options() -> None:
    with pytest.raises(TypeError):
        Time("roofline")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        place(parse(), objective=Time(MODEL), strict_hints=True)
    with pytest.raises(ValueError):
        Time(MODEL, memory={"cuda:0": "lots"})


@pytest.mark.parametrize("option", [{"specialize": True}, {"default": "host"}, {"cost": MODEL}])
def test_the_driver_refuses_what_time_cannot_use(option) -> None:
    with pytest.raises(ValueError, match="takes no|not both"):
        place(parse(), objective=Time(MODEL), **option)


def test_time_runs_through_the_one_driver() -> None:
    result = place(parse(), objective=Time(MODEL), time_limit_s=10)
    assert result.objective.name == "time" and result.report is result.schedule and result.cost is None
    assert result.stats.status == result.schedule.status == "optimal"
    assert set(result.stats.times) >= {"extract", "collapse", "solve", "check", "realize", "verify"}
    # backend and propagate are the cost plan's the search starts from: the same optimum either way
    other = place(parse(), objective=Time(MODEL), backend="z3", propagate=False, time_limit_s=10).schedule
    assert other.makespan == pytest.approx(result.schedule.makespan, rel=1e-9)
    with pytest.raises(ValueError, match="cost solver"):
        place(parse(), objective=Time(MODEL), backend="no-such-solver")
    with pytest.raises(PlacementError, match="rocm"):
        place(parse(), objective=Time(MODEL, memory={"rocm:0": "1GiB"}))


def test_cli_refuses_options_time_cannot_use(tmp_path, capsys) -> None:
    src = tmp_path / "m.py"
    src.write_text(EXAMPLE)
    assert main(["place", str(src), "--objective", "time", "--strict"]) == 2
    assert "time objective takes no strict_hints option" in capsys.readouterr().err
    assert main(["place", str(src), "--objective", "time", "--memory", "rocm:0=1GiB"]) == 2


def test_cli_prints_makespan_bound_gap_and_devices(tmp_path, capsys) -> None:
    src = tmp_path / "m.py"
    src.write_text(EXAMPLE)
    report = tmp_path / "out.html"
    status = main(["place", str(src), "--objective", "time", "--cost", "roofline", "--memory", "cuda:0=2GiB",
                   "--report", str(report), "--time-limit", "10"])  # fmt: skip
    out, err = capsys.readouterr()
    assert status == 0 and "R.to_vdevice" in out or "vdevice=" in out
    assert "# makespan" in err and "lower bound" in err or "proved optimal" in err
    assert "busy" in err and "idle" in err and "peak memory" in err and "of 2.0 GiB" in err
    page = report.read_text()
    assert (
        page.count("<svg") == 1
        and "cuda:0:global memory" in page
        and "http" not in page.replace("http://www.w3.org/2000/svg", "")
    )
    status = main(["place", str(src), "--objective", "time", "--cost", "roofline", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert status == 0 and document["schedule"]["makespan"] > 0 and document["schedule"]["events"]


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian package `chromium`)")
def test_gantt_page_renders_in_headless_chromium(tmp_path) -> None:
    from tests.placement.test_diagnostics import _png_pixels
    from vdplace.placement.schedule.gantt import gantt_html

    s = place(parse(), objective=Time(MODEL)).schedule
    page = tmp_path / "gantt.html"
    page.write_text(gantt_html(s, "m.py"))
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}"]
    dom = subprocess.run(
        [CHROMIUM, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    assert dom.count("<svg") == 1 and dom.count("marker-end") == sum(e.kind == "copy" for e in s.events)
    shot = tmp_path / "shot.png"
    subprocess.run(
        [CHROMIUM, *flags, f"--screenshot={shot}", "--window-size=1400,800", page.as_uri()],
        capture_output=True,
        timeout=120,
    )
    _, _, rows = _png_pixels(shot.read_bytes())
    blue, orange = bytes.fromhex("4e79a7"), bytes.fromhex("f28e2b")  # llvm:0 and cuda:0 op boxes and curves

    def count(colour: bytes) -> int:
        return sum(row[i : i + 3] == colour for row in rows for i in range(0, len(row), 3))

    assert count(blue) > 20 and count(orange) > 20


def test_the_readme_schedule_is_what_the_example_gives(capsys, monkeypatch, tmp_path) -> None:
    """The README's schedule for examples/schedule_branches.py is the command's stderr (the solve time aside)."""
    import os
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    readme = (root / "README.md").read_text()
    command = "vdplace place examples/schedule_branches.py --objective time --cost roofline --memory cuda:0=13MiB"
    assert command in readme
    block = readme.split(command, 1)[1].split("```\n", 2)[1]
    report = tmp_path / "out.html"
    assert main(command.split()[1:] + ["-o", os.devnull, "--report", str(report)]) == 0
    shown = re.sub(r"\d+\.\d+ s\)", "S s)", block)
    printed = re.sub(r"\d+\.\d+ s\)", "S s)", capsys.readouterr().err)
    assert shown.strip() and shown == printed
    assert report.read_text().count("<svg") == 1


def test_of_plans_with_the_optimal_makespan_the_one_copying_fewest_bytes_is_returned() -> None:
    """examples/schedule_branches.py has optimal plans with 4 and with 6 copies (1.0 and 1.5 MiB)."""
    from vdplace import ir
    from vdplace.placement import CostModel, Time, place

    mod = ir.parse_file(Path(__file__).resolve().parents[2] / "examples" / "schedule_branches.py")
    schedule = place(mod, objective=Time(CostModel.roofline(), memory={"cuda:0": "13MiB"})).schedule
    assert schedule is not None and schedule.optimal
    copies = [e for e in schedule.events if e.kind == "copy"]
    assert len(copies) == 4 and sum(e.nbytes for e in copies) == 2**20
