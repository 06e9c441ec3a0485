"""Minimal conflicts, found over equality classes instead of one solver variable per site.

With only pins, domains and hard equalities, every equality class is an
independent problem: a class has a placement exactly when the devices its
pins and domains allow have a common member.  So a module's conflicts live
inside single classes, and each one has a simple shape (an unsat core over
100k per-site variables takes Z3 13-18 s; the searches below take a fraction
of a second):

* a few *unary* constraints (pins, domains) whose allowed devices have an
  empty intersection, minimal in that every proper subset has a common
  device, and
* a tree of equality edges joining the sites of those constraints whose
  leaves all carry one of them (for two constraints: a simple path).

Such a set is subset-minimal by construction: dropping a unary constraint
leaves a satisfiable subset; dropping an edge splits the tree into two parts
that each miss a constraint and so each have a common device.

Which conflicts are reported (the "independent" ones):

1. *local*: two constraints on one site that no device satisfies together (an
   annotation and a hint on one binding), or a domain that is empty by itself;
2. *neighbouring*: a multi-source BFS from every pinned site splits the
   class into cells (each site goes to the nearest pinned site); two cells
   that touch and whose pins clash give one conflict, joined by the shortest
   chain through the two cells.  A chain of pins A(cpu) B(cuda) C(cpu) gives
   A-B and B-C, never A-C, whose chain runs through B.  The same search from
   every site with a pin or a domain gives the clashes that involve a domain;
3. *relaxation*: conflicts that need a domain and that no neighbouring pair
   shows (a permissive domain between two exclusive ones, three domains with
   pairwise overlaps): while the constraints not yet used by a reported
   conflict still have no common device, shrink them to a minimal set by
   deletion, join its sites by a tree, report it and set it aside.

Every class without a placement gets at least one conflict: two pins that
disagree give a neighbouring pair (along any chain between them some two
consecutive pin cells disagree); otherwise every minimal clash holds a
domain, and step 3 reports one unless step 2 already did.

This module works on integers only; `conflict.Conflict` turns its findings
into source terms.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Iterable, Sequence

from vdplace.ir import progress
from vdplace.placement.model.constraints import ConstraintSet, Domain, Equal, Pin
from vdplace.placement.model.union_find import UnionFind

PIN = "pin"
DOMAIN = "domain"


class Unary:
    """A pin or a domain, seen as "site's device is in `allowed`"."""

    __slots__ = ("kind", "index", "site", "allowed", "constraint")

    def __init__(self, kind: str, index: int, site: int, allowed: frozenset[int], constraint: Pin | Domain) -> None:
        self.kind = kind
        self.index = index
        self.site = site
        self.allowed = allowed
        self.constraint = constraint

    @property
    def key(self) -> tuple[str, int]:
        return (self.kind, self.index)

    def __repr__(self) -> str:
        return f"Unary({self.kind}{self.index}@{self.site} in {sorted(self.allowed)})"


class RawConflict:
    """A minimal unsatisfiable set: unary constraints plus the equality edges joining them.

    `sites` is the chain from the first constraint's site to the last one's
    when the edges form a path (``len(sites) == len(edges) + 1``, edge i joins
    sites i and i+1); for a tree (three or more sites to join) it lists the
    tree's sites and `is_path` is False.  Both are None until `complete`
    builds them (conflicts found by relaxation are built only when shown).
    """

    __slots__ = ("unary", "edges", "sites", "is_path", "kind")

    def __init__(
        self,
        unary: Sequence[Unary],
        edges: Sequence[int] | None,
        sites: Sequence[int] | None,
        is_path: bool,
        kind: str,
    ) -> None:
        self.unary = tuple(unary)
        self.edges = None if edges is None else tuple(edges)
        self.sites = None if sites is None else tuple(sites)
        self.is_path = is_path
        self.kind = kind  # "local", "neighbour" or "relaxed"

    @property
    def key(self) -> frozenset[tuple[str, int]]:
        return frozenset(u.key for u in self.unary)

    def __repr__(self) -> str:
        edges = None if self.edges is None else list(self.edges)
        return f"RawConflict({self.kind}, {list(self.unary)}, edges={edges})"


def intersect(unary: Iterable[Unary], universe: frozenset[int]) -> frozenset[int]:
    out = universe
    for u in unary:
        out = out & u.allowed
        if not out:
            break
    return out


class ConstraintGraph:
    """Sites as nodes, hard equalities as edges, unary constraints per site."""

    __slots__ = ("cs", "universe", "edges", "adj", "unary", "unary_at", "found", "_comp", "_comp_unary")

    def __init__(self, cs: ConstraintSet) -> None:
        self.cs = cs
        self.universe = frozenset(range(len(cs.vdevices)))
        n = len(cs.sites)
        self.edges: list[Equal] = list(cs.equals)
        adj: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for e, eq in enumerate(self.edges):
            if eq.a != eq.b:
                adj[eq.a].append((eq.b, e))
                adj[eq.b].append((eq.a, e))
        self.adj = adj
        unary: list[Unary] = [Unary(PIN, i, p.site, frozenset((p.device,)), p) for i, p in enumerate(cs.pins)]
        unary += [Unary(DOMAIN, i, d.site, frozenset(d.allowed), d) for i, d in enumerate(cs.domains)]
        self.unary = unary
        unary_at: dict[int, list[Unary]] = {}
        for u in unary:
            unary_at.setdefault(u.site, []).append(u)
        self.unary_at = unary_at
        # the keys of every conflict `find_raw_conflicts` found (None before it ran)
        self.found: frozenset[frozenset[tuple[str, int]]] | None = None
        self._comp: list[int] | None = None
        self._comp_unary: dict[int, list[Unary]] | None = None

    # -- classes ----------------------------------------------------------------
    def component_of(self) -> list[int]:
        """The root of every site's class, its smallest site id (computed once)."""
        if self._comp is None:
            uf = UnionFind(len(self.adj))
            uf.union_edges(self.edges)
            self._comp = uf.roots()
        return self._comp

    def unary_by_component(self) -> dict[int, list[Unary]]:
        if self._comp_unary is None:
            comp = self.component_of()
            groups: dict[int, list[Unary]] = {}
            for u in self.unary:
                groups.setdefault(comp[u.site], []).append(u)
            self._comp_unary = groups
        return self._comp_unary

    def conflicting_components(self) -> list[int]:
        """Roots of the classes whose pins and domains have no common device."""
        return sorted(root for root, us in self.unary_by_component().items() if not intersect(us, self.universe))

    def other_end(self, edge: int, site: int) -> int:
        eq = self.edges[edge]
        return eq.b if eq.a == site else eq.a

    # -- search -----------------------------------------------------------------
    def reachable(self, starts: Iterable[int], skip: frozenset[int] = frozenset()) -> set[int]:
        """Sites joined to `starts` by equality edges not in `skip`."""
        seen = set(starts)
        queue = deque(seen)
        adj = self.adj
        while queue:
            u = queue.popleft()
            for v, e in adj[u]:
                if v not in seen and e not in skip:
                    seen.add(v)
                    queue.append(v)
        return seen

    def tree_joining(self, terminals: Sequence[int]) -> tuple[list[int], list[int]]:
        """A tree of edges joining `terminals` whose leaves are terminals: (sites, edges).

        The union of BFS-tree paths from the first terminal to the others is a
        subtree of the BFS tree; every node lies on a path to a terminal, so
        only terminals (and the root, itself a terminal) can be leaves.
        """
        root = terminals[0]
        parent: dict[int, int] = {root: -1}
        wanted = set(terminals)
        wanted.discard(root)
        queue = deque([root])
        adj = self.adj
        while queue and wanted:
            u = queue.popleft()
            for v, e in adj[u]:
                if v not in parent:
                    parent[v] = e
                    wanted.discard(v)
                    queue.append(v)
        if wanted:
            raise ValueError("terminals are not in one equality class")
        sites = {root}
        edges: list[int] = []
        for t in terminals:
            x = t
            while x not in sites:
                sites.add(x)
                e = parent[x]
                edges.append(e)
                x = self.other_end(e, x)
        return sorted(sites), sorted(edges)


