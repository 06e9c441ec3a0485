"""vdplace's `Time` plans against accelerate's device map, everything on the host, and the bytes objective.

    python benchmarks/bench_accelerate.py --markdown                   # predicted, the 7 models, 2 caps each
    python benchmarks/bench_accelerate.py --markdown --measured        # and measured on two Ray actors
    python benchmarks/bench_accelerate.py --models mlp gpt2 --shares 0.4 --time-limit 5
    python benchmarks/bench_accelerate.py --scale large --markdown --measured   # the scaled models (MBs, ms)

Models: the torch modules of tests/models (`benchmarks/models/zoo.py`, the
ones the corpus was made from: mlp, cnn_bn, resnet_block, attention, gpt2,
bert, llama_block by default; with ``--scale large`` the same architectures
at megabytes of weights and milliseconds of kernels,
`benchmarks/models/zoo_large.py`), imported (`vdplace.bench.zoo.import_torch`) through vdplace's torch frontend
(``vdplace.tvm.from_torch(model, args, keep_params_as_input=True)``), on
two vdevices: the fast device ``cuda:0`` and the host ``llvm:0``.

Caps: for each share of `--shares` (default 0.35 and 0.55) the fast
device's weights budget is ``int(share * weight bytes)``, accelerate's
``max_memory`` for it (accelerate budgets weights), so its map puts at most
that share of the weights there.  The fast device's memory, its cap, is
that budget plus the activations' room: the peak of the non-weight bytes
when the whole program runs on the fast device
(`vdplace.bench.compare.activation_room`), the headroom a user leaves
beside ``max_memory``.  The cap bounds the fast device's peak by liveness
(weights and activations) for every plan, accelerate's included; the host
is not capped.

Plans (`vdplace.bench.compare.compare_plans`, whose docstring says how each
is made): ``accelerate``, what accelerate runs for its map (the better of
the literal and the raised map): the weights where the map puts them, every
op on the GPU when the map has one, the host's weights copied in where they
are read; ``accelerate-cost``, the same pins with the ops placed by the cost
objective; ``accelerate-time``, the same pins with the ops placed by `Time`
(the search check: `Time`'s own plan may do all that these pins fix);
``time``, vdplace's `Time` plan under the cap; ``host``, everything on the
host; ``bytes``, the bytes objective on accelerate's pins.  ``x vs
accelerate`` is against the ``accelerate`` row, what accelerate runs.

The model every predicted figure uses: the host calibrated on this machine
(`vdplace.calibration.calibrate_program` on the host, on the program's own
values: the zoo's inputs and weights) plus the declared GPU roofline for
``cuda:0`` (the A100 defaults of `CostModel.roofline`, docs/cost.md) and the
default link (PCIe 4.0 x16: 10 us + 25 GB/s).  Each plan's makespan is that
model's `Time` schedule of the plan; the peaks are its liveness.

`--measured`: two Ray actors, one CPU thread each (``OMP_NUM_THREADS=1``,
set by this script before NumPy loads), stand in for the host (``cpu``
actor) and the fast device (``sim`` actor); the model is calibrated on the
actors (their kernels and the object store's copies), the plans are
made again under it and each is run (`vdplace.bench.step.measure_step`,
median of `--runs`).  The measured columns are those plans' predicted and
measured step times.

The summary checks the targets of issue 32 on every (model, cap) pair:
`Time` never slower than accelerate's map, at least 1.25x faster on half
the pairs, always within the caps (predicted, and measured with
`--measured`).  The machine's load average is printed before and after.
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"  # one thread: the host and each actor alike, before NumPy loads

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent / "models"))

from vdplace.bench.compare import (  # noqa: E402
    FAST_NAME,
    HOST_NAME,
    PLANS,
    SHARES,
    PlanResult,
    activation_room,
    compare_plans,
    inline_bound_constants,
    share_caps,
    speedup,
    with_two_devices,
)

MODELS = ("mlp", "cnn_bn", "resnet_block", "attention", "gpt2", "bert", "llama_block")
TARGET_SPEEDUP = 1.25
# Relative difference under which two makespans are the same: CP-SAT's time unit (docs/schedule.md, "optimal"
# is within about 1e-6 of the makespan on these models), so one plan ordered by it twice may differ by that.
SAME = 1e-6
# How close an actors' prediction must be to its measured step to count as met (issue 32's 25%).
PREDICTION_WITHIN = 0.25
ACTORS = {HOST_NAME: "cpu", FAST_NAME: "sim"}


def load(name: str, scale: str = "tiny") -> tuple[Any, Any, list[Any], dict[str, Any]]:
    """Model `name` of the zoo at `scale`: (torch module, its Relax program, its inputs as arrays, its weights)."""
    import zoo

    from vdplace.bench.zoo import import_torch

    loaded = import_torch(*zoo.build(name, scale))
    return loaded.torch_model, loaded.module, loaded.inputs, loaded.weights


def host_model(mod: Any, inputs: list[Any], weights: dict[str, Any]) -> Any:
    """The stated model: the host calibrated here on the program's values, ``cuda:0`` the A100 roofline."""
    from vdplace.calibration import calibrate_program

    args = [*inputs, *weights.values()]
    return calibrate_program(inline_bound_constants(with_two_devices(mod)), args, devices=["cpu"]).model


