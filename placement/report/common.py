"""What the three conflict renderings share: the `Report` they read, and which steps and notes to show.

A `Report` is built from a `PlacementConflict` or a `placement.diagnose.Diagnosis`
(its `conflicts`, `omitted`, `constraint_set` and `module`) and the module's
source lines, which come from the `source=` argument, else from the
diagnosis (``IRModule.source``, split into lines once per diagnosis, and
``.filename``).  A module built in Python has no source: reports then show
positions and names without excerpts.  Every rendering reads a line by its
number in constant time and touches only the steps it shows, so a report
costs time linear in its conflicts' chains and has a length bounded by
their pins, whatever the chains' lengths (`diagnose.chain`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vdplace.ir.span import Span
from vdplace.ir.vdevice import VDevice
from vdplace.placement.diagnose.chain import Gap, landmarks, shorten
from vdplace.placement.diagnose.conflict import Conflict, Step
from vdplace.placement.diagnose.explain import Diagnosis
from vdplace.placement.errors import PlacementConflict
from vdplace.placement.model.constraints import Equal


class Report:
    """The conflicts of one error plus the source lines they point into."""

    __slots__ = ("conflicts", "omitted", "lines", "filename", "vdevices")

    def __init__(
        self,
        conflicts: Sequence[Conflict],
        omitted: int,
        lines: Sequence[str] | None,
        filename: str | None,
        vdevices: Sequence[VDevice],
    ) -> None:
        self.conflicts = list(conflicts)
        self.omitted = omitted
        self.lines = lines
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
    diagnosis = conflict.explanation if isinstance(conflict, PlacementConflict) else conflict
    if not isinstance(diagnosis, Diagnosis):  # `render_*` answer a cost plan's memory conflict themselves
        raise TypeError(f"a report explains a placement.diagnose.Diagnosis, not a {type(diagnosis).__name__}")
    lines = diagnosis.lines if source is None else source.splitlines()
    module: Any = diagnosis.module
    if filename is None and module is not None:
        filename = getattr(module, "filename", None)
    return Report(diagnosis.conflicts, diagnosis.omitted, lines, filename, diagnosis.constraint_set.vdevices)


def shown_steps(conflict: Conflict) -> list[Step | Gap]:
    """The chain's steps to show: all, or the first and last few and the landmarks with `Gap`s between (`chain`)."""
    return shorten(conflict.path, _equality, marks=landmarks(conflict))


def gap_between(steps: Sequence[Step | Gap], previous: int, following: int) -> Gap | None:
    """The first `Gap` of `steps` whose first line lies strictly between two quoted lines, if any."""
    for step in steps:
        if isinstance(step, Gap) and step.first_line is not None and previous < step.first_line < following:
            return step
    return None


def _equality(step: Step) -> Equal:
    return step.constraint


def fix_note(conflict: Conflict, resolves: Sequence[int]) -> str:
    """The suffix " (also resolves conflicts 2 and 3)" when a fix helps more than this conflict."""
    others = [n for n in resolves if n != conflict.number]
    if not others:
        return ""
    names = ", ".join(str(n) for n in others[:-1]) + (" and " if len(others) > 1 else "") + str(others[-1])
    return f" (also resolves conflict{'s' if len(others) > 1 else ''} {names})"
