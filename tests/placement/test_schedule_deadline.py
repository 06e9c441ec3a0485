"""The time objective's time limit (`placement.schedule.deadline`): counted work decides, the clock is a safety net.

No assertion here reads the wall clock: the clock is frozen (nothing ends by
it, so the counted work alone decides) or advanced by a fixed step per
reading (a machine far slower than the nominal pace), both deterministic.
"""

from __future__ import annotations

import logging
import time

import pytest

from vdplace.bench.generators import build_transformer
from vdplace.placement import CostModel, Time, place
from vdplace.placement.cost.problem import coarsen
from vdplace.placement.extract.extract import extract
from vdplace.placement.schedule import deadline
from vdplace.placement.schedule.bounds import lower_bound, serial_total, subset_bound
from vdplace.placement.schedule.graph import build_graph
from vdplace.placement.schedule.solve import solve_time

pytest.importorskip("ortools")

MODEL = CostModel.roofline({"cpu": {"flops": 5e10, "bandwidth": 2e10, "overhead": 5e-6}})


class Clock:
    """``time.perf_counter`` standing still (`step` 0) or advancing `step` seconds at every reading."""

    def __init__(self, step: float) -> None:
        self.now = 1000.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture
def coarsened():
    mod = build_transformer(2400)  # ~2.5k op calls: above CP-SAT's size, the search's alone
    return coarsen(extract(mod, settle=False), MODEL)


def test_a_limit_below_the_fixed_work_gives_the_least_plan_its_bound_and_a_warning(monkeypatch, caplog) -> None:
    monkeypatch.setattr(time, "perf_counter", Clock(0.0))
    mod = build_transformer(2400)
    with caplog.at_level(logging.WARNING, logger="vdplace"):
        s = place(mod, objective=Time(MODEL), time_limit_s=0.01).schedule
    # every optional step stopped by the counted work, none by the (frozen) clock
    assert s.stopped == {"bound": "budget", "start plans": "budget", "search": "budget"}
    assert s.method == "list" and s.status == "time limit"
    assert 0 < s.lower_bound <= s.makespan
    assert s.as_dict()["stopped"] == s.stopped
    [record] = [r for r in caplog.records if "time_limit_s=0.01" in r.getMessage()]
    assert "before any search" in record.getMessage() and "a limit of" in record.getMessage()


def test_the_bound_computed_so_far_is_the_work_over_devices(coarsened) -> None:
    """At a limit that pays the least plan only, the bound is `subset_bound`'s; with time, the better one."""
    g = build_graph(coarsened, MODEL)
    allowance = deadline.Allowance(1.0, 0.0, whole=False)
    short = allowance.fixed_seconds(g) * 1.01
    sol = solve_time(coarsened, MODEL, time_limit_s=short, started=None)
    assert sol.stopped["bound"] in ("budget", "clock")
    assert sol.lower_bound == pytest.approx(subset_bound(g, g.allowed))
    roomy = solve_time(coarsened, MODEL, time_limit_s=20)
    assert "bound" not in roomy.stopped
    assert roomy.lower_bound == pytest.approx(max(lower_bound(g), subset_bound(g, g.allowed)))


def test_the_counted_budget_decides_the_plan_whatever_the_pace(monkeypatch, coarsened) -> None:
    """A frozen clock and one advancing by a microsecond a reading give the same plan: the search ends by
    its budget of simulated op calls, and says so."""
    runs = []
    for step in (0.0, 1e-6):
        monkeypatch.setattr(time, "perf_counter", Clock(step))
        sol = solve_time(coarsened, MODEL, time_limit_s=1.0)
        runs.append((sol.plan, sol.lower_bound, dict(sol.stopped)))
    assert runs[0] == runs[1]
    assert runs[0][2].get("search") == "budget" and "bound" not in runs[0][2]


def test_the_clock_stops_each_step_and_the_result_says_so(monkeypatch, coarsened) -> None:
    """On a machine far slower than the nominal pace (every clock reading half a second later), the safety net ends
    the steps the limit's counted work would pay: a plan and a bound still come back, the steps say "clock"."""
    monkeypatch.setattr(time, "perf_counter", Clock(0.5))
    sol = solve_time(coarsened, MODEL, time_limit_s=5.0)
    assert sol.plan is not None and sol.schedule is not None
    assert 0 < sol.lower_bound <= sol.schedule.makespan
    assert "clock" in sol.stopped.values()
    assert sol.schedule.stopped == sol.stopped


def test_the_fixed_work_scales_with_the_program(coarsened) -> None:
    """The estimate is counted from the task graph's size: the whole call's is larger than the solver's, and a
    program twice the size needs twice the time."""
    g = build_graph(coarsened, MODEL)
    big = build_graph(coarsen(extract(build_transformer(4800), settle=False), MODEL), MODEL)
    whole, alone = deadline.Allowance(5.0, 0.0, whole=True), deadline.Allowance(5.0, 0.0, whole=False)
    assert whole.fixed_seconds(g) > alone.fixed_seconds(g) > 0
    assert whole.fixed_seconds(big) == pytest.approx(2 * whole.fixed_seconds(g), rel=0.05)
    assert whole.optional_s(g) == pytest.approx(5.0 - whole.fixed_seconds(g))


