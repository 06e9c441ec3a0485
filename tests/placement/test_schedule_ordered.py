"""accelerate's own runs are ordered by CP-SAT with their placement fixed before the exact solve starts.

A list schedule under a memory limit can leave a placement far slower than
its best order, and the placement search judges plans by it: on the corpus's
BERT with cuda:0 holding about half of the weights, accelerate's runs (every
op on cuda:0, the host's weights copied in as read) list at 1.2x their best
order.  `solve._ordered` orders those runs before CP-SAT, so `Time`
never returns a plan slower than accelerate's run in its best order found,
however little of the free problem CP-SAT solves (docs/schedule.md, "How it
is solved").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vdplace import ir
from vdplace.ir.vdevice import VDevice
from vdplace.placement import CostModel
from vdplace.placement.cost.problem import coarsen
from vdplace.placement.extract.extract import extract
from vdplace.placement.schedule import cpsat, lp_bound, solve
from vdplace.placement.schedule.bounds import heads_tails
from vdplace.placement.schedule.graph import build_graph
from vdplace.placement.schedule.search import evaluate_streaming
from vdplace.placement.schedule.splits import weight_unit_bytes
from vdplace.placement.schedule.weight_rules import accelerate_runs

MODELS = Path(__file__).resolve().parents[1] / "models"
FAST = "cuda:0:global"


def corpus_model(name: str, share: float):
    """tests/models/`name` on cuda:0 and llvm:0, coarsened, under a model whose kernels take 1 us on cuda:0 and
    20 us on the host and whose copies take 2 us + 10 ns a byte, with cuda:0 capped at `share` of the weights
    plus 1 KiB: the weights must be streamed in to run the ops on cuda:0."""
    path = MODELS / name / "params.py"
    mod = ir.parse(path.read_text(), filename=str(path)).replace(vdevices=[VDevice("cuda", 0), VDevice("llvm", 0)])
    model = CostModel(lambda op, vdevice: 1e-6 if vdevice.startswith("cuda") else 2e-5, lambda n, s, d: 2e-6 + n / 1e8)
    co = coarsen(extract(mod), model)
    weights = sum(weight_unit_bytes(build_graph(co, model)).values())
    return co, model, {FAST: int(share * weights) + 1024}


def ordered_runs(co, model, memory) -> tuple[float, float]:
    """(the fastest list schedule, the fastest CP-SAT order) of accelerate's runs that fit `memory`."""
    g = build_graph(co, model)
    solve.with_limits(g, memory)
    listed, ordered = [], []
    for placement in accelerate_runs(g):
        plan = evaluate_streaming(g, placement)
        fixed = [[d] for d in placement]
        hint = None if plan.excess else (placement, plan.timing, True)
        res = cpsat.solve_exact(g, fixed, 0.0, hint, solve.ORDER_S, heads_tails(g, fixed))
        if plan.excess == 0:
            listed.append(plan.makespan)
        if res.timing is not None:
            ordered.append(res.timing.makespan)
    return min(listed), min(ordered)


@pytest.fixture
def free_cpsat_finds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """CP-SAT on the free problem (and the relaxation's plan) finds nothing: only fixed placements are solved."""
    real = cpsat.solve_exact

    def fixed_only(g, allowed, lower, hint, seconds, ht=None, wall_s=None):
        if any(len(a) > 1 for a in allowed):
            return cpsat.ExactResult("unknown", 0.0, 1e-12, g.num_ops)
        return real(g, allowed, lower, hint, seconds, ht, wall_s)

    monkeypatch.setattr(cpsat, "solve_exact", fixed_only)
    monkeypatch.setattr(solve, "integer_bound", lambda *args: lp_bound.IntegerBound(0.0, None, 0.0, False))


@pytest.mark.usefixtures("free_cpsat_finds_nothing")
def test_time_is_no_slower_than_accelerates_run_in_its_best_order() -> None:
    co, model, memory = corpus_model("bert", 0.55)
    listed, ordered = ordered_runs(co, model, memory)
    assert ordered < listed / 1.15  # the runs' list schedules are far from their order: the case this is for
    sol = solve.solve_time(co, model, memory, time_limit_s=5)
    assert sol.timing is not None
    assert sol.timing.makespan <= ordered * (1 + 1e-6)


def test_accelerate_runs_are_distinct_and_keep_weights_where_the_rules_put_them() -> None:
    co, model, memory = corpus_model("llama_block", 0.35)
    g = build_graph(co, model)
    solve.with_limits(g, memory)
    runs = accelerate_runs(g)
    assert runs and len({tuple(r) for r in runs}) == len(runs)
    weights = set(weight_unit_bytes(g))
    fast = g.vdevices.index(VDevice("cuda", 0))
    for placement in runs:  # every unit that is not a weight runs on the fast vdevice where it may
        assert all(placement[u] == fast for u in range(g.num_units) if u not in weights and fast in g.allowed[u])
    assert any(all(placement[u] != fast for u in weights) for placement in runs)  # the rule "all on the host"
