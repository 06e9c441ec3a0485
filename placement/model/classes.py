"""Collapse hard equalities into equality classes before anything reaches a solver.

One class per set of sites that the hard equalities force onto one device
(`union_find.UnionFind`: hundredths of a second for 100k equalities, where
giving a solver one variable per site takes seconds).  Classes are numbered
in the order of their smallest site, so the same constraint set always gives
the same classes and the whole pipeline stays deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence

from vdplace.placement.model.constraints import Equal, EqualTable
from vdplace.placement.model.union_find import UnionFind


class Classes:
    """`of[site]` is the site's class; `members[c]` lists class c's sites in ascending order."""

    __slots__ = ("of", "members")

    def __init__(self, of: list[int], members: list[list[int]]) -> None:
        self.of = of
        self.members = members

    def __len__(self) -> int:
        return len(self.members)

    def expand(self, class_values: Sequence[int | None]) -> list[int | None]:
        """Per-site values from per-class values."""
        return [class_values[c] for c in self.of]


def collapse(num_sites: int, equals: EqualTable | Sequence[Equal]) -> Classes:
    """The equality classes of `num_sites` sites under `equals` (an `EqualTable` is read by its columns)."""
    uf = UnionFind(num_sites)
    if type(equals) is EqualTable:
        uf.union_pairs(equals.a, equals.b)
    else:
        uf.union_edges(equals)
    of, members = uf.sets()
    return Classes(of, members)
