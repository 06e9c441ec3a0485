"""The model corpus end to end: parse, place and run every model of tests/models/, checked against PyTorch.

For each model folder (written by benchmarks/models/make_corpus.py) and each
variant text in it -- ``params`` (weights as parameters), ``consts`` (weights as
``metadata[...]`` constants), ``hinted`` (two ``R.hint_on_device``), and
``conflict`` (contradicting annotations, where the folder has one) -- it:

1. parses the text (``vdplace.ir.parse``);
2. places it: ``place(mod, default="host")`` for the unhinted texts (they name
   no device), ``place(mod)`` for ``hinted`` and ``conflict``; a ``conflict``
   text must have no placement (a `PlacementConflict`), and stops there;
3. runs it as ``vdplace run --simulate`` does: ``runtime.compile(placed,
   params=<npz>)`` binds the ``metadata[kind][i]`` constants from the folder's
   ``.npz`` (``consts.npz`` for ``consts``, ``params.npz`` for the others), and a
   `VirtualMachine` with automatic devices, simulating the ones this machine
   lacks, runs ``main`` on the inputs of the same ``.npz`` (by parameter name);
4. compares the outputs, flattened depth-first, with ``expected.npz``: the
   row fails unless floats agree within rtol 1e-4, atol 1e-5 (what TVM's own
   run was checked against) and other dtypes exactly.

The table (the main output) has per row: model, variant, bindings (in the
parsed module), the seconds of each step ("run" counts compile and the VM run),
the copies placement inserted, the bytes the run copied between devices, and
the largest absolute difference from PyTorch -- or, from the first step that
failed, that step and the first line of its error.  A ``conflict`` row is ok
when placement finds no placement.  ``--json OUT`` also writes
the rows as JSON.  Exit status 0 unless ``--strict`` and a row failed.

    python benchmarks/bench_models.py [--models tests/models] [--only NAME ...] [--json OUT] [--strict]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vdplace import ir, placement, runtime

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ("params", "consts", "hinted", "conflict")
NPZ = {"params": "params.npz", "consts": "consts.npz", "hinted": "params.npz", "conflict": "params.npz"}
RTOL, ATOL = 1e-4, 1e-5  # what make_corpus checked TVM's own run against
COLUMNS = ("model", "variant", "bindings", "parse_s", "place_s", "run_s", "copies", "bytes_moved", "max_abs_diff")


@dataclass
class Row:
    """One model variant's result; `error` is ``"<step>: <first line>"`` of the step that failed, or None."""

    model: str
    variant: str
    bindings: int | None = None
    parse_s: float | None = None
    place_s: float | None = None
    run_s: float | None = None
    copies: int | None = None
    bytes_moved: int | None = None
    max_abs_diff: float | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class StepFailed(Exception):
    """A step of one row failed; the message is the row's error."""


def first_line(err: BaseException) -> str:
    text = str(err).strip()
    return f"{type(err).__name__}: {text.splitlines()[0] if text else ''}".rstrip(": ")


def timed(row: Row, step: str, field: str, fn: Any) -> Any:
    """`fn()`, its wall time stored in `row.<field>`; any exception becomes `StepFailed("<step>: ...")`."""
    start = time.perf_counter()
    try:
        return fn()
    except Exception as err:  # every failure is a row of the table, not a crash of the bench
        raise StepFailed(f"{step}: {first_line(err)}") from err
    finally:
        setattr(row, field, time.perf_counter() - start)


def flatten(value: Any) -> list[np.ndarray]:
    """A run's result as arrays, tuples flattened depth-first."""
    if isinstance(value, tuple | list):
        return [a for item in value for a in flatten(item)]
    return [np.asarray(value)]


def max_abs_diff(actual: list[np.ndarray], expected: list[np.ndarray]) -> float:
    """The largest |actual - expected| over all outputs; `StepFailed` if their count, shapes or dtypes differ."""
    if len(actual) != len(expected):
        raise StepFailed(f"compare: {len(actual)} outputs, PyTorch gave {len(expected)}")
    worst = 0.0
    for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
        if a.shape != e.shape or a.dtype != e.dtype:
            raise StepFailed(f"compare: output {i} is {a.dtype}{list(a.shape)}, PyTorch's {e.dtype}{list(e.shape)}")
        if a.size:
            a64, e64 = a.astype(np.float64), e.astype(np.float64)
            same = (a64 == e64) | (np.isnan(a64) & np.isnan(e64))  # equal infinities and NaN in both count as 0
            with np.errstate(invalid="ignore"):
                diff = np.where(same, 0.0, np.abs(a64 - e64))
            worst = max(worst, float(np.nan_to_num(diff, nan=np.inf).max()))
    return worst


