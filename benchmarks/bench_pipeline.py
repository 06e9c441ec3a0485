"""The whole `vdplace place FILE -o OUT` pipeline from 10k to 1M bindings: parse, place, print, peak memory.

    python benchmarks/bench_pipeline.py                                  # chain at 10k, 100k, 1M
    python benchmarks/bench_pipeline.py --families chain many_functions --sizes 10000 100000
    python benchmarks/bench_pipeline.py --markdown                       # a table for docs/

Each family's module (`vdplace.bench.generators`) is built and printed once
per size into a cache folder.  Each (family, size) is then measured in a
fresh child interpreter that does what the command line does, timing each
step: read and parse the file (`ir.parse_file`), `place()` it, stream the placed module to the
output file (`ir.write_script`).  ``peak MB`` is that child's peak resident memory (VmHWM: the
interpreter, the imports, the text while it is parsed, the modules, the printer's tables), and
``B/bind`` is that peak per binding.  Time and memory are linear in the
module when the per-binding columns stay flat from 10k to 1M.

Targets (issue 13, on the 2-core development machine): at 1M bindings
parse <= 10 s, place <= 4 s, print <= 4 s, peak <= 1 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULT = "RESULT "
COLUMNS = ("family", "bindings", "text MB", "parse s", "place s", "print s", "us/bind", "peak MB", "B/bind")


def _write_module(family: str, n: int, path: Path) -> None:
    """Child: build `family` at size `n` and write its text to `path` (atomically)."""
    from vdplace.bench.generators import GENERATORS
    from vdplace.ir import script

    text = script(GENERATORS[family](n))
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _pipeline(path: Path, out: Path) -> dict[str, float]:
    """Child: parse, place and print `path` as `vdplace place` does; times per step and the peak memory."""
    from vdplace import ir, placement
    from vdplace.bench.measure import peak_rss_mb

    t0 = time.perf_counter()
    mod = ir.parse_file(path)
    text_bytes = path.stat().st_size
    t1 = time.perf_counter()
    result = placement.place(mod)
    t2 = time.perf_counter()
    bindings = mod.num_bindings()
    placed = result.module
    del mod, result  # as the command line does before printing
    with open(out, "w", encoding="utf-8") as f:  # streamed, as the command line writes it
        ir.write_script(placed, f)
        f.write("\n")
    t3 = time.perf_counter()
    return {
        "bindings": bindings,
        "text_bytes": text_bytes,
        "parse_s": t1 - t0,
        "place_s": t2 - t1,
        "print_s": t3 - t2,
        "peak_rss_mb": peak_rss_mb(),
    }


def measure(family: str, n: int, cache: Path) -> dict[str, float]:
    """One (family, size): write its text once, then run the pipeline in a fresh child."""
    path = cache / f"{family}_{n}.py"
    if not path.exists():
        subprocess.run([sys.executable, __file__, "--child-write", family, str(n), str(path)], check=True)
    out = cache / f"{family}_{n}.placed.py"
    proc = subprocess.run(
        [sys.executable, __file__, "--child-run", str(path), str(out)], capture_output=True, text=True
    )
    if proc.returncode:
        raise SystemExit(f"{family} at {n}: the pipeline failed:\n{proc.stderr[-2000:]}")
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith(RESULT))
    row = json.loads(line[len(RESULT) :])
    row["family"] = family
    return row


def cells(row: dict[str, float]) -> list[str]:
    """The table cells of one measured row, in `COLUMNS` order."""
    b = row["bindings"]
    total = row["parse_s"] + row["place_s"] + row["print_s"]
    return [
        str(row["family"]),
        f"{int(b):,}",
        f"{row['text_bytes'] / 1e6:.1f}",
        f"{row['parse_s']:.2f}",
        f"{row['place_s']:.2f}",
        f"{row['print_s']:.2f}",
        f"{total / b * 1e6:.1f}",
        f"{row['peak_rss_mb']:.0f}",
        f"{row['peak_rss_mb'] * 2**20 / b:.0f}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="+", default=["chain"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "vdplace-bench-pipeline"))
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    if args.markdown:
        print("| " + " | ".join(COLUMNS) + " |")
        print("|" + "---|" * len(COLUMNS))
    else:
        print("  ".join(f"{c:>10}" for c in COLUMNS))
    for family in args.families:
        for n in args.sizes:
            row = cells(measure(family, n, cache))
            print("| " + " | ".join(row) + " |" if args.markdown else "  ".join(f"{c:>10}" for c in row), flush=True)
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child-write":
        _write_module(sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-run":
        print(RESULT + json.dumps(_pipeline(Path(sys.argv[2]), Path(sys.argv[3]))))
    else:
        raise SystemExit(main())
