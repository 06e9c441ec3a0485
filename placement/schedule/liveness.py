"""Memory by liveness: which values occupy each vdevice when, and the peak of each.

A value occupies a vdevice over a half-open interval of the run:

* at its home: from its producer's start (0 for a weight, a constant and a
  runtime input; for an input uploaded by Ray's driver,
  `TaskGraph.inputs_from_driver`, its upload's start) to the end of its last
  reader there: an op that reads it there, a copy that reads it (from the
  home, or a relay's from a copy: `simulate.relays`), its producer's end
  when nothing reads it; weights and constants stay the whole run.  An input
  placed off the host is uploaded from the caller's memory, which no vdevice
  counts: the runtime puts every input on its parameter's vdevice as the
  call begins (`runtime.arguments`), before the first instruction, so the
  input is there from 0 and never on the host (its upload event still takes
  the link and delays its readers);
* at a copy's destination: from the copy's start to the end of its last
  reader there (the copy's end when none);
* an output of the entry function stays where it is returned to the end of
  the run (the makespan);
* a weight nothing reads is never loaded (`loaded`): the run binds weights
  as constants, loaded where something reads them
  (`bench.step.weights_as_constants`);
* a view (`TaskGraph.val_view`) has no stay where it is made: the stay of the
  value it shares memory with there (its home, or its copy there) lasts to
  the end of the view's (chains of views fold into the first value); a copy
  of a view elsewhere is a value of its own there.  A callee's parameter
  (``PASSED``, `calls`) is a view of its argument on the parameter's vdevice
  (the argument's home, or its copy there), from when the argument is there
  to the call's end (`call_ends`): the runtime's caller holds what it passes
  until the call returns, read by the callee or not.

At the same instant a value whose interval ends is gone before one whose
interval starts arrives (an op may write where its last operand was).  A
vdevice's peak is the largest sum of live bytes over the run; `Peak` names
when it is reached (the earliest such moment), the op running there then and
what is live.

The run's *entry* (`at_entry`) is one more moment, before anything at time
0: every runtime input, weight and constant at its home (not an input the
driver sends to another vdevice than the host: in flight).  It counts an
input that nothing reads, which is never live over an interval: the runtime
holds every input as the call begins and drops an unread one on entry
(`runtime.liveness`), before the first instruction.
"""

from __future__ import annotations

from vdplace.placement.schedule.events import Event, Live, Peak
from vdplace.placement.schedule.graph import CONST, INPUT, OP, PASSED, WEIGHT, TaskGraph
from vdplace.placement.schedule.simulate import Timing


def lives(g: TaskGraph, t: Timing) -> list[Live]:
    """Every value's stay on every vdevice it is on (module docstring)."""
    names, labels, nbytes, spans = g.names, g.val_label, g.val_bytes, g.val_span
    return [Live(labels[v], names[d], nbytes[v], start, end, spans[v]) for v, d, start, end in stays(g, t)]


def loaded(g: TaskGraph, v: int) -> bool:
    """Whether value v is ever held: every value but a weight nothing reads (no op, no copy, not returned, not
    passed to a call: the run loads a weight passed to a callee where the caller passes it)."""
    if g.val_kind[v] != WEIGHT:
        return True
    return bool(
        g.val_readers[v]
        or g.val_home_readers[v]
        or g.val_users[v]
        or any(w == v for w, _ in g.outputs)
        or g.val_passed[v]
    )


def at_entry(g: TaskGraph, placement: list[int]) -> list[tuple[int, int]]:
    """``(value, vdevice)`` of everything the run holds as it starts (module docstring): no ``PASSED`` value (a
    view of its argument) and no second instance of a callee's constant (a view of the first: one tensor)."""
    out = []
    for v, kind in enumerate(g.val_kind):
        if kind in (OP, PASSED) or g.val_view[v] >= 0 or not loaded(g, v):
            continue
        d = placement[g.val_unit[v]]
        if kind == INPUT and g.inputs_from_driver and g.host is not None and d != g.host:
            continue  # in flight from the driver
        out.append((v, d))
    return out


