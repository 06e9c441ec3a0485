"""The time objective on models outside the corpus: placed free and capped, run, checked against PyTorch.

Each model of `benchmarks/models/zoo_held_out.py` (programs the solver was
not tuned on) goes through ``vdplace.tvm.from_torch`` (weights as parameters)
onto ``llvm:0`` + ``cuda:0``, then ``place(mod, objective=Time(model,
memory=...), time_limit_s=L)`` without a cap (``free``) and with cuda:0
capped at half the program's own peak there (``capped``:
`bench_schedule.reference_peak`, the cap of bench_schedule's models part).
The placed module runs on simulated devices (the runtime's VM, as ``vdplace
run --simulate``) on the example inputs and the torch weights; ``error`` is
the largest absolute difference from eager PyTorch.  Per row: the op calls,
whether the plan is proved optimal, its makespan and bound (us), the gap,
cuda:0's peak and cap (bytes), the error and the wall time of the two
``place()`` calls.  Cost model: `bench_cost.cost_model`, as in bench_schedule.

Needs the ``frontend`` extra (torch, apache-tvm):

    python benchmarks/bench_schedule_torch.py [--time-limit 20] [--models NAME ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "models"))

from bench_cost import cost_model  # noqa: E402
from bench_models import flatten, max_abs_diff  # noqa: E402
from bench_schedule import GPU0, reference_peak, render  # noqa: E402

from vdplace import runtime  # noqa: E402
from vdplace.ir.vdevice import VDevice  # noqa: E402
from vdplace.placement import Time, place  # noqa: E402

COLUMNS = ("model", "scenario", "ops", "optimal", "makespan us", "bound us", "gap", "peak", "cap", "error", "s")


def measure(name: str, limit_s: float) -> list[dict[str, object]]:
    """The free and capped rows of model `name` (module docstring)."""
    import torch
    import zoo_held_out

    from vdplace.tvm import from_torch

    torch.manual_seed(zlib.crc32(name.encode()))
    model, args = zoo_held_out.MODELS[name]()
    model = model.eval()
    with torch.no_grad():
        want = flatten(model(*args))
    imported = from_torch(model, args, keep_params_as_input=True)
    mod = imported.module.replace(vdevices=[VDevice("llvm", 0), VDevice("cuda", 0)])
    inputs = [a.numpy() for a in args]
    cap = reference_peak(mod)
    rows = []
    for scenario, memory in (("free", None), ("capped", {GPU0: max(1, (cap or 0) // 2)})):
        start = time.perf_counter()
        placed = place(mod, objective=Time(cost_model(None), memory=memory), time_limit_s=limit_s)
        seconds = time.perf_counter() - start
        s = placed.schedule
        weights = [imported.params[p.name] for p in placed.module["main"].params[len(inputs) :]]
        vm = runtime.VirtualMachine(runtime.compile(placed.module), simulate_missing=True)
        error = max_abs_diff(flatten(vm.run("main", *inputs, *weights)), want)
        rows.append(
            {
                "model": name,
                "scenario": scenario,
                "ops": sum(1 for e in s.events if e.kind == "op"),
                "optimal": s.optimal,
                "makespan us": s.makespan * 1e6,
                "bound us": s.lower_bound * 1e6,
                "gap": s.gap,
                "peak": s.peak_memory.get(GPU0),
                "cap": None if memory is None else memory[GPU0],
                "error": error,
                "s": seconds,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    import zoo_held_out

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=20.0)
    parser.add_argument("--models", nargs="+", choices=sorted(zoo_held_out.MODELS), help="only these models")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()}", flush=True)
    rows = []
    for name in args.models or list(zoo_held_out.MODELS):
        rows += measure(name, args.time_limit)
        for row in rows[-2:]:
            print(" | ".join(f"{c}={row[c]}" for c in COLUMNS), flush=True)
    print(render(rows, COLUMNS))
    proved = sum(1 for r in rows if r["optimal"])
    print(f"proved optimal: {proved} of {len(rows)}; largest error: {max(r['error'] for r in rows):.3g}")
    print(f"load average after: {os.getloadavg()}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
