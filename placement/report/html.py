"""The HTML rendering of placement conflicts: one self-contained page.

Everything is inline (CSS, SVG, no script, no font or image from anywhere),
so the page opens offline and can be attached to a bug report.  Per conflict:
the pins with their devices, the chain drawn as a graph (sites as boxes,
pinned sites coloured by device, each equality labelled with its rule and
line), the source lines with the pins and bindings highlighted, and the
checked fixes.  A long chain shows its first and last steps and its
landmarks (`chain`), an elided box and an excerpt row ``… N bindings, lines
a–b …`` for each run between, so the page's size is bounded whatever the
chain's length; a long source line is quoted around its marks (`quote`).  Layout is by hand: a chain snakes over rows of
`ROW_NODES` boxes; a tree (three or more pins) is laid out by BFS depth.
"""

from __future__ import annotations

from collections import deque
from html import escape
from typing import Any

from vdplace.ir.span import Span
from vdplace.placement.diagnose.chain import Gap
from vdplace.placement.diagnose.conflict import Conflict, Requirement, Step
from vdplace.placement.diagnose.names import site_name
from vdplace.placement.diagnose.quote import clip
from vdplace.placement.model.constraints import Site
from vdplace.placement.report.common import Report, fix_note, gap_between, shown_steps

ROW_NODES = 5
NODE_W, NODE_H = 140, 48
GAP_X, GAP_Y = 120, 56
MARGIN = 20
PALETTE = ("#d94a38", "#2f6fd6", "#2e9e5b", "#b7861c", "#8a4fd0", "#1a9aa8", "#c2457f", "#6b7a1f")

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #1d1d1f; background: #fafafa; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
section.conflict { background: #fff; border: 1px solid #ddd; border-left: 5px solid #d94a38;
  padding: 1em 1.5em; margin-bottom: 2em; border-radius: 4px; }
