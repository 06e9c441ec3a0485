"""Exact specialization for small call trees: fewest functions, then fewest bytes, over every way of merging copies.

A specialized module is the full specialization with some copies of each unit
merged: for each unit, a partition of its live copies (each block becomes
its first copy; what only the others reached dies with them).  Callers come
first, so a unit's copies are partitioned after its callers' merges decided
which of them are still live.  `exact_search` lists such modules a function
count at a time, from the fewest up, and places them; the first count at
which any places is the fewest, and among those the fewest bytes moved
wins (ties: the first listed, where copies join the earliest copy they can).

Pruning: when two copies cannot be merged on their own (the full
specialization with just that merge has no placement), no module merging them
places either: splitting a merged copy in two, each with the merged one's
placement, places the finer module.  So when listing every partition would
take more placements than the budget, the pairs are placed first and only
partitions whose blocks are mergeable pairwise are listed: a helper called
from ten CPU and ten GPU contexts lists one module of two copies.  Past the
budget `exact_search` gives up (None) and the caller merges greedily.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import islice
from typing import TYPE_CHECKING

from vdplace.placement.errors import PlacementConflict
from vdplace.placement.specialize.instances import Forest, Names

if TYPE_CHECKING:
    from vdplace.ir.module import IRModule
    from vdplace.placement.result import Placement

# The driver with the caller's options bound (`placement.api`): places one module or raises `PlacementConflict`.
PlaceFn = Callable[["IRModule"], "Placement"]
# Partitions `exact_search` may go through per placement of its budget, listed or dropped.
MAX_TRIED_PER_PLACEMENT = 50
Mergeable = Callable[[int, int], bool]


class Trial:
    """A specialized module that places: its `forest`, the `live` copies, their `names` and its `placement`."""

    __slots__ = ("forest", "live", "names", "placement")

    def __init__(self, forest: Forest, live: list[int], names: Names, placement: Placement) -> None:
        self.forest = forest
        self.live = live
        self.names = names
        self.placement = placement

    @property
    def bytes_moved(self) -> int:
        """What placement minimizes: the bytes copied plus the entry inputs uploaded (`Placement.bytes_moved`)."""
        return self.placement.bytes_moved

    @property
    def functions(self) -> int:
        """How many functions its module has (`functions_of`)."""
        return functions_of(self.forest, self.live)


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


def partitions(
    items: list[int], mergeable: Mergeable | None = None, blocks: int | None = None
) -> Iterator[list[list[int]]]:
    """Every partition of `items` into blocks (exactly `blocks` of them, when given), each block in the
    order of `items`; with `mergeable`, only those whose blocks hold pairwise mergeable items.

    In lexicographic order of each item's block number (blocks numbered as they open): an item joins
    the earliest block it can before it opens one, so among equals the first listed keeps items together
    with the earliest copies.
    """
    n = len(items)
    opened: list[list[int]] = []

    def grow(k: int) -> Iterator[list[list[int]]]:
        if k == n:
            if blocks is None or len(opened) == blocks:
                yield [list(b) for b in opened]
            return
        item = items[k]
        if blocks is None or n - k - 1 >= blocks - len(opened):  # enough items left to open the rest
            for block in opened:
                if mergeable is None or all(mergeable(other, item) for other in block):
                    block.append(item)
                    yield from grow(k + 1)
                    block.pop()
        if blocks is None or len(opened) < blocks:
            opened.append([item])
            yield from grow(k + 1)
            opened.pop()

    yield from grow(0)


class _TooMany(Exception):
    """The listing went through more partitions than `exact_search` allows."""


def merges(
    forest: Forest, mergeable: Mergeable | None, functions: int, work: list[int], done: int = 0
) -> Iterator[Forest]:
    """Every forest of exactly `functions` functions made by partitioning the live copies of each unit,
    units (in topological order) from `done` on.

    A unit keeps at least one copy while a live copy calls it, so the units still to partition add at
    least their members each: a partial choice that already passes `functions` is not followed.
    `work[0]` is how many more partitions may be tried, listed or not (`_TooMany` past it): choices
    that end below `functions` are tried and dropped, so listing alone does not bound the time.
    """
    units = forest.graph.units
    groups = forest.by_unit(forest.live())
    pending = [u for u, group in groups.items() if u >= done and len(group) > 1]  # one copy: one way
    if not pending:
        if functions_of(forest, forest.live()) == functions:
            yield forest
        return
    unit = pending[0]
    fixed = sum(len(units[u]) * (1 if u >= unit else len(g)) for u, g in groups.items())
    size = len(units[unit])
    for count in range(1, len(groups[unit]) + 1):
        if fixed + (count - 1) * size > functions:
            return
        for split in partitions(groups[unit], mergeable, count):
            work[0] -= 1
            if work[0] < 0:
                raise _TooMany
            merged = forest
            for keep, *drops in split:
                for drop in drops:
                    merged = merged.merged(drop, keep)
            yield from merges(merged, mergeable, functions, work, unit + 1)


def functions_of(forest: Forest, live: list[int]) -> int:
    """How many functions the module of `forest` has: every member of every live copy."""
    units = forest.graph.units
    return sum(len(units[forest.instances[i].unit]) for i in live)


def place_forest(forest: Forest, place: PlaceFn) -> Trial | None:
    """`forest`'s module (temporary names) placed, with its live copies and names; None when it has no placement."""
    live = forest.live()
    names = forest.temporary_names(live)
    try:
        return Trial(forest, live, names, place(forest.module(live, names)))
    except PlacementConflict:
        return None


def mergeable_pairs(forest: Forest, place: PlaceFn, max_pairs: int) -> tuple[Mergeable, int] | None:
    """Whether two copies of a unit merge on their own and still place, and how many pairs were placed
    to know it; None when there are more than `max_pairs`."""
    groups = forest.by_unit(forest.live()).values()
    pairs = [(a, b) for group in groups for k, a in enumerate(group) for b in group[k + 1 :]]
    if len(pairs) > max_pairs:
        return None
    ok = {(a, b) for a, b in pairs if place_forest(forest.merged(b, a), place) is not None}
    return (lambda a, b: (min(a, b), max(a, b)) in ok), len(pairs)


def exact_search(forest: Forest, place: PlaceFn, budget: int) -> Trial | None:
    """The specialization of `forest` (full, placed) with the fewest functions, then the fewest bytes.

    The candidates are listed a function count at a time, from the fewest up.  At most `budget`
    placements: when every partition would be more, pairs are placed first (at most half of it) to
    prune them; None when the candidates to place are still too many.
    """
    mergeable = None
    if bound(forest, budget) > budget:
        pairs = mergeable_pairs(forest, place, budget // 2)
        if pairs is None:
            return None
        mergeable, tried = pairs
        budget -= tried
    full = forest.live()
    units = forest.graph.units
    listed = 0
    work = [budget * MAX_TRIED_PER_PLACEMENT]
    for functions in range(sum(len(units[u]) for u in forest.by_unit(full)), functions_of(forest, full) + 1):
        try:
            level = list(islice(merges(forest, mergeable, functions, work), budget - listed + 1))
        except _TooMany:
            return None
        listed += len(level)
        if listed > budget:
            return None
        best: Trial | None = None
        for candidate in level:
            found = place_forest(candidate, place)
            if found is not None and (best is None or found.bytes_moved < best.bytes_moved):
                best = found
        if best is not None:
            return best
    return None
