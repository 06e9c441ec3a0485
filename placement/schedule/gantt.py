"""The schedule as a picture: a self-contained HTML page with a Gantt chart and each vdevice's memory curve.

One lane per vdevice (its op calls) and one per link direction (its
copies), time left to right; each copy is also an arrow from its source
vdevice's lane at its start to its destination's lane at its end, and its
sender's share (`Event.send`, where not 0) a grey box on its source's lane.  Under
the chart, one memory curve per vdevice: the bytes live over the run
(`Schedule.lives`), its peak marked and its limit dashed.  Every box has a
tooltip (name, start, end, duration).  Inline SVG and CSS only: the page
loads nothing from the network.

A schedule of more than `MAX_EVENTS` events draws the first ones by start
(the page says how many it left out); memory curves are drawn with at most
one point per pixel column (the largest value in it), so a peak is never
hidden.
"""

from __future__ import annotations

import html

from vdplace.ir.units import format_bytes
from vdplace.placement.schedule.events import Event, Schedule

MAX_EVENTS = 20_000
WIDTH = 1100  # pixels of time axis
LEFT = 190  # pixels for lane labels
LANE = 26
CURVE = 90
COLORS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7")


def gantt_html(schedule: Schedule, title: str | None = None) -> str:
    """The page for `schedule` (module docstring); `title` names the program (a file name)."""
    heading = f"vdplace schedule: {title}" if title else "vdplace schedule"
    return "".join(
        [
            "<!doctype html>\n<html><head><meta charset='utf-8'>",
            f"<title>{html.escape(heading)}</title>",
            "<style>body{font:13px system-ui,sans-serif;margin:16px;color:#222}"
            "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
            "th:first-child,td:first-child{text-align:left}svg{display:block;margin-top:8px}"
            ".lane{fill:#f6f6f6}.label{font-size:12px}.ev text{font-size:10px;fill:#fff;pointer-events:none}"
            ".axis{stroke:#888}.limit{stroke:#d33;stroke-dasharray:4 3}.curve{fill:none;stroke-width:1.5}"
            ".arrow{stroke:#555;stroke-width:1;fill:none;opacity:.6}</style></head><body>",
            f"<h1>{html.escape(heading)}</h1>",
            _summary(schedule),
            _chart(schedule),
            "</body></html>\n",
        ]
    )