def find_raw_conflicts(graph: ConstraintGraph) -> list[RawConflict]:
    """Every independent conflict of the module (see the module docstring), unordered.

    Conflicts found by relaxation come without their tree (`edges` is None):
    `complete` builds it, so that only the conflicts a report shows pay a
    search over their class.
    """
    found: list[RawConflict] = []
    by_comp = graph.unary_by_component()
    roots = graph.conflicting_components()
    with progress.stage("find conflicts", total=len(roots)) as tick:
        for done, root in enumerate(roots):
            found.extend(component_conflicts(graph, by_comp[root]))
            tick(done + 1)
    graph.found = frozenset(raw.key for raw in found)
    return found


def complete(graph: ConstraintGraph, raw: RawConflict) -> RawConflict:
    """`raw` with its sites and edges (a chain when it joins two sites, else a tree)."""
    if raw.edges is not None:
        return raw
    sites, edges = graph.tree_joining(_unique([u.site for u in raw.unary]))
    return _as_path(graph, raw.unary, sites, edges) or RawConflict(raw.unary, edges, sites, False, raw.kind)


def component_conflicts(
    graph: ConstraintGraph, unary: list[Unary], skip: frozenset[int] = frozenset()
) -> list[RawConflict]:
    """The independent conflicts of one class whose pins and domains are `unary` (module docstring).

    `skip`: equality edges taken away (a fix's copy cuts them); the sites of
    `unary` must still be one class without them.
    """
    out: list[RawConflict] = []
    at: dict[int, list[Unary]] = {}
    for u in unary:
        at.setdefault(u.site, []).append(u)
    # 1. local conflicts
    for site, here in at.items():
        for i, u in enumerate(here):
            if not u.allowed:
                out.append(RawConflict((u,), (), (site,), True, "local"))
                continue
            for w in here[i + 1 :]:
                if w.allowed and not (u.allowed & w.allowed):
                    out.append(RawConflict((u, w), (), (site,), True, "local"))
    # 2. neighbouring cells: of pins among pins (a domain between two pins does not hide them),
    #    then of every constrained site, for the clashes that involve a domain
    pins_at = {site: [u for u in here if u.kind == PIN] for site, here in at.items()}
    out.extend(_neighbour_conflicts(graph, {s: us for s, us in pins_at.items() if us}, False, skip))
    if len(pins_at) != len(at) or any(len(us) != len(at[s]) for s, us in pins_at.items()):
        out.extend(_neighbour_conflicts(graph, at, True, skip))
    # 3. relaxation for what needs a domain and no neighbouring pair shows
    used = {u.key for c in out for u in c.unary}
    out.extend(_relaxed(graph, [u for u in unary if u.key not in used and u.allowed]))
    return out


