"""Exact specialization for small call trees: every way of merging copies, fewest functions then fewest bytes.

A specialized module is the full specialization with some copies of each unit
merged: for each unit, a partition of its live copies (each block becomes
its first copy; what only the others reached dies with them).  Callers come
first, so a unit's copies are partitioned after its callers' merges decided
which of them are still live.  `exact_search` lists such modules, sorts them
by the number of functions (known without placing), and places them in that
order; the first count at which any places is the fewest, and among those
the fewest bytes copied wins (ties: the first listed).

Pruning: when two copies cannot be merged on their own (the full
specialization with just that merge has no placement), no module merging them
places either: splitting a merged copy in two, each with the merged one's
placement, places the finer module.  So when listing every partition would be
too many, the pairs are tried first (one placement each) and only partitions
whose blocks are mergeable pairwise are listed.  Past `max_listed` modules,
or `max_pairs` pairs, `exact_search` gives up (None) and the caller merges
greedily.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import islice
from typing import TYPE_CHECKING

from vdplace.placement.errors import PlacementConflict
from vdplace.placement.specialize.instances import Forest, Names

if TYPE_CHECKING:
    from vdplace.ir.module import IRModule
    from vdplace.placement.api import Placement

PlaceFn = Callable[["IRModule"], "Placement"]
Mergeable = Callable[[int, int], bool]
Found = tuple[Forest, list[int], Names, "Placement"]


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


def partitions(items: list[int], mergeable: Mergeable | None = None) -> Iterator[list[list[int]]]:
    """Every partition of `items` into blocks, each block in the order of `items`.

    With `mergeable`, only those whose blocks hold pairwise mergeable items.
    """
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for smaller in partitions(rest, mergeable):
        yield [[first], *smaller]
        for k, block in enumerate(smaller):
            if mergeable is None or all(mergeable(first, other) for other in block):
                yield [*smaller[:k], [first, *block], *smaller[k + 1 :]]


def merges(forest: Forest, mergeable: Mergeable | None = None, done: int = 0) -> Iterator[Forest]:
    """Every forest made by partitioning the live copies of each unit, units (in topological order) from `done` on."""
    groups = forest.by_unit(forest.live())
    pending = [u for u, group in groups.items() if u >= done and len(group) > 1]  # one copy: one way
    if not pending:
        yield forest
        return
    unit = pending[0]
    for split in partitions(groups[unit], mergeable):
        merged = forest
        for keep, *drops in split:
            for drop in drops:
                merged = merged.merged(drop, keep)
        yield from merges(merged, mergeable, unit + 1)


def functions_of(forest: Forest, live: list[int]) -> int:
    """How many functions the module of `forest` has: every member of every live copy."""
    units = forest.graph.units
    return sum(len(units[forest.instances[i].unit]) for i in live)


def _places(forest: Forest, place: PlaceFn) -> Found | None:
    live = forest.live()
    names = forest.temporary_names(live)
    try:
        return forest, live, names, place(forest.module(live, names))
    except PlacementConflict:
        return None


def mergeable_pairs(forest: Forest, place: PlaceFn, max_pairs: int) -> Mergeable | None:
    """Whether two copies of a unit merge on their own and still place; None when over `max_pairs` pairs to try."""
    groups = forest.by_unit(forest.live()).values()
    pairs = [(a, b) for group in groups for k, a in enumerate(group) for b in group[k + 1 :]]
    if len(pairs) > max_pairs:
        return None
    ok = {(a, b) for a, b in pairs if _places(forest.merged(b, a), place) is not None}
    return lambda a, b: (min(a, b), max(a, b)) in ok


def exact_search(forest: Forest, place: PlaceFn, max_listed: int, max_pairs: int) -> Found | None:
    """The specialization of `forest` (full, placed) with the fewest functions, then the fewest bytes.

    None when there are more than `max_listed` candidates to place, even after pruning by pairs.
    """
    mergeable = None
    if bound(forest, max_listed) > max_listed:
        mergeable = mergeable_pairs(forest, place, max_pairs)
        if mergeable is None:
            return None
    listed = list(islice(merges(forest, mergeable), max_listed + 1))
    if len(listed) > max_listed:
        return None
    candidates = sorted(((functions_of(f, f.live()), i, f) for i, f in enumerate(listed)), key=lambda c: c[:2])
    best: tuple[int, Found] | None = None
    for count, _, candidate in candidates:
        if best is not None and count > best[0]:
            break
        found = _places(candidate, place)
        if found is not None and (best is None or found[3].bytes_copied < best[1][3].bytes_copied):
            best = (count, found)
    return None if best is None else best[1]
