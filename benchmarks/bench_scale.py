"""How `ir.parse` scales: time and memory per binding from 10k to 1M bindings.

    python benchmarks/bench_scale.py                       # 10k, 100k and 1M bindings
    python benchmarks/bench_scale.py 10000 300000 --repeat 3
    python benchmarks/bench_scale.py --root /tmp/old-checkout   # another checkout's parser
    python benchmarks/bench_scale.py 100000 --family many_functions

The text is a module of the chosen family printed by `ir.script`, written once
per family and size to a cache folder by a child process (building a
1M-binding module takes longer than parsing it).  Families (`FAMILIES`):
``chain`` and ``residual`` from `bench_parse_print` (the default, ``chain``:
one long block), ``transformer`` and ``many_functions`` from
`vdplace.bench.generators` (one function with thousands of parameters; many
functions of ten bindings each).  Each size is then measured in two fresh child
processes, so the figures of one size do not leak into the next:

* the *time* child reads the text, parses it (`--repeat` times, keeping the
  fastest) and reports the parse time and the process's peak resident size
  (``ru_maxrss``: interpreter, imports, the text and the parse, all of it);
* the *memory* child parses once under tracemalloc and reports the bytes the
  parsed module keeps (retained) and the peak the parse allocated on top of
  the text, both per binding.

Columns: ``text B/bind`` the text's size, ``parse s`` and ``us/bind`` the
fastest parse (wall clock), ``cpu s`` the fastest parse in CPU time of the
process (on a shared machine the wall clock also counts waiting for a core),
``retained B/bind`` and ``parse peak B/bind`` from tracemalloc,
``peak RSS MB`` the time child's resident peak.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
WARM_UP = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y: R.Tensor((2,), "float32") = R.add(x, x)
        return y
"""
DEFAULT_ROOT = HERE.parent


def _import_root(root: str) -> None:
    """Make `root`'s checkout the `vdplace` that is imported."""
    sys.path.insert(0, root)


FAMILIES = ("chain", "residual", "transformer", "many_functions")


def _write_text(family: str, n: int, path: str) -> None:
    """Child: build the module of `family` with about `n` bindings, print it, and write the text to `path`."""
    sys.path.insert(0, str(HERE))
    _import_root(str(DEFAULT_ROOT))
    import bench_parse_print

    from vdplace.bench import generators
    from vdplace.ir import script

    build = getattr(bench_parse_print, family, None) or getattr(generators, f"build_{family}")
    text = script(build(n))
    tmp = f"{path}.tmp"
    Path(tmp).write_text(text)
    os.replace(tmp, path)


def _time_child(path: str, repeat: int) -> dict[str, float]:
    """Child: the fastest of `repeat` parses and the process's peak RSS."""
    import vdplace

    text = Path(path).read_text()
    vdplace.parse(WARM_UP)  # lazy imports and registries: not part of any size's figures
    best = best_cpu = float("inf")
    bindings = 0
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        mod = vdplace.parse(text)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
        bindings = mod.num_bindings()
        del mod
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "bindings": bindings,
        "text_bytes": len(text),
        "parse_s": best,
        "cpu_s": best_cpu,
        "peak_rss_mb": peak_kb / 1024,
    }


def _memory_child(path: str) -> dict[str, float]:
    """Child: bytes the parsed module retains and the parse's peak, from tracemalloc."""
    import gc

    import vdplace

    text = Path(path).read_text()
    vdplace.parse(WARM_UP)
    gc.collect()
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    mod = vdplace.parse(text)
    after, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"retained_bytes": after - before, "peak_bytes": peak - before, "bindings": mod.num_bindings()}


def _child(args: list[str], root: str) -> dict[str, float]:
    cmd = [sys.executable, __file__, "--child", *args, "--root", root]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def measure(family: str, n: int, cache: Path, root: str, repeat: int, memory: bool) -> dict[str, float]:
    path = cache / f"{family}_{n}.py"
    if not path.exists():
        subprocess.run([sys.executable, __file__, "--child", "write", family, str(n), str(path)], check=True)
    row = _child(["time", str(path), str(repeat)], root)
    if memory:
        row.update(_child(["memory", str(path)], root))
    return row


def format_row(row: dict[str, float]) -> str:
    b = row["bindings"]
    cells = [
        f"{int(b):>9,}",
        f"{row['text_bytes'] / b:>11.0f}",
        f"{row['parse_s']:>7.2f}",
        f"{row['parse_s'] / b * 1e6:>7.1f}",
        f"{row['cpu_s']:>5.2f}",
        f"{row['retained_bytes'] / b:>15.0f}" if "retained_bytes" in row else f"{'-':>15}",
        f"{row['peak_bytes'] / b:>17.0f}" if "peak_bytes" in row else f"{'-':>17}",
        f"{row['peak_rss_mb']:>11.0f}",
    ]
    return "  ".join(cells)


HEADER = "  ".join(
    [
        f"{'bindings':>9}",
        f"{'text B/bind':>11}",
        f"{'parse s':>7}",
        f"{'us/bind':>7}",
        f"{'cpu s':>5}",
        f"{'retained B/bind':>15}",
        f"{'parse peak B/bind':>17}",
        f"{'peak RSS MB':>11}",
    ]
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=1, help="parses per size in the time child (fastest kept)")
    parser.add_argument("--root", default=str(DEFAULT_ROOT), help="checkout whose vdplace is measured")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "vdplace-bench-scale"))
    parser.add_argument("--no-memory", action="store_true", help="skip the tracemalloc child")
    parser.add_argument("--family", choices=FAMILIES, default="chain", help="the module's shape (default: chain)")
    args = parser.parse_args(argv)
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    print(HEADER, flush=True)
    for n in args.sizes:
        print(format_row(measure(args.family, n, cache, args.root, args.repeat, not args.no_memory)), flush=True)
    return 0


def child_main(argv: list[str]) -> int:
    """``--child write FAMILY N PATH``, ``--child time PATH REPEAT`` or ``--child memory PATH``, then ``--root R``."""
    root = argv[argv.index("--root") + 1] if "--root" in argv else str(DEFAULT_ROOT)
    kind, *rest = argv[: argv.index("--root")] if "--root" in argv else argv
    if kind == "write":
        _write_text(rest[0], int(rest[1]), rest[2])
        return 0
    _import_root(root)
    result = _time_child(rest[0], int(rest[1])) if kind == "time" else _memory_child(rest[0])
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        raise SystemExit(child_main(sys.argv[2:]))
    raise SystemExit(main())
