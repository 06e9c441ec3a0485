"""What the time objective predicts: a `Schedule` of `Event` s, its makespan, proved bound and memory peaks.

An `Event` is one op call on a vdevice or one copy over a link, with its
start and end in seconds from the start of the run.  A `Schedule` holds
every event of one run of the entry function under one placement, and what
the solver proved about it:

* `makespan`: the end of the last event (seconds);
* `lower_bound`: seconds that no placement and order under the model beats
  (proved; `placement.schedule.bounds` and the exact solver);
* `optimal`: the makespan is within `tolerance` seconds of the lower bound:
  relative 1e-9, or the exact solver's discretization error where that is
  larger (`cpsat`, docs/schedule.md);
* `peak_memory`: bytes per vdevice name at that vdevice's worst moment, by
  liveness (`placement.schedule.liveness`);
* `peaks`: the `Peak` of every vdevice (when, what runs then, what is live);
* `uncontended`: under a model whose devices slow each other
  (`CostModel.slowdown`), the makespan before the schedule was re-timed for
  it (`placement.schedule.contention`); None otherwise.
"""

from __future__ import annotations

from typing import Any

from vdplace.ir.span import Span
from vdplace.ir.units import format_bytes

# Optimal means makespan - lower_bound <= OPTIMAL_TOLERANCE * makespan (the cost solvers' convention).
OPTIMAL_TOLERANCE = 1e-9


class Event:
    """One op call or copy of a schedule.

    kind      ``"op"`` or ``"copy"``
    function  the function the op call or copied value is in
    name      the bound variable as written (an op call); for a copy the binding the copy defines in
              the placed module (``lv3_cuda_0``), or the parameter for the upload of a runtime input
    device    the vdevice name (an op), or the pair ``(src, dst)`` of vdevice names (a copy)
    start     seconds from the start of the run
    end       seconds; ``end - start`` is what the cost model says the op or copy takes
    span      where the op's binding (or the copied value) is in the source, or None
    nbytes    bytes a copy moves (0 for an op)
    call      the call site the event runs at: the chain of call bindings from the entry function, each
              ``"caller:binding"`` (``("main:p", "scale:q")``), ``()`` in the entry function itself; two
              call sites of one function differ here (a callee is scheduled as its body per call site)
    send      a copy's sender's share: seconds from `start` that it also holds its source vdevice's
              device, which runs nothing else then (`CostModel.send`; 0 for an op, and for a copy under
              a model without sender shares)
    strided   a copy of a strided view (`vdplace.ir.views`), which its sender makes contiguous as it
              sends it: its share at the strided rate (`CostModel.send`); False for an op
    """

    __slots__ = ("kind", "function", "name", "device", "start", "end", "span", "nbytes", "call", "send", "strided")

    def __init__(
        self,
        kind: str,
        function: str,
        name: str,
        device: str | tuple[str, str],
        start: float,
        end: float,
        span: Span | None = None,
        nbytes: int = 0,
        call: tuple[str, ...] = (),
        send: float = 0.0,
        strided: bool = False,
    ) -> None:
        self.kind = kind
        self.function = function
        self.name = name
        self.device = device
        self.start = start
        self.end = end
        self.span = span
        self.nbytes = nbytes
        self.call = call
        self.send = send
        self.strided = strided

    @property
    def duration(self) -> float:
        return self.end - self.start

    def as_dict(self) -> dict[str, Any]:
        device = list(self.device) if isinstance(self.device, tuple) else self.device
        line = None if self.span is None else self.span.line
        out: dict[str, Any] = {"kind": self.kind, "function": self.function, "name": self.name, "device": device}
        out.update({"start": self.start, "end": self.end, "line": line, "nbytes": self.nbytes})
        out["call"] = list(self.call)
        if self.send:
            out["send"] = self.send
        if self.strided:
            out["strided"] = True
        return out

    def __repr__(self) -> str:
        where = "->".join(self.device) if isinstance(self.device, tuple) else self.device
        at = f" at {' > '.join(self.call)}" if self.call else ""
        return f"Event({self.kind} {self.function}:{self.name}{at} on {where}, {self.start:.6g}..{self.end:.6g})"


class Live:
    """One value on one vdevice from `start` to `end` (seconds, half-open): `label`, `nbytes`, source `span`."""

    __slots__ = ("label", "vdevice", "nbytes", "start", "end", "span")

    def __init__(self, label: str, vdevice: str, nbytes: int, start: float, end: float, span: Span | None) -> None:
        self.label = label
        self.vdevice = vdevice
        self.nbytes = nbytes
        self.start = start
        self.end = end
        self.span = span

    def __repr__(self) -> str:
        return f"Live({self.label} on {self.vdevice}, {self.nbytes}B, {self.start:.6g}..{self.end:.6g})"


