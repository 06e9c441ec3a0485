"""Why the time objective has no plan: memory limits that no schedule fits.

The conflict (a `PlacementConflict` with a `cost.conflict.MemoryExplanation`)
names a vdevice, the moment its memory peaks, the op running there then
(with its source line) and the largest values live at that moment:

* when some op cannot run anywhere: while it runs, what it reads and makes is
  live on its vdevice whatever the schedule (`bounds.effective_allowed`), and
  that is over the limit of every vdevice it may run on (proved);
* otherwise, in the plan that comes closest (the least bytes over the
  limits), the vdevice most over its limit at its peak; the limits admit no
  plan (proved by CP-SAT), or none was found within the time limit.
"""

from __future__ import annotations

from typing import Any

from vdplace.ir.module import IRModule
from vdplace.ir.span import Span
from vdplace.ir.units import format_bytes
from vdplace.placement.cost.conflict import MemoryExplanation
from vdplace.placement.cost.problem import Coarsened
from vdplace.placement.errors import PlacementConflict
from vdplace.placement.schedule.graph import TaskGraph
from vdplace.placement.schedule.solve import TimeSolution
from vdplace.placement.schedule.timeline import to_schedule

# The conflict lists at most this many live values.
SHOWN = 8


def schedule_conflict(sol: TimeSolution, co: Coarsened, mod: IRModule) -> PlacementConflict:
    """The conflict for `sol`, a solution with no plan (module docstring)."""
    g, cs = sol.graph, co.ex.constraints
    if sol.best is None:
        found = _op_over_everywhere(g)
        if found is not None:
            i, d, need, values = found
            op = f"{g.op_function(i)}:{g.op_name[i]}"
            head = (
                f"memory limit of {g.names[d]} exceeded: while {op} runs ({_where(mod, g.op_span[i])}), what it "
                f"reads and makes is {format_bytes(need)} ({need} bytes), over the limit of {g.limits[d]} bytes; "
                "every other vdevice it may run on is over too, for this op or another that must share it (proved)"
            )
            items = [_item(mod, g.val_label[v], g.val_span[v], g.val_bytes[v], "live while it runs") for v in values]
            return _conflict(cs, mod, head, items, (g.names[d], need, g.limits[d]))
        names = ", ".join(f"{g.names[d]} <= {lim} bytes" for d, lim in enumerate(g.limits) if lim is not None)
        return _conflict(cs, mod, f"no placement that fits the memory limits ({names}) was found", [], None)
    best = sol.best
    schedule = to_schedule(g, best.timing)
    over = [(p - lim, d) for d, (p, lim) in enumerate(zip(best.peaks, g.limits, strict=True)) if lim is not None]
    _, d = max(over)
    name = g.names[d]
    peak = schedule.peaks[name]
    proved = "the limits admit no plan (proved)" if sol.infeasible else "no plan that fits was found in time"
    running = "no op runs there then"
    if peak.running is not None:
        e = peak.running
        at = f", called at {' > '.join(e.call)}" if e.call else ""  # which call site of a called function
        running = f"while {e.function}:{e.name} runs there ({_where(mod, e.span)}{at})"
    head = (
        f"memory limit of {name} exceeded: {proved}; in the plan that comes closest, {name} peaks at "
        f"{format_bytes(peak.bytes)} ({peak.bytes} bytes, limit {g.limits[d]}) at {peak.at * 1e3:.4f} ms, "
        f"{running}; the largest values live then:"
    )
    items = [
        _item(mod, s.label, s.span, s.nbytes, f"live {s.start * 1e3:.4f}..{s.end * 1e3:.4f} ms") for s in peak.live
    ]
    return _conflict(cs, mod, head, items[:SHOWN], (name, peak.bytes, g.limits[d]))


def _op_over_everywhere(g: TaskGraph) -> tuple[int, int, int, list[int]] | None:
    """A unit none of whose vdevices can run all of its ops within the limit: on its vdevice with the
    largest limit, an op over it (op, vdevice, bytes of its working set, those values)."""
    for u, devices in enumerate(g.allowed):
        over: dict[int, tuple[int, int, list[int]]] = {}
        for i in g.unit_ops.get(u, ()):
            bases = {g.val_base[v] for v in g.op_local[i] + g.op_makes[i]}  # a view's memory is its base's
            values = sorted(bases, key=lambda v: (-g.val_bytes[v], v))
            need = sum(g.val_bytes[v] for v in values)
            for d in devices:
                lim = g.limits[d]
                if d not in over and lim is not None and need > lim and (g.op_time[i][d] or 0.0) > 0:
                    over[d] = (i, need, values[:SHOWN])
        if devices and len(over) == len(devices):
            d = max(over, key=lambda d: (g.limits[d], -d))
            i, need, values = over[d]
            return i, d, need, values
    return None


def _where(mod: IRModule, span: Span | None) -> str:
    if span is None:
        return "no source line"
    return f"{mod.filename or '<module>'}:{span.line}"


def _item(mod: IRModule, label: str, span: Span | None, nbytes: int, why: str) -> dict[str, Any]:
    line = None if span is None else span.line
    return {"label": label, "file": mod.filename, "line": line, "bytes": nbytes, "why": why}


def _conflict(
    cs: Any, mod: IRModule, head: str, items: list[dict[str, Any]], where: tuple[str, int, int | None] | None
) -> PlacementConflict:
    lines = [head]
    for item in items:
        at = f"{item['file'] or '<module>'}:{item['line']}: " if item["line"] is not None else ""
        lines.append(f"  {at}{item['label']}: {format_bytes(item['bytes'])} ({item['bytes']} bytes), {item['why']}")
    text = "\n".join(lines) + "\n"
    return PlacementConflict(MemoryExplanation(cs, mod, [], text, where or (None, 0, None), items))
