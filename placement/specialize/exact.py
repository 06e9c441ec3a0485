"""Exact specialization for small call trees: every way of merging copies, fewest functions then fewest bytes.

A specialized module is the full specialization with some copies of each unit
merged: for each unit, a partition of its live copies (each block becomes
its first copy; what only the others reached dies with them).  Callers come
first, so a unit's copies are partitioned after its callers' merges decided
which of them are still live.  `exact_search` lists every such module, sorts
them by the number of functions (known without placing), and places them in
that order; the first count at which any places is the fewest, and among
those the fewest bytes copied wins (ties: the first listed).

The number of modules is a product of Bell numbers, so the search runs only
when `bound` (that product over the full specialization's copies, an upper
bound: merges only remove copies) is at most its `budget`; the caller falls
back to merging greedily otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from vdplace.placement.errors import PlacementConflict
from vdplace.placement.specialize.instances import Forest, Names

if TYPE_CHECKING:
    from vdplace.ir.module import IRModule
    from vdplace.placement.api import Placement

PlaceFn = Callable[["IRModule"], "Placement"]


def bell(n: int) -> int:
    """The number of partitions of a set of `n` items (the Bell triangle)."""
    row = [1]
    for _ in range(n):
        nxt = [row[-1]]
        for x in row:
            nxt.append(nxt[-1] + x)
        row = nxt
    return row[0]


def bound(forest: Forest, limit: int) -> int:
    """Π over units of Bell(live copies in `forest`), stopping once it passes `limit`."""
    total = 1
    for group in forest.by_unit(forest.live()).values():
        total *= bell(len(group))
        if total > limit:
            break
    return total


def partitions(items: list[int]) -> Iterator[list[list[int]]]:
    """Every partition of `items` into blocks, each block in the order of `items`."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for smaller in partitions(rest):
        yield [[first], *smaller]
        for k in range(len(smaller)):
            yield [*smaller[:k], [first, *smaller[k]], *smaller[k + 1 :]]


def merges(forest: Forest, done: int = 0) -> Iterator[Forest]:
    """Every forest made by partitioning the live copies of each unit, units (in topological order) from `done` on."""
    groups = forest.by_unit(forest.live())
    pending = [u for u, group in groups.items() if u >= done and len(group) > 1]  # one copy: one way
    if not pending:
        yield forest
        return
    unit = pending[0]
    for split in partitions(groups[unit]):
        merged = forest
        for keep, *drops in split:
            for drop in drops:
                merged = merged.merged(drop, keep)
        yield from merges(merged, unit + 1)


def functions_of(forest: Forest, live: list[int]) -> int:
    """How many functions the module of `forest` has: every member of every live copy."""
    units = forest.graph.units
    return sum(len(units[forest.instances[i].unit]) for i in live)


def exact_search(forest: Forest, place: PlaceFn) -> tuple[Forest, list[int], Names, Placement] | None:
    """The specialization with the fewest functions, then the fewest bytes; None when none places.

    The full specialization (`forest`, unmerged) places, so in practice a
    result is always found.
    """
    candidates = [(functions_of(f, live), i, f, live) for i, f in enumerate(merges(forest)) for live in [f.live()]]
    candidates.sort(key=lambda c: (c[0], c[1]))
    best: tuple[int, Forest, list[int], Names, Placement] | None = None
    for count, _, candidate, live in candidates:
        if best is not None and count > best[0]:
            break
        names = candidate.temporary_names(live)
        try:
            placed = place(candidate.module(live, names))
        except PlacementConflict:
            continue
        if best is None or placed.bytes_copied < best[4].bytes_copied:
            best = (count, candidate, live, names, placed)
    return None if best is None else best[1:]