def test_the_report_names_the_steps_the_limit_ended(monkeypatch) -> None:
    monkeypatch.setattr(time, "perf_counter", Clock(0.0))
    s = place(build_transformer(600), objective=Time(MODEL), time_limit_s=0.001).schedule
    assert "ended by the time limit: bound (budget), start plans (budget), search (budget)" in s.describe()


def test_a_small_program_past_its_limit_skips_the_exact_solver(monkeypatch) -> None:
    monkeypatch.setattr(time, "perf_counter", Clock(0.0))
    s = place(build_transformer(36), objective=Time(MODEL), time_limit_s=0.0001).schedule
    assert s.method == "list" and s.stopped["cp-sat"] == "budget"
    assert 0 < s.lower_bound <= s.makespan


def _hard_sat() -> object:
    """A CP-SAT model no search decides within a fraction of a second: random 3-SAT past the threshold (350
    variables, 1540 clauses, from a fixed generator: one worker leaves it undecided after 20 s)."""
    import random

    from ortools.sat.python import cp_model

    rng = random.Random(8)
    m = cp_model.CpModel()
    x = [m.new_bool_var(f"x{i}") for i in range(350)]
    for _ in range(1540):
        picked = rng.sample(range(350), 3)
        m.add_bool_or([x[i] if rng.random() < 0.5 else ~x[i] for i in picked])
    return m


def test_clock_ended_tells_the_wall_clock_from_the_deterministic_limit() -> None:
    """`cpsat.clock_ended` is what `Schedule.stopped` records as ``"cp-sat": "clock"``."""
    from ortools.sat.python import cp_model

    from vdplace.placement.schedule.cpsat import clock_ended

    by_clock = cp_model.CpSolver()
    by_clock.parameters.max_time_in_seconds = 0.2
    by_clock.parameters.max_deterministic_time = 1e6
    clock_status = by_clock.solve(_hard_sat())
    by_units = cp_model.CpSolver()
    by_units.parameters.max_time_in_seconds = 60.0
    by_units.parameters.max_deterministic_time = 0.005
    units_status = by_units.solve(_hard_sat())
    assert clock_status == cp_model.UNKNOWN and clock_ended(by_clock, clock_status)
    assert units_status == cp_model.UNKNOWN and not clock_ended(by_units, units_status)


def test_a_cp_sat_search_ended_by_the_clock_is_in_stopped(monkeypatch) -> None:
    from vdplace.placement.schedule import cpsat

    monkeypatch.setattr(cpsat, "clock_ended", lambda solver, status: True)
    s = place(build_transformer(12), objective=Time(MODEL), time_limit_s=5).schedule
    assert s.method == "cp-sat" and s.stopped.get("cp-sat") == "clock"


def test_an_integer_relaxation_ended_by_the_clock_is_in_stopped(monkeypatch) -> None:
    """The relaxation's CP-SAT search (`lp_bound.integer_bound`) has the same safety net as the others: where
    the wall clock ended it, `stopped` says ``"cp-sat": "clock"`` even when every other search finished."""
    from vdplace.placement.schedule import cpsat, lp_bound, solve

    calls = []

    def ended_by_clock(*args: object) -> lp_bound.IntegerBound:
        calls.append(args)
        return lp_bound.IntegerBound(0.0, None, 0.0, True)

    monkeypatch.setattr(cpsat, "clock_ended", lambda solver, status: False)
    monkeypatch.setattr(solve, "integer_bound", ended_by_clock)
    s = place(build_transformer(12), objective=Time(MODEL), time_limit_s=5).schedule
    assert calls and s.stopped.get("cp-sat") == "clock"


@pytest.mark.parametrize("memory", [None, {"cuda:0": "1GiB"}], ids=["free", "capped"])
def test_every_search_leaves_the_slow_subsolvers_out(monkeypatch, memory) -> None:
    """`cpsat.SLOW_SUBSOLVERS` are left out of every CP-SAT search, with memory limits and without them
    (docs/schedule.md, "Time and determinism")."""
    from vdplace.placement.schedule import cpsat

    ignored = []
    configured = cpsat.configured_solver

    def recording(*args: object) -> object:
        solver = configured(*args)
        ignored.append(list(solver.parameters.ignore_subsolvers))
        return solver

    monkeypatch.setattr(cpsat, "configured_solver", recording)
    s = place(build_transformer(12), objective=Time(MODEL, memory=memory), time_limit_s=5).schedule
    assert s.method == "cp-sat" and ignored
    assert all(set(cpsat.SLOW_SUBSOLVERS) <= set(names) for names in ignored)


