"""What one actor counts in a measured window: busy time, bytes in and out, copies, memory, a timeline.

`report()` is a plain dict (it crosses to the driver):

- ``busy``: seconds spent running scripts; ``scripts``: (wall start, seconds, label) each;
- ``copies``: (source device, this device) -> [copies, bytes] received;
- ``copy_seconds``: (where, bytes, seconds) per copy received: the fetch from
  the sender's object store and the write into the buffer;
- ``bytes_sent`` / ``put_seconds``: what the actor put for other actors;
- ``inputs`` / ``outputs``: [arrays, bytes] of the driver's inputs received and results returned;
- ``memory``: this device's `MemoryStats` over the window;
- ``times``: function -> (per-pc seconds, per-pc counts) for a profiled run.
"""

from __future__ import annotations

from typing import Any

from ..devices import Device, MemoryStats
from ..frame import Frame

Pair = tuple[str, str]


class ActorCounters:
    def __init__(self, device: Device) -> None:
        self.device = device
        self.begin()

    def begin(self) -> None:
        self.busy = 0.0
        self.scripts: list[tuple[float, float, str]] = []
        self.copies: dict[Pair, list[int]] = {}
        self.copy_seconds: list[tuple[str, int, float]] = []
        self.bytes_sent = 0
        self.put_seconds = 0.0
        self.inputs = [0, 0]  # arrays, bytes
        self.outputs = [0, 0]
        self._memory_before: MemoryStats = self.device.stats.snapshot()
        self.device.reset_peak()

    def script(self, wall_start: float, seconds: float, commands: list[tuple]) -> None:
        self.busy += seconds
        fids = sorted({c[1] for c in commands if c[1] >= 0})
        self.scripts.append((wall_start, seconds, ",".join(str(f) for f in fids)))

    def sent(self, nbytes: int, seconds: float) -> None:
        self.bytes_sent += nbytes
        self.put_seconds += seconds

    def received(self, pair: Pair, nbytes: int, seconds: float, where: str) -> None:
        counter = self.copies.setdefault(pair, [0, 0])
        counter[0] += 1
        counter[1] += nbytes
        self.copy_seconds.append((where, nbytes, seconds))

    def received_input(self, nbytes: int) -> None:
        self.inputs[0] += 1
        self.inputs[1] += nbytes

    def returned(self, nbytes: int) -> None:
        self.outputs[0] += 1
        self.outputs[1] += nbytes

    def report(self, protos: dict[str, Frame]) -> dict[str, Any]:
        times = {name: (list(p.times), list(p.counts)) for name, p in protos.items() if any(p.counts)}
        return {
            "device": self.device.name,
            "busy": self.busy,
            "scripts": list(self.scripts),
            "copies": {k: list(v) for k, v in self.copies.items()},
            "copy_seconds": list(self.copy_seconds),
            "bytes_sent": self.bytes_sent,
            "put_seconds": self.put_seconds,
            "inputs": list(self.inputs),
            "outputs": list(self.outputs),
            "memory": self.device.stats.since(self._memory_before),
            "times": times,
        }
