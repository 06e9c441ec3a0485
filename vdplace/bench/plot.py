"""A log-log plot of placement time against bindings (needs matplotlib: the `bench` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vdplace.bench.runner import PHASES

PHASE_STYLES = dict(
    zip(PHASES, [(0, (1, 1)), (0, (3, 1)), (0, (5, 2, 1, 2)), (0, (1, 3)), (0, (6, 2)), (0, (2, 2))], strict=True)
)


def require_matplotlib() -> None:
    """Check, before any benchmark runs, that `plot` can draw: a bad-input `Failure` with the install hint if not."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        from vdplace.cli_output import Failure

        raise Failure("--plot needs matplotlib, which is not installed: pip install 'vdplace[bench]'") from None


def plot(results: Sequence[dict[str, Any]], path: str) -> None:
    """Write a PNG to `path`: per family, place() total, each phase, and TVM when measured.

    Raises `Failure` with an install hint when matplotlib is missing (`require_matplotlib`).
    """
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 6.5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, family in enumerate(sorted({r["family"] for r in results})):
        rows = sorted((r for r in results if r["family"] == family), key=lambda r: r["bindings"])
        plot_family(ax, family, rows, colors[i % len(colors)])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("bindings")
    ax.set_ylabel("seconds")
    ax.set_title("vdplace place() time per phase")
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def plot_family(ax: Any, family: str, rows: list[dict[str, Any]], color: str) -> None:
    """The lines of one family, its rows sorted by bindings."""
    xs = [r["bindings"] for r in rows]
    ax.plot(xs, [r["place_s"] for r in rows], color=color, marker="o", lw=2, label=f"{family}: place() total")
    for phase in PHASES:
        ys = [r["phases"].get(phase, 0.0) for r in rows]
        if any(ys):
            ax.plot(xs, ys, color=color, lw=1, linestyle=PHASE_STYLES[phase], label=f"{family}: {phase}")
    tvm = [(r["bindings"], r["tvm_s"]) for r in rows if "tvm_s" in r]
    if tvm:
        bindings, seconds = zip(*tvm, strict=True)
        ax.plot(bindings, seconds, color=color, marker="x", lw=2, linestyle="--", label=f"{family}: TVM RealizeVDevice")
