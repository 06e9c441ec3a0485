"""The help a conflict report gives when call-site specialization removes the conflict.

The driver (`placement.api`) builds it when a module has no placement: it
writes the fully specialized module (`full_specialization`, `search` step 2)
and places it once; when that places, `SpecializationAdvice` holds its
signatures and the conflict's diagnosis reads its help lines from it, one
per conflict or None (`SpecializationAdvice.texts`), without placing
anything.  A line is offered only when it is proven: the conflict's chain
goes through a call of a function that more than one call chain reaches,
and the fully specialized module has a placement.  The text names the
function, one leaf of its signature and the two calls that need it on
different devices::

    place with specialize=True (`vdplace place --specialize`): `scale` is called
    with its argument `x` on "llvm:0" at line 26 and on "cuda:0" at line 28
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from vdplace.ir.module import IRModule
from vdplace.placement.diagnose.names import device_name
from vdplace.placement.errors import PlacementConflict, PlacementError
from vdplace.placement.model.rules import RuleKind
from vdplace.placement.specialize.callgraph import CallGraph
from vdplace.placement.specialize.clone import CallSite
from vdplace.placement.specialize.exact import PlaceFn
from vdplace.placement.specialize.instances import Forest, Names
from vdplace.placement.specialize.naming import Signatures, signatures
from vdplace.placement.specialize.search import MAX_CLONES

_CALL_RULES = (RuleKind.CALL_ARG, RuleKind.CALL_RESULT)


class FullSpecialization:
    """`module`: the fully specialized module to place, written from `forest` under the temporary `names`."""

    __slots__ = ("forest", "names", "module")

    def __init__(self, forest: Forest, names: Names, module: IRModule) -> None:
        self.forest = forest
        self.names = names
        self.module = module


def full_specialization(module: IRModule, through: Collection[str] | None = None) -> FullSpecialization | None:
    """The fully specialized `module`, or None when no function is reached by two call chains (or too many),
    or, given `through`, when none of those functions is."""
    graph = CallGraph(module)
    needed = graph.copies_needed(MAX_CLONES)
    if not len(graph.functions) < needed <= MAX_CLONES:
        return None
    if through is not None and graph.called_twice(MAX_CLONES).isdisjoint(through):
        return None
    forest = Forest.full(graph)
    live = forest.live()
    names = forest.temporary_names(live)
    return FullSpecialization(forest, names, forest.module(live, names))


class SpecializationAdvice:
    """The fully specialized module's signatures once placed: what each conflict's help line is read from."""

    __slots__ = ("forest", "names", "signatures")

    def __init__(self, full: FullSpecialization, sigs: Signatures) -> None:
        self.forest = full.forest
        self.names = full.names
        self.signatures = sigs

    def texts(self, cores: Sequence[Sequence[Any]]) -> list[str | None]:
        """The help text for each conflict of `cores` (each a `Conflict.constraints`), None where there is none."""
        out: list[str | None] = []
        for core in cores:
            funcs = dict.fromkeys(c.rule["func"] for c in core if c.rule.kind in _CALL_RULES)
            found = (_describe(self.forest, self.names, self.signatures, f) for f in funcs)
            out.append(next((t for t in found if t is not None), None))
        return out


def advise(module: IRModule, place: PlaceFn, through: Collection[str] | None = None) -> SpecializationAdvice | None:
    """The advice for a `module` that has no placement: its full specialization placed once by `place`;
    None when there is none, it does not place either, or (given `through`: the functions whose
    parameters or results the conflicts involve) none of those is reached by two call chains."""
    full = full_specialization(module, through)
    if full is None:
        return None
    try:
        placed = place(full.module)
    except (PlacementConflict, PlacementError):
        return None
    return SpecializationAdvice(full, signatures(placed))


def specialization_advice(module: IRModule, cores: Sequence[Sequence[Any]], place: PlaceFn) -> list[str | None]:
    """`advise` then `SpecializationAdvice.texts`: the help text per conflict of `cores`, None where there is none."""
    advice = advise(module, place)
    return [None] * len(cores) if advice is None else advice.texts(cores)


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
