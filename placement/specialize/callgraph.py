"""The call graph of a module, as units of recursion: who calls whom, and from where.

A *unit* is a strongly connected component of the call graph: one function,
or every function of a recursion or mutual recursion.  Specialization clones
a unit as a whole, so calls inside a unit go to the same copy's members and
recursion keeps working.  A *root* unit is one no other unit calls (``main``,
or a recursive entry function); it is never cloned.
"""

from __future__ import annotations

import networkx as nx

from vdplace.ir.module import IRModule
from vdplace.placement.specialize.clone import CallSite, call_sites


class CallGraph:
    """Units of `module` in topological order (callers before callees) and every function's call sites.

    functions  the module's function names, in module order
    sites      function name -> its `CallSite` list (every call of a module function, in walk order)
    units      each unit's member names (module order); a unit comes after every unit that calls it
    unit_of    function name -> index into `units`
    roots      indices of the units no other unit calls
    """

    __slots__ = ("module", "functions", "sites", "units", "unit_of", "roots")

    def __init__(self, module: IRModule) -> None:
        self.module = module
        self.functions = list(module.functions)
        self.sites = {name: call_sites(name, func) for name, func in module.functions.items()}
        position = {name: i for i, name in enumerate(self.functions)}
        graph = nx.DiGraph()
        graph.add_nodes_from(self.functions)
        for name, found in self.sites.items():
            graph.add_edges_from((name, s.callee) for s in found if s.callee in position)
        components = [sorted(c, key=position.__getitem__) for c in nx.strongly_connected_components(graph)]
        first = {c[0]: c for c in components}
        dag = nx.DiGraph()
        dag.add_nodes_from(first)
        head = {name: c[0] for c in components for name in c}
        for a, b in graph.edges:
            if head[a] != head[b]:
                dag.add_edge(head[a], head[b])
        order = list(nx.lexicographical_topological_sort(dag, key=position.__getitem__))
        self.units: list[tuple[str, ...]] = [tuple(first[h]) for h in order]
        self.unit_of = {name: i for i, unit in enumerate(self.units) for name in unit}
        self.roots = [i for i, h in enumerate(order) if dag.in_degree(h) == 0]

    def external_sites(self, unit: int) -> list[CallSite]:
        """The calls from `unit`'s members to functions of other units, members in order, then sites in order."""
        return [s for name in self.units[unit] for s in self.sites[name] if self.unit_of.get(s.callee, unit) != unit]

    def copies_needed(self, limit: int) -> int:
        """Functions of the fully specialized module: one copy of a unit per chain of call sites from a root.

        Counted without building anything, in topological order; the count
        stops growing past `limit` (it returns a number above `limit` then).
        """
        return self._chains(limit)[1]

    def called_twice(self, limit: int) -> set[str]:
        """The functions more than one chain of call sites reaches (each is cloned by full specialization).

        Exact while `copies_needed(limit)` is at most `limit`.
        """
        count = self._chains(limit)[0]
        return {name for u, unit in enumerate(self.units) if count[u] > 1 for name in unit}

    def _chains(self, limit: int) -> tuple[list[int], int]:
        """Chains of call sites from a root per unit, and the functions they make (counting stops past `limit`)."""
        count = [0] * len(self.units)
        for r in self.roots:
            count[r] = 1
        total = 0
        for u in range(len(self.units)):
            total += count[u] * len(self.units[u])
            if total > limit:
                return count, total
            for site in self.external_sites(u):
                callee = self.unit_of.get(site.callee)
                if callee is not None:
                    count[callee] = min(count[callee] + count[u], limit + 1)
        return count, total
