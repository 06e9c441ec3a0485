"""The HTML report of a successful placement: devices, copies and the bytes they move.

The counterpart of the conflict page (`placement.report.html`) for a module
that places: one self-contained page (inline CSS, no script) with a summary
(sites, copies, bytes copied across physical devices, the part made from
hints), one row per declared vdevice (target, device, sites placed there,
bytes copied in and out) and one row per copy in program order.  What the
page shows comes from `Placement.copies`, `Placement.assignment` and
`Placement.stats` only, so it agrees with ``vdplace place --json``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from vdplace.ir.printer import format_target
from vdplace.ir.vdevice import VDevice, vdevice_name

if TYPE_CHECKING:
    from vdplace.placement.result import Placement

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #1d1d1f; background: #fafafa; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #ddd; padding: 0.3em 0.8em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; }
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