def close(actual: np.ndarray, expected: np.ndarray) -> bool:
    """Floats within RTOL/ATOL (NaN matching NaN), anything else exactly equal."""
    if np.issubdtype(expected.dtype, np.floating):
        return bool(np.allclose(actual, expected, rtol=RTOL, atol=ATOL, equal_nan=True))
    return bool(np.array_equal(actual, expected))


def run_variant(folder: Path, variant: str) -> Row:
    """Parse, place, run and compare one variant text of one model folder."""
    row = Row(folder.name, variant)
    path = folder / f"{variant}.py"
    try:
        mod = timed(row, "parse", "parse_s", lambda: ir.parse(path.read_text(), filename=str(path)))
        row.bindings = sum(1 for func in mod.functions.values() for _ in ir.iter_bindings(func))
        default = "host" if variant in ("params", "consts") else "none"
        if variant == "conflict":
            if timed(row, "place", "place_s", lambda: has_placement(mod)):
                raise StepFailed("place: placed, but the annotations contradict each other")
            return row
        placed = timed(row, "place", "place_s", lambda: placement.place(mod, default=default))
        row.copies = len(placed.copies)
        npz = folder / NPZ[variant]
        with np.load(folder / "expected.npz") as data:
            expected = [data[f"output:{i}"] for i in range(len(data.files))]
        outputs, vm = timed(row, "run", "run_s", lambda: execute(placed.module, npz))
        row.bytes_moved = vm.profile.bytes_copied if vm.profile is not None else None
        actual = flatten(outputs)
        row.max_abs_diff = max_abs_diff(actual, expected)
        far = [i for i, (a, e) in enumerate(zip(actual, expected, strict=True)) if not close(a, e)]
        if far:
            raise StepFailed(f"compare: output(s) {far} differ from PyTorch's beyond rtol {RTOL}, atol {ATOL}")
    except StepFailed as err:
        row.error = str(err)
    return row


def has_placement(mod: ir.IRModule) -> bool:
    """Whether `mod` has a placement; False on a `PlacementConflict`."""
    try:
        placement.place(mod)
    except placement.PlacementConflict:
        return False
    return True


def execute(placed: ir.IRModule, npz: Path) -> tuple[Any, runtime.VirtualMachine]:
    """Compile `placed` with the constants of `npz`, run ``main`` on `npz`'s arrays by parameter name."""
    exe = runtime.compile(placed, params=str(npz))
    vm = runtime.VirtualMachine(exe, devices=None, simulate_missing=True)
    with np.load(npz) as data:
        inputs = [data[p.name] for p in placed["main"].params]
    return vm.run("main", *inputs), vm


def render(rows: list[Row]) -> str:
    """The rows as an aligned text table; a failed row shows its error after the columns it reached."""

    def cell(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, float):
            return f"{value:.3g}" if value and (value < 1e-3 or value >= 1e4) else f"{value:.3f}"
        return str(value)

    header = [*COLUMNS, "status"]
    body = [[cell(getattr(r, c)) for c in COLUMNS] + ["ok" if r.ok else r.error] for r in rows]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(COLUMNS))]
    lines = []
    for line in [header, *body]:
        cells = [v.ljust(w) if i < 2 else v.rjust(w) for i, (v, w) in enumerate(zip(line, widths, strict=False))]
        lines.append("  ".join(cells + [line[-1]]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=ROOT / "tests" / "models", help="the corpus folder")
    parser.add_argument("--only", action="append", help="only this model (repeatable)")
    parser.add_argument("--variant", action="append", choices=VARIANTS, help="only this variant (repeatable)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write the rows as JSON")
    parser.add_argument("--strict", action="store_true", help="exit status 1 if any row failed")
    opts = parser.parse_args(argv)
    folders = sorted(p.parent for p in opts.models.glob("*/params.py"))
    folders = [f for f in folders if not opts.only or f.name in opts.only]
    rows = []
    for folder in folders:
        for variant in opts.variant or VARIANTS:
            if (folder / f"{variant}.py").exists():
                rows.append(run_variant(folder, variant))
                print(f"{folder.name} {variant}: {rows[-1].error or 'ok'}", file=sys.stderr, flush=True)
    print(render(rows))
    passed = sum(r.ok for r in rows)
    print(f"\n{passed} of {len(rows)} rows ok")
    if opts.json:
        opts.json.write_text(json.dumps([asdict(r) for r in rows], indent=2) + "\n")
    return 1 if opts.strict and passed < len(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