def actor_model(mod: Any, inputs: list[Any], weights: dict[str, Any]) -> Any:
    """The model calibrated on the two Ray actors (their kernels and the copies between them)."""
    from vdplace.calibration import calibrate_program

    args = [*inputs, *weights.values()]
    return calibrate_program(inline_bound_constants(with_two_devices(mod)), args, ray_actors=ACTORS).model


def measure(plan: PlanResult, inputs: list[Any], weights: dict[str, Any], runs: int) -> float | None:
    """The median measured step of `plan` on the two actors, seconds; None when it has no module."""
    from vdplace.bench.step import measure_step

    if plan.module is None:
        return None
    return measure_step(plan.module, inputs, weights=weights, runs=runs, warmup=2, ray=ACTORS).step_seconds


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name in args.models:
        start = time.perf_counter()
        model, mod, inputs, weights = load(name, args.scale)
        total = sum(p.numel() * p.element_size() for p in model.parameters())
        predicted_model = host_model(mod, inputs, weights)
        measured_model = actor_model(mod, inputs, weights) if args.measured else None
        room = activation_room(mod, predicted_model, args.time_limit)
        for share, budget in zip(args.shares, share_caps(total, args.shares), strict=True):
            cap = budget + room
            kw = {"max_memory": budget, "time_limit_s": args.time_limit}
            plans = compare_plans(mod, model, cap, predicted_model, **kw)
            on_actors = {}
            if measured_model is not None:
                on_actors = compare_plans(mod, model, cap, measured_model, **kw)
            for label in PLANS:
                plan = plans[label]
                row: dict[str, Any] = {"model": name, "weights": total, "share": share, "budget": budget}
                row.update({"room": room, "cap": cap, "plan": label})
                row.update(_figures(plan, plans["accelerate"], cap))
                if label in on_actors:
                    actor_plan = on_actors[label]
                    row["actors predicted"] = _step(actor_plan, measured_model)
                    row["actors measured"] = measure(actor_plan, inputs, weights, args.runs)
                    row["actors fits"] = actor_plan.fits
                rows.append(row)
                print(_line(row), flush=True)
        print(f"# {name}: {time.perf_counter() - start:.1f} s", flush=True)
    _speedups(rows)
    return rows


def _step(plan: PlanResult, model: Any) -> float | None:
    """The step `plan` is predicted to take on the actors: its makespan plus the executor's calibrated cost per
    step (the driver's inputs in, results out), as `bench_measured.py` predicts it; None without a plan."""
    from vdplace.calibration.dispatch import step_overhead

    return None if plan.makespan is None else plan.makespan + step_overhead(model)


def _figures(plan: PlanResult, accelerate: PlanResult, cap: int) -> dict[str, Any]:
    return {
        "predicted": plan.makespan,
        "vs accelerate": speedup(accelerate, plan),
        "fast peak": plan.peaks.get(FAST_NAME) if plan.module is not None else None,
        "host peak": plan.peaks.get(HOST_NAME) if plan.module is not None else None,
        "fast weights": plan.weight_bytes.get(FAST_NAME, 0) if plan.module is not None else None,
        "fits": plan.fits,
        "note": plan.error or plan.note,
    }


def _speedups(rows: list[dict[str, Any]]) -> None:
    """Add the measured speedup over accelerate's plan on the actors to each row that has both."""
    accelerate = {(r["model"], r["cap"]): r for r in rows if r["plan"] == "accelerate"}
    for r in rows:
        a = accelerate[r["model"], r["cap"]].get("actors measured")
        m = r.get("actors measured")
        if a and m:
            r["actors vs accelerate"] = a / m


COLUMNS = (
    "model",
    "weights",
    "budget",
    "room",
    "cap",
    "plan",
    "predicted",
    "vs accelerate",
    "fast weights",
    "fast peak",
    "host peak",
    "fits",
    "actors predicted",
    "actors measured",
    "actors vs accelerate",
    "note",
)
HEADERS = {
    "weights": "weights B",
    "budget": "max_memory B (share)",
    "room": "activations B",
    "cap": "cuda:0 cap B",
    "predicted": "predicted ms",
    "vs accelerate": "x vs accelerate",
    "fast weights": "weights on cuda:0 B",
    "fast peak": "cuda:0 peak B",
    "host peak": "host peak B",
    "actors predicted": "actors predicted ms",
    "actors measured": "actors measured ms",
    "actors vs accelerate": "actors x vs accelerate",
}


def _cell(row: dict[str, Any], column: str) -> str:
    value = row.get(column)
    if value is None:
        return "" if column != "fits" else "no plan"
    if column == "budget":
        return f"{value} ({row['share']:.0%})"
    if column in ("predicted", "actors predicted", "actors measured"):
        return f"{value * 1e3:.4f}"
    if column in ("vs accelerate", "actors vs accelerate"):
        return f"{value:.2f}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _line(row: dict[str, Any]) -> str:
    return " | ".join(f"{HEADERS.get(c, c)}={_cell(row, c)}" for c in COLUMNS if c in row)


