"""The terminal rendering of placement conflicts, in the style of rustc and clang.

    error[E-conflict]: `a` must be on "llvm:0" but `b` on "cuda:0"
      --> model.py:9:13
       |
     9 |         a = R.hint_on_device(x, tvm.cpu())
       |             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ `a` is hinted to "llvm:0" by R.hint_on_device
    ...
       = note: `a` -> `c` (line 11): operands and result of R.add share a device
       = help: insert `a_cuda0 = R.to_vdevice(a, "cuda:0")` before line 11 ...

Pins are underlined with ``^`` (the primary labels), the bindings of the
chain with ``-``.  A long chain shows its first and last steps and its
landmarks (the meeting point, the bindings fixes edit: `chain`), and one
line ``… N bindings, lines a–b …`` for each run left out, in the excerpt and
in the notes, so a report's length is bounded by its conflicts' pins.  A long
source line is quoted around its marks (`quote`).  Colour is plain
ANSI, used only when asked for (the CLI asks when stdout is a terminal and
``NO_COLOR`` is unset).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from vdplace.ir.span import Span
from vdplace.placement.diagnose.chain import Gap
from vdplace.placement.diagnose.conflict import Conflict, Step
from vdplace.placement.diagnose.names import site_name
from vdplace.placement.diagnose.quote import clip
from vdplace.placement.report.common import Report, fix_note, gap_between, shown_steps

# paint(style, text): `text` in the ANSI style named `style` (or plain)
Paint = Callable[[str, str], str]

_RESET = "\x1b[0m"
_STYLES = {
    "error": "\x1b[1;31m",
    "title": "\x1b[1m",
    "gutter": "\x1b[1;34m",
    "primary": "\x1b[1;31m",
    "secondary": "\x1b[1;34m",
    "note": "\x1b[1m",
    "help": "\x1b[1;36m",
}


def want_color(stream: object = None) -> bool:
    """Colour on a terminal, unless NO_COLOR is set."""
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and "NO_COLOR" not in os.environ


def text_report(report: Report, color: bool = False) -> str:
    """Every conflict of `report` as a rustc-style block, then the count (ANSI colour when `color`)."""
    paint = _painter(color)
    blocks = [_conflict_block(report, c, paint) for c in report.conflicts]
    total = report.total
    tail = f"no placement exists: {total} conflict{'s' if total != 1 else ''}"
    if report.omitted:
        tail += f" ({len(report.conflicts)} shown, {report.omitted} more not shown)"
    blocks.append(f"{paint('error', 'error')}{paint('title', ': ' + tail)}")
    return "\n\n".join(blocks) + "\n"


def _painter(color: bool) -> Paint:
    def paint(style: str, text: str) -> str:
        if not color or not text:
            return text
        return f"{_STYLES[style]}{text}{_RESET}"

    return paint


class _Mark:
    """One underline: columns [start, end) of a line, primary or secondary, with a label."""

    __slots__ = ("line", "start", "end", "primary", "label")

    def __init__(self, line: int, start: int, end: int, primary: bool, label: str) -> None:
        self.line = line
        self.start = start
        self.end = end
        self.primary = primary
        self.label = label


def _marks(report: Report, conflict: Conflict, steps: Sequence[Step | Gap]) -> list[_Mark]:
    wanted: list[tuple[Span, bool, str]] = [(r.span, True, r.description) for r in conflict.pins if r.span]
    for step in steps:
        if not isinstance(step, Gap) and step.span is not None:
            wanted.append((step.span, False, step.text))
    marks: list[_Mark] = []
    seen: set[tuple] = set()
    pinned: set[tuple] = set()  # a chain step on a pin's own span is told by the notes only
    for span, primary, label in wanted:
        text = report.line(span.line)
        if text is None:
            continue
        start = max(span.col - 1, 0)
        end = span.end_col - 1 if span.end_line == span.line else len(text.rstrip())
        end = max(end, start + 1)
        key = (span.line, start, end, label)
        if key in seen or (not primary and key[:3] in pinned):
            continue
        seen.add(key)
        if primary:
            pinned.add(key[:3])
        marks.append(_Mark(span.line, start, end, primary, label))
    return marks


def _conflict_block(report: Report, conflict: Conflict, paint: Paint) -> str:
    out = [paint("error", "error[E-conflict]") + paint("title", f": {conflict.title}")]
    steps = shown_steps(conflict)
    marks = _marks(report, conflict, steps)
    numbers = sorted({m.line for m in marks})
    width = len(str(max(numbers))) if numbers else 1
    pad = " " * width
    bar = paint("gutter", "|")
    out.append(f"{pad}{paint('gutter', '-->')} {report.location(conflict.span)}")
    if numbers:
        out.append(f"{pad} {bar}")
        out.extend(_excerpt(report, marks, numbers, width, paint, steps))
        out.append(f"{pad} {bar}")
    else:
        for req in conflict.pins:
            out.append(
                f"{pad} {paint('gutter', '=')} {paint('note', 'pin')}: {req.description}{_where(report, req.span)}"
            )
    notes = _step_notes(conflict, steps)
    eq = paint("gutter", "=")
    for note in notes:
        out.append(f"{pad} {eq} {paint('note', 'note')}: {note}")
    for fix in conflict.fixes:
        out.append(f"{pad} {eq} {paint('help', 'help')}: {fix.message}{fix_note(conflict, fix.resolves)}")
    return "\n".join(out)


def _where(report: Report, span: Span | None) -> str:
    return "" if span is None else f" ({report.location(span)})"


def _excerpt(
    report: Report, marks: Sequence[_Mark], numbers: list[int], width: int, paint: Paint, steps: Sequence[Step | Gap]
) -> list[str]:
    """The marked lines with their underlines; ``...`` where lines are skipped (with the `Gap` that lies there).

    A long line is quoted around its marks (`quote.clip`), the underlines moved with it.
    """
    lines: list[str] = []
    bar = paint("gutter", "|")
    shown: list[int] = []
    for n in numbers:
        if shown and n - shown[-1] == 2:
            shown.append(n - 1)  # one line of gap reads better than "..."
        shown.append(n)
    previous = None
    for n in shown:
        if previous is not None and n - previous > 1:
            gap = gap_between(steps, previous, n)
            lines.append(paint("gutter", "...") + (f" {gap}" if gap is not None else ""))
        previous = n
        here = sorted((m for m in marks if m.line == n), key=lambda m: (not m.primary, m.start))
        text, columns = clip(report.line(n) or "", [(m.start, m.end) for m in here])
        lines.append(f"{paint('gutter', str(n).rjust(width))} {bar} {text}")
        for mark, (start, end) in zip(here, columns, strict=True):
            char = "^" if mark.primary else "-"
            underline = " " * start + char * max(end - start, 1)
            style = "primary" if mark.primary else "secondary"
            lines.append(f"{' ' * width} {bar} {paint(style, underline + ' ' + mark.label)}")
    return lines


def _step_notes(conflict: Conflict, steps: Sequence[Step | Gap]) -> list[str]:
    if not conflict.path:
        if len({r.site.id for r in conflict.pins}) == 1:
            return [f"both apply to {site_name(conflict.pins[0].site)} itself"]
        return []
    notes = []
    if not conflict.is_path:
        notes.append(f"the pinned sites are joined by {len(conflict.path)} equalities:")
    for step in steps:
        if isinstance(step, Gap):
            notes.append(str(step))
            continue
        where = f" (line {step.span.line})" if step.span is not None else ""
        arrow = "->" if conflict.is_path else "="
        notes.append(f"`{site_name(step.source)}` {arrow} `{site_name(step.target)}`{where}: {step.text}")
    return notes
