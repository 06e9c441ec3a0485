"""Collapse hard equalities into classes before anything reaches Z3.

A plain union-find over site ids (LIBRARIES.md: hundredths of a second for
100k equalities, where giving Z3 one variable per site takes seconds).  Roots
are always the smallest site id of their class, so every parent pointer goes
to a smaller id: one ascending pass then resolves every site's class without
recursion, and class numbers follow the order of each class's first site,
which keeps the whole pipeline deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence

from .constraints import Equal


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


def collapse(num_sites: int, equals: Sequence[Equal]) -> Classes:
    """Union-find over `equals` (path halving, root = smallest id)."""
    parent = list(range(num_sites))
    for eq in equals:
        a = eq.a
        while parent[a] != a:
            parent[a] = a = parent[parent[a]]
        b = eq.b
        while parent[b] != b:
            parent[b] = b = parent[parent[b]]
        if a < b:
            parent[b] = a
        elif b < a:
            parent[a] = b
    of = parent  # reused in place: parent[s] < s resolves before s in ascending order
    members: list[list[int]] = []
    for s in range(num_sites):
        p = parent[s]
        if p == s:
            of[s] = len(members)
            members.append([s])
        else:
            c = of[p]
            of[s] = c
            members[c].append(s)
    return Classes(of, members)
