"""The help a conflict report gives when call-site specialization removes the conflict.

`specialization_advice(module, cs, cores)` returns, per conflict, the text of
one help line or None.  It is offered only when it is proven: the conflict's chain goes through
a call of a function that more than one call chain reaches, and the fully
specialized module (`search`, step 2) has a placement.  The text names the
function, one leaf of its signature and the two calls that need it on
different devices::

    place with specialize=True (`vdplace place --specialize`): `scale` is called
    with its argument `x` on "llvm:0" at line 26 and on "cuda:0" at line 28
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vdplace.ir.module import IRModule
from vdplace.placement.diagnose.names import device_name
from vdplace.placement.errors import PlacementConflict, PlacementError
from vdplace.placement.model.constraints import ConstraintSet
from vdplace.placement.model.rules import RuleKind
from vdplace.placement.specialize.callgraph import CallGraph
from vdplace.placement.specialize.clone import CallSite
from vdplace.placement.specialize.instances import Forest, Names
from vdplace.placement.specialize.naming import Signatures, signatures
from vdplace.placement.specialize.search import MAX_CLONES

_CALL_RULES = (RuleKind.CALL_ARG, RuleKind.CALL_RESULT)


def specialization_advice(
    module: IRModule | None, cs: ConstraintSet, cores: Sequence[Sequence[Any]]
) -> list[str | None]:
    """The help text for each conflict of `cores` (each a `Conflict.constraints`), None where there is none.

    `module` is the module that has the conflicts (None: no advice) and `cs`
    its constraint set (which says whether hints were strict).  The fully
    specialized module is placed at most once, and only when some core goes
    through a call.  `module` is not changed.
    """
    called = [list(dict.fromkeys(c.rule["func"] for c in core if c.rule.kind in _CALL_RULES)) for core in cores]
    if module is None or not any(called):
        return [None] * len(cores)
    found = _specialized(module, any(e.rule.kind is RuleKind.HINT_STRICT for e in cs.equals))
    if found is None:
        return [None] * len(cores)
    forest, names, sigs = found
    out: list[str | None] = []
    for funcs in called:
        texts = (_describe(forest, names, sigs, f) for f in funcs)
        out.append(next((t for t in texts if t is not None), None))
    return out


def _specialized(module: IRModule, strict_hints: bool) -> tuple[Forest, Names, Signatures] | None:
    """The full specialization of `module`, its names and signatures when it places; else None."""
    from vdplace.placement.api import place

    graph = CallGraph(module)
    needed = graph.copies_needed(MAX_CLONES)
    if not len(graph.functions) < needed <= MAX_CLONES:
        return None
    forest = Forest.full(graph)
    live = forest.live()
    names = forest.temporary_names(live)
    try:
        placed = place(forest.module(live, names), strict_hints=strict_hints)
    except (PlacementConflict, PlacementError):
        return None
    return forest, names, signatures(placed)


def _describe(forest: Forest, names: Names, sigs: Signatures, func: str) -> str | None:
    """The help naming two calls of `func` whose copies need one leaf on two devices, or None."""
    vdevices = forest.graph.module.vdevices
    copies = [i for i in forest.live() if (i, func) in names and forest.instances[i].parent is not None]
    leaves = [sigs.get(names[(i, func)], ()) for i in copies]
    for a in range(len(copies)):
        for b in range(a + 1, len(copies)):
            for (label, da), (_, db) in zip(leaves[a], leaves[b], strict=True):
                if da is None or db is None or da == db:
                    continue
                where_a, where_b = _divergence(forest.call_path(copies[a]), forest.call_path(copies[b]))
                leaf = "its result" if label.startswith("<ret>") else f"its argument `{label}`"
                return (
                    f"place with specialize=True (`vdplace place --specialize`): `{func}` is called with {leaf} "
                    f'on "{device_name(vdevices, da)}" {where_a} and on "{device_name(vdevices, db)}" {where_b}'
                )
    return None


def _divergence(a: list[CallSite], b: list[CallSite]) -> tuple[str, str]:
    """Where two call chains from the root part: ``at line 12`` (the calls themselves) or ``through line 7``."""
    k = 0
    while k < min(len(a), len(b)) - 1 and a[k] is b[k]:
        k += 1
    word = "at" if k == len(a) - 1 and k == len(b) - 1 else "through the call at"
    return f"{word} {_line(a[k])}", f"{word} {_line(b[k])}"


def _line(site: CallSite) -> str:
    return "line ?" if site.span is None else f"line {site.span.line}"