def _relaxed(graph: ConstraintGraph, remaining: list[Unary]) -> list[RawConflict]:
    """Minimal clashes among `remaining`, set aside one by one while they still clash.

    Constraints with equal allowed sets are interchangeable in a minimal set,
    so the search runs over one representative of each distinct (kind,
    allowed set): a handful, however large the class.  The clash found is
    then made of the first unused member of its first group and, from each
    other group, the unused member nearest to it in program order (site
    ids), so that its chain stays short.  Only cores that contain a domain
    are reported; a core of pins alone is pins hidden behind other pins,
    whose boundary the neighbour search showed.
    """
    groups: dict[tuple[str, frozenset[int]], _Group] = {}
    for u in sorted(remaining, key=lambda u: (u.site, u.key)):
        groups.setdefault((u.kind, u.allowed), _Group()).add(u)
    out: list[RawConflict] = []
    while True:
        reps = [g.first() for g in groups.values() if g]
        if not any(u.kind == DOMAIN for u in reps) or intersect(reps, graph.universe):
            return out
        core = shrink_unary(reps, graph.universe)
        anchor = core[0].site
        chosen = [groups[(core[0].kind, core[0].allowed)].take_first()]
        chosen += [groups[(u.kind, u.allowed)].take_near(anchor) for u in core[1:]]
        if any(u.kind == DOMAIN for u in chosen):
            out.append(RawConflict(chosen, None, None, False, "relaxed"))


class _Group:
    """Interchangeable constraints in site order; take the first, or the one nearest a site."""

    __slots__ = ("items", "sites", "taken", "left", "head")

    def __init__(self) -> None:
        self.items: list[Unary] = []
        self.sites: list[int] = []
        self.taken: set[int] = set()
        self.left = 0
        self.head = 0

    def add(self, u: Unary) -> None:
        self.items.append(u)
        self.sites.append(u.site)
        self.left += 1

    def __bool__(self) -> bool:
        return self.left > 0

    def first(self) -> Unary:
        while self.head in self.taken:
            self.head += 1
        return self.items[self.head]

    def take_first(self) -> Unary:
        self.first()
        return self._take(self.head)

    def take_near(self, site: int) -> Unary:
        i = bisect_left(self.sites, site)
        lo, hi = i - 1, i
        while True:
            if hi < len(self.items) and hi not in self.taken:
                if lo < 0 or lo in self.taken or self.sites[hi] - site <= site - self.sites[lo]:
                    return self._take(hi)
            if lo >= 0 and lo not in self.taken:
                return self._take(lo)
            lo, hi = lo - 1, hi + 1

    def _take(self, i: int) -> Unary:
        self.taken.add(i)
        self.left -= 1
        return self.items[i]


