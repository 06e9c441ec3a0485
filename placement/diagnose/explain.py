"""`Diagnosis`: the one explanation of a conflict that `place()` raises and every report renders.

`place()` learns *that* a module has no placement from its solver (a class
whose pins and domains have no common device); everything said about *why*
comes from here: `conflict_error` wraps the constraint set in a `Diagnosis`
and a `PlacementConflict`.  Nothing is computed until something asks
(``str(err)``, `err.conflicts`, a report), so raising is free; the first
question runs `find.find_conflicts` once and every later one reads its
result, so the exception's texts, its `cores` and the text, JSON and HTML
reports always describe the same conflicts.  The module's source text is
split into lines once, here (`Diagnosis.lines`), for every rendering.

Like `find_conflicts`, the diagnosis runs with the garbage collector paused.
It never places anything: the specialization advice is computed by the
driver when the error is raised (`placement.api`) and handed over with
`Diagnosis.offer`; the diagnosis only reads its help lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from vdplace.ir import progress
from vdplace.ir.collector import collector_paused
from vdplace.placement.diagnose.conflict import Conflict, Fix
from vdplace.placement.diagnose.find import find_conflicts
from vdplace.placement.diagnose.message import conflict_message
from vdplace.placement.diagnose.summary import summarize
from vdplace.placement.errors import Constraint, PlacementConflict
from vdplace.placement.model.constraints import ConstraintSet

# How many conflicts a diagnosis explains (builds, proves, fixes); the rest are only counted.
CONFLICT_LIMIT = 10


class Advice(Protocol):
    """Help lines per conflict, read without placing (`placement.specialize.advice.SpecializationAdvice`)."""

    def texts(self, cores: Sequence[Sequence[Any]]) -> list[str | None]: ...


def conflict_error(cs: ConstraintSet, module: Any = None) -> PlacementConflict:
    """The error for a constraint set with no placement; `module` (an `IRModule`) supplies the source text."""
    return PlacementConflict(Diagnosis(cs, module))


class Diagnosis:
    """The conflicts of one constraint set, found on first use: what a `PlacementConflict` reports.

    `conflicts` (at most `limit`, in source order) and `omitted` come from
    one call of `find_conflicts`; `cores` are the conflicts as constraint
    lists, `message` and `summary()` their two texts.  `module`, when given,
    is where the source text (``module.source``) and file name come from.
    """

    __slots__ = ("constraint_set", "module", "limit", "advice", "_found", "_lines")

    def __init__(self, cs: ConstraintSet, module: Any = None, limit: int = CONFLICT_LIMIT) -> None:
        self.constraint_set = cs
        self.module = module
        self.limit = limit
        self.advice: Advice | None = None
        self._found: tuple[list[Conflict], int] | None = None
        self._lines: list[str] | None = None

    def offer(self, advice: Advice) -> None:
        """Give the conflicts the help lines of `advice` (before anything asks for them)."""
        if self._found is not None:
            raise RuntimeError("internal error: advice offered after the conflicts were found")
        self.advice = advice

    def _find(self) -> tuple[list[Conflict], int]:
        if self._found is None:
            with collector_paused():
                conflicts, omitted = find_conflicts(self.constraint_set, limit=self.limit)
                if self.module is not None:
                    with progress.stage("specialization advice"):
                        _offer_specialization(self.advice, conflicts)
            self._found = (conflicts, omitted)
        return self._found

    @property
    def conflicts(self) -> Sequence[Conflict]:
        return self._find()[0]

    @property
    def omitted(self) -> int:
        return self._find()[1]

    @property
    def source(self) -> str | None:
        return getattr(self.module, "source", None)

    @property
    def lines(self) -> list[str] | None:
        """The source text's lines (split once, on first use), or None without source."""
        if self._lines is None:
            source = self.source  # a `SourceFile`-backed module reads its file here: once
            if source is not None:
                self._lines = source.splitlines()
        return self._lines

    @property
    def cores(self) -> list[list[Constraint]]:
        """Each explained conflict's constraints: its pins and domains, then its chain of equalities."""
        return [[*c.constraints] for c in self.conflicts]  # each a new list, of the wider `Constraint`

    @property
    def message(self) -> str:
        return conflict_message(self.conflicts, self.omitted, self.constraint_set, self.lines)

    def summary(self) -> str:
        return summarize(self.conflicts, self.omitted, lines=self.lines)


def _offer_specialization(advice: Advice | None, conflicts: list[Conflict]) -> None:
    """Add a ``specialize`` fix to each conflict that call-site specialization is proven to remove.

    The fix changes no constraint (`Fix.apply` returns the same set): it is
    advice to place with ``specialize=True``, not an edit of the module.
    """
    if advice is None:
        return
    texts = advice.texts([c.constraints for c in conflicts])
    for conflict, text in zip(conflicts, texts, strict=True):
        if text is not None:
            fix = Fix("specialize", text, None, (), ())
            fix.resolves = [conflict.number]
            conflict.fixes.append(fix)
