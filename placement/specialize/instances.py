"""Copies of units and where each call goes: the specialized module before it is written out.

An `Instance` is one copy of a unit (`callgraph`): for each call from its
members to another unit, the instance that call reaches.  A `Forest` holds
every instance; the live ones are those reachable from the roots.  The full
specialization is a forest of trees (one instance per chain of call sites);
merging two instances of a unit redirects every call of one to the other,
and whatever only the dropped one reached dies with it.  `Forest.module`
writes the live instances out as an `IRModule` under the names it is given.
"""

from __future__ import annotations

from collections.abc import Mapping

from vdplace.ir.expr import Function
from vdplace.ir.module import IRModule
from vdplace.placement.specialize.callgraph import CallGraph
from vdplace.placement.specialize.clone import CallSite, clone_function, retarget_function

# (instance number, member function name) -> the global name of that member's copy
Names = Mapping[tuple[int, str], str]


class Instance:
    """A copy of unit `unit`: `targets` maps (member, call-site index) of every external call to an instance.

    `parent` and `origin` say which call created it in the full specialization
    (None for a root): the instance `parent`'s call site `origin`.
    """

    __slots__ = ("number", "unit", "targets", "parent", "origin")

    def __init__(self, number: int, unit: int, parent: int | None, origin: CallSite | None) -> None:
        self.number = number
        self.unit = unit
        self.targets: dict[tuple[str, int], int] = {}
        self.parent = parent
        self.origin = origin


class Forest:
    """Instances of the units of `graph`; instance numbers are creation order (a caller before its callees)."""

    __slots__ = ("graph", "instances")

    def __init__(self, graph: CallGraph, instances: list[Instance]) -> None:
        self.graph = graph
        self.instances = instances

    @classmethod
    def full(cls, graph: CallGraph) -> Forest:
        """Full specialization: every root unit once, then one new instance per external call site of each."""
        instances = [Instance(i, u, None, None) for i, u in enumerate(graph.roots)]
        for inst in instances:  # grows while walked: breadth first
            for site in graph.external_sites(inst.unit):
                callee = graph.unit_of.get(site.callee)
                if callee is None:
                    continue
                child = Instance(len(instances), callee, inst.number, site)
                instances.append(child)
                inst.targets[(site.caller, site.index)] = child.number
        return cls(graph, instances)

    def copy(self) -> Forest:
        """A forest whose instances' targets can change without changing this one's."""
        out = []
        for inst in self.instances:
            new = Instance(inst.number, inst.unit, inst.parent, inst.origin)
            new.targets = dict(inst.targets)
            out.append(new)
        return Forest(self.graph, out)

    def live(self) -> list[int]:
        """Numbers of the instances reachable from the roots, in increasing order."""
        seen = {i for i, inst in enumerate(self.instances) if inst.parent is None}
        stack = list(seen)
        while stack:
            for target in self.instances[stack.pop()].targets.values():
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        return sorted(seen)

    def merged(self, drop: int, keep: int) -> Forest:
        """A new forest where every call that reached `drop` reaches `keep` (two instances of one unit)."""
        out = self.copy()
        for inst in out.instances:
            for key, target in inst.targets.items():
                if target == drop:
                    inst.targets[key] = keep
        return out

    def callers(self, live: list[int]) -> dict[tuple[int, str], int]:
        """Per (live instance, member) that calls from other units reach: how many call sites of live instances do."""
        sites = self.graph.sites
        count: dict[tuple[int, str], int] = {}
        for i in live:
            for (caller, index), target in self.instances[i].targets.items():
                key = (target, sites[caller][index].callee)
                count[key] = count.get(key, 0) + 1
        return count

    def by_unit(self, live: list[int]) -> dict[int, list[int]]:
        """Live instances grouped by unit (units in topological order, instances in number order)."""
        out: dict[int, list[int]] = {}
        for i in live:
            out.setdefault(self.instances[i].unit, []).append(i)
        return dict(sorted(out.items()))

    def temporary_names(self, live: list[int]) -> dict[tuple[int, str], str]:
        """Names for trial modules: the first live instance of a unit keeps its names, others get unused ones."""
        taken = set(self.graph.functions)
        names: dict[tuple[int, str], str] = {}
        for unit, group in self.by_unit(live).items():
            for k, i in enumerate(group):
                for member in self.graph.units[unit]:
                    names[(i, member)] = member if k == 0 else unused_name(f"{member}__{i}", taken)
        return names

    def module(self, live: list[int], names: Names) -> IRModule:
        """The live instances as a module: each function's copies after it, in `live` order, keeping the first's place.

        The copy that keeps a function's name keeps its nodes (the original
        `Function` itself when every callee keeps its name too, else with only
        the calls to renamed callees rebuilt); every other copy is a fresh clone.
        """
        graph = self.graph
        groups = self.by_unit(live)
        functions: dict[str, Function] = {}
        for name in graph.functions:
            group = groups.get(graph.unit_of[name], [])
            for i in sorted(group, key=lambda i: names[(i, name)] != name):
                functions[names[(i, name)]] = self._write(i, name, names)
        return graph.module.replace(functions=functions)

    def _write(self, number: int, member: str, names: Names) -> Function:
        inst = self.instances[number]
        callees = []
        for site in self.graph.sites[member]:
            target = inst.targets.get((member, site.index))
            if target is not None:
                callees.append(names[(target, site.callee)])
            elif site.callee in self.graph.unit_of:  # a call inside the unit: the same copy's member
                callees.append(names[(number, site.callee)])
            else:
                callees.append(site.callee)
        original = self.graph.module.functions[member]
        if names[(number, member)] != member:
            return clone_function(original, lambda k, _name: callees[k])
        unchanged = all(c == s.callee for c, s in zip(callees, self.graph.sites[member], strict=True))
        return original if unchanged else retarget_function(original, lambda k, _name: callees[k])

    def call_path(self, number: int) -> list[CallSite]:
        """The call sites that created `number` in the full specialization, from the root down."""
        path = []
        inst = self.instances[number]
        while inst.origin is not None and inst.parent is not None:
            path.append(inst.origin)
            inst = self.instances[inst.parent]
        return path[::-1]


def unused_name(base: str, taken: set[str]) -> str:
    """`base`, or `base_2`, `base_3`, ... : the first not in `taken`, which it is then added to."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name
