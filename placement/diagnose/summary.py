"""``str()`` of a `PlacementConflict`: a few lines per conflict naming every pin and the chain between them.

Per conflict: its title, one line per requirement (with its line), the chain
of sites with the rule of every step (long chains show their first and last
`chain.KEEP` steps and their landmarks, ``… N bindings, lines a–b …``
between), and the source text of each distinct binding of the steps shown
(a long line quoted around the binding, `quote`).  The JSON
report's ``summary`` field is the same paragraph without source text.
"""

from __future__ import annotations

from collections.abc import Sequence

from vdplace.ir.span import Span
from vdplace.placement.diagnose.chain import Gap, landmarks, shorten
from vdplace.placement.diagnose.conflict import Conflict, Step
from vdplace.placement.diagnose.names import site_name
from vdplace.placement.diagnose.quote import quote_span
from vdplace.placement.model.constraints import Equal


def summarize(
    conflicts: Sequence[Conflict],
    omitted: int,
    source: str | None = None,
    *,
    lines: Sequence[str] | None = None,
) -> str:
    """The text of a `PlacementConflict`: one paragraph per conflict and what was left out.

    The bindings are quoted from `lines` (the source already split), else from `source`.
    """
    total = len(conflicts) + omitted
    head = "no placement exists: " + ("1 conflict" if total == 1 else f"{total} independent conflicts")
    source_lines = lines if lines is not None or source is None else source.splitlines()
    parts = [head] + [conflict_summary(c, source_lines) for c in conflicts]
    if omitted:
        parts.append(f"... and {omitted} more conflict(s) not shown")
    return "\n".join(parts)


def conflict_summary(conflict: Conflict, source_lines: Sequence[str] | None = None) -> str:
    """One conflict's paragraph: its pinned variables, the chain that joins them, and its bindings' text."""
    lines = [f"conflict {conflict.number}: {conflict.title}"]
    for req in conflict.pins:
        lines.append(f"  - {req.description}{_at(req.span)}")
    if conflict.path:
        shown = shorten(conflict.path, _equality, marks=landmarks(conflict))
        lines.append("  joined by: " + _chain_text(conflict, shown))
        lines.extend(_binding_lines(shown, source_lines))
    return "\n".join(lines)


def _at(span: Span | None) -> str:
    return "" if span is None else f" (line {span.line})"


def _binding_lines(steps: Sequence[Step | Gap], source_lines: Sequence[str] | None) -> list[str]:
    """``at file:line:col: s = R.add(x1, y1)`` for each distinct binding of the shown steps, and the gap."""
    seen: set[tuple[str | None, int]] = set()
    out: list[str] = []
    for step in steps:
        if isinstance(step, Gap):
            out.append(f"    {step}")
            continue
        span = step.span
        if span is None or (span.file, span.line) in seen:
            continue
        seen.add((span.file, span.line))
        text = ""
        if source_lines is not None and 0 < span.line <= len(source_lines):
            line = source_lines[span.line - 1]
            end = span.end_col - 1 if span.end_line == span.line else len(line)
            text = ": " + quote_span(line, span.col - 1, end)
        out.append(f"    at {span.location()}{text}")
    return out


def _binding_of(step: Step) -> str:
    """The suffix ", in the binding of `r`" when the step's binding is neither of its two sites."""
    if step.binding is None or step.binding in (step.source.name, step.target.name):
        return ""
    return f", in the binding of `{step.binding}`"


def _chain_text(conflict: Conflict, shown: Sequence[Step | Gap]) -> str:
    if not conflict.is_path:
        return "; ".join(str(s) if isinstance(s, Gap) else _equality_text(s) for s in shown)
    names = [site_name(conflict.sites[0])]
    for step in shown:
        if isinstance(step, Gap):
            names.append(str(step))
        else:
            names.append(f"{site_name(step.target)} [{step.text}{_at(step.span)}{_binding_of(step)}]")
    return " -> ".join(names)


def _equality_text(step: Step) -> str:
    return f"{site_name(step.source)} = {site_name(step.target)}{_at(step.span)}{_binding_of(step)}"


def _equality(step: Step) -> Equal:
    return step.constraint