class Peak:
    """A vdevice's worst moment: `bytes` live at time `at`, the op `running` then (an `Event` or None), `live`.

    `live` lists the values live at that moment (`Live`), largest first.
    """

    __slots__ = ("vdevice", "bytes", "at", "running", "live")

    def __init__(self, vdevice: str, nbytes: int, at: float, running: Event | None, live: list[Live]) -> None:
        self.vdevice = vdevice
        self.bytes = nbytes
        self.at = at
        self.running = running
        self.live = live


class Schedule:
    """Every event of one run, its makespan, proved lower bound, optimality and memory peaks (module docstring).

    `vdevices` names the vdevices in the module's order; `limits` the memory limits (bytes per
    vdevice name); `lives` every value's stay on a vdevice (`Live`), for pictures; `tolerance` the
    seconds that `optimal` allows between makespan and lower bound; `method` / `status` say how it
    was found (``"cp-sat"``, ``"list"``; ``"optimal"``, ``"time limit"``, ``"contended"``: the solver's
    optimum, no longer proved once re-timed for contention); `stopped` the solver's steps
    that its time limit ended early, each with why (``"budget"`` or ``"clock"``, docs/schedule.md).
    """

    def __init__(
        self,
        events: list[Event],
        vdevices: list[str],
        peaks: dict[str, Peak],
        lives: list[Live],
        limits: dict[str, int],
    ) -> None:
        self.events = events
        self.vdevices = vdevices
        self.peaks = peaks
        self.lives = lives
        self.limits = limits
        self.makespan = max((e.end for e in events), default=0.0)
        self.lower_bound = 0.0
        self.optimal = False
        self.tolerance = 0.0
        self.method = ""
        self.status = ""
        self.seconds = 0.0
        self.stopped: dict[str, str] = {}  # steps of the solver stopped by its time limit: "budget" or "clock"
        self.uncontended: float | None = None  # the makespan before re-timing for contention (module docstring)

    @property
    def peak_memory(self) -> dict[str, int]:
        """Bytes per vdevice name at its worst moment."""
        return {name: self.peaks[name].bytes if name in self.peaks else 0 for name in self.vdevices}

    @property
    def gap(self) -> float:
        """How far the makespan may be above the optimum, relative to it: (makespan - lower_bound) / makespan."""
        if self.optimal or self.makespan <= 0:
            return 0.0
        return max(0.0, (self.makespan - self.lower_bound) / self.makespan)

    def busy(self) -> dict[str, float]:
        """Seconds each vdevice runs ops, and sends (a copy's sender's share, `Event.send`, on its source)."""
        out = dict.fromkeys(self.vdevices, 0.0)
        for e in self.events:
            if e.kind == "op":
                out[e.device] += e.end - e.start  # type: ignore[index]
            elif e.send:
                out[e.device[0]] += e.send
        return out

    def describe(self) -> str:
        """Makespan, bound and gap (and, short of the optimum, the steps the time limit ended), then per
        vdevice: busy, idle, peak memory (and limit)."""
        state = "proved optimal" if self.optimal else f"lower bound {_ms(self.lower_bound)}, gap {self.gap:.1%}"
        lines = [f"makespan {_ms(self.makespan)} ({state}; {self.method}, {self.seconds:.2f} s)"]
        if self.uncontended is not None:
            lines.append(f"  {_ms(self.uncontended)} without the devices' contention (cost model's slowdown)")
        if self.stopped and not self.optimal:
            ended = ", ".join(f"{step} ({why})" for step, why in self.stopped.items())
            lines.append(f"  ended by the time limit: {ended}")
        copies = [e for e in self.events if e.kind == "copy"]
        for name, busy in self.busy().items():
            limit = self.limits.get(name)
            cap = f" of {format_bytes(limit)}" if limit is not None else ""
            peak = format_bytes(self.peak_memory.get(name, 0))
            idle = max(0.0, self.makespan - busy)
            lines.append(f"  {name}: busy {_ms(busy)}, idle {_ms(idle)}, peak memory {peak}{cap}")
        if copies:
            moved = sum(e.nbytes for e in copies)
            lines.append(f"  {len(copies)} copies, {format_bytes(moved)}, {_ms(sum(e.duration for e in copies))}")
        return "\n".join(lines) + "\n"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: makespan, lower_bound, optimal, gap, peak_memory, limits, method, status, stopped, events
        (and uncontended_makespan, under contention)."""
        out: dict[str, Any] = {
            "makespan": self.makespan,
            "lower_bound": self.lower_bound,
            "optimal": self.optimal,
            "tolerance": self.tolerance,
            "gap": self.gap,
            "peak_memory": self.peak_memory,
            "limits": dict(self.limits),
            "method": self.method,
            "status": self.status,
            "seconds": self.seconds,
            "stopped": dict(self.stopped),
            "events": [e.as_dict() for e in self.events],
        }
        if self.uncontended is not None:
            out["uncontended_makespan"] = self.uncontended
        return out

    def __repr__(self) -> str:
        return (
            f"Schedule(makespan={self.makespan:.6g}s, lower_bound={self.lower_bound:.6g}s, "
            f"optimal={self.optimal}, {len(self.events)} events)"
        )


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.4f} ms"
