"""One driver, the objective as a parameter: `place(mod, objective=...)`, its options and its backends.

`Bytes()` and `Cost(model)` are two implementations of the `Objective`
contract (`placement/objective.py`); a third, written here, plugs in without
touching the driver.  Every option means the same under every objective and
one an objective cannot use is refused; the backends of both kinds of problem
live in one registry.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from vdplace import ir, placement, progress
from vdplace.cli import main as cli_main
from vdplace.ir import progress as library_progress
from vdplace.placement import Bytes, Cost, CostModel, Objective, PlacementConflict, place
from vdplace.placement.cost.problem import Coarsened
from vdplace.placement.cost.units import UnitObjective, UnitPlan
from vdplace.placement.diagnose import Diagnosis
from vdplace.placement.objective import Decision, Settings
from vdplace.placement.rewrite.realize import Copy

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HEADER = """
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)%s]})

    @R.function
    def main(x: R.Tensor((4,), "float32", "llvm")) -> R.Tensor((4,), "float32"):
        a = R.exp(x)
        b = R.negative(a)
        c = R.add(a, b)
        return c
"""
TWO = ir.parse(HEADER % "")
THREE = ir.parse(HEADER % ', I.vdevice("cuda", 1)')


def _model(memory: dict | None = None) -> CostModel:
    """The CPU takes 10 s per op, a GPU 1 s, a copy 0.5 s."""
    return CostModel(
        kernel_time=lambda op, vdevice: 10.0 if vdevice.startswith("llvm") else 1.0,
        copy_time=lambda n, s, d: 0.5,
        memory=memory,
    )


def test_bytes_is_the_default_and_cost_is_a_shorthand_for_the_cost_objective():
    default, explicit = place(TWO), place(TWO, objective=Bytes())
    assert ir.structural_equal(default.module, explicit.module)
    assert type(default.objective) is Bytes and default.report is None and default.cost is None
    model = _model()
    short, full = place(TWO, cost=model), place(TWO, objective=Cost(model))
    assert ir.structural_equal(short.module, full.module)
    assert short.cost.total == full.cost.total == pytest.approx(3 * 1.0 + 0.5)
    assert full.report is full.cost and full.schedule is None
    assert set(full.stats.times) == set(placement.api.PHASES)


def test_the_objective_is_checked():
    with pytest.raises(ValueError, match="objective= or its shorthand cost=, not both"):
        place(TWO, objective=Bytes(), cost=_model())
    with pytest.raises(TypeError, match="objective must be a placement.Objective"):
        place(TWO, objective="bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cost must be a placement.CostModel"):
        Cost({"cuda": 1})  # type: ignore[arg-type]


@pytest.mark.parametrize("option", [{"strict_hints": True}, {"default": "host"}, {"specialize": True}])
def test_an_option_the_objective_cannot_use_is_refused(option):
    with pytest.raises(ValueError, match=f"takes no {next(iter(option))} option"):
        place(TWO, objective=Cost(_model()), **option)


def test_the_time_limit_means_the_same_under_every_objective():
    for objective in (Bytes(), Cost(_model())):
        for wrong in (0, True, float("nan")):  # True is an int, not a number of seconds
            with pytest.raises(ValueError, match="time_limit_s must be a positive number"):
                place(TWO, objective=objective, time_limit_s=wrong)
        assert place(TWO, objective=objective, time_limit_s=5).module is not None


def test_backends_of_both_kinds_live_in_one_registry():
    assert placement.backend_names(placement.Problem) == ["z3", "z3-bv", "z3-enum"]
    assert placement.backend_names(placement.PlanProblem) == ["highs", "mincut", "z3"]
    with pytest.raises(ValueError, match="placement backend 'highs' does not decide Problems; use one of z3"):
        place(TWO, backend="highs")
    with pytest.raises(ValueError, match="cost solver 'z3-bv' does not decide PlanProblems; use one of highs"):
        place(TWO, cost=_model(), backend="z3-bv")
    with pytest.raises(ValueError, match="unknown cost solver 'gurobi'; use one of highs, mincut, z3"):
        place(TWO, cost=_model(), backend="gurobi")


@pytest.mark.parametrize("backend", ["highs", "z3"])
def test_cost_backends_and_propagation_agree(backend):
    """With propagation off the backend decides the whole plan; the optimum is the same."""
    model = _model({"cuda:0": 40, "cuda:1": 40})
    fast = place(THREE, cost=model, backend=backend)
    slow = place(THREE, cost=model, backend=backend, propagate=False)
    assert fast.cost.optimal and slow.cost.optimal
    assert slow.cost.total == pytest.approx(fast.cost.total)
    assert slow.stats.backend == backend and slow.stats.status == "optimal"


def test_the_mincut_backend_decides_two_vdevices_without_limits_only():
    model = _model()
    assert place(TWO, cost=model).stats.backend == ""  # the min cut is the objective's own exact step
    asked = place(TWO, cost=model, backend="mincut", propagate=False)
    assert asked.stats.backend == "mincut" and asked.cost.total == pytest.approx(3.5)
    with pytest.raises(ValueError, match="the mincut backend decides two vdevices with no memory limit"):
        place(THREE, cost=model, backend="mincut")


def test_memory_limits_are_constraints_of_the_objective():
    free = place(TWO, cost=_model())
    assert free.cost.memory["cuda:0:global"] == 4 * 16  # x's copy, a, b, c
    tight = place(TWO, objective=Cost(_model(), memory={"cuda:0": "48B"}))
    assert tight.cost.memory["cuda:0:global"] <= 48 and tight.cost.limits == {"cuda:0:global": 48}
    assert tight.cost.total > free.cost.total
    with pytest.raises(PlacementConflict):
        place(TWO, objective=Cost(_model(), memory={"llvm:0": 8}))


class _FirstDevice(UnitObjective):
    """A third objective, written against the contract only: every unit on its first allowed vdevice."""

    name = "first device"
    report_name = "schedule"
    default_backend = "highs"

    def plan(self, co: Coarsened, settings: Settings) -> UnitPlan:
        p = co.problem
        return UnitPlan(
            [next(d for d in range(p.num_devices) if p.compute[u][d] is not None) for u in range(p.num_units)], "first"
        )

    def verify(self, decision: Decision, placed: ir.IRModule, copies: list[Copy]) -> dict[str, object]:
        return {"outcome": decision.outcome, "copies": len(copies)}


def test_a_third_objective_plugs_in_without_touching_the_driver():
    result = place(TWO, objective=_FirstDevice(_model()))
    assert isinstance(result.objective, Objective)
    assert result.schedule == {"outcome": "first", "copies": 0} and result.cost is None
    assert all(v == ir.VDevice("llvm", 0) for v in result.devices.values())


def test_specialize_is_a_wrapper_above_the_driver():
    helper = ir.parse_file(EXAMPLES / "specialize_helper.py")
    wrapped = placement.specialize(helper, default="host")
    flag = place(helper, specialize=True, default="host")
    assert ir.structural_equal(wrapped.module, flag.module) and wrapped.clones == flag.clones


def test_the_driver_gives_the_advice_and_the_diagnosis_never_places(monkeypatch):
    helper = ir.parse_file(EXAMPLES / "specialize_helper.py")
    with pytest.raises(PlacementConflict) as info:
        place(helper)
    assert isinstance(info.value.explanation, Diagnosis) and info.value.explanation.advice is not None

    def refuse(self, mod):
        raise AssertionError("the diagnosis placed a module")

    monkeypatch.setattr(placement.api.Driver, "__call__", refuse)
    fixes = [fix.message for conflict in info.value.conflicts for fix in conflict.fixes if fix.kind == "specialize"]
    assert fixes and fixes[0].startswith("place with specialize=True")


def test_the_display_draws_the_library_stages():
    stream = io.StringIO()
    with progress.display(stream=stream, delay_s=0.0, force=True):
        with library_progress.stage("find conflicts", total=3) as tick:
            tick(2)
            stream.flush()
            shown = stream.getvalue()
    assert "find conflicts" in shown
    with library_progress.stage("quiet") as tick:
        assert tick is library_progress.no_tick


def test_the_command_line_refuses_options_the_objective_cannot_use(tmp_path, capsys):
    path = tmp_path / "m.py"
    path.write_text(HEADER % "")
    assert cli_main(["place", str(path), "--memory", "cuda:0=1GiB", "--strict"]) == 2
    assert "takes no strict_hints option" in capsys.readouterr().err
    assert cli_main(["place", str(path), "--time-limit", "5"]) == 0
