"""Cost-aware placement against the plans users get today: estimated time, solve time, proved gap.

    python benchmarks/bench_cost.py                      # synthetic 1k/10k/100k + the real models
    python benchmarks/bench_cost.py --sizes 1000 2000 --time-limit 60 --plot cost.png
    python benchmarks/bench_cost.py --families chain --sizes 100000 --scenarios 2dev

Scenarios (each on every module):

* ``2dev``: llvm + cuda, no memory limit (the min-cut solver: exact);
* ``2dev-mem``: llvm + cuda, the GPU limited to half the bytes that the
  all-on-GPU plan needs there (Lagrangian bound, then the exact solver, time-limited);
* ``3dev``: llvm + two cuda devices, no limit (the exact solver: ``--solver
  highs``, the MILP, by default, or ``z3``, weighted MaxSAT).

Cost model: `CostModel.roofline(DEVICES)` (the op registry's FLOPs and
bytes; a small CPU with 5 us per kernel, a GPU with 2 us, the default link of
10 us + 25 GB/s), with ``nn.softmax`` and ``exp`` declared CPU-only so that
the GPU-first baseline has fallbacks to make.

Columns: ``units`` / ``values`` the coarsened problem's size; ``vdplace``
the plan's estimated time (`placement.cost.objective.plan_cost`, the same
figure the placed module's `evaluate` gives); ``solve s`` the solver's wall
time; ``gap`` (total - proved lower bound) / total, 0 when proved optimal;
then the baselines (`placement.cost.baselines`): ``gpu+fallback`` (ONNX
Runtime / TensorFlow: every supported op on the GPU, the rest on the CPU),
``m-ETF`` (Baechi's memory-aware greedy earliest finish), ``cpu`` (all on
the CPU); ``over`` marks a plan that breaks a memory limit.  Families:
``chain`` (add/multiply/relu), ``diamond`` (two branches joined per step),
``transformer`` (12-binding residual blocks with hints), the real models of
tests/models/ (``params.py``, given llvm + cuda vdevices).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from vdplace import ir
from vdplace.bench.generators import SHAPE, build_chain, build_transformer
from vdplace.ir.builder import ModuleBuilder, tensor
from vdplace.ir.module import IRModule
from vdplace.ir.vdevice import VDevice
from vdplace.placement.cost import CostModel
from vdplace.placement.cost.baselines import greedy, prefer_device
from vdplace.placement.cost.objective import plan_cost
from vdplace.placement.cost.plan_problem import PlanProblem
from vdplace.placement.cost.problem import coarsen
from vdplace.placement.cost.solve import solve_cost
from vdplace.placement.extract.extract import extract
from vdplace.placement.solve.backend import backend_names

HERE = Path(__file__).resolve().parent
MODELS = HERE.parent / "tests" / "models"
CPU, GPU0, GPU1 = VDevice("llvm", 0), VDevice("cuda", 0), VDevice("cuda", 1)
CPU_ONLY = ("nn.softmax", "exp")
SCENARIOS = ("2dev", "2dev-mem", "3dev")
# A small CPU next to a GPU whose launches cost less: on the tiny tensors of these modules the GPU wins
# a few microseconds per op, and a copy (10 us of link latency) costs more than a few ops.
DEVICES = {
    "cpu": {"flops": 5e10, "bandwidth": 2e10, "overhead": 5e-6},
    "cuda": {"flops": 19.5e12, "bandwidth": 1.555e12, "overhead": 2e-6},
}


def build_diamond(n: int) -> IRModule:
    """``main(x)``: per step ``a = exp(cur); b = tanh(cur); cur = add(a, b)``, n bindings in all."""
    mb = ModuleBuilder([CPU, GPU0])
    f = mb.function("main", [("x", tensor(SHAPE))])
    cur = f.params[0]
    for i in range(max(1, n // 3)):
        a = f.emit("exp", cur, name=f"a{i}")
        b = f.emit("tanh", cur, name=f"b{i}")
        cur = f.emit("add", a, b, name=f"c{i}")
    f.finish(cur)
    return mb.get()


FAMILIES = {"chain": build_chain, "diamond": build_diamond, "transformer": build_transformer}


def cost_model(memory: dict[str, int] | None = None) -> CostModel:
    """The roofline model of `DEVICES` with `CPU_ONLY` ops unable to run off the CPU."""
    base = CostModel.roofline(DEVICES)

    def kernel(op, vdevice: str) -> float | None:
        if op.op in CPU_ONLY and not vdevice.startswith("llvm"):
            return None
        return base.kernel_time(op, vdevice)  # type: ignore[misc]

    return CostModel(kernel_time=kernel, copy_time=base.copy_time, memory=memory)


def real_models() -> dict[str, IRModule]:
    out = {}
    for folder in sorted(p for p in MODELS.iterdir() if (p / "params.py").exists()):
        mod = ir.parse((folder / "params.py").read_text(), filename=str(folder / "params.py"))
        out[folder.name] = mod if mod.vdevices else mod.replace(vdevices=[CPU, GPU0])
    return out


def measure(label: str, mod: IRModule, scenario: str, time_limit: float, solver: str) -> dict[str, object]:
    if scenario == "3dev":
        mod = mod.replace(vdevices=[*mod.vdevices, GPU1])
    model = cost_model()
    start = time.perf_counter()
    co = coarsen(extract(mod), model)
    p = co.problem
    if scenario == "2dev-mem":
        gpu = p.vdevices.index(GPU0)
        need = plan_cost(p, prefer_device(p, "cuda")).memory[gpu]
        p.limits[gpu] = max(1, need // 2)
    build = time.perf_counter() - start
    row: dict[str, object] = {"module": label, "scenario": scenario, "units": p.num_units, "values": len(p.values)}
    row["build s"] = build
    if any(all(t is None for t in r) for r in p.compute):
        row["vdplace"] = "no device"
        return row
    sol = solve_cost(p, time_limit, solver)
    row["solve s"] = sol.seconds
    row["vdplace"] = sol.cost.total if sol.cost else sol.status
    row["gap"] = sol.gap if sol.cost else None
    row["method"] = sol.method
    for name, plan in (
        ("gpu+fallback", prefer_device(p, "cuda")),
        ("m-ETF", greedy(p)),
        ("cpu", prefer_device(p, "cpu")),
    ):
        cost = plan_cost(p, plan)
        row[name] = cost.total if cost.feasible else f"over ({cost.total:.3g})"
    return row


COLUMNS = ("module", "scenario", "units", "values", "method", "vdplace", "solve s", "gap")
COLUMNS += ("gpu+fallback", "m-ETF", "cpu")


def render(rows: list[dict[str, object]]) -> str:
    def cell(v: object) -> str:
        if isinstance(v, float):
            return f"{v:.4g}"
        return "" if v is None else str(v)

    table = [list(COLUMNS)] + [[cell(r.get(c)) for c in COLUMNS] for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(line, widths, strict=True)) for line in table)


def plot(rows: list[dict[str, object]], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install vdplace[bench]): no plot", file=sys.stderr)
        return
    names = ("vdplace", "gpu+fallback", "m-ETF", "cpu")
    shown = [r for r in rows if isinstance(r.get("vdplace"), float)]
    fig, ax = plt.subplots(figsize=(max(6, len(shown) * 0.6), 4))
    width = 0.8 / len(names)
    for k, name in enumerate(names):
        ratios = [(r[name] / r["vdplace"]) if isinstance(r.get(name), float) and r["vdplace"] else 0 for r in shown]
        ax.bar([i + k * width for i in range(len(shown))], ratios, width, label=name)
    ax.set_xticks([i + 0.4 for i in range(len(shown))])
    ax.set_xticklabels([f"{r['module']}\n{r['scenario']}" for r in shown], rotation=90, fontsize=6)
    ax.set_ylabel("estimated time / vdplace's (0: over a limit)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000, 100000])
    parser.add_argument("--families", nargs="*", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--scenarios", nargs="*", default=list(SCENARIOS), choices=SCENARIOS)
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve (default: 60)")
    solvers = backend_names(PlanProblem)
    parser.add_argument("--solver", choices=solvers, default="highs", help="the backend (default: highs)")
    parser.add_argument("--no-models", action="store_true", help="skip the real models of tests/models/")
    parser.add_argument("--plot", metavar="OUT.png", help="write a bar chart of estimated times (needs matplotlib)")
    args = parser.parse_args(argv)
    modules = [(f"{fam} {n}", FAMILIES[fam], n) for fam in args.families for n in args.sizes]
    rows = []
    for label, build, n in modules:
        mod = build(n)
        for scenario in args.scenarios:
            rows.append(measure(label, mod, scenario, args.time_limit, args.solver))
            print(render(rows[-1:]).splitlines()[-1], flush=True)
    if not args.no_models:
        for label, mod in real_models().items():
            for scenario in args.scenarios:
                rows.append(measure(label, mod, scenario, args.time_limit, args.solver))
    print(render(rows))
    if args.plot:
        plot(rows, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
