"""The Ray executor on a 4-stage pipeline: throughput against the local VM and the ideal, and the cost of a copy.

The program is a chain of 4 stages, stage s on its own device (llvm:0,
cuda:0..2; the GPUs simulated, each stage a Ray actor holding one logical
CPU): each stage applies ``relu(h @ W_s)`` `--layers` times, and a copy
carries the activations to the next stage.  A batch of `--batch` rows is
streamed as k = 1, 2, 4, 8, 16 micro-batches (`RayExecutor.run_pipelined`).
For each k the table gives:

- ``ray``: seconds per batch on Ray (median of `--repeat`);
- ``vm``: the local VM running the same k micro-batches one after another;
- ``ideal``: the slowest stage's time for the whole batch (its actor's busy
  time in the k = 1 run): what a perfect pipeline with a core per stage gives;
- throughput in rows per second, ray / ideal, and busy / wall: the actors'
  summed busy time over the wall time, how many actors were in a script at
  once on average (busy time includes waits for the CPU and for fetches).

Then the fixed cost of one copy: a program that passes a 4-float tensor
back and forth between two actors `--hops` times, on Ray and on the VM;
(Ray - VM) / hops is the overhead each copy adds end to end, next to the
median receiver-side latency (fetch from the sender's object store + write).

    python benchmarks/bench_ray.py [--batch 512] [--width 1024] [--layers 4] [--repeat 5] [--hops 32] [--timeline t.png]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

# BLAS on one thread in every process: Ray gives each actor one CPU (and one BLAS thread), so the local VM
# it is compared with gets one too.  Set before NumPy is imported; the actors inherit it.
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import numpy as np  # noqa: E402
import ray  # noqa: E402

from vdplace import ir, placement, runtime  # noqa: E402
from vdplace.runtime.ray import RayExecutor  # noqa: E402

STAGES = 4
NAMES = ["llvm:0"] + [f"cuda:{i}" for i in range(STAGES - 1)]
HEADER = (
    "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
    '    I.module_global_infos({"vdevice": [I.vdevice("llvm"), '
    + ", ".join(f'I.vdevice("cuda", {i})' for i in range(STAGES - 1))
    + "]})\n\n    @R.function\n"
)


def pipeline_text(rows: int, width: int, layers: int) -> str:
    """main(x, w0..w3): `layers` x relu(h @ w_s) on stage s's device, a copy between stages."""
    params = [f'x: R.Tensor(({rows}, {width}), "float32", "llvm:0")']
    params += [f'w{s}: R.Tensor(({width}, {width}), "float32", "{NAMES[s]}")' for s in range(STAGES)]
    body, h = [], "x"
    for s in range(STAGES):
        if s:
            body.append(f'c{s} = R.to_vdevice({h}, "{NAMES[s]}")')
            h = f"c{s}"
        for i in range(layers):
            body += [f"m{s}_{i} = R.matmul({h}, w{s})", f"h{s}_{i} = R.nn.relu(m{s}_{i})"]
            h = f"h{s}_{i}"
    ret = f'R.Tensor(({rows}, {width}), "float32", "{NAMES[-1]}")'
    lines = "".join(f"        {b}\n" for b in body)
    return HEADER + f"    def main({', '.join(params)}) -> {ret}:\n{lines}        return {h}\n"


def ping_pong_text(hops: int) -> str:
    """main(x): x copied between llvm:0 and cuda:0 `hops` times, one add on each side."""
    body, h = [], "x"
    for i in range(hops):
        dev = "cuda:0" if i % 2 == 0 else "llvm:0"
        body += [f'c{i} = R.to_vdevice({h}, "{dev}")', f"a{i} = R.add(c{i}, c{i})"]
        h = f"a{i}"
    ret = f'R.Tensor((4,), "float32", "{"cuda:0" if hops % 2 else "llvm:0"}")'
    lines = "".join(f"        {b}\n" for b in body)
    return HEADER + f'    def main(x: R.Tensor((4,), "float32", "llvm:0")) -> {ret}:\n{lines}        return {h}\n'