def test_the_linear_relaxations_are_charged_before_they_run_and_ended_by_the_clock(monkeypatch) -> None:
    """A relaxation whose estimate (`lp_allowance.SECONDS_PER_NONZERO` a nonzero) passes what is left is left
    out, proving the cheap bounds alone; one past its wall-clock end is left out too; one that HiGHS's time
    limit ends proves nothing and is noted as ``"clock"``."""
    from vdplace.placement.schedule import lp_allowance
    from vdplace.placement.schedule.lp_allowance import LPAllowance

    g = build_graph(coarsen(extract(build_transformer(60), settle=False), MODEL), MODEL)
    full = lower_bound(g)
    cheap = LPAllowance(0.0)
    assert lower_bound(g, lp=cheap) <= full and cheap.skipped and cheap.spent == 0.0
    paid = LPAllowance(10.0)
    assert lower_bound(g, lp=paid) == full and not paid.skipped and 0 < paid.spent <= 10.0
    late = LPAllowance(10.0, until=time.perf_counter() - 1.0)
    assert lower_bound(g, lp=late) <= full and late.skipped
    stopped: dict[str, str] = {}
    assert not cheap.record(stopped) and stopped == {"bound": "budget"}
    ended = LPAllowance(10.0)
    ended.ended(1)  # linprog's status at HiGHS's time limit
    assert ended.record(stopped) and stopped == {"bound": "clock"}
    monkeypatch.setattr(lp_allowance, "SECONDS_PER_NONZERO", 1.0)  # every relaxation past a 5 s limit's share
    s = place(build_transformer(60), objective=Time(MODEL), time_limit_s=5).schedule
    assert s.stopped.get("bound") == "budget" and 0 < s.lower_bound <= s.makespan


def _graph_with_heads(n: int, count: int = 2):
    """The task graph of a transformer of `n` layers on llvm:0 and `count - 1` GPUs, its vdevices per unit and
    its heads and tails (`bounds.heads_tails`)."""
    from vdplace.ir.vdevice import VDevice
    from vdplace.placement.schedule.bounds import effective_allowed, heads_tails

    mod = build_transformer(n)
    mod = mod.replace(vdevices=[VDevice("llvm", 0), *(VDevice("cuda", i) for i in range(count - 1))])
    model = CostModel.roofline()
    g = build_graph(coarsen(extract(mod, settle=False), model), model)
    allowed = effective_allowed(g)
    assert allowed is not None
    return g, allowed, heads_tails(g, allowed)


def test_the_integer_relaxation_is_charged_its_build_and_one_past_half_its_share_is_not_built(monkeypatch) -> None:
    """`lp_bound.integer_bound` counts its model's build (`BUILD_SECONDS_PER_NONZERO` a nonzero, the same on
    every machine) with its search; a model whose build passes half the seconds it is given is left out: it
    proves nothing and counts nothing, and CP-SAT never sees it."""
    from vdplace.placement.schedule import cpsat, lp_bound

    g, allowed, ht = _graph_with_heads(3)
    upper = serial_total(g, allowed)
    built = lp_bound._build(g, allowed, ht, upper)
    assert built is not None
    charge = built[0].nonzeros() * lp_bound.BUILD_SECONDS_PER_NONZERO
    found = lp_bound.integer_bound(g, allowed, ht, upper, 5.0)
    assert found.bound > 0 and found.placement is not None and charge <= found.counted <= 5.0
    searches = []
    monkeypatch.setattr(cpsat, "units_taken", lambda solver: searches.append(solver) or 0.0)
    skipped = lp_bound.integer_bound(g, allowed, ht, upper, 1.99 * charge)
    assert skipped == lp_bound.IntegerBound(0.0, None, 0.0, False) and not searches


def test_a_search_whose_model_took_the_wall_clock_is_not_started(monkeypatch) -> None:
    """The wall-clock limit of a CP-SAT search counts from before its model is built: where the build took it
    all, the search is not started and is recorded as ended by the clock (`cpsat.solve_exact`), and the
    integer relaxation's likewise (`lp_bound.integer_bound`)."""
    from vdplace.placement.schedule import cpsat, lp_bound

    g, allowed, ht = _graph_with_heads(3)
    started = []
    monkeypatch.setattr(cpsat, "configured_solver", lambda *args: started.append(args))
    monkeypatch.setattr(time, "perf_counter", Clock(1.0))  # every reading a second later
    res = cpsat.solve_exact(g, allowed, 0.0, None, 5.0, ht, wall_s=0.5)
    assert res.status == "unknown" and res.clock and not started
    found = lp_bound.integer_bound(g, allowed, ht, serial_total(g, allowed), 5.0, wall_s=0.5)
    assert found.bound == 0.0 and found.placement is None and found.clock
