"""The HTML report of a successful placement: the program drawn by device, memory, devices, copies.

The counterpart of the conflict page (`placement.report.html`) for a module
that places: one self-contained page (inline CSS and SVG, no script) with

- a summary (sites, copies, bytes copied across physical devices, the part
  made from hints) and a legend of the devices' colours;
- the program: each function as a graph whose ops are coloured by the
  device they run on and whose copies are edges labelled with their bytes
  (`placement.report.program_graph`);
- each device's memory: the bytes of the parameters placed there, of the
  values computed there and of the copies into it, as bars to one scale
  (and, for a cost-aware placement, the plan's memory and limit);
- one row per declared vdevice (target, device, sites placed there, bytes
  copied in and out) and one row per copy in program order.

The numbers come from `Placement.copies`, `Placement.assignment`,
`Placement.constraints` and `Placement.stats`, so they agree with
``vdplace place --json``; the graph reads the placed module.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from vdplace.ir.printer import format_target
from vdplace.ir.units import format_bytes
from vdplace.ir.vdevice import VDevice, vdevice_name
from vdplace.placement.report.program_graph import MAX_NODES, colour, program_graph, render_svg

if TYPE_CHECKING:
    from vdplace.placement.result import Placement

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #1d1d1f; background: #fafafa; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #ddd; padding: 0.3em 0.8em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; }
.legend span.swatch { display: inline-block; width: 0.9em; height: 0.9em; border-radius: 2px;
  vertical-align: -0.1em; margin: 0 0.3em 0 1em; }
.scroll { overflow-x: auto; max-width: 100%; }
svg.program-graph { background: #fff; border: 1px solid #ddd; border-radius: 4px; }
svg text { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; fill: #1d1d1f; }
svg text.op { font-size: 11px; fill: #555; }
svg text.bytes { font-size: 11px; font-weight: bold; }
table.memory td.bar { width: 32em; }
.bar span { display: inline-block; height: 1.1em; vertical-align: middle; }
"""


