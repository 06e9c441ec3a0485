"""What the three conflict renderings share: the `Report` they read, and which steps and notes to show.

A `Report` is built from a `PlacementConflict` or a `placement.diagnose.Diagnosis`
(its `conflicts`, `omitted`, `constraint_set` and `module`) and the module's
source text, which comes from the `source=` argument, else from the
`module` (``IRModule.source`` and ``.filename``).  A module built in Python
has no source: reports then show positions and names without excerpts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vdplace.ir.span import Span
from vdplace.ir.vdevice import VDevice
from vdplace.placement.diagnose.conflict import Conflict, Step
from vdplace.placement.diagnose.explain import Diagnosis
from vdplace.placement.errors import PlacementConflict

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
        vdevices: Sequence[VDevice],
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


def make_report(
    conflict: PlacementConflict | Diagnosis, source: str | None = None, filename: str | None = None
) -> Report:
    """The `Report` of a conflict; `source`/`filename` override what its module says."""
    module: Any = conflict.module
    if source is None and module is not None:
        source = getattr(module, "source", None)
    if filename is None and module is not None:
        filename = getattr(module, "filename", None)
    return Report(conflict.conflicts, conflict.omitted, source, filename, conflict.constraint_set.vdevices)


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
