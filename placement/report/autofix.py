"""Applying fixes: `fix_text` edits a module's text, a round of fixes at a time, until it places.

A round parses the text and places it (with the `place` it is given).  On
a conflict it picks, for each explained conflict in order, the first fix
that has edits (`edits.report_edits`: every offered fix was re-checked on the
constraints), unless a fix picked before already resolves that conflict
(its `resolves`) or the edits overlap edits picked before (then the next
fix of the conflict is tried, and the conflict waits for the next round if
none is left).  The picked edits are applied back to front, so no edit moves
the text another one points at.  Rounds go on while a round applies a fix:
the next round sees the conflicts the diagnosis limit left out and those
that waited.  It ends when the text places, when a round has conflicts and
no fix to apply (`FixResult.remaining`), when a round would give back a text
an earlier round had (fixes undoing each other), or after `MAX_ROUNDS`.

The text keeps everything the edits do not touch, comments and layout
included; inserted lines end the way the text's first line does.  Edits
are made on the lines as the parser counts them (``\\r\\n``, ``\\r`` and
``\\n`` end a line), so positions mean what the spans meant.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from vdplace.ir.errors import ParseError
from vdplace.ir.module import IRModule
from vdplace.ir.parser import parse
from vdplace.placement.cost.conflict import MemoryExplanation
from vdplace.placement.diagnose.conflict import Conflict, Fix
from vdplace.placement.errors import PlacementConflict, PlacementInternalError
from vdplace.placement.report.edits import Edit, report_edits

# Rounds of fixes at most (each applies at least one fix).
MAX_ROUNDS = 100

_BREAK = re.compile(r"\r\n|\r|\n")


class Applied:
    """One fix applied: in which round, for which conflict, what it did, and where."""

    __slots__ = ("round", "title", "message", "line")

    def __init__(self, round: int, conflict: Conflict, fix: Fix) -> None:
        self.round = round
        self.title = conflict.title
        self.message = fix.message
        self.line = fix.line

    def describe(self, filename: str | None) -> str:
        """``model.py:12: insert ... (for: `a` must be on ... )``."""
        where = f"{filename or '<string>'}:{self.line}" if self.line is not None else filename or "<string>"
        return f"{where}: {self.message} (for: {self.title})"


class FixResult:
    """The fixed text, the fixes applied, and the conflict left when some had no fix (None: the text places)."""

    __slots__ = ("text", "applied", "remaining", "rounds")

    def __init__(self, text: str, applied: list[Applied], remaining: PlacementConflict | None, rounds: int) -> None:
        self.text = text
        self.applied = applied
        self.remaining = remaining
        self.rounds = rounds

    @property
    def places(self) -> bool:
        return self.remaining is None


def fix_text(
    text: str,
    filename: str | None,
    place: Callable[[IRModule], Any],
    max_rounds: int = MAX_ROUNDS,
) -> FixResult:
    """`text` with the fixes of its conflicts applied, round after round (module docstring).

    `place(mod)` places a parsed module and raises `PlacementConflict` when it
    cannot (the caller's driver, e.g. `placement.place`: this stage never imports it).  A `ParseError` of
    `text` itself propagates (bad input); a text the fixes made that no longer
    parses is a bug, `PlacementInternalError`.
    """
    applied: list[Applied] = []
    seen = {hash(text)}
    for round_ in range(1, max_rounds + 1):
        try:
            mod = parse(text, filename=filename)
        except ParseError as err:
            if round_ == 1:
                raise
            raise PlacementInternalError(f"the fixes made a text that does not parse: {err}") from None
        try:
            place(mod)
        except PlacementConflict as err:
            lines = _BREAK.split(text)
            picked = pick_fixes(_conflicts(err), lines)
            if not picked:
                return FixResult(text, applied, err, round_)
            fixed = apply_edits(text, [e for _, _, edits in picked for e in edits], _newline(text))
            if hash(fixed) in seen:
                return FixResult(text, applied, err, round_)  # the fixes would go round in a circle
            seen.add(hash(fixed))
            applied += [Applied(round_, conflict, fix) for conflict, fix, _ in picked]
            text = fixed
            continue
        return FixResult(text, applied, None, round_)
    return FixResult(text, applied, _still(text, filename, place), max_rounds)


def _conflicts(err: PlacementConflict) -> Sequence[Conflict]:
    """The explained conflicts of `err`; none for a conflict of memory limits (nothing there to edit)."""
    return () if isinstance(err.explanation, MemoryExplanation) else err.conflicts


def _still(text: str, filename: str | None, place: Callable[[IRModule], Any]) -> PlacementConflict | None:
    """The conflict `text` still has after the last round (None when it places)."""
    try:
        place(parse(text, filename=filename))
    except PlacementConflict as err:
        return err
    return None


def pick_fixes(conflicts: Sequence[Conflict], lines: Sequence[str]) -> list[tuple[Conflict, Fix, list[Edit]]]:
    """For each conflict the first fix with edits that overlap none picked before, unless one resolves it."""
    edits = report_edits(conflicts, lines)
    picked: list[tuple[Conflict, Fix, list[Edit]]] = []
    resolved: set[int] = set()
    chosen: list[Edit] = []
    for conflict in conflicts:
        if conflict.number in resolved:
            continue
        for fix in conflict.fixes:
            mine = edits.get(id(fix))
            if not mine or any(e.overlaps(o) for e in mine for o in chosen):
                continue
            picked.append((conflict, fix, mine))
            chosen += mine
            resolved.update(fix.resolves)
            break
    return picked


def apply_edits(text: str, edits: Sequence[Edit], newline: str = "\n") -> str:
    """`text` with `edits` made (they must not overlap), back to front; ``\\n`` in their text becomes `newline`.

    Insertions at one place keep the order they are given in.  A position
    outside the text is a `ValueError`.
    """
    starts, ends = [0], []
    for match in _BREAK.finditer(text):
        ends.append(match.start())
        starts.append(match.end())
    ends.append(len(text))

    def offset(pos: tuple[int, int]) -> int:
        line, col = pos
        if not 1 <= line <= len(starts):
            raise ValueError(f"an edit at line {line}: the text has {len(starts)} lines")
        if not 1 <= col <= ends[line - 1] - starts[line - 1] + 1:
            raise ValueError(f"an edit at {line}:{col}: outside the line")
        return starts[line - 1] + col - 1

    order = sorted(range(len(edits)), key=lambda i: (offset(edits[i].start), offset(edits[i].end), i), reverse=True)
    out = text
    for i in order:
        edit = edits[i]
        a, b = offset(edit.start), offset(edit.end)
        out = out[:a] + edit.text.replace("\n", newline) + out[b:]
    return out


def _newline(text: str) -> str:
    match = _BREAK.search(text)
    return match.group(0) if match else "\n"