code, pre { font-family: ui-monospace, Menlo, Consolas, monospace; }
pre.source { background: #f4f4f4; padding: 0.6em; overflow-x: auto; line-height: 1.35; }
pre.source .ln { color: #888; display: inline-block; min-width: 3em; user-select: none; }
pre.source .label { color: #555; font-style: italic; }
mark.pin { background: #ffd7d0; border-bottom: 2px solid #d94a38; }
mark.step { background: #dde8fb; border-bottom: 2px dashed #2f6fd6; }
ul.fixes li { margin: 0.3em 0; } .dev { font-weight: bold; }
svg { max-width: 100%; height: auto; background: #fff; }
svg text { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
svg .edge-label { font-size: 10px; fill: #444; }
"""


def html_report(report: Report, title: str | None = None) -> str:
    """The page: a heading with the count, then one section per conflict."""
    title = title or f"vdplace: placement conflicts{' in ' + report.filename if report.filename else ''}"
    total = report.total
    head = f"{total} conflict{'s' if total != 1 else ''}"
    if report.omitted:
        head += f" ({len(report.conflicts)} shown, {report.omitted} more not shown)"
    body = [f"<h1>{escape(title)}</h1>", f"<p>No placement exists: {escape(head)}.</p>"]
    body += [_section(report, c) for c in report.conflicts]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _colour(index: int | None) -> str:
    return "#777777" if index is None else PALETTE[index % len(PALETTE)]


def _section(report: Report, conflict: Conflict) -> str:
    parts = [f'<section class="conflict" id="conflict-{conflict.number}">']
    parts.append(f"<h2>Conflict {conflict.number}: {_code(conflict.title)}</h2>")
    parts.append('<ul class="pins">')
    for req in conflict.pins:
        dev = req.device.index if req.device is not None else None
        where = f" &mdash; <code>{escape(report.location(req.span))}</code>" if req.span else ""
        parts.append(
            f'<li><span class="dev" style="color:{_colour(dev)}">&#9632;</span> {_code(req.description)}{where}</li>'
        )
    parts.append("</ul>")
    steps = shown_steps(conflict)
    parts.append(_graph(conflict, steps))
    excerpt = _excerpt(report, conflict, steps)
    if excerpt:
        parts.append(excerpt)
    if conflict.fixes:
        parts.append('<h3>Fixes (each checked by re-solving)</h3><ul class="fixes">')
        for fix in conflict.fixes:
            parts.append(f"<li>{_code(fix.message + fix_note(conflict, fix.resolves))}</li>")
        parts.append("</ul>")
    parts.append(f"<p><small>Minimality proven by {escape(conflict.verified)}.</small></p>")
    parts.append("</section>")
    return "\n".join(parts)


def _code(text: str) -> str:
    """Escape, and set `backticked` parts in <code>."""
    pieces = escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(pieces))


# -- the graph ----------------------------------------------------------------------


def _graph(conflict: Conflict, steps: list[Step | Gap]) -> str:
    nodes, edges = _graph_model(conflict, steps)
    if conflict.is_path:
        pos = _snake(len(nodes))
    else:
        pos = _layers(len(nodes), [(a, b) for a, b, _, _ in edges])
    width = max(x for x, _ in pos) + NODE_W + 2 * MARGIN
    height = max(y for _, y in pos) + NODE_H + 2 * MARGIN
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="conflict-graph" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="conflict {conflict.number} chain">'
    ]
    for a, b, label, tip in edges:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        cx1, cy1 = x1 + MARGIN + NODE_W / 2, y1 + MARGIN + NODE_H / 2
        cx2, cy2 = x2 + MARGIN + NODE_W / 2, y2 + MARGIN + NODE_H / 2
        out.append(
            f'<g class="edge"><title>{escape(tip)}</title>'
            f'<line x1="{cx1:.0f}" y1="{cy1:.0f}" x2="{cx2:.0f}" y2="{cy2:.0f}" stroke="#555" stroke-width="1.5"/>'
        )
        if label:
            mx, my = (cx1 + cx2) / 2, (cy1 + cy2) / 2
            horizontal = y1 == y2
            anchor = "middle" if horizontal else "start"
            x = mx if horizontal else mx + 6
            lines = label.split("\n")
            top = my - 5 - 12 * (len(lines) - 1) if horizontal else my - 6 * (len(lines) - 1)
            for k, text in enumerate(lines):
                out.append(
                    f'<text class="edge-label" x="{x:.0f}" y="{top + 12 * k:.0f}" text-anchor="{anchor}">'
                    f"{escape(text)}</text>"
                )
        out.append("</g>")
    for i, node in enumerate(nodes):
        x, y = pos[i]
        x += MARGIN
        y += MARGIN
        colour = _colour(node["device"]) if node["pinned"] else "#999999"
        fill = colour + "22" if node["pinned"] else "#ffffff"
        dash = ' stroke-dasharray="4 3"' if node["elided"] else ""
        out.append(
            f'<g class="node{" pinned" if node["pinned"] else ""}"><title>{escape(node["tip"])}</title>'
            f'<rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="6" fill="#ffffff"/>'
            f'<rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="6" fill="{fill}" '
            f'stroke="{colour}" stroke-width="{2.5 if node["pinned"] else 1.2}"{dash}/>'
            f'<text x="{x + NODE_W / 2:.0f}" y="{y + 19}" text-anchor="middle">{escape(_clip(node["name"], 20))}</text>'
            f'<text x="{x + NODE_W / 2:.0f}" y="{y + 36}" text-anchor="middle" fill="{colour}">'
            f"{escape(_clip(node['sub'], 22))}</text></g>"
        )
    out.append("</svg>")
    return "\n".join(out)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def _graph_model(
    conflict: Conflict, steps: list[Step | Gap]
) -> tuple[list[dict[str, Any]], list[tuple[int, int, str, str]]]:
    """Nodes (dicts) and edges (node a, node b, short label, tooltip) of the shown `steps` of a chain or tree."""
    pinned: dict[int, list[Requirement]] = {}
    for req in conflict.pins:
        pinned.setdefault(req.site.id, []).append(req)
    index: dict[int, int] = {}
    nodes: list[dict[str, Any]] = []

    def node_for(site: Site) -> int:
        found = index.get(site.id)
        if found is not None:
            return found
        reqs = pinned.get(site.id, [])
        devices = [d for r in reqs for d in r.devices]
        sub = " / ".join(dict.fromkeys(d.name for d in devices)) if reqs else f"in {site.func}"
        tip = "; ".join(r.description for r in reqs) or f"{site_name(site)} in {site.func}"
        first = reqs[0].device.index if reqs and reqs[0].device is not None else None
        nodes.append(
            {"name": site_name(site), "sub": sub, "pinned": bool(reqs), "device": first, "tip": tip, "elided": False}
        )
        index[site.id] = len(nodes) - 1
        return index[site.id]

    edges: list[tuple[int, int, str, str]] = []
    if not conflict.path:
        for req in conflict.pins:
            node_for(req.site)
        return nodes, edges

    def elided(gap: Gap) -> int:
        nodes.append(
            {
                "name": "\u2026",
                "sub": f"{gap.bindings} bindings",
                "pinned": False,
                "device": None,
                "tip": f"{gap.steps} steps not drawn: {gap}",
                "elided": True,
            }
        )
        return len(nodes) - 1

    if not conflict.is_path:
        for step in steps:
            if isinstance(step, Gap):
                elided(step)
            else:
                edges.append((node_for(step.source), node_for(step.target), _edge_label(step), step.text))
        for req in conflict.pins:
            node_for(req.site)
        return nodes, edges
    previous = node_for(conflict.sites[0])
    for step in steps:
        if isinstance(step, Gap):
            gap = elided(step)
            edges.append((previous, gap, "", ""))
            previous = gap
            continue
        if previous != node_for(step.source):  # the first step after the gap
            edges.append((previous, node_for(step.source), "", ""))
        target = node_for(step.target)
        edges.append((node_for(step.source), target, _edge_label(step), step.text))
        previous = target
    return nodes, edges


_SHORT_RULES = (
    ("operands and result of ", ""),
    (" share a device", ""),
    ("argument ", "arg "),
    ("If branches and result", "If branch"),
    ("hint_on_device (strict)", "strict hint"),
    (" puts its result on the host", " on host"),
)


def _edge_label(step: Step) -> str:
    """Two short lines for an edge: where, and the rule in a few words."""
    rule = step.rule.text
    for long, short in _SHORT_RULES:
        rule = rule.replace(long, short)
    line = f"line {step.span.line}\n" if step.span is not None else ""
    return line + _clip(rule, 19)


def _snake(n: int) -> list[tuple[int, int]]:
    """Boxes left to right, then right to left on the next row, and so on."""
    out = []
    for i in range(n):
        row, col = divmod(i, ROW_NODES)
        if row % 2:
            col = ROW_NODES - 1 - col
        out.append((col * (NODE_W + GAP_X), row * (NODE_H + GAP_Y)))
    return out


def _layers(n: int, edges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """x by BFS depth from node 0, y by order within the depth."""
    adj: dict[int, list[int]] = {i: [] for i in range(n)}
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    depth = {0: 0}
    queue = deque([0])
    while queue:
        u = queue.popleft()
        for v in adj[u]:
            if v not in depth:
                depth[v] = depth[u] + 1
                queue.append(v)
    for i in range(n):
        depth.setdefault(i, 0)
    rows: dict[int, int] = {}
    out = []
    for i in range(n):
        d = depth[i]
        r = rows.get(d, 0)
        rows[d] = r + 1
        out.append((d * (NODE_W + GAP_X), r * (NODE_H + GAP_Y)))
    return out


# -- the source excerpt ------------------------------------------------------------------


def _excerpt(report: Report, conflict: Conflict, steps: list[Step | Gap]) -> str:
    """The source lines of the pins and shown steps, highlighted; one row for the gap of a long chain."""
    if report.lines is None:
        return ""
    marks: dict[int, list[tuple[int, int, str, str]]] = {}
    for req in conflict.pins:
        if req.span is not None:
            marks.setdefault(req.span.line, []).append((*_cols(report, req.span), "pin", req.description))
    for step in steps:
        if not isinstance(step, Gap) and step.span is not None:
            marks.setdefault(step.span.line, []).append((*_cols(report, step.span), "step", step.text))
    if not marks:
        return ""
    numbers = sorted(n for n in marks if report.line(n) is not None)
    rows = []
    previous = None
    for n in numbers:
        if previous is not None and n - previous > 1:
            gap = gap_between(steps, previous, n)
            label = f' <span class="label">{escape(str(gap))}</span>' if gap is not None else ""
            rows.append(f'<span class="ln">\u22ee</span>{label}')
        previous = n
        text, columns = clip(report.line(n) or "", [(start, end) for start, end, _, _ in marks[n]])
        here = [(start, end, kind, label) for (start, end), (_, _, kind, label) in zip(columns, marks[n], strict=True)]
        rows.append(f'<span class="ln">{n}</span>{_highlight(text, here)}')
        labels = dict.fromkeys((start, kind, label) for start, _, kind, label in here)
        for start, kind, label in labels:
            arrow = "^" if kind == "pin" else "-"
            rows.append(f'<span class="ln"></span>{" " * start}<span class="label">{arrow} {_code(label)}</span>')
    return '<pre class="source">' + "\n".join(rows) + "</pre>"


def _cols(report: Report, span: Span) -> tuple[int, int]:
    text = report.line(span.line) or ""
    start = max(span.col - 1, 0)
    end = span.end_col - 1 if span.end_line == span.line else len(text.rstrip())
    return start, max(end, start + 1)


def _highlight(text: str, marks: list[tuple[int, int, str, str]]) -> str:
    """The line with each character inside a mark wrapped (a pin wins over a chain step)."""
    rank = {"pin": 2, "step": 1}
    cls = [""] * len(text)
    tips: list[str] = [""] * len(text)
    for start, end, kind, label in marks:
        for i in range(start, min(end, len(text))):
            if rank[kind] > rank.get(cls[i], 0):
                cls[i] = kind
                tips[i] = label
    out = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and cls[j] == cls[i] and tips[j] == tips[i]:
            j += 1
        chunk = escape(text[i:j])
        out.append(f'<mark class="{cls[i]}" title="{escape(tips[i])}">{chunk}</mark>' if cls[i] else chunk)
        i = j
    return "".join(out)
