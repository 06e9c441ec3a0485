"""The time objective (`Time`): exact on the models, a plan with its gap at 100k bindings, against the sum objective.

    python benchmarks/bench_schedule.py                       # both parts, 60 s limits
    python benchmarks/bench_schedule.py --part models --time-limit 60
    python benchmarks/bench_schedule.py --part large --sizes 100000 --devices 2 3 4

Part ``models``: every model of tests/models (``params.py``, given llvm +
cuda vdevices when it declares none), coarsened, on 2 vdevices (llvm:0,
cuda:0) and 3 (plus cuda:1), each without a memory limit and with cuda:0
capped at half of what it holds at the peak (liveness) when every unit that
may go there does, in its list schedule (``cap``; the rest on their fastest
vdevice): a cap fixed by the program, not by the plan a solver happens to
find, so runs of different solvers solve the same problems.
Target: proved optimal (or limits proved infeasible) within the time limit.

Part ``large``: the ``chain`` and ``transformer`` families of
`vdplace.bench.generators` at `--sizes` bindings on 2, 3 and 4 vdevices
(llvm:0, then cuda:0, cuda:1, cuda:2).  Target: a plan within the time limit,
with its proved gap.

Part ``deadline``: the whole ``place(mod, objective=Time(model),
time_limit_s=L)`` call (extraction to the ordered placed module) on the
``chain``, ``transformer`` and ``branchy`` (`bench_cost.build_diamond`: two
branches joined per step) families at `--sizes` bindings, on `--devices`
vdevices, for each limit of `--limits` (5 and 10 s): the limit against the
call's wall time (``over``: wall - limit; the target is at most 1 s) and its
CPU time (``cpu``: the process's, as the box is shared), the
plan's makespan, bound and gap, the steps the limit stopped
(``Schedule.stopped``) and the fixed work the limit must cover, estimated
from the program's size (``fixed s``, `placement.schedule.deadline`; past
the limit, the call warned and returned its least plan).

    python benchmarks/bench_schedule.py --part deadline --sizes 100000 --devices 2 3 4 --limits 5 10

Both parts ``models`` and ``large`` set the plan of the sum objective (``place(mod, cost=model)``:
`placement.cost.solve.solve_cost`, with the same cap as a static limit) beside
the time plan: the sum objective's own prediction (``sum``: every kernel and
copy added), the makespan of its plan under the time model (its list
schedule), and cuda:0's memory: the sum objective's static count and the
liveness peak of each plan.

Cost model: `bench_cost.cost_model` (a small CPU, a GPU with 2 us launches,
10 us + 25 GB/s links; ``nn.softmax`` and ``exp`` only on the CPU).  Seconds
are wall time of the solvers alone (``solve_time`` / ``solve_cost``) after
extraction and coarsening (``prep s``); the machine's load average is
printed before and after (the CI box has 2 cores, shared).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_cost import build_diamond, cost_model, real_models  # noqa: E402

from vdplace.bench.generators import build_chain, build_transformer  # noqa: E402
from vdplace.ir.collector import collector_paused  # noqa: E402
from vdplace.ir.module import IRModule  # noqa: E402
from vdplace.ir.vdevice import VDevice  # noqa: E402
from vdplace.placement import Time, place  # noqa: E402
from vdplace.placement.cost.objective import plan_cost  # noqa: E402
from vdplace.placement.cost.problem import coarsen  # noqa: E402
from vdplace.placement.cost.solve import solve_cost  # noqa: E402
from vdplace.placement.extract.extract import extract  # noqa: E402
from vdplace.placement.schedule.deadline import Allowance  # noqa: E402
from vdplace.placement.schedule.graph import build_graph  # noqa: E402
from vdplace.placement.schedule.search import Plan, evaluate, fastest  # noqa: E402
from vdplace.placement.schedule.solve import solve_time  # noqa: E402

CPU = VDevice("llvm", 0)
GPUS = [VDevice("cuda", i) for i in range(3)]
GPU0 = "cuda:0:global"


def with_devices(mod: IRModule, count: int) -> IRModule:
    return mod.replace(vdevices=[CPU, *GPUS[: count - 1]])


def measure(label: str, mod: IRModule, scenario: str, limit_s: float, cap: int | None) -> dict[str, object]:
    """One row: the time plan and the sum objective's plan of `mod` (cuda:0 capped at `cap` bytes if given)."""
    memory = {GPU0: cap} if cap else None
    model = cost_model(memory)
    row: dict[str, object] = {"module": label, "scenario": scenario}
    with collector_paused():
        start = time.perf_counter()
        try:
            co = coarsen(extract(mod), model)
        except Exception as err:  # noqa: BLE001 - a model the cost objective refuses is a row, not a crash
            row["status"] = f"refused: {type(err).__name__}"
            return row
        row["prep s"] = time.perf_counter() - start
        try:
            sol = solve_time(co, model, time_limit_s=limit_s)
        except Exception as err:  # noqa: BLE001
            row["status"] = f"refused: {err}"[:60]
            return row
        g = sol.graph
        row["ops"] = g.num_ops
        row["time s"] = sol.seconds
        row["method"] = sol.method
        row["status"] = sol.status
        if sol.schedule is not None:
            s = sol.schedule
            row.update(makespan=s.makespan, bound=s.lower_bound, gap=s.gap, optimal=s.optimal)
            row["peak"] = s.peak_memory.get(GPU0)
        _sum_objective(row, co, model, g, limit_s)
    return row


