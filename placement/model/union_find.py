"""The one union-find of placement: disjoint sets over the integers ``0 .. size-1``.

Array-based and iterative (no recursion, however long a chain of unions),
with path halving on every root lookup.  The invariant every user relies on:

    the root of a set is its smallest element, so ``parent[x] <= x`` always.

Hence one ascending pass over the parent array resolves every element to its
root (`roots`; `find` resolves one) or numbers the sets in order of their
smallest element (`sets`), which keeps placement deterministic.

Unions come in bulk (`union_pairs`: hundreds of thousands of equalities per
module, as two columns), in one loop with no call per edge.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol


class Edge(Protocol):
    """Anything joining two elements: an `Equal` between sites, a soft edge between classes."""

    a: int
    b: int


class UnionFind:
    """Disjoint sets over ``range(size)``; the root of each set is its smallest element."""

    __slots__ = ("parent",)

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, x: int) -> int:
        """The root (smallest element) of `x`'s set."""
        parent = self.parent
        while parent[x] != x:
            parent[x] = x = parent[parent[x]]
        return x

    def union_edges(self, edges: Iterable[Edge]) -> None:
        """Join the sets of ``e.a`` and ``e.b`` for every edge."""
        left: list[int] = []
        right: list[int] = []
        for edge in edges:
            left.append(edge.a)
            right.append(edge.b)
        self.union_pairs(left, right)

    def union_pairs(self, left: Sequence[int], right: Sequence[int]) -> None:
        """Join the sets of ``left[i]`` and ``right[i]`` for every i (the hot loop: lookups inlined)."""
        parent = self.parent
        for a, b in zip(left, right, strict=True):
            while parent[a] != a:
                parent[a] = a = parent[parent[a]]
            while parent[b] != b:
                parent[b] = b = parent[parent[b]]
            if a < b:
                parent[b] = a
            elif b < a:
                parent[a] = b

    def sets(self) -> tuple[list[int], list[list[int]]]:
        """The sets numbered in order of their smallest element: each element's number, each set's elements.

        One ascending pass: an element's parent is smaller, so it is numbered already.
        """
        number = list(self.parent)
        members: list[list[int]] = []
        for x in range(len(number)):
            p = number[x]
            if p == x:
                number[x] = len(members)
                members.append([x])
            else:
                n = number[p]
                number[x] = n
                members[n].append(x)
        return number, members

    def roots(self) -> list[int]:
        """A new list: the root of every element (one ascending pass, since ``parent[x] <= x``)."""
        root = list(self.parent)
        for x in range(len(root)):
            root[x] = root[root[x]]
        return root
