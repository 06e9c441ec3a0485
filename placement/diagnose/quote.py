"""How a source line is quoted in a report: whole when short, else the marked parts with ``…`` between.

A frontend writes every weight of a model as a parameter of one ``def
main(...)`` line, 15,000 characters and more.  A report quotes such a line
(longer than `WIDTH`) as its head (the indentation and the ``def name(`` or
the bound name), and each marked column range with `CONTEXT` characters
around it (cut at a ``, `` where one is near, so a parameter is shown from
its name), the parts joined by ``…``.  A mark longer than `MARK` characters
is shown by its first `MARK`.  `clip` returns the quoted text and the marks'
columns in it, so underlines still point at the right characters; locations
(``file:line:col``) keep naming the real columns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# A line up to this long is quoted whole.
WIDTH = 160
# Characters kept on each side of a mark.
CONTEXT = 24
# The longest part of one mark that is shown.
MARK = 120
ELLIPSIS = "\u2026"

_HEAD = re.compile(r"\s*(?:def\s+\w+\s*\(|[\w.]+)")


def clip(text: str, marks: Sequence[tuple[int, int]]) -> tuple[str, list[tuple[int, int]]]:
    """`text` (right-stripped) as quoted, and each mark ``[start, end)`` (0-based columns) moved into it.

    A line no longer than `WIDTH` comes back whole with its marks as given.
    """
    text = text.rstrip()
    if len(text) <= WIDTH:
        return text, [(s, e) for s, e in marks]
    head = _HEAD.match(text)
    head_end = min(head.end() if head else 0, 40)
    clipped = [(s, min(e, s + MARK)) for s, e in marks]
    parts = [(0, head_end)] if head_end else []
    for s, e in clipped:
        left = max(0, s - CONTEXT)
        comma = text.rfind(", ", left, s)
        if comma >= 0:
            left = comma + 1
        right = min(len(text), e + CONTEXT)
        comma = text.find(", ", e, right)
        if comma >= 0:
            right = comma + 1
        parts.append((min(left, s), max(right, e)))
    merged = _merge(parts)
    out: list[str] = []
    offsets: list[tuple[int, int, int]] = []  # (start, end, position in the quoted text)
    length = 0
    previous = 0
    for a, b in merged:
        if a > previous:
            out.append(ELLIPSIS)
            length += len(ELLIPSIS)
        offsets.append((a, b, length))
        out.append(text[a:b])
        length += b - a
        previous = b
    if previous < len(text):
        out.append(ELLIPSIS)
    return "".join(out), [(_moved(offsets, s), _moved(offsets, e)) for s, e in clipped]


def _merge(parts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping ranges, or ranges closer than an ellipsis is worth, joined; in order."""
    merged: list[tuple[int, int]] = []
    for a, b in sorted(parts):
        if merged and a <= merged[-1][1] + 3:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _moved(offsets: list[tuple[int, int, int]], column: int) -> int:
    for a, b, at in offsets:
        if a <= column <= b:
            return at + column - a
    return offsets[-1][2] + offsets[-1][1] - offsets[-1][0]


def quote_span(text: str, start: int, end: int) -> str:
    """The line `text` stripped for a one-line quote, clipped around columns ``[start, end)`` when long."""
    quoted, _ = clip(text, [(start, end)])
    return quoted.strip()
