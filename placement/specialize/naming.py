"""Signatures of placed functions, and the names specialization gives the copies of a function.

A copy's *signature* is the device of every parameter leaf and return leaf,
for every member of its unit.  Of the live copies of a unit, the one the most
call sites reach keeps the original names (ties: the lowest instance number,
i.e. the first in program order); every other is ``f_<devices>``, from the
devices at the leaves where its signature differs from the keeper's
(``f_cuda0``, ``f_llvm0_cuda1``; ``none`` for an unplaced leaf), with ``_2``,
``_3``, ... when that name is taken.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from vdplace.ir.expr import Binding
from vdplace.ir.vdevice import VDevice
from vdplace.placement.diagnose.names import device_name
from vdplace.placement.model.constraints import SiteTable
from vdplace.placement.specialize.instances import Forest, Names, unused_name

if TYPE_CHECKING:
    from vdplace.placement.result import Placement

# function name -> ((leaf label, vdevice index or None), ...): parameters in order, then the return
Signatures = dict[str, tuple[tuple[str, int | None], ...]]


def signatures(placement: Placement) -> Signatures:
    """Every function's signature in `placement` (one pass over the sites, a binding's not built)."""
    out: dict[str, list[tuple[str, int | None]]] = {}
    assignment = placement.assignment
    sites = placement.constraints.sites
    records = sites.records if type(sites) is SiteTable else sites
    for i, record in enumerate(records):
        if type(record) is Binding:
            continue  # a binding variable's site, recorded as its binding: not in any signature
        site = sites[i]
        if site.kind == "param" or site.kind == "return":
            label = site.name + "".join(f".{i}" for i in site.path)
            out.setdefault(site.func, []).append((label, assignment[site.id]))
    return {name: tuple(leaves) for name, leaves in out.items()}


def instance_signature(forest: Forest, number: int, names: Names, sigs: Signatures) -> tuple[int | None, ...]:
    """The devices of every member's leaves of instance `number`, flat, members in unit order."""
    members = forest.graph.units[forest.instances[number].unit]
    return tuple(device for m in members for _, device in sigs.get(names[(number, m)], ()))


def final_names(forest: Forest, live: list[int], names: Names, sigs: Signatures, vdevices: Sequence[VDevice]) -> Names:
    """The names of the result (module docstring); `names` and `sigs` are those of the last placed trial."""
    graph = forest.graph
    counts = forest.callers(live)
    taken = set(graph.functions)
    out: dict[tuple[int, str], str] = {}
    for unit, group in forest.by_unit(live).items():
        members = graph.units[unit]
        keeper = max(group, key=lambda i: (sum(counts.get((i, m), 0) for m in members), -i))
        base = instance_signature(forest, keeper, names, sigs)
        for i in group:
            if i == keeper:
                out.update(((i, m), m) for m in members)
                continue
            own = instance_signature(forest, i, names, sigs)
            differing = [d for k, d in enumerate(own) if k >= len(base) or base[k] != d]
            parts = list(dict.fromkeys(_device_tag(vdevices, d) for d in differing)) or ["copy"]
            for m in members:
                out[(i, m)] = unused_name(f"{m}_{'_'.join(parts)}", taken)
    return out


def _device_tag(vdevices: Sequence[VDevice], index: int | None) -> str:
    """``cuda0`` for "cuda:0" (an identifier: other characters become ``_``), ``none`` when unplaced."""
    if index is None:
        return "none"
    return re.sub(r"\W", "_", device_name(vdevices, index).replace(":", ""))
