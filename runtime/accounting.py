"""What one run counts besides its result: copies, transfers, memory and host fallbacks, then its profile.

`RunRecord.begin` starts a run's window: it clears the copy and transfer
counters (the steps and argument handling fill those dicts in place), and
snapshots each device's memory statistics and torch fallback counts.
`RunRecord.profile` turns the window, and for a timed run the frames' per
instruction times, counts and estimated work, into a `Profile`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .devices import Device, MemoryStats
from .frame import Frame
from .instructions import DeviceCopy, Instruction
from .profile import InstructionTime, Profile

Pair = tuple[str, str]


class RunRecord:
    """The counters of the current run on `devices`; `device_map` maps vdevice indices to them."""

    def __init__(self, devices: Sequence[Device], device_map: Sequence[Device]) -> None:
        self.devices = devices
        self.device_map = device_map
        self.copies: dict[Pair, list[int]] = {}
        self.transfers: dict[Pair, list[int]] = {}
        self._memory_before: dict[str, MemoryStats] = {}
        self._fallbacks_before: dict[Pair, int] = {}

    def begin(self) -> None:
        self.copies.clear()
        self.transfers.clear()
        self._memory_before = {d.name: d.stats.snapshot() for d in self.devices}
        for d in self.devices:
            d.reset_peak()
        self._fallbacks_before = self._fallback_counts()

    def _fallback_counts(self) -> dict[Pair, int]:
        """(device, op) -> host fallbacks so far, on the torch devices."""
        return {(d.name, op): n for d in self.devices for op, n in getattr(d, "fallbacks", {}).items()}

    def profile(
        self, timed: bool, total: float, frames: Iterable[Frame], device_name: Callable[[int | None], str]
    ) -> Profile:
        rows = [row for frame in frames for row in self._rows(frame, device_name)] if timed else []
        memory = {d.name: d.stats.since(self._memory_before[d.name]) for d in self.devices}
        fallbacks = {k: n - self._fallbacks_before.get(k, 0) for k, n in self._fallback_counts().items()}
        fallbacks = {k: n for k, n in fallbacks.items() if n}
        return Profile(timed, total, rows, self.copies, self.transfers, memory, fallbacks)

    def _rows(self, frame: Frame, device_name: Callable[[int | None], str]) -> list[InstructionTime]:
        """One row per instruction of `frame` executed in the run."""
        fn = frame.fn
        rows = []
        for pc, instr in enumerate(fn.instructions):
            count = frame.counts[pc]
            if count == 0:
                continue
            work = frame.work[pc]
            rows.append(
                InstructionTime(
                    fn.name,
                    pc,
                    instr.kind,
                    self._device(instr),
                    instr.body(fn.reg_name, device_name),
                    count,
                    frame.times[pc],
                    None if work is None else work.total(count),
                )
            )
        return rows

    def _device(self, instr: Instruction) -> str:
        """The runtime device an instruction runs on ('vm' for register bookkeeping); a copy's is its target."""
        index = instr.dst_device if isinstance(instr, DeviceCopy) else getattr(instr, "device", None)
        return "vm" if index is None else self.device_map[index].name