def compile_text(text: str) -> runtime.Executable:
    return runtime.compile(placement.place(ir.parse(text)).module)


def best_of(repeat: int, run) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def pipeline_rows(args: argparse.Namespace) -> list[list[str]]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.batch, args.width)).astype("float32")
    weights = [(rng.standard_normal((args.width, args.width)) / np.sqrt(args.width)).astype("float32") for _ in NAMES]
    rows, ideal = [], None
    for k in (1, 2, 4, 8, 16):
        exe = compile_text(pipeline_text(args.batch // k, args.width, args.layers))
        vm = runtime.VirtualMachine(exe, simulate_missing=True)
        parts = np.split(x, k)
        vm_s = best_of(args.repeat, lambda: [vm.run("main", p, *weights) for p in parts])  # noqa: B023
        with RayExecutor(exe, timeout=600) as executor:
            executor.run_pipelined([x, *weights], k)  # warm: actors loaded, kernels resolved
            ray_s = best_of(args.repeat, lambda: executor.run_pipelined([x, *weights], k))  # noqa: B023
            executor.run_pipelined([x, *weights], k, profile=True)
            prof = executor.profile
            if args.timeline and k == 8:
                prof.timeline_png(args.timeline)
        if ideal is None:  # the slowest stage of the whole batch, run alone: what a perfect pipeline reaches
            ideal = max(a.busy for a in prof.actors)
        busy = sum(a.busy for a in prof.actors) / prof.wall_seconds
        rows.append(
            [str(k), f"{ray_s * 1e3:.1f}", f"{vm_s * 1e3:.1f}", f"{ideal * 1e3:.1f}", f"{args.batch / ray_s:.0f}"]
            + [f"{args.batch / vm_s:.0f}", f"{ray_s / ideal:.2f}", f"{busy:.2f}"]
        )
    return rows


def copy_overhead(args: argparse.Namespace) -> tuple[float, float, float]:
    """(Ray ms per copy end to end, VM ms per copy, median receiver-side latency in ms) for 16-byte copies."""
    exe = compile_text(ping_pong_text(args.hops))
    x = np.ones(4, dtype="float32")
    vm = runtime.VirtualMachine(exe, simulate_missing=True)
    vm_s = best_of(args.repeat * 4, lambda: vm.run("main", x))
    with RayExecutor(exe, timeout=600) as executor:
        executor.run("main", x)
        ray_s = best_of(args.repeat * 4, lambda: executor.run("main", x))
        executor.run("main", x, profile=True)
        latency = statistics.median(s for _, _, s in executor.profile.copy_latencies)
    return ray_s / args.hops * 1e3, vm_s / args.hops * 1e3, latency * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--hops", type=int, default=32)
    parser.add_argument("--timeline", metavar="PNG", help="also draw the k=8 run's timeline (needs matplotlib)")
    args = parser.parse_args()
    ray.init(num_cpus=STAGES, include_dashboard=False, object_store_memory=300 * 1024 * 1024, log_to_driver=False)
    print(f"4-stage pipeline: batch {args.batch}, width {args.width}, {args.layers} matmul+relu per stage")
    columns = ["micro-batches", "ray ms/batch", "vm ms/batch", "ideal ms", "ray rows/s", "vm rows/s", "ray / ideal"]
    print("| " + " | ".join([*columns, "busy / wall"]) + " |")
    print("|---|---|---|---|---|---|---|---|")
    for row in pipeline_rows(args):
        print("| " + " | ".join(row) + " |")
    ray_ms, vm_ms, latency = copy_overhead(args)
    print(f"\ncopy of 16 bytes, {args.hops} hops between two actors:")
    print(f"  ray {ray_ms:.3f} ms per copy end to end, vm {vm_ms:.4f} ms: overhead {ray_ms - vm_ms:.3f} ms per copy")
    print(f"  median receiver-side latency (fetch + write) {latency:.3f} ms")
    ray.shutdown()


if __name__ == "__main__":
    main()
