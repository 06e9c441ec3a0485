"""The report of a run on Ray: the local VM's `Profile`, per actor figures, the driver's bytes and a timeline.

`RayProfile.local` is the local VM's report built from the actors' counters:
instruction times (a profiled run), copies and bytes per device pair,
inputs and results, peak memory per device.  An instruction every actor runs
(register bookkeeping, shapes) is one ``vm`` row with the time summed over
actors.  On top of it, per actor: busy and idle time over the run's wall
time, bytes received and sent by copies, and each copy's latency (the
receiver's fetch from the sender's object store plus the write into its
buffer).  `driver_bytes` counts the arrays the driver itself serialized or
received: the inputs and the returned results, and nothing else, since
copies go actor to actor.  `timeline_png` draws each actor's scripts over
time (matplotlib, the ``bench`` extra).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from vdplace.ir.op import Work

from ..executable import Executable
from ..profile import InstructionTime, Profile, _bytes, _ms, _render
from ..work import CallWork
from .schedule import REPLICATED, FunctionSchedule


class ActorFigures:
    """One actor's window: `label` (its vdevices), `device`, times in seconds, bytes, copy latencies."""

    def __init__(self, label: str, report: dict[str, Any], wall: float) -> None:
        self.label = label
        self.device: str = report["device"]
        self.busy: float = report["busy"]
        self.idle = max(wall - self.busy, 0.0)
        self.bytes_received = sum(b for _, b in report["copies"].values())
        self.bytes_sent: int = report["bytes_sent"]
        self.copy_seconds: list[tuple[str, int, float]] = report["copy_seconds"]
        self.scripts: list[tuple[float, float, str]] = report["scripts"]

    def row(self) -> list[str]:
        lat = [s for _, _, s in self.copy_seconds]
        mean = _ms(statistics.fmean(lat)) if lat else "-"
        return [
            self.label,
            self.device,
            _ms(self.busy),
            _ms(self.idle),
            _bytes(self.bytes_received),
            _bytes(self.bytes_sent),
            str(len(lat)),
            mean,
        ]


class RayProfile:
    """One run (or one `run_many` / `run_pipelined` call) on Ray."""

    def __init__(
        self,
        local: Profile,
        actors: list[ActorFigures],
        wall_seconds: float,
        driver_input_bytes: int,
        driver_output_bytes: int,
        condition_reads: int,
    ) -> None:
        self.local = local
        self.actors = actors
        self.wall_seconds = wall_seconds
        self.driver_input_bytes = driver_input_bytes
        self.driver_output_bytes = driver_output_bytes
        self.condition_reads = condition_reads

    @property
    def driver_bytes(self) -> int:
        """Array bytes that passed through the driver: the inputs it sent and the results it received."""
        return self.driver_input_bytes + self.driver_output_bytes

    @property
    def bytes_copied(self) -> int:
        return self.local.bytes_copied

    @property
    def copy_latencies(self) -> list[tuple[str, int, float]]:
        """(instruction, bytes, seconds) of every copy, as its receiver measured it."""
        return [c for a in self.actors for c in a.copy_seconds]

    def table(self) -> str:
        header = ["actor (vdevices)", "device", "busy", "idle", "received", "sent", "copies", "copy latency"]
        parts = [
            self.local.table().rstrip("\n"),
            _render(header, [a.row() for a in self.actors], left=2),
            f"wall {_ms(self.wall_seconds)}; through the driver: {_bytes(self.driver_input_bytes)} of inputs, "
            f"{_bytes(self.driver_output_bytes)} of results, {self.condition_reads} If condition(s) read",
        ]
        return "\n\n".join(parts) + "\n"

    def timeline_png(self, path: str) -> None:
        """Draw every actor's scripts against wall time into the PNG `path` (needs matplotlib)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        starts = [s for a in self.actors for s, _, _ in a.scripts]
        origin = min(starts) if starts else 0.0
        fig, ax = plt.subplots(figsize=(10, 1 + 0.6 * len(self.actors)))
        for i, actor in enumerate(self.actors):
            bars = [((s - origin) * 1e3, max(d * 1e3, 1e-3)) for s, d, _ in actor.scripts]
            ax.broken_barh(bars, (i - 0.4, 0.8))
        ax.set_yticks(range(len(self.actors)), [a.label for a in self.actors])
        ax.set_xlabel("ms since the first script")
        ax.set_title("busy time per actor")
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)


def instruction_rows(
    executable: Executable, schedules: dict[str, FunctionSchedule], reports: Sequence[dict[str, Any]]
) -> list[InstructionTime]:
    """The local report's rows: an actor's own instructions under its device, the replicated ones as ``vm``."""
    merged: dict[tuple[str, int], list] = {}
    for me, report in enumerate(reports):
        for name, (times, counts) in report["times"].items():
            owner = schedules[name].owner
            for pc, (seconds, count) in enumerate(zip(times, counts, strict=True)):
                if count == 0 or (owner[pc] != me and owner[pc] != REPLICATED):
                    continue
                device = "vm" if owner[pc] == REPLICATED else report["device"]
                row = merged.setdefault((name, pc), [device, 0, 0.0])
                row[1] = max(row[1], count)
                row[2] += seconds
    rows = []
    for (name, pc), (device, count, seconds) in sorted(merged.items()):
        fn = executable[name]
        instr = fn.instructions[pc]
        rows.append(
            InstructionTime(
                name,
                pc,
                instr.kind,
                device,
                instr.body(fn.reg_name, executable.device_name),
                count,
                seconds,
                _work(instr, count),
            )
        )
    return rows


def _work(instr: Any, count: int) -> Work | None:
    out = getattr(instr, "out_sinfo", None)
    if out is None:
        return None
    work = CallWork(instr.op, instr.arg_sinfo, out, instr.attrs)
    return None if work.symbolic else work.total(count)
