"""Memory by liveness: which values occupy each vdevice when, and the peak of each.

A value occupies a vdevice over a half-open interval of the run:

* at its home: from its producer's start (0 for a weight or a constant, and
  for a runtime input that starts there; its upload's start for one uploaded
  from the host) to the end of its last reader there: an op that reads it
  there, a copy that reads it (from the home, or a relay's from a copy: `simulate.relays`), its producer's
  end when nothing reads it; weights and constants stay the whole run;
* at a copy's destination: from the copy's start to the end of its last
  reader there (the copy's end when none);
* on the host, a runtime input uploaded elsewhere: from 0 to its upload's end
  (not when inputs come from Ray's driver, `TaskGraph.inputs_from_driver`);
* an output of the entry function stays where it is returned to the end of
  the run (the makespan);
* a view (`TaskGraph.val_view`) has no stay where it is made: the stay of the
  value it shares memory with there (its home, or its copy there) lasts to
  the end of the view's (chains of views fold into the first value); a copy
  of a view elsewhere is a value of its own there.  A callee's parameter
  (``PASSED``, `calls`) is a view of its argument on the parameter's vdevice
  (the argument's home, or its copy there), from when the argument is there.

At the same instant a value whose interval ends is gone before one whose
interval starts arrives (an op may write where its last operand was).  A
vdevice's peak is the largest sum of live bytes over the run; `Peak` names
when it is reached (the earliest such moment), the op running there then and
what is live.
"""

from __future__ import annotations

from vdplace.placement.schedule.events import Event, Live, Peak
from vdplace.placement.schedule.graph import CONST, INPUT, OP, PASSED, WEIGHT, TaskGraph
from vdplace.placement.schedule.simulate import Timing


def lives(g: TaskGraph, t: Timing) -> list[Live]:
    """Every value's stay on every vdevice it is on (module docstring)."""
    names, labels, nbytes, spans = g.names, g.val_label, g.val_bytes, g.val_span
    return [Live(labels[v], names[d], nbytes[v], start, end, spans[v]) for v, d, start, end in stays(g, t)]


def peak_bytes(g: TaskGraph, t: Timing) -> list[int]:
    """Each vdevice's peak of live bytes, by vdevice index (what `peaks` reports, without the details)."""
    points: list[list[tuple[float, int]]] = [[] for _ in g.names]
    nbytes = g.val_bytes
    for v, d, start, end in stays(g, t):
        if end > start and nbytes[v]:
            points[d].append((start, nbytes[v]))
            points[d].append((end, -nbytes[v]))
    out = []
    for pts in points:
        pts.sort()  # at one instant the negative (ends) come first
        best = current = 0
        for _, delta in pts:
            current += delta
            if current > best:
                best = current
        out.append(best)
    return out


def stays(g: TaskGraph, t: Timing) -> list[tuple[int, int, float, float]]:
    """``(value, vdevice, start, end)`` of every stay (module docstring)."""
    placement = t.placement
    makespan = t.makespan
    ends: dict[tuple[int, int], float] = {}  # (value, vdevice) -> the end of its last reader there
    starts: dict[tuple[int, int], float] = {}
    op_unit, op_end = g.op_unit, t.op_end

    def extend(key: tuple[int, int], end: float) -> None:
        if end > ends.get(key, -1.0):
            ends[key] = end

    for v in range(g.num_values):
        home = placement[g.val_unit[v]]
        kind = g.val_kind[v]
        if kind == OP:
            p = g.val_producer[v]
            starts[v, home] = t.op_start[p]
            extend((v, home), t.op_end[p])
        elif kind == INPUT and (v, home) in t.copies:
            start, end = t.copies[v, home]
            starts[v, home] = start
            extend((v, home), end)
        elif kind == PASSED:
            starts[v, home] = arrival(g, t, v, home)
            extend((v, home), starts[v, home])
        else:
            starts[v, home] = 0.0
            extend((v, home), 0.0)
        if kind in (WEIGHT, CONST):
            extend((v, home), makespan)
        for i in g.val_readers[v]:
            extend((v, placement[op_unit[i]]), op_end[i])
        for i in g.val_home_readers[v]:
            extend((v, home), op_end[i])
    out: list[tuple[int, int, float, float]] = []
    host_stays: list[tuple[int, float]] = []
    for (v, d), (start, end) in t.copies.items():
        home = placement[g.val_unit[v]]
        if d == home:  # an upload: the input sits on the host until it ends
            host_stays.append((v, end))
            continue
        starts[v, d] = start
        extend((v, d), end)
        extend((v, t.source(v, d)), end)
    for v, unit in g.outputs:
        extend((v, placement[unit]), makespan)
    for v in reversed(range(g.num_values)):  # a view after what it views: chains fold into their first value
        b = g.val_view[v]
        d = placement[g.val_unit[v]]
        if b >= 0 and (v, d) in starts and (b, d) in starts:
            start = starts.pop((v, d))
            extend((b, d), ends.pop((v, d), start))
    for (v, d), start in starts.items():
        out.append((v, d, start, ends.get((v, d), start)))
    host = g.host
    if g.inputs_from_driver:
        host_stays.clear()  # the driver sends the input: it never sits on the host
    for v, end in host_stays:
        out.append((v, host, 0.0, end))  # type: ignore[arg-type]
    return out


def arrival(g: TaskGraph, t: Timing, v: int, d: int) -> float:
    """When value v is on vdevice d in `t`: its copy's end there, else its producer's end at home (a
    parameter's: its argument's arrival there), 0 for a weight, constant or input that starts there."""
    home = t.placement[g.val_unit[v]]
    if d != home or (v, d) in t.copies:
        return t.copies[v, d][1]
    kind = g.val_kind[v]
    if kind == OP:
        return t.op_end[g.val_producer[v]]
    if kind == PASSED:
        return arrival(g, t, g.val_source[v], d)
    return 0.0


def peaks(names: list[str], stays: list[Live], events: list[Event]) -> dict[str, Peak]:
    """The `Peak` of every vdevice named in `names` (bytes 0 at time 0 where nothing lives)."""
    by_device: dict[str, list[Live]] = {name: [] for name in names}
    for live in stays:
        if live.end > live.start and live.nbytes:
            by_device[live.vdevice].append(live)
    out: dict[str, Peak] = {}
    for name, items in by_device.items():
        points = sorted([(s.start, 1, s.nbytes) for s in items] + [(s.end, 0, -s.nbytes) for s in items])
        best, at, current = 0, 0.0, 0
        for time, _, delta in points:
            current += delta
            if current > best:
                best, at = current, time
        live_then = sorted((s for s in items if s.start <= at < s.end), key=lambda s: (-s.nbytes, s.label))
        running = next(
            (e for e in events if e.kind == "op" and e.device == name and e.start <= at < e.end),
            None,
        )
        out[name] = Peak(name, best, at, running, live_then)
    return out
