"""One measurement: build a family's module and time `place()` (or TVM's RealizeVDevice) on it.

`measure` runs each measurement in a fresh child interpreter, so that the peak
resident memory it reports (``VmHWM``) belongs to that run alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

from vdplace.bench.generators import GENERATORS

RESULT_PREFIX = "RESULT "


def rss_mb() -> float:
    """Resident memory of this process now, in MiB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_rss_mb() -> float:
    """Peak resident memory of this process image (VmHWM; getrusage's maxrss survives exec on Linux)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_one(family: str, n: int, *, use_tracemalloc: bool = False, **options: Any) -> dict[str, Any]:
    """Build one module and place it in this process (`options` go to `place`); the measurements."""
    import tracemalloc

    from vdplace.placement import place

    t0 = time.perf_counter()
    mod = GENERATORS[family](n)
    build = time.perf_counter() - t0
    rss_before = rss_mb()
    if use_tracemalloc:
        tracemalloc.start()
    t1 = time.perf_counter()
    stats = place(mod, **options).stats
    total = time.perf_counter() - t1
    out = {
        "family": family,
        "size": n,
        "bindings": mod.num_bindings(),
        "build_s": build,
        "place_s": total,
        "phases": dict(stats.times),
        "sites": stats.sites,
        "classes": stats.classes,
        "constraints": stats.constraints,
        "variables": stats.variables,
        "soft": stats.soft,
        "copies": stats.copies,
        "rss_before_mb": rss_before,
        "peak_rss_mb": peak_rss_mb(),
    }
    if use_tracemalloc:
        out["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return out


def run_tvm_one(family: str, n: int) -> dict[str, Any]:
    """Build the module with TVM and time RealizeVDevice on it (in this process)."""
    from tvm import relax

    from vdplace.bench.tvm_models import build_tvm

    t0 = time.perf_counter()
    mod = build_tvm(family, n)
    build = time.perf_counter() - t0
    rss_before = rss_mb()
    t1 = time.perf_counter()
    relax.transform.RealizeVDevice()(mod)
    return {
        "family": family,
        "size": n,
        "build_s": build,
        "tvm_s": time.perf_counter() - t1,
        "rss_before_mb": rss_before,
        "peak_rss_mb": peak_rss_mb(),
    }


def tvm_available() -> bool:
    """Whether apache-tvm imports in this interpreter.

    Checked in a child: importing TVM here would inflate this runner's memory,
    and that of every measurement child started from it.
    """
    probe = subprocess.run([sys.executable, "-c", "import tvm, tvm.relax"], capture_output=True, text=True, timeout=300)
    return probe.returncode == 0


def measure(kind: str, family: str, n: int, options: dict[str, Any], timeout: float) -> dict[str, Any]:
    """`run_one` (kind ``"vdplace"``) or `run_tvm_one` (kind ``"tvm"``) in a child interpreter.

    Raises RuntimeError, with the end of the child's stderr, when it prints no result.
    """
    runner = "run_tvm_one" if kind == "tvm" else "run_one"
    code = (
        "import json, sys; from vdplace.bench import measure; "
        f"r = measure.{runner}(*json.loads(sys.argv[1]), **json.loads(sys.argv[2])); "
        f"print({RESULT_PREFIX!r} + json.dumps(r))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, json.dumps([family, n]), json.dumps(options)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX) :])
    raise RuntimeError(f"{kind} benchmark {family}/{n} failed:\n{proc.stderr[-2000:]}")
