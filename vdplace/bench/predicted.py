"""Predicted against measured: the rows of `benchmarks/bench_measured.py`, their check, summary and table.

A row is one (model, cap) pair: the `Time` plan's prediction (``predicted
s``: the schedule's makespan plus the Ray executor's calibrated per-step
cost; ``predicted peak``: bytes per vdevice by liveness) beside the run's
(``measured s``: the median step of `measure_step`; ``measured peak``: the
runtime's peak of live bytes per vdevice), ``fits`` (False when the run
raised `DeviceMemoryError` under the caps), ``cap`` (vdevice name ->
bytes, empty without caps) and ``split`` (the share of the weights' bytes
off the vdevice that holds most of them).

How far off a figure is, `off(predicted, measured)`, is symmetric:
``max(p / m, m / p) - 1`` (0 when both are 0, infinite when only one is), so
"within 25%" means 0.8 <= p / m <= 1.25.  A pair is within a tolerance on
peak when every vdevice's peak is.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

Row = Mapping[str, Any]


def off(predicted: float | None, measured: float | None) -> float:
    """``max(p / m, m / p) - 1``: 0 for equal figures, infinite when one is 0 or missing and the other not."""
    if predicted is None or measured is None:
        return math.inf
    if predicted == measured:
        return 0.0
    if predicted <= 0 or measured <= 0:
        return math.inf
    return max(predicted / measured, measured / predicted) - 1


def peak_off(row: Row) -> float:
    """The worst `off` of the row's peaks over its vdevices."""
    predicted, measured = row.get("predicted peak") or {}, row.get("measured peak") or {}
    names = set(predicted) | set(measured)
    return max((off(predicted.get(n, 0), measured.get(n, 0)) for n in names), default=math.inf)


def problems(rows: Sequence[Row], tolerance: float = 0.5) -> list[str]:
    """What the CI check fails on, one line each: a row whose step or a peak is off by more than `tolerance`,
    a plan whose predicted peak is over a cap, a run that did not fit its caps or did not run."""
    found = []
    for row in rows:
        label = f"{row['model']} ({row.get('scenario', '')})"
        for name, cap in (row.get("cap") or {}).items():
            peak = (row.get("predicted peak") or {}).get(name, 0)
            if peak > cap:
                found.append(f"{label}: the plan puts {peak} B on {name}, over its cap of {cap} B")
        if row.get("fits") is False:
            found.append(f"{label}: the run did not fit its caps: {row.get('error', '')}")
            continue
        if row.get("measured s") is None:
            found.append(f"{label}: no measured step: {row.get('error', 'the run failed')}")
            continue
        t = off(row.get("predicted s"), row.get("measured s"))
        if t > tolerance:
            found.append(
                f"{label}: predicted step {_ms(row.get('predicted s'))} against {_ms(row.get('measured s'))} "
                f"measured, off by {t:.0%} (more than {tolerance:.0%})"
            )
        p = peak_off(row)
        if p > tolerance:
            found.append(
                f"{label}: predicted peak {row.get('predicted peak')} against {row.get('measured peak')} "
                f"measured, off by {p:.0%} (more than {tolerance:.0%})"
            )
    return found


def summary(rows: Sequence[Row], time_tolerance: float = 0.25, peak_tolerance: float = 0.15) -> str:
    """The shares of rows within `time_tolerance` on the step and `peak_tolerance` on every peak."""
    measured = [r for r in rows if r.get("measured s") is not None]
    on_time = sum(1 for r in measured if off(r.get("predicted s"), r.get("measured s")) <= time_tolerance)
    on_peak = sum(1 for r in measured if peak_off(r) <= peak_tolerance)
    fits = sum(1 for r in rows if r.get("fits"))
    return (
        f"step within {time_tolerance:.0%}: {on_time} of {len(measured)} pairs; "
        f"peak within {peak_tolerance:.0%}: {on_peak} of {len(measured)}; "
        f"runs that fit their caps: {fits} of {len(rows)}"
    )


COLUMNS = ("model", "scenario", "predicted", "measured", "ratio", "peak (pred / meas, per vdevice)", "fits", "split")


def cells(row: Row) -> list[str]:
    """The row's cells under `COLUMNS`."""
    predicted, measured = row.get("predicted s"), row.get("measured s")
    ratio = f"{predicted / measured:.2f}" if predicted and measured else "-"
    peaks = []
    pp, mp = row.get("predicted peak") or {}, row.get("measured peak") or {}
    for name in sorted(set(pp) | set(mp)):
        p, m = pp.get(name, 0), mp.get(name)
        r = f" ({p / m:.2f})" if m else ""
        peaks.append(f"{name.split(':global')[0]} {_kib(p)} / {_kib(m)}{r}")
    fits = {True: "yes", False: "no (DeviceMemoryError)", None: "-"}[row.get("fits")]
    split = row.get("split")
    return [
        str(row["model"]),
        str(row.get("scenario", "")),
        _ms(predicted),
        _ms(measured),
        ratio,
        "; ".join(peaks),
        fits,
        "-" if split is None else f"{split:.0%}",
    ]


def markdown(rows: Sequence[Row]) -> str:
    """The rows as one markdown table."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e3:.2f} ms"


def _kib(nbytes: int | None) -> str:
    return "-" if nbytes is None else f"{nbytes / 1024:.1f} KiB"
