"""What one VM run cost: time per instruction kind and device, copies, memory per device.

Copies, bytes moved and memory are counted on every run (they cost little
next to a copy); times only when the run is profiled, since timing each
instruction slows the loop down.  Invoke times are exclusive: the callee's
instructions are counted under their own kinds.
"""

from __future__ import annotations

from collections.abc import Iterable

from .devices import MemoryStats

Pair = tuple[str, str]


class InstructionTime:
    """Time spent in one instruction of one function (summed over executions)."""

    __slots__ = ("function", "pc", "kind", "device", "text", "count", "seconds")

    def __init__(self, function: str, pc: int, kind: str, device: str, text: str, count: int, seconds: float):
        self.function = function
        self.pc = pc
        self.kind = kind
        self.device = device
        self.text = text
        self.count = count
        self.seconds = seconds


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
            parts.append(_render(["device", "count", "time", "share"], self._time_rows(self.by_device)))
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

    def __repr__(self) -> str:
        return f"Profile(copies={self.num_copies}, bytes_copied={self.bytes_copied}, peak={self.peak_bytes})"


def _pair_rows(pairs: dict[Pair, tuple[int, int]]) -> list[list[str]]:
    return [[f"{src} -> {dst}", str(c), _bytes(b)] for (src, dst), (c, b) in sorted(pairs.items())]


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
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
        return "  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in cols)

    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])
