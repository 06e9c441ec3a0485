"""A `Timing` made into a `Schedule`: one `Event` per op call and copy, in start order, with liveness peaks.

A copy's event is named by the binding that makes the copy in the placed
module when `copy_names` gives it (``(value, vdevice) -> name``, what
`placement.schedule.place` reads from the rewritten module), else
``<value>-><vdevice>``; an upload is named by its parameter.  Each event
carries the function and call site (`calls.Instance`) of its op or value.
"""

from __future__ import annotations

from vdplace.placement.schedule.events import Event, Schedule
from vdplace.placement.schedule.graph import TaskGraph
from vdplace.placement.schedule.liveness import entry_lives, lives, peaks
from vdplace.placement.schedule.simulate import Timing, send_seconds


def value_name(g: TaskGraph, v: int) -> str:
    """The variable (and tuple leaf) of value v as written: ``lv3``, ``t.1``."""
    return g.val_label[v].split(":", 1)[1]


def to_schedule(g: TaskGraph, t: Timing, copy_names: dict[tuple[int, int], str] | None = None) -> Schedule:
    """The schedule of `t` (module docstring); its bound and optimality are the solver's to fill in."""
    events: list[Event] = []
    placement, names = t.placement, g.names
    for i in range(g.num_ops):
        d = placement[g.op_unit[i]]
        inst = g.instances[g.op_instance[i]]
        start, end, span = t.op_start[i], t.op_end[i], g.op_span[i]
        events.append(Event("op", inst.function, g.op_name[i], names[d], start, end, span, call=inst.call))
    for (v, d), (start, end) in t.copies.items():
        src = t.source(v, d)
        if copy_names and (v, d) in copy_names:
            name = copy_names[v, d]
        elif d == placement[g.val_unit[v]]:  # an upload: named by its parameter
            name = value_name(g, v)
        else:
            name = f"{value_name(g, v)}->{names[d]}"
        device = (names[src], names[d])
        inst = g.instances[g.val_instance[v]]
        send = send_seconds(g, v, src, d, d == placement[g.val_unit[v]]) if g.physical[src] != g.physical[d] else 0.0
        strided = g.val_strided[v] and d != placement[g.val_unit[v]]  # an upload is of an input: contiguous
        span, nbytes = g.val_span[v], g.val_bytes[v]
        events.append(Event("copy", inst.function, name, device, start, end, span, nbytes, inst.call, send, strided))
    events.sort(key=lambda e: (e.start, e.end, e.kind != "copy"))
    stays = lives(g, t)
    limits = {names[d]: lim for d, lim in enumerate(g.stated_limits) if lim is not None}
    return Schedule(events, list(names), peaks(list(names), stays, events, entry_lives(g, t)), stays, limits)