def render(rows: list[dict[str, Any]], measured: bool) -> str:
    columns = [c for c in COLUMNS if measured or not c.startswith("actors")]
    lines = ["| " + " | ".join(HEADERS.get(c, c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(r, c).replace("|", "/") for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def summary(rows: list[dict[str, Any]], measured: bool) -> tuple[list[str], bool]:
    """Lines checking the targets against the rows, and whether every target held."""
    time_rows = [r for r in rows if r["plan"] == "time"]
    lines, ok = [], True
    for what, key in [("predicted", "vs accelerate")] + ([("measured", "actors vs accelerate")] if measured else []):
        ratios = [(r["model"], r["share"], r.get(key)) for r in time_rows]
        known = [x for x in ratios if x[2] is not None]
        slower = [f"{m} {c:.0%}: {x:.3f}x" for m, c, x in known if x < 1 - SAME]
        fast = [x for x in known if x[2] >= TARGET_SPEEDUP]
        half = 2 * len(fast) >= len(ratios)
        verdict = "yes" if not slower else "NO (" + "; ".join(slower) + ")"
        lines.append(f"{what}: Time never slower than accelerate's map: {verdict}")
        lines.append(
            f"{what}: at least {TARGET_SPEEDUP}x faster on {len(fast)} of {len(ratios)} pairs "
            f"({'met' if half else 'NOT met'}: half is {len(ratios) / 2:g})"
        )
        ok = ok and not slower and half
    if measured:
        pairs = [(r["actors predicted"], r["actors measured"]) for r in rows if r.get("actors measured")]
        close = [p / m for p, m in pairs if p is not None and abs(p / m - 1) <= PREDICTION_WITHIN]
        lines.append(
            f"actors, not a target here (bench_measured.py's): the predicted step within "
            f"{PREDICTION_WITHIN:.0%} of the measured on {len(close)} of {len(pairs)} plans"
        )
    cost = {(r["model"], r["cap"]): r["predicted"] for r in rows if r["plan"] == "accelerate-cost"}
    ratios = [
        cost[r["model"], r["cap"]] / r["predicted"]
        for r in time_rows
        if r["predicted"] and cost.get((r["model"], r["cap"]))
    ]
    lines.append(
        f"predicted, against accelerate's pins with ops by the cost objective (accelerate-cost, not a target): "
        f"never slower: {'yes' if all(x >= 1 - SAME for x in ratios) else 'NO'}; "
        f"at least {TARGET_SPEEDUP}x faster on {sum(x >= TARGET_SPEEDUP for x in ratios)} of {len(time_rows)} pairs"
    )
    search = {(r["model"], r["cap"]): r["predicted"] for r in rows if r["plan"] == "accelerate-time"}
    behind = []
    for r in time_rows:
        pinned = search.get((r["model"], r["cap"]))
        if r["predicted"] and pinned and r["predicted"] > pinned * (1 + SAME):
            behind.append(f"{r['model']} {r['share']:.0%}: {r['predicted'] / pinned:.3f}x")
    lines.append(
        "search check: Time never slower than accelerate's pins with ops by Time: "
        + ("yes" if not behind else "NO (" + "; ".join(behind) + ")")
    )
    ok = ok and not behind
    over = [f"{r['model']} {r['share']:.0%}" for r in time_rows if not r.get("fits")]
    if measured:
        over += [f"{r['model']} {r['share']:.0%} (actors)" for r in time_rows if not r.get("actors fits")]
    lines.append(f"Time within the caps on every pair: {'yes' if not over else 'NO (' + ', '.join(over) + ')'}")
    others = [f"{r['plan']} {r['model']} {r['share']:.0%}" for r in rows if r["plan"] != "time" and r["fits"] is False]
    lines.append(f"other plans over the cap: {', '.join(others) or 'none'}")
    return lines, ok and not over


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), help="models of benchmarks/models/zoo.py")
    parser.add_argument(
        "--scale", choices=("tiny", "large"), default="tiny", help="tiny: tests/models' sizes; large: zoo_large.py"
    )
    parser.add_argument("--shares", type=float, nargs="+", default=list(SHARES), help="caps: shares of the weights")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per placement (Time objective)")
    parser.add_argument("--measured", action="store_true", help="also run the plans on two Ray actors")
    parser.add_argument("--runs", type=int, default=7, help="timed runs per measured plan (the median counts)")
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", category=FutureWarning)  # torch.export's pytree deprecation notes
    print(f"load average before: {os.getloadavg()}", flush=True)
    started = time.perf_counter()
    rows = run(args)
    if args.markdown:
        print(render(rows, args.measured))
    lines, ok = summary(rows, args.measured)
    print("\n".join(lines))
    print(f"took {time.perf_counter() - started:.0f} s; load average after: {os.getloadavg()}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
