"""Run the benchmark grid, one child interpreter per measurement, printing an aligned table row by row.

The table is Markdown whose cells are padded to fixed widths (`vdplace.bench.table`),
so the rows line up as they arrive; a progress line (``bench › chain 100,000``)
shows on a terminal while a measurement runs.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from vdplace import progress
from vdplace.bench.measure import measure, tvm_available
from vdplace.bench.names import ENCODINGS
from vdplace.bench.table import Table

PHASES = ("extract", "collapse", "solve", "check", "realize", "verify")  # `placement.result.PHASES`


def encoding_option(encoding: str) -> dict[str, str]:
    """The `place()` keyword that picks Z3's encoding of a device variable: that Z3 backend's registered name."""
    return {"backend": f"z3-{encoding}"}


def run(
    families: Sequence[str],
    sizes: Sequence[int],
    *,
    tvm: bool | None = None,
    use_tracemalloc: bool = False,
    options: dict[str, Any] | None = None,
    timeout: float = 1800.0,
    out: TextIO | None = None,
) -> list[dict[str, Any]]:
    """Measure every (family, size), printing one table row each to `out` (stdout); the rows as dicts.

    `tvm`: also time TVM's RealizeVDevice (None: when apache-tvm imports).  A
    failed TVM run is recorded as ``tvm_error`` in its row, not raised.
    """
    out = out or sys.stdout
    options = dict(options or {})
    if use_tracemalloc:
        options["use_tracemalloc"] = True
    if tvm is None:
        tvm = tvm_available()
    results = []
    table = placement_table(tvm)
    print(table.header(), file=out, flush=True)
    grid = [(family, n) for family in families for n in sizes]
    with progress.stage("bench", total=len(grid)) as tick:
        for done, (family, n) in enumerate(grid):
            tick(done)
            with progress.stage(f"{family} {n:,}"):
                row = measure("vdplace", family, n, options, timeout)
                if tvm:
                    row.update(measure_tvm(family, n, timeout))
            results.append(row)
            print(table.row(table_cells(row, tvm)), file=out, flush=True)
    return results


def measure_tvm(family: str, n: int, timeout: float) -> dict[str, Any]:
    """TVM's time and peak memory for one module, or the first line of its failure."""
    try:
        theirs = measure("tvm", family, n, {}, timeout)
    except (RuntimeError, subprocess.TimeoutExpired) as err:
        return {"tvm_error": str(err).splitlines()[0]}
    return {"tvm_s": theirs["tvm_s"], "tvm_peak_rss_mb": theirs["peak_rss_mb"]}


def placement_table(tvm: bool) -> Table:
    """The columns of the placement table (TVM's two when it is timed)."""
    cols = ["family", "bindings", "place s"] + [f"{p} s" for p in PHASES] + ["us/bind", "peak MB", "vars"]
    if tvm:
        cols += ["TVM s", "TVM/place"]
    return Table(cols, widths={"family": 17, "bindings": 9})


def table_cells(r: dict[str, Any], tvm: bool) -> list[str]:
    """One measurement as the cells of a table row."""
    cells = [r["family"], f"{r['bindings']:,}", f"{r['place_s']:.3f}"]
    cells += [f"{r['phases'].get(p, 0.0):.3f}" for p in PHASES]
    cells += [f"{1e6 * r['place_s'] / max(1, r['bindings']):.1f}", f"{r['peak_rss_mb']:.0f}", str(r["variables"])]
    if tvm:
        if "tvm_s" in r:
            cells += [f"{r['tvm_s']:.3f}", f"{r['tvm_s'] / r['place_s']:.2f}x"]
        else:
            cells += ["error", "-"]
    return cells


def compare_encodings(
    families: Sequence[str], sizes: Sequence[int], *, timeout: float = 1800.0, out: TextIO | None = None
) -> list[dict[str, Any]]:
    """Solve time of each Z3 encoding with propagation off (Z3 decides every constrained class)."""
    out = out or sys.stdout
    rows = []
    table = Table(
        ["family", "bindings", "classes", "z3 vars", "soft", "bv solve s", "enum solve s", "enum/bv"],
        widths={"family": 17, "bindings": 9},
    )
    print(table.header(), file=out, flush=True)
    grid = [(family, n) for family in families for n in sizes]
    with progress.stage("bench --encodings", total=len(grid)) as tick:
        for done, (family, n) in enumerate(grid):
            tick(done)
            with progress.stage(f"{family} {n:,}"):
                bv, enum = (
                    measure("vdplace", family, n, {"propagate": False, **encoding_option(e)}, timeout)
                    for e in ENCODINGS
                )
            row = {
                "family": family,
                "bindings": bv["bindings"],
                "classes": bv["classes"],
                "variables": bv["variables"],
                "soft": bv["soft"],
                "bv_solve_s": bv["phases"]["solve"],
                "enum_solve_s": enum["phases"]["solve"],
            }
            rows.append(row)
            print(table.row(encoding_cells(row)), file=out, flush=True)
    return rows


def encoding_cells(row: dict[str, Any]) -> list[str]:
    """The cells of one row of the encodings table."""
    ratio = row["enum_solve_s"] / max(row["bv_solve_s"], 1e-9)
    cells = [row["family"], f"{row['bindings']:,}", *(str(row[k]) for k in ("classes", "variables", "soft"))]
    return [*cells, f"{row['bv_solve_s']:.3f}", f"{row['enum_solve_s']:.3f}", f"{ratio:.2f}x"]
