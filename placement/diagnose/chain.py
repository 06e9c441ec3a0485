"""How a long chain of equalities is shortened for people: its ends and its landmarks, `Gap`s between.

A chain longer than ``2 * KEEP + 1`` steps is shown as its first `KEEP`
steps, its last `KEEP` steps and every *landmark* step, with one line ``…
N bindings, lines a–b …`` (a `Gap`) for each run of steps left out, so every
rendering for people (the exception's texts, the text and HTML reports, the
JSON report's ``path``) stays bounded however long the chain is.  The JSON
report also keeps the whole chain (compactly, `json_report`).

Landmarks (`landmarks`) are the steps a user edits, never elided:

* the *meeting points* of a chain: a site both of whose steps flow into it
  (``c = R.add(a, b)``, where the value carried from one pin meets the value
  carried from the other) or both flow out of it (a value read on the way
  to both pins), by the direction of each step's rule
  (`names.edge_direction`).  A chain turns at most `MAX_TURNS` times in a
  report: with more, the turns nearest each end are kept (where each pinned
  chain ends);
* every step of a binding that one of the conflict's fixes edits (the
  binding a copy is inserted before), and every step on a line a fix names.

A landmark is kept with every step of the same binding (``R.add(x, x)``
ties `x` to the result twice), so each is shown whole.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, TypeVar

from vdplace.placement.diagnose.names import edge_direction
from vdplace.placement.model.constraints import Equal

if TYPE_CHECKING:
    from vdplace.placement.diagnose.conflict import Conflict

# Steps shown at each end of a long chain.
KEEP = 6
# Meeting points kept in one chain (the outermost ones when there are more).
MAX_TURNS = 6

T = TypeVar("T")


class Gap:
    """The elided run of a chain: how many steps, how many distinct bindings, and which lines they span.

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


def landmark_key(eq: Equal) -> int:
    """What identifies a step as a landmark: its binding (origin), or the equality itself when it has none."""
    return id(eq.origin) if eq.origin is not None else id(eq)


def landmarks(conflict: Conflict) -> frozenset[int]:
    """The `landmark_key`s of the steps of `conflict` that no rendering elides (module docstring)."""
    path = conflict.path
    keys: set[int] = set()
    if conflict.is_path:
        for i in _kept_turns(_turns([s.constraint for s in path], [s.source.id for s in path])):
            keys.add(landmark_key(path[i - 1].constraint))
            keys.add(landmark_key(path[i].constraint))
    lines: set[int] = set()
    for fix in conflict.fixes:
        keys.update(landmark_key(c) for c in fix.removed if isinstance(c, Equal))
        if fix.span is not None:
            lines.add(fix.span.line)
    if lines:
        keys.update(landmark_key(s.constraint) for s in path if s.span is not None and s.span.line in lines)
    return frozenset(keys)


def _turns(equalities: Sequence[Equal], sources: Sequence[int]) -> list[int]:
    """Positions i (1 to len-1) of the chain's sites where step i-1 and step i both flow in, or both out.

    Step i goes from site ``sources[i]``; it flows forward when that site is
    the value flowing in (`edge_direction`).
    """
    forward: list[bool | None] = []
    for eq, src in zip(equalities, sources, strict=True):
        direction = edge_direction(eq)
        forward.append(None if direction is None else direction[0] == src)
    return [
        i
        for i in range(1, len(forward))
        if forward[i - 1] is not None and forward[i] is not None and forward[i - 1] != forward[i]
    ]


def _kept_turns(turns: list[int]) -> list[int]:
    if len(turns) <= MAX_TURNS:
        return turns
    half = MAX_TURNS // 2
    return turns[:half] + turns[len(turns) - (MAX_TURNS - half) :]


def shorten(
    items: Sequence[T], equality: Callable[[T], Equal], keep: int = KEEP, marks: Collection[int] = frozenset()
) -> list[T | Gap]:
    """`items` as shown: all of them, or the first and last `keep` and the landmarks, a `Gap` for each run between.

    `marks` holds the `landmark_key`s of the landmarks (`landmarks`).  A run
    of one step is shown rather than summed up.
    """
    n = len(items)
    if n <= 2 * keep + 1:
        return list(items)
    shown = [i < keep or i >= n - keep for i in range(n)] if not marks else _shown(items, equality, keep, marks)
    out: list[T | Gap] = []
    i = 0
    while i < n:
        if shown[i]:
            out.append(items[i])
            i += 1
            continue
        j = i
        while j < n and not shown[j]:
            j += 1
        if j - i == 1:
            out.append(items[i])
        else:
            out.append(Gap([equality(item) for item in items[i:j]]))
        i = j
    return out


def _shown(items: Sequence[T], equality: Callable[[T], Equal], keep: int, marks: Collection[int]) -> list[bool]:
    n = len(items)
    return [i < keep or i >= n - keep or landmark_key(equality(items[i])) in marks for i in range(n)]