def reference_peak(mod: IRModule) -> int | None:
    """cuda:0's peak in the list schedule of every unit of `mod` on cuda:0 where it may go (else on its
    fastest vdevice): the program's own size there, whatever plan a solver finds (None without cuda:0)."""
    model = cost_model(None)
    with collector_paused():
        g = build_graph(coarsen(extract(mod), model), model)
    gpu = [d for d, name in enumerate(g.names) if name == GPU0]
    if not gpu:
        return None
    plan = [gpu[0] if gpu[0] in g.allowed[u] else fastest(g, u) for u in range(g.num_units)]
    return int(evaluate(g, plan).peaks[gpu[0]])


def _sum_objective(row: dict[str, object], co, model, g, limit_s: float) -> None:
    """The sum objective's plan: its own total, its makespan and peak under the time model, its static memory."""
    start = time.perf_counter()
    sol = solve_cost(co.problem, limit_s)
    row["sum s"] = time.perf_counter() - start
    if sol.plan is None:
        row["sum"] = sol.status
        return
    cost = plan_cost(co.problem, sol.plan)
    row["sum"] = cost.total
    gpu = [d for d, name in enumerate(g.names) if name == GPU0]
    row["sum static"] = cost.memory[gpu[0]] if gpu else None
    plan: Plan = evaluate(g, list(sol.plan))
    row["sum makespan"] = plan.makespan
    row["sum peak"] = plan.peaks[gpu[0]] if gpu else None