def _summary(s: Schedule) -> str:
    state = "proved optimal" if s.optimal else f"gap {s.gap:.2%} to the proved lower bound"
    rows = [
        f"<p>makespan <b>{_ms(s.makespan)}</b>, lower bound {_ms(s.lower_bound)} ({state}); "
        f"{html.escape(s.method)}, {s.seconds:.2f} s</p>",
        "<table><tr><th>vdevice</th><th>busy</th><th>idle</th><th>peak memory</th><th>limit</th></tr>",
    ]
    peaks = s.peak_memory
    for name, busy in s.busy().items():
        limit = s.limits.get(name)
        cells = [_ms(busy), _ms(max(0.0, s.makespan - busy)), format_bytes(peaks.get(name, 0))]
        cells.append("" if limit is None else format_bytes(limit))
        rows.append(f"<tr><td>{html.escape(name)}</td>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    rows.append("</table>")
    return "".join(rows)


def _chart(s: Schedule) -> str:
    events = sorted(s.events, key=lambda e: (e.start, e.end))
    shown = events[:MAX_EVENTS]
    links = sorted({e.device for e in shown if isinstance(e.device, tuple) and e.device[0] != e.device[1]})
    lanes: dict[object, int] = {name: i for i, name in enumerate(s.vdevices)}
    for pair in links:
        lanes[pair] = len(lanes)
    span = s.makespan if s.makespan > 0 else 1.0
    scale = WIDTH / span
    top = 20
    chart_h = top + LANE * len(lanes) + 10
    curves_top = chart_h + 20
    height = curves_top + (CURVE + 30) * len(s.vdevices) + 10
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{LEFT + WIDTH + 70}' height='{height}'>"]
    parts.append(_marker())
    parts.append(_axis(span, scale, top - 6))
    for key, i in lanes.items():
        y = top + i * LANE
        label = key if isinstance(key, str) else f"{key[0]} \u2192 {key[1]}"  # type: ignore[index]
        parts.append(f"<rect class='lane' x='{LEFT}' y='{y}' width='{WIDTH}' height='{LANE - 4}'/>")
        parts.append(f"<text class='label' x='4' y='{y + 15}'>{html.escape(str(label))}</text>")
    color = {name: COLORS[i % len(COLORS)] for i, name in enumerate(s.vdevices)}
    for e in shown:
        parts.append(_event(e, lanes, color, scale, top))
    if len(events) > len(shown):
        parts.append(
            f"<text class='label' x='{LEFT}' y='{chart_h}'>{len(events) - len(shown)} later events not drawn</text>"
        )
    for k, name in enumerate(s.vdevices):
        parts.append(_curve(s, name, color[name], scale, curves_top + k * (CURVE + 30)))
    parts.append("</svg>")
    return "".join(parts)


def _marker() -> str:
    return (
        "<defs><marker id='head' viewBox='0 0 10 10' refX='9' refY='5' markerWidth='6' markerHeight='6' "
        "orient='auto-start-reverse'><path d='M0,0L10,5L0,10z' fill='#555'/></marker></defs>"
    )


def _axis(span: float, scale: float, y: float) -> str:
    parts = [f"<line class='axis' x1='{LEFT}' y1='{y}' x2='{LEFT + WIDTH}' y2='{y}'/>"]
    for k in range(11):
        t = span * k / 10
        x = LEFT + t * scale
        parts.append(f"<line class='axis' x1='{x:.1f}' y1='{y - 4}' x2='{x:.1f}' y2='{y}'/>")
        parts.append(f"<text class='label' x='{x:.1f}' y='{y - 6}' text-anchor='middle'>{_ms(t)}</text>")
    return "".join(parts)


def _event(e: Event, lanes: dict[object, int], color: dict[str, str], scale: float, top: int) -> str:
    x = LEFT + e.start * scale
    w = max(1.0, (e.end - e.start) * scale)
    at = f" at {' > '.join(e.call)}" if e.call else ""  # the call site of a called function's event
    sent = f"; the sender busy {_ms(e.send)}" if e.send else ""
    tip = html.escape(
        f"{e.kind} {e.function}:{e.name}{at}\n{_ms(e.start)} .. {_ms(e.end)} ({_ms(e.end - e.start)}){sent}"
    )
    if e.kind == "op":
        y = top + lanes[e.device] * LANE
        fill = color.get(e.device, "#888")  # type: ignore[arg-type]
        text = f"<text x='{x + 2:.1f}' y='{y + 14}'>{html.escape(e.name)}</text>" if w > 7 * len(e.name) else ""
        return (
            f"<g class='ev'><title>{tip}</title><rect x='{x:.1f}' y='{y}' width='{w:.1f}' height='{LANE - 4}' "
            f"fill='{fill}' rx='2'/>{text}</g>"
        )
    assert isinstance(e.device, tuple), "a copy's device is its (source, destination)"
    src, dst = e.device
    link = lanes.get(e.device)
    parts = ["<g class='ev'>", f"<title>{tip}</title>"]
    if link is not None:
        y = top + link * LANE
        parts.append(f"<rect x='{x:.1f}' y='{y}' width='{w:.1f}' height='{LANE - 4}' fill='#777' rx='2'/>")
    if e.send:  # the sender's share: its source's device is busy sending, a grey box on that lane
        y, sw = top + lanes[src] * LANE, max(1.0, e.send * scale)
        parts.append(f"<rect class='send' x='{x:.1f}' y='{y}' width='{sw:.1f}' height='{LANE - 4}' fill='#999'/>")
    y0 = top + lanes[src] * LANE + (LANE - 4) / 2
    y1 = top + lanes[dst] * LANE + (LANE - 4) / 2
    x1 = LEFT + e.end * scale
    parts.append(f"<path class='arrow' d='M{x:.1f},{y0:.1f} L{x1:.1f},{y1:.1f}' marker-end='url(#head)'/>")
    parts.append("</g>")
    return "".join(parts)


def _curve(s: Schedule, name: str, color: str, scale: float, y: float) -> str:
    """Live bytes on `name` over the run, one point per pixel column (its largest value)."""
    deltas: list[tuple[float, int, int]] = []
    for live in s.lives:
        if live.vdevice == name and live.end > live.start and live.nbytes:
            deltas.append((live.start, 1, live.nbytes))
            deltas.append((live.end, 0, -live.nbytes))
    deltas.sort()
    columns: dict[int, int] = {}
    level = 0
    points = [(0, 0)]
    for t, _, delta in deltas:
        level += delta
        px = int(t * scale)
        columns[px] = max(columns.get(px, 0), level)
        points.append((px, level))
    peak = s.peak_memory.get(name, 0)
    limit = s.limits.get(name)
    top = max(peak, limit or 0, 1)
    parts = [f"<text class='label' x='4' y='{y + 12}'>{html.escape(name)} memory</text>"]
    parts.append(f"<text class='label' x='4' y='{y + 28}'>peak {format_bytes(peak)}</text>")
    parts.append(f"<rect class='lane' x='{LEFT}' y='{y}' width='{WIDTH}' height='{CURVE}'/>")
    # a step curve through each pixel column's largest level, and the level it ends at
    path: list[str] = []
    last = 0.0
    for px, level in _columns(points, columns):
        yy = y + CURVE - CURVE * level / top
        path.append(f"{LEFT + px},{y + CURVE - CURVE * last / top:.1f} {LEFT + px},{yy:.1f}")
        last = level
    path.append(f"{LEFT + WIDTH},{y + CURVE - CURVE * last / top:.1f}")
    parts.append(f"<polyline class='curve' stroke='{color}' points='{' '.join(path)}'/>")
    if limit is not None:
        ly = y + CURVE - CURVE * limit / top
        parts.append(f"<line class='limit' x1='{LEFT}' y1='{ly:.1f}' x2='{LEFT + WIDTH}' y2='{ly:.1f}'/>")
        parts.append(
            f"<text class='label' x='{LEFT + WIDTH - 4}' y='{ly - 3:.1f}' text-anchor='end'>limit "
            f"{format_bytes(limit)}</text>"
        )
    peak_at = s.peaks[name].at if name in s.peaks else 0.0
    peak_x = LEFT + peak_at * scale
    parts.append(
        f"<circle cx='{peak_x:.1f}' cy='{y + CURVE - CURVE * peak / top:.1f}' r='3' fill='#d33'>"
        f"<title>peak {format_bytes(peak)} at {_ms(peak_at)}</title></circle>"
    )
    return "".join(parts)


def _columns(points: list[tuple[int, int]], columns: dict[int, int]) -> list[tuple[int, int]]:
    """Per pixel column that changes: its largest level, then the level it ends at."""
    out: list[tuple[int, int]] = []
    ends: dict[int, int] = {}
    for px, level in points:
        ends[px] = level
    for px in sorted(ends):
        high = columns.get(px, ends[px])
        out.append((px, high))
        if ends[px] != high:
            out.append((px, ends[px]))
    return out


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.4g} ms"