def placement_html(result: Placement, filename: str | None = None, title: str | None = None) -> str:
    """The page for `result` (what `placement.place` returned); `filename` names the module in the heading."""
    title = title or f"vdplace: placement{' of ' + filename if filename else ''}"
    vdevices = result.module.vdevices
    stats = result.stats
    unplaced = sum(1 for a in result.assignment if a is None)
    summary = (
        f"{stats.sites} sites on {len(vdevices)} vdevice(s), {unplaced} left unplaced; "
        f"{len(result.copies)} copies moving {stats.bytes_copied} bytes across physical devices "
        f"({sum(c.nbytes for c in result.copies if c.inserted)} of them from hints)."
    )
    body = [
        f"<h1>{escape(title)}</h1>",
        f"<p>{escape(summary)}</p>",
        _legend(vdevices),
        "<h2>Program</h2>",
        _program(result),
        "<h2>Memory per device</h2>",
        _memory(result, vdevices),
        "<h2>Devices</h2>",
        _devices_table(result, vdevices),
        "<h2>Copies</h2>",
        _copies_table(result, vdevices) if result.copies else "<p>No copies: every tensor stays where it is made.</p>",
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _legend(vdevices: Sequence[VDevice]) -> str:
    """The colour of each vdevice, as the graph and the memory bars use it."""
    items = [
        f'<span class="swatch" style="background:{colour(i)}"></span><code>{escape(vdevice_name(vdevices, v))}</code>'
        for i, v in enumerate(vdevices)
    ]
    items.append(f'<span class="swatch" style="background:{colour(None)}"></span>unplaced')
    return f'<p class="legend">Devices:{"".join(items)}</p>'


def _program(result: Placement) -> str:
    """Each function as a graph (at most `program_graph.MAX_FUNCTIONS` of them)."""
    graph = program_graph(result.module, result.copies)
    vdevices = result.module.vdevices
    parts = []
    for fn in graph.functions:
        note = ""
        if fn.merged:
            note = f" (over {MAX_NODES} nodes: each run of ops on one device is one box)"
        if fn.hidden:
            note += f"; {fn.hidden} more boxes not drawn"
        parts.append(f"<h3><code>{escape(fn.name)}</code>{escape(note)}</h3>")
        parts.append(f'<div class="scroll">{render_svg(fn, vdevices)}</div>')
    if graph.hidden_functions:
        parts.append(f"<p>{graph.hidden_functions} more functions not drawn.</p>")
    return "\n".join(parts)


def _memory(result: Placement, vdevices: Sequence[VDevice]) -> str:
    """Per vdevice: bytes of the parameters and computed values placed there and of the copies into it."""
    site_vdevices = result.constraints.vdevices
    params: Counter[VDevice] = Counter()
    values: Counter[VDevice] = Counter()
    for site, a in zip(result.constraints.sites, result.assignment, strict=True):
        if a is not None and site.kind != "return":
            (params if site.kind == "param" else values)[site_vdevices[a]] += site.nbytes
    copied: Counter[VDevice] = Counter()
    for copy in result.copies:
        copied[copy.dst] += copy.nbytes if copy.physical else 0
    totals = {v: params[v] + values[v] + copied[v] for v in vdevices}
    scale = max(totals.values(), default=0) or 1
    plan = result.cost
    rows = []
    for i, v in enumerate(vdevices):
        name = vdevice_name(vdevices, v)
        parts = [(params[v], "ff", "parameters"), (values[v], "99", "computed values"), (copied[v], "44", "copied in")]
        bar = "".join(
            f'<span style="width:{32 * n / scale:.2f}em;background:{colour(i)}{alpha}" '
            f'title="{escape(what)}: {format_bytes(n)}"></span>'
            for n, alpha, what in parts
            if n
        )
        text = f"{format_bytes(totals[v])}: parameters {format_bytes(params[v])}, computed {format_bytes(values[v])}"
        text += f", copied in {format_bytes(copied[v])}"
        if plan is not None and name in plan.memory:
            limit = plan.limits.get(name)
            text += f"; the plan's memory {format_bytes(plan.memory[name])}"
            text += f" of a {format_bytes(limit)} limit" if limit is not None else ""
        rows.append(
            f'<tr><td><code>{escape(name)}</code></td><td class="bar"><span class="bar">{bar}</span></td>'
            f"<td>{escape(text)}</td></tr>"
        )
    head = "<tr><th>vdevice</th><th>tensors placed there (all at once)</th><th>bytes</th></tr>"
    return '<table class="memory">\n' + head + "\n" + "\n".join(rows) + "\n</table>"


def _devices_table(result: Placement, vdevices: Sequence[VDevice]) -> str:
    """One row per declared vdevice: its name, target, physical device, sites, bytes in and out."""
    site_vdevices = result.constraints.vdevices
    placed = Counter(site_vdevices[a] for a in result.assignment if a is not None)
    bytes_in: Counter[VDevice] = Counter()
    bytes_out: Counter[VDevice] = Counter()
    for copy in result.copies:
        bytes_in[copy.dst] += copy.nbytes
        if copy.src is not None:
            bytes_out[copy.src] += copy.nbytes
    rows = [
        _row(
            [f"<code>{escape(vdevice_name(vdevices, v))}</code>", f"<code>{escape(format_target(v.target))}</code>"]
            + [escape(f"{v.device_type}({v.vdevice_id})")],
            [placed[v], bytes_in[v], bytes_out[v]],
        )
        for v in vdevices
    ]
    head = "<tr><th>vdevice</th><th>target</th><th>device</th><th>sites</th><th>bytes in</th><th>bytes out</th></tr>"
    return "<table>\n" + head + "\n" + "\n".join(rows) + "\n</table>"


def _copies_table(result: Placement, vdevices: Sequence[VDevice]) -> str:
    """One row per copy: where (function, variable, line), from, to, bytes moved, and why it is there."""
    rows = []
    for copy in result.copies:
        fields = copy.as_dict(vdevices)
        line = "" if fields["line"] is None else str(fields["line"])
        why = "hint" if copy.inserted else "user's to_vdevice"
        cells = [
            f"<code>{escape(f'{copy.function}:{copy.var}')}</code>",
            escape(line),
            f"<code>{escape(str(fields['src'] or 'unplaced'))}</code>",
            f"<code>{escape(str(fields['dst']))}</code>",
        ]
        rows.append(_row(cells, [copy.nbytes], [escape(why if copy.physical else why + ", same physical device")]))
    head = "<tr><th>copy</th><th>line</th><th>from</th><th>to</th><th>bytes</th><th>made by</th></tr>"
    return "<table>\n" + head + "\n" + "\n".join(rows) + "\n</table>"


def _row(cells: Sequence[str], numbers: Sequence[int], tail: Sequence[str] = ()) -> str:
    """A table row: escaped `cells`, right-aligned `numbers`, then more escaped cells."""
    parts = [f"<td>{c}</td>" for c in cells] + [f'<td class="num">{n}</td>' for n in numbers]
    parts += [f"<td>{c}</td>" for c in tail]
    return "<tr>" + "".join(parts) + "</tr>"
