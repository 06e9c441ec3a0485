"""What the three conflict renderings share: reading the error, the source, and which steps to show.

A report is built from a `PlacementConflict` (its `conflicts` and `omitted`
when placement attached them, else computed here from its
`constraint_set`) and the module's source text, which comes from the
`source=` argument, else from the error's `module` (``IRModule.source`` and
``.filename``).  A module built in Python has no source: reports then show
positions and names without excerpts.
"""

from __future__ import annotations

from collections.abc import Sequence

from vdplace.ir.span import Span

from .diagnose import Conflict, Step, find_conflicts

# Chains longer than this show their first and last `EDGE_STEPS` steps.
EDGE_STEPS = 6


class Report:
    """The conflicts of one error plus the source lines they point into."""

    __slots__ = ("conflicts", "omitted", "lines", "filename", "vdevices")

    def __init__(
        self,
        conflicts: Sequence[Conflict],
        omitted: int,
        source: str | None,
        filename: str | None,
        vdevices: Sequence,
    ) -> None:
        self.conflicts = list(conflicts)
        self.omitted = omitted
        self.lines = source.splitlines() if source is not None else None
        self.filename = filename
        self.vdevices = list(vdevices)

    @property
    def total(self) -> int:
        return len(self.conflicts) + self.omitted

    def line(self, number: int) -> str | None:
        if self.lines is None or not 1 <= number <= len(self.lines):
            return None
        return self.lines[number - 1]

    def location(self, span: Span | None) -> str:
        if span is None:
            return self.filename or "<module>"
        return f"{span.file or self.filename or '<string>'}:{span.line}:{span.col}"


def make_report(conflict_error: object, source: str | None = None, filename: str | None = None) -> Report:
    """A `Report` from a `PlacementConflict` (or anything with `constraint_set`)."""
    conflicts = getattr(conflict_error, "conflicts", None)
    if conflicts is None:
        conflicts, omitted = find_conflicts(conflict_error.constraint_set)  # type: ignore[attr-defined]
    else:
        omitted = getattr(conflict_error, "omitted", 0)
    module = getattr(conflict_error, "module", None)
    if source is None and module is not None:
        source = getattr(module, "source", None)
    if filename is None and module is not None:
        filename = getattr(module, "filename", None)
    vdevices = conflict_error.constraint_set.vdevices  # type: ignore[attr-defined]
    return Report(conflicts, omitted, source, filename, vdevices)


def shown_steps(conflict: Conflict) -> list[Step | None]:
    """The chain's steps to draw; None stands for the elided middle of a long chain."""
    steps = conflict.path
    if len(steps) <= 2 * EDGE_STEPS + 1:
        return list(steps)
    return [*steps[:EDGE_STEPS], None, *steps[-EDGE_STEPS:]]


def fix_note(conflict: Conflict, resolves: Sequence[int]) -> str:
    """The suffix " (also resolves conflicts 2 and 3)" when a fix helps more than this conflict."""
    others = [n for n in resolves if n != conflict.number]
    if not others:
        return ""
    names = ", ".join(str(n) for n in others[:-1]) + (" and " if len(others) > 1 else "") + str(others[-1])
    return f" (also resolves conflict{'s' if len(others) > 1 else ''} {names})"
