"""What one VM run cost: time and estimated work per instruction kind and device, copies, memory per device.

Copies, bytes moved and memory are counted on every run (they cost little
next to a copy); times only when the run is profiled, since timing each
instruction slows the loop down.  Invoke times are exclusive: the callee's
instructions are counted under their own kinds.

A profiled run also reports, next to the measured times, the work the ops'
registered estimates (`Op.work`) give for the calls that ran: FLOPs and bytes
read and written, per instruction (`InstructionTime.work`) and per device
(`Profile.work_by_device`); the device table adds the FLOP rate over the time
of that device's op calls.  The estimate is what a kernel-time model starts
from; set against the measured time it shows how far each device is from
its peak.
"""

from __future__ import annotations

from collections.abc import Iterable

from vdplace.ir.op import NO_WORK, Work

from .devices import MemoryStats

Pair = tuple[str, str]


class InstructionTime:
    """Time spent in one instruction of one function, and its estimated work (both summed over executions).

    `work` is None for instructions that are not op calls.
    """

    __slots__ = ("function", "pc", "kind", "device", "text", "count", "seconds", "work")

    def __init__(
        self,
        function: str,
        pc: int,
        kind: str,
        device: str,
        text: str,
        count: int,
        seconds: float,
        work: Work | None = None,
    ):
        self.function = function
        self.pc = pc
        self.kind = kind
        self.device = device
        self.text = text
        self.count = count
        self.seconds = seconds
        self.work = work


class Profile:
    """One run.  `timed` is False when the run was not profiled (times are then empty)."""

    def __init__(
        self,
        timed: bool,
        total_seconds: float,
        instructions: list[InstructionTime],
        copies: dict[Pair, list[int]],
        transfers: dict[Pair, list[int]],
        memory: dict[str, MemoryStats],
        fallbacks: dict[Pair, int],
    ) -> None:
        self.timed = timed
        self.total_seconds = total_seconds
        self.instructions = instructions
        self.copies = {k: (v[0], v[1]) for k, v in copies.items()}
        self.transfers = {k: (v[0], v[1]) for k, v in transfers.items()}
        self.memory = memory
        self.fallbacks = fallbacks

    # -- aggregates ------------------------------------------------------------
    def _group(self, key) -> dict[str, tuple[int, float]]:
        out: dict[str, list[float]] = {}
        for row in self.instructions:
            acc = out.setdefault(key(row), [0, 0.0])
            acc[0] += row.count
            acc[1] += row.seconds
        return {k: (int(v[0]), v[1]) for k, v in out.items()}

    @property
    def by_kind(self) -> dict[str, tuple[int, float]]:
        """Instruction kind -> (executions, seconds)."""
        return self._group(lambda r: r.kind)

    @property
    def by_device(self) -> dict[str, tuple[int, float]]:
        """Runtime device name -> (executions, seconds); 'vm' for bookkeeping instructions."""
        return self._group(lambda r: r.device)

    @property
    def work_by_device(self) -> dict[str, Work]:
        """Runtime device name -> the estimated work of the op calls it ran (empty when not timed)."""
        out: dict[str, Work] = {}
        for row in self.instructions:
            if row.work is not None:
                out[row.device] = out.get(row.device, NO_WORK) + row.work
        return out

    @property
    def num_copies(self) -> int:
        return sum(c for c, _ in self.copies.values())

    @property
    def bytes_copied(self) -> int:
        return sum(b for _, b in self.copies.values())

    @property
    def peak_bytes(self) -> dict[str, int]:
        return {name: stats.peak for name, stats in self.memory.items()}

    def slowest(self, n: int = 10) -> list[InstructionTime]:
        return sorted(self.instructions, key=lambda r: r.seconds, reverse=True)[:n]

    # -- rendering -------------------------------------------------------------
    def table(self) -> str:
        """A plain-text report: times, copies, transfers, memory, host fallbacks."""
        parts: list[str] = []
        if self.timed:
            parts.append(f"total {_ms(self.total_seconds)}")
            parts.append(_render(["instruction", "count", "time", "share"], self._time_rows(self.by_kind)))
            parts.append(_render(_DEVICE_HEADER, self._device_rows()))
            slow = [[f"{r.function}:{r.pc}", r.text, str(r.count), _ms(r.seconds)] for r in self.slowest(5)]
            parts.append(_render(["slowest", "instruction", "count", "time"], slow, left=2))
        else:
            parts.append("(times not measured: run with profile=True)")
        parts.append(_render(["copy src -> dst", "copies", "bytes"], _pair_rows(self.copies), empty="no copies"))
        if self.transfers:
            parts.append(_render(["input/output", "arrays", "bytes"], _pair_rows(self.transfers)))
        mem = [
            [name, _bytes(s.peak), _bytes(s.allocated), _bytes(s.freed), str(s.allocations)]
            for name, s in sorted(self.memory.items())
        ]
        parts.append(_render(["device memory", "peak", "allocated", "freed", "buffers"], mem))
        if self.fallbacks:
            rows = [[dev, op, str(n)] for (dev, op), n in sorted(self.fallbacks.items())]
            parts.append(_render(["host fallback on", "op", "calls"], rows))
        return "\n\n".join(parts) + "\n"

    def _time_rows(self, groups: dict[str, tuple[int, float]]) -> list[list[str]]:
        total = sum(s for _, s in groups.values()) or 1.0
        rows = sorted(groups.items(), key=lambda kv: kv[1][1], reverse=True)
        return [[k, str(c), _ms(s), f"{100 * s / total:.1f}%"] for k, (c, s) in rows]

    def _device_rows(self) -> list[list[str]]:
        """Time rows per device, then its estimated work and the FLOP rate over its op calls' time."""
        work = self.work_by_device
        call_seconds: dict[str, float] = {}
        for row in self.instructions:
            if row.work is not None:
                call_seconds[row.device] = call_seconds.get(row.device, 0.0) + row.seconds
        rows = []
        for cells in self._time_rows(self.by_device):
            w = work.get(cells[0])
            if w is None:
                rows.append(cells + ["", "", ""])
                continue
            seconds = call_seconds[cells[0]]
            rate = _si(w.flops / seconds, "FLOP/s") if seconds > 0 else ""
            rows.append(cells + [_si(w.flops), _bytes(int(w.bytes)), rate])
        return rows

    def __repr__(self) -> str:
        return f"Profile(copies={self.num_copies}, bytes_copied={self.bytes_copied}, peak={self.peak_bytes})"


def _pair_rows(pairs: dict[Pair, tuple[int, int]]) -> list[list[str]]:
    return [[f"{src} -> {dst}", str(c), _bytes(b)] for (src, dst), (c, b) in sorted(pairs.items())]


_DEVICE_HEADER = ["device", "count", "time", "share", "est. FLOPs", "est. bytes r+w", "op FLOP/s"]


def _si(n: float, unit: str = "") -> str:
    """A quantity with an SI prefix: ``1.5 GFLOP/s``, ``320 k``, ``12``."""
    for prefix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= scale:
            return f"{n / scale:.3g} {prefix}{unit}"
    return f"{n:.3g} {unit}".rstrip()


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def _bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def _render(header: list[str], rows: Iterable[list[str]], empty: str = "", left: int = 1) -> str:
    """Aligned columns: the first `left` left-justified (names), the rest right-justified (numbers)."""
    rows = list(rows)
    if not rows and empty:
        return f"{header[0]}: {empty}"
    widths = [len(h) for h in header]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=False)]

    def line(cells: list[str]) -> str:
        cols = enumerate(zip(cells, widths, strict=True))
        return "  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in cols).rstrip()

    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])
