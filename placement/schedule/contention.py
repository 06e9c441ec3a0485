"""A schedule re-timed for devices that slow each other: two Ray actors sharing one machine's cores.

`CostModel.slowdown(a, b)` says how many times slower an op runs on `a`
while `b`, another device of the same host, is busy too (`contention`,
measured by `vdplace.calibration`).  The placement search and the exact
solver plan without it; `contended(schedule, slowdown)` re-times their
schedule under it by one monotone map of time φ:

* a device is *busy* while it runs an op or holds a copy's sender's share
  (`Event.send`);
* at any moment of the uncontended schedule, time runs `rate` times slower,
  where `rate` is the largest `slowdown(a, b)` over the pairs of busy
  devices (1 when at most one device, or no pair that contends, is busy):
  φ(t) is the integral of `rate` from 0 to t;
* every event's start, end and sender's share, and every value's stay
  (`Live`), is mapped through φ.

An op that overlaps another device's work by `o` seconds thus lasts
``(slowdown - 1) * o`` longer, and so does whatever runs beside them then
(the other device's op, a copy in flight); nothing else changes.  φ is
strictly increasing, so the re-timed schedule keeps every order of the
uncontended one: each device and link still runs one task at a time, every
task after what it reads, and the same values are live together, so the
peaks keep their bytes (at their moments mapped); the placed module's order
(`order.schedule_order`) is the same.  The map never shortens anything
(rate >= 1): the re-timed makespan is at least the uncontended one, so a
lower bound proved without contention still bounds every plan under it,
and the schedule is `optimal` only where its makespan is within tolerance
of that bound (which the exact solver's optimum, once stretched, no longer
is).  Under one slowdown factor per pair an event's length is recomputable
from the uncontended events alone (`stretch`), which the tests check.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable

from vdplace.placement.schedule.events import Event, Live, Peak, Schedule

Slowdown = Callable[[str, str], float]  # (vdevice name, vdevice name) -> factor >= 1


def busy_intervals(events: Iterable[Event]) -> list[tuple[float, float, str]]:
    """``(start, end, vdevice name)`` of every op and every sender's share, of positive length."""
    out = []
    for e in events:
        if e.kind == "op" and e.end > e.start:
            out.append((e.start, e.end, e.device))
        elif e.kind == "copy" and e.send > 0:
            out.append((e.start, e.start + e.send, e.device[0]))
    return out  # type: ignore[return-value]


class TimeMap:
    """φ of the module docstring, piecewise linear: at uncontended time `points[k]` it adds `extra[k]` seconds,
    and between `points[k]` and `points[k + 1]` time runs `rates[k]` times slower.  Where nothing was
    stretched before t, φ(t) is t exactly."""

    def __init__(self, points: list[float], extra: list[float], rates: list[float]) -> None:
        self.points = points
        self.extra = extra
        self.rates = rates

    def __call__(self, t: float) -> float:
        points = self.points
        if not points or t <= points[0]:
            return t
        k = bisect.bisect_right(points, t) - 1
        if points[k] == t or k == len(points) - 1:
            return t + self.extra[k]
        return t + self.extra[k] + (t - points[k]) * (self.rates[k] - 1.0)


def time_map(events: Iterable[Event], slowdown: Slowdown) -> TimeMap:
    """φ for `events` under `slowdown` (module docstring)."""
    intervals = busy_intervals(events)
    points = sorted({t for start, end, _ in intervals for t in (start, end)})
    starts: dict[float, list[str]] = {}
    ends: dict[float, list[str]] = {}
    for start, end, name in intervals:
        starts.setdefault(start, []).append(name)
        ends.setdefault(end, []).append(name)
    busy: dict[str, int] = {}
    extra, rates = [0.0], []
    for k, t in enumerate(points[:-1]):
        for name in ends.get(t, ()):
            busy[name] -= 1
        for name in starts.get(t, ()):
            busy[name] = busy.get(name, 0) + 1
        names = sorted(n for n, count in busy.items() if count > 0)
        rate = max((slowdown(a, b) for i, a in enumerate(names) for b in names[i + 1 :]), default=1.0)
        rates.append(max(1.0, rate))
        extra.append(extra[-1] + (points[k + 1] - t) * (rates[-1] - 1.0) if rates[-1] > 1.0 else extra[-1])
    return TimeMap(points, extra, rates)


def stretch(event: Event, phi: TimeMap) -> float:
    """How long `event` (of the uncontended schedule) lasts once re-timed by `phi`."""
    return phi(event.end) - phi(event.start)


def contended(schedule: Schedule, slowdown: Slowdown) -> Schedule:
    """`schedule` re-timed under `slowdown` (module docstring): a new `Schedule`, `schedule` untouched; its
    `uncontended` the makespan before.  Bound, tolerance, method and the solver's steps are kept; `optimal`
    holds only within tolerance of the bound (status ``"contended"`` where the solver's proof no longer
    does)."""
    phi = time_map(schedule.events, slowdown)
    events: dict[int, Event] = {}
    for e in schedule.events:
        send = phi(e.start + e.send) - phi(e.start) if e.send else 0.0
        events[id(e)] = Event(
            e.kind, e.function, e.name, e.device, phi(e.start), phi(e.end), e.span, e.nbytes, e.call, send, e.strided
        )
    lives = {id(v): _mapped(v, phi) for v in schedule.lives}
    peaks = {}
    for name, p in schedule.peaks.items():
        running = None if p.running is None else events.get(id(p.running))
        live = [lives.get(id(v)) or _mapped(v, phi) for v in p.live]
        peaks[name] = Peak(p.vdevice, p.bytes, phi(p.at), running, live)
    out = Schedule(list(events.values()), list(schedule.vdevices), peaks, list(lives.values()), dict(schedule.limits))
    out.lower_bound, out.tolerance = schedule.lower_bound, schedule.tolerance
    out.optimal = out.makespan - out.lower_bound <= out.tolerance
    out.method, out.seconds, out.stopped = schedule.method, schedule.seconds, dict(schedule.stopped)
    out.status = "optimal" if out.optimal else ("contended" if schedule.status == "optimal" else schedule.status)
    out.uncontended = schedule.makespan
    return out


def _mapped(live: Live, phi: TimeMap) -> Live:
    return Live(live.label, live.vdevice, live.nbytes, phi(live.start), phi(live.end), live.span)
