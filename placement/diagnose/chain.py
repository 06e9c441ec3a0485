"""How a long chain of equalities is shortened for people: its first and last steps around a `Gap`.

A chain longer than ``2 * KEEP + 1`` steps is shown as its first `KEEP`
steps, one line ``… N bindings, lines a–b …`` for the middle, and its last
`KEEP` steps, so every rendering for people (the exception's texts, the text
and HTML reports) stays bounded however long the chain is.  The JSON report
keeps the whole chain (compactly, `json_report`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from vdplace.placement.model.constraints import Equal

# Steps shown at each end of a long chain.
KEEP = 6

T = TypeVar("T")


class Gap:
    """The elided middle of a chain: how many steps, how many distinct bindings, and which lines they span.

    `first_line` and `last_line` are the smallest and largest source lines
    of the elided equalities (None when none has a position).
    """

    __slots__ = ("steps", "bindings", "first_line", "last_line")

    def __init__(self, equalities: Sequence[Equal]) -> None:
        self.steps = len(equalities)
        origins: set[int] = set()
        loose = 0
        first: int | None = None
        last: int | None = None
        for eq in equalities:
            if eq.origin is None:
                loose += 1
            else:
                origins.add(id(eq.origin))
            if eq.span is not None:
                line = eq.span.line
                first = line if first is None or line < first else first
                last = line if last is None or line > last else last
        self.bindings = len(origins) + loose
        self.first_line = first
        self.last_line = last

    def __str__(self) -> str:
        """``… 9989 bindings, lines 25107–45105 …`` (the lines left out without positions)."""
        text = f"{self.bindings} binding{'s' if self.bindings != 1 else ''}"
        if self.first_line is not None and self.first_line == self.last_line:
            text += f", line {self.first_line}"
        elif self.first_line is not None:
            text += f", lines {self.first_line}\u2013{self.last_line}"
        return f"\u2026 {text} \u2026"

    def __repr__(self) -> str:
        return f"Gap({self.steps} steps: {self})"


def shorten(items: Sequence[T], equality: Callable[[T], Equal], keep: int = KEEP) -> list[T | Gap]:
    """`items` as shown: all of them, or the first and last `keep` with a `Gap` for the rest between."""
    if len(items) <= 2 * keep + 1:
        return list(items)
    middle = [equality(item) for item in items[keep : len(items) - keep]]
    return [*items[:keep], Gap(middle), *items[len(items) - keep :]]