def _neighbour_conflicts(
    graph: ConstraintGraph, at: dict[int, list[Unary]], need_domain: bool, skip: frozenset[int] = frozenset()
) -> list[RawConflict]:
    adj: list[list[tuple[int, int]]] | _Cut = graph.adj if not skip else _Cut(graph.adj, skip)
    sources = sorted(at)
    owner: dict[int, int] = {s: s for s in sources}
    dist: dict[int, int] = {s: 0 for s in sources}
    parent: dict[int, int] = {s: -1 for s in sources}
    queue = deque(sources)
    while queue:
        u = queue.popleft()
        ou, du = owner[u], dist[u] + 1
        for v, e in adj[u]:
            if v not in owner:
                owner[v] = ou
                dist[v] = du
                parent[v] = e
                queue.append(v)
    # the best boundary edge between every pair of touching cells
    best: dict[tuple[int, int], tuple[int, int, int, int]] = {}
    for u, ou in owner.items():
        for v, e in adj[u]:
            ov = owner[v]
            if ov == ou or u > v:
                continue
            pair = (ou, ov) if ou < ov else (ov, ou)
            cost = dist[u] + dist[v]
            old = best.get(pair)
            if old is None or (cost, e) < (old[0], old[1]):
                best[pair] = (cost, e, u, v)
    out: list[RawConflict] = []
    for (s, t), (_, e, u, v) in sorted(best.items()):
        clash = _clash(at[s], at[t], need_domain)
        if clash is None:
            continue
        if owner[u] != s:
            u, v = v, u
        left = _trace(graph, parent, u)  # u ... s
        right = _trace(graph, parent, v)  # v ... t
        sites = [x for x, _ in reversed(left)] + [x for x, _ in right]
        edges = [pe for _, pe in reversed(left) if pe >= 0] + [e] + [pe for _, pe in right if pe >= 0]
        out.append(RawConflict(clash, edges, sites, True, "neighbour"))
    return out


class _Cut:
    """The adjacency lists without the edges in `skip` (read like ``graph.adj``)."""

    __slots__ = ("adj", "skip")

    def __init__(self, adj: list[list[tuple[int, int]]], skip: frozenset[int]) -> None:
        self.adj = adj
        self.skip = skip

    def __getitem__(self, site: int) -> list[tuple[int, int]]:
        return [(v, e) for v, e in self.adj[site] if e not in self.skip]


def _trace(graph: ConstraintGraph, parent: dict[int, int], x: int) -> list[tuple[int, int]]:
    """(site, edge to its BFS parent) from `x` back to its cell's source (edge -1 there)."""
    out = []
    while True:
        e = parent[x]
        out.append((x, e))
        if e < 0:
            return out
        x = graph.other_end(e, x)


def _clash(a: list[Unary], b: list[Unary], need_domain: bool) -> tuple[Unary, Unary] | None:
    """The first pair, one constraint from each site, with no device in common (a domain among them)."""
    for u in a:
        if not u.allowed:
            continue
        for w in b:
            if w.allowed and not (u.allowed & w.allowed):
                if not need_domain or u.kind == DOMAIN or w.kind == DOMAIN:
                    return (u, w)
    return None


def shrink_unary(unary: Sequence[Unary], universe: frozenset[int]) -> tuple[Unary, ...]:
    """A minimal subset with no common device, by deletion (pins are tried first, so domains stay)."""
    kept = list(unary)
    order = [u for u in unary if u.kind == PIN] + [u for u in unary if u.kind != PIN]
    for u in order:
        trial = [w for w in kept if w is not u]
        if not intersect(trial, universe):
            kept = trial
    return tuple(kept)


def _as_path(graph: ConstraintGraph, core: Sequence[Unary], sites: list[int], edges: list[int]) -> RawConflict | None:
    """The tree as an ordered chain when it is one (two terminals or a single site)."""
    terminals = _unique([u.site for u in core])
    if len(terminals) > 2:
        return None
    if len(terminals) == 1:
        return RawConflict(core, (), (terminals[0],), True, "relaxed")
    start, end = terminals
    by_site: dict[int, list[int]] = {}
    for e in edges:
        eq = graph.edges[e]
        by_site.setdefault(eq.a, []).append(e)
        by_site.setdefault(eq.b, []).append(e)
    chain, order = [start], []
    prev = -1
    while chain[-1] != end:
        e = next(x for x in by_site[chain[-1]] if x != prev)
        order.append(e)
        chain.append(graph.other_end(e, chain[-1]))
        prev = e
    first = [u for u in core if u.site == start] + [u for u in core if u.site != start]
    return RawConflict(first, order, chain, True, "relaxed")


def _unique(items: Iterable[int]) -> list[int]:
    return list(dict.fromkeys(items))