def entry_bytes(g: TaskGraph, placement: list[int]) -> list[int]:
    """Bytes on each vdevice at the run's entry (`at_entry`), by vdevice index."""
    out = [0] * g.num_devices
    for v, d in at_entry(g, placement):
        out[d] += g.val_bytes[v]
    return out


def peak_bytes(g: TaskGraph, t: Timing) -> list[int]:
    """Each vdevice's peak of live bytes, by vdevice index (what `peaks` reports, without the details)."""
    points: list[list[tuple[float, int]]] = [[] for _ in g.names]
    nbytes = g.val_bytes
    for v, d, start, end in stays(g, t):
        if end > start and nbytes[v]:
            points[d].append((start, nbytes[v]))
            points[d].append((end, -nbytes[v]))
    out = []
    for pts, first in zip(points, entry_bytes(g, t.placement), strict=True):
        pts.sort()  # at one instant the negative (ends) come first
        best, current = first, 0
        for _, delta in pts:
            current += delta
            if current > best:
                best = current
        out.append(best)
    return out


def stays(g: TaskGraph, t: Timing) -> list[tuple[int, int, float, float]]:
    """``(value, vdevice, start, end)`` of every stay (module docstring).

    Kept on `t` (`Timing.stays`) until `t` runs another task: the plan's peaks, its events and its entry
    ask for the same list, which its callers only read."""
    done = (g, len(t.order), len(t.copies))
    if t.stays is not None and t.stays[0] == done:
        return t.stays[1]
    out = _stays(g, t)
    t.stays = (done, out)
    return out


def _stays(g: TaskGraph, t: Timing) -> list[tuple[int, int, float, float]]:
    placement = t.placement
    makespan = t.makespan
    ends: dict[tuple[int, int], float] = {}  # (value, vdevice) -> the end of its last reader there
    starts: dict[tuple[int, int], float] = {}
    op_unit, op_end, op_start = g.op_unit, t.op_end, t.op_start
    val_unit, val_kind, val_producer = g.val_unit, g.val_kind, g.val_producer
    readers, home_readers = g.val_readers, g.val_home_readers
    call_end = call_ends(g, t)
    last = ends.get
    from_driver = g.inputs_from_driver

    def extend(key: tuple[int, int], end: float) -> None:
        if end > last(key, -1.0):
            ends[key] = end

    for v in range(g.num_values):
        kind = val_kind[v]
        if kind == WEIGHT and not loaded(g, v):
            continue
        home = placement[val_unit[v]]
        key = (v, home)
        if kind == OP:
            p = val_producer[v]
            starts[key] = op_start[p]
            extend(key, op_end[p])
        elif kind == INPUT and from_driver and key in t.copies:
            start, end = t.copies[key]
            starts[key] = start
            extend(key, end)
        elif kind == PASSED:
            starts[key] = arrival(g, t, v, home)
            extend(key, 0.0)  # its argument's stay there covers its arrival (an uploaded input's: from 0)
            if parameter(g, v):
                extend(key, call_end[g.val_instance[v]])
        else:
            starts[key] = 0.0
            extend(key, 0.0)
        if kind == WEIGHT or kind == CONST:
            extend(key, makespan)
        for i in readers[v]:  # `extend` inlined: a weight read by every op of a large program
            there = (v, placement[op_unit[i]])
            end = op_end[i]
            if end > last(there, -1.0):
                ends[there] = end
        for i in home_readers[v]:
            end = op_end[i]
            if end > last(key, -1.0):
                ends[key] = end
    out: list[tuple[int, int, float, float]] = []
    for (v, d), (start, end) in t.copies.items():
        home = placement[val_unit[v]]
        if d == home:  # an upload (module docstring): its stay at home is set above
            continue
        starts[v, d] = start
        extend((v, d), end)
        extend((v, t.source(v, d)), end)
    for v, unit in g.outputs:
        extend((v, placement[unit]), makespan)
    val_view = g.val_view
    for v in reversed(range(g.num_values)):  # a view after what it views: chains fold into their first value
        b = val_view[v]
        if b < 0:
            continue
        d = placement[val_unit[v]]
        if (v, d) in starts and (b, d) in starts:
            start = starts.pop((v, d))
            extend((b, d), ends.pop((v, d), start))
    for (v, d), start in starts.items():
        out.append((v, d, start, last((v, d), start)))
    return out