def models_part(limit_s: float, only: list[str] | None) -> list[dict[str, object]]:
    rows = []
    for label, mod in real_models().items():
        if only and label not in only:
            continue
        for count in (2, 3):
            placed = mod if count == 2 else mod.replace(vdevices=[*mod.vdevices, GPUS[1]])
            free = measure(label, placed, f"{count}dev", limit_s, None)
            free["part"] = "models"
            rows.append(free)
            _print(free)
            peak = reference_peak(placed) if "ops" in free else None  # a model the solver refused has no cap
            if peak is not None and peak > 1:
                capped = measure(label, placed, f"{count}dev-cap", limit_s, peak // 2)
                capped["cap"], capped["part"] = peak // 2, "models"
                rows.append(capped)
                _print(capped)
    return rows


def large_part(sizes: list[int], devices: list[int], limit_s: float) -> list[dict[str, object]]:
    rows = []
    for family, build in (("chain", build_chain), ("transformer", build_transformer)):
        for n in sizes:
            mod = build(n)
            for count in devices:
                row = measure(f"{family} {n}", with_devices(mod, count), f"{count}dev", limit_s, None)
                rows.append(row)
                _print(row)
    return rows


def deadline_part(sizes: list[int], devices: list[int], limits: list[float]) -> list[dict[str, object]]:
    """Part ``deadline`` (module docstring): one row per family, size, vdevice count and limit."""
    rows = []
    model = cost_model()
    for family, build in (("chain", build_chain), ("transformer", build_transformer), ("branchy", build_diamond)):
        for n in sizes:
            base = build(n)
            for count in devices:
                mod = with_devices(base, count)
                for limit in limits:
                    row: dict[str, object] = {"module": f"{family} {n}", "scenario": f"{count}dev", "limit": limit}
                    start, cpu = time.perf_counter(), time.process_time()
                    res = place(mod, objective=Time(model), time_limit_s=limit)
                    row["wall"] = time.perf_counter() - start
                    row["cpu"] = time.process_time() - cpu  # the box is shared: wall time is not this call's alone
                    row["over"] = row["wall"] - limit  # type: ignore[operator]
                    s = res.schedule
                    row.update(makespan=s.makespan, bound=s.lower_bound, gap=s.gap, status=s.status)
                    row["stopped"] = ", ".join(f"{k}: {v}" for k, v in s.stopped.items()) or "-"
                    row["fixed s"] = _fixed_seconds(mod, model, limit)
                    rows.append(row)
                    _print(row, DEADLINE_COLUMNS)
    return rows


def _fixed_seconds(mod: IRModule, model, limit: float) -> float:
    """The nominal fixed work of the whole call that `deadline.Allowance` counts for `mod` (outside the timing)."""
    with collector_paused():
        g = build_graph(coarsen(extract(mod, settle=False), model), model)
    return Allowance(limit, 0.0, whole=True).fixed_seconds(g)


DEADLINE_COLUMNS = ("module", "scenario", "limit", "wall", "cpu", "over", "makespan", "bound", "gap", "status")
DEADLINE_COLUMNS += ("stopped", "fixed s")
COLUMNS = ("module", "scenario", "ops", "method", "status", "makespan", "bound", "gap", "time s", "prep s")
COLUMNS += ("sum", "sum makespan", "peak", "sum peak", "sum static", "cap", "sum s")


def _cell(v: object) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4g}"
    return "" if v is None else str(v)


def _print(row: dict[str, object], columns: tuple[str, ...] = COLUMNS) -> None:
    print(" | ".join(f"{c}={_cell(row.get(c))}" for c in columns if c in row), flush=True)


def render(rows: list[dict[str, object]], columns: tuple[str, ...] = COLUMNS) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("models", "large", "both", "deadline"), default="both")
    parser.add_argument("--limits", type=float, nargs="+", default=[5.0, 10.0], help="part deadline's limits")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--devices", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--models", nargs="+", help="only these models of tests/models")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()}", flush=True)
    if args.part == "deadline":
        print(render(deadline_part(args.sizes, args.devices, args.limits), DEADLINE_COLUMNS))
        print(f"load average after: {os.getloadavg()}", flush=True)
        return 0
    rows = []
    if args.part in ("models", "both"):
        rows += models_part(args.time_limit, args.models)
    if args.part in ("large", "both"):
        rows += large_part(args.sizes, args.devices, args.time_limit)
    print(render(rows))
    exact = [r for r in rows if r.get("part") == "models"]
    proved = sum(1 for r in exact if r.get("optimal") or r.get("status") == "infeasible")
    print(f"models proved (optimal, or limits infeasible): {proved} of {len(exact)}")
    print(f"load average after: {os.getloadavg()}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
