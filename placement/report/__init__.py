"""Reports of placement conflicts: text for a terminal, JSON for tools, HTML with the conflict path drawn.

The three renderings share one signature::

    render_text(conflict, *, source=None, filename=None, color=None) -> str
    render_json(conflict, *, source=None, filename=None) -> dict
    render_html(conflict, *, source=None, filename=None, title=None) -> str

`conflict` is a `PlacementConflict` (what `place` raises) or a
`placement.diagnose.Diagnosis` of a constraint set.  `source` and
`filename` override the module text and name the conflict carries (without
either, a module built in Python, reports show positions and names but no
excerpts).  All three read the same `Conflict` objects, so they describe the
same conflicts in the same order.  The JSON document follows
`SCHEMA_PATH` (``$id`` `SCHEMA_ID`); each fix in it carries its text edits
(`edits`), which `autofix.fix_text` (``vdplace fix``) applies.

A conflict of memory limits (cost-aware placement's
`placement.cost.conflict.MemoryExplanation`) has no equality chain to draw:
the three renderings give its own text, its JSON document (``"kind":
"memory"``, docs/conflicts.md) and that text as a page.
"""

from __future__ import annotations

from typing import Any

from vdplace.placement.cost.conflict import MemoryExplanation
from vdplace.placement.diagnose.explain import Diagnosis
from vdplace.placement.errors import PlacementConflict
from vdplace.placement.report.common import make_report
from vdplace.placement.report.html import html_report
from vdplace.placement.report.json_report import SCHEMA_ID, SCHEMA_PATH, json_report
from vdplace.placement.report.text import text_report, want_color

__all__ = ["SCHEMA_ID", "SCHEMA_PATH", "render_html", "render_json", "render_text"]


def render_text(
    conflict: PlacementConflict | Diagnosis,
    *,
    source: str | None = None,
    filename: str | None = None,
    color: bool | None = None,
) -> str:
    """The rustc-style terminal report; ANSI colour when `color` (None: when stdout is a terminal)."""
    memory = _memory(conflict)
    if memory is not None:
        return memory.text()
    report = make_report(conflict, source, filename)
    return text_report(report, want_color() if color is None else color)


def render_json(
    conflict: PlacementConflict | Diagnosis, *, source: str | None = None, filename: str | None = None
) -> dict[str, Any]:
    """The report as plain data for ``json.dumps`` (fields: docs/conflicts.md)."""
    memory = _memory(conflict)
    if memory is not None:
        return memory.as_dict()
    return json_report(make_report(conflict, source, filename))


def render_html(
    conflict: PlacementConflict | Diagnosis,
    *,
    source: str | None = None,
    filename: str | None = None,
    title: str | None = None,
) -> str:
    """The report as one self-contained HTML page (inline CSS and SVG, no script)."""
    memory = _memory(conflict)
    if memory is not None:
        return memory.html(title)
    return html_report(make_report(conflict, source, filename), title)


def _memory(conflict: PlacementConflict | Diagnosis) -> MemoryExplanation | None:
    explanation = getattr(conflict, "explanation", None)
    return explanation if isinstance(explanation, MemoryExplanation) else None