def parameter(g: TaskGraph, v: int) -> bool:
    """Whether value v is a callee's parameter (a ``PASSED`` value from its caller; not a call's result)."""
    if g.val_kind[v] != PASSED:
        return False
    inner, outer = g.instances[g.val_instance[v]], g.instances[g.val_instance[g.val_source[v]]]
    return len(inner.call) > len(outer.call)


def call_subtrees(g: TaskGraph) -> list[list[int]]:
    """``out[k]``: instance k and every instance its run calls, directly or not (by their call paths)."""
    out: list[list[int]] = [[] for _ in g.instances]
    index = {inst.call: k for k, inst in enumerate(g.instances)}
    for k, inst in enumerate(g.instances):
        for n in range(len(inst.call) + 1):
            out[index[inst.call[:n]]].append(k)
    return out


def call_ends(g: TaskGraph, t: Timing) -> list[float]:
    """When each instance's call returns in `t`: the end of its last op or copy, nested calls' included (0 for
    none)."""
    own = [0.0] * len(g.instances)
    for i, end in enumerate(t.op_end):
        k = g.op_instance[i]
        if end > own[k]:
            own[k] = end
    for (v, _), (_, end) in t.copies.items():
        k = g.val_instance[v]
        if end > own[k]:
            own[k] = end
    return [max(own[j] for j in sub) for sub in call_subtrees(g)]


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


def entry_lives(g: TaskGraph, t: Timing) -> list[Live]:
    """What the run holds at its entry (`at_entry`): each value's stay there from time 0 (of no length for an
    input nothing reads)."""
    names, labels, nbytes, spans = g.names, g.val_label, g.val_bytes, g.val_span
    ends = {(v, d): end for v, d, start, end in stays(g, t) if start == 0.0}
    return [
        Live(labels[v], names[d], nbytes[v], 0.0, ends.get((v, d), 0.0), spans[v]) for v, d in at_entry(g, t.placement)
    ]


def peaks(names: list[str], stays: list[Live], events: list[Event], entry: list[Live]) -> dict[str, Peak]:
    """The `Peak` of every vdevice named in `names` (bytes 0 at time 0 where nothing lives); `entry`: what the
    run holds at its entry (`entry_lives`), a moment before anything at time 0."""
    by_device: dict[str, list[Live]] = {name: [] for name in names}
    for live in stays:
        if live.end > live.start and live.nbytes:
            by_device[live.vdevice].append(live)
    at_start: dict[str, list[Live]] = {name: [] for name in names}
    for live in entry:
        if live.nbytes:
            at_start[live.vdevice].append(live)
    out: dict[str, Peak] = {}
    for name, items in by_device.items():
        points = sorted([(s.start, 1, s.nbytes) for s in items] + [(s.end, 0, -s.nbytes) for s in items])
        best, at, current = sum(s.nbytes for s in at_start[name]), 0.0, 0
        first = best
        for time, _, delta in points:
            current += delta
            if current > best:
                best, at = current, time
        if best == first and first:  # the entry is the worst moment: nothing runs yet
            live_then = sorted(at_start[name], key=lambda s: (-s.nbytes, s.label))
            out[name] = Peak(name, best, 0.0, None, live_then)
            continue
        live_then = sorted((s for s in items if s.start <= at < s.end), key=lambda s: (-s.nbytes, s.label))
        running = next(
            (e for e in events if e.kind == "op" and e.device == name and e.start <= at < e.end),
            None,
        )
        out[name] = Peak(name, best, at, running, live_then)
    return out
