"""`find_conflicts`: every independent conflict of a constraint set, minimal, proven, with checked fixes.

The steps, each in its own module: `core` finds the conflicts over equality
classes (integers only; which conflicts count as independent is described
there), `conflict` names their parts the way the user wrote them, `verify`
proves each one a minimal unsatisfiable set, and `fixes` offers edits that
were re-checked on the constraint graph.

The search runs with the garbage collector paused, as `place()` does: it
builds hundreds of thousands of small acyclic objects (adjacency lists, BFS
maps, chain steps), and the collections they trigger cost as much as the
search itself (1M bindings: 7.1 s with the collector on, 3.5-4.1 s paused).
"""

from __future__ import annotations

from vdplace.ir import progress
from vdplace.ir.collector import collector_paused
from vdplace.placement.diagnose.conflict import Conflict
from vdplace.placement.diagnose.core import ConstraintGraph, RawConflict, complete, find_raw_conflicts
from vdplace.placement.diagnose.fixes import suggest_fixes
from vdplace.placement.diagnose.verify import structurally_minimal, z3_minimal
from vdplace.placement.errors import PlacementInternalError
from vdplace.placement.model.constraints import ConstraintSet

# Conflicts with at most this many constraints are also proven minimal by Z3's
# deletion pass (one check per constraint); larger ones by the linear-time
# structural certificate only.
Z3_VERIFY_LIMIT = 200

Position = tuple[tuple[str, int, int], list[tuple[str, int]]]


def find_conflicts(cs: ConstraintSet, *, limit: int = 10, fixes: bool = True) -> tuple[list[Conflict], int]:
    """The independent conflicts of `cs`, minimal and explained: (the first `limit` of them, how many more).

    They are ordered by the source position of their first pin (those with
    no position last, then by their constraints).  Every class of `cs`
    without a placement has at least one; `cs` has a placement exactly when
    none is found.  Each returned conflict is proven minimal (Z3's deletion
    pass up to `Z3_VERIFY_LIMIT` constraints, the structural certificate
    always); a proof that fails is a bug and raises `PlacementInternalError`.
    The conflicts beyond `limit` are found but not built, proven or fixed.
    """
    with collector_paused():
        return _find_conflicts(cs, limit, fixes)


def _find_conflicts(cs: ConstraintSet, limit: int, fixes: bool) -> tuple[list[Conflict], int]:
    graph = ConstraintGraph(cs)
    raws = find_raw_conflicts(graph)
    raws.sort(key=_position)
    shown = raws[: max(0, limit)]
    conflicts: list[Conflict] = []
    with progress.stage("prove conflicts", total=len(shown)) as tick:
        for i, raw in enumerate(shown):
            conflict = Conflict(cs, graph, complete(graph, raw), i + 1)
            conflict.verified = _verify(len(cs.vdevices), conflict)
            conflicts.append(conflict)
            tick(i + 1)
    if fixes and conflicts:
        suggest_fixes(graph, conflicts)
    return conflicts, len(raws) - len(shown)


def _position(raw: RawConflict) -> Position:
    spans = [u.constraint.span for u in raw.unary if u.constraint.span is not None]
    first = min(((s.file or "", s.line, s.col) for s in spans), default=("\uffff", 0, 0))
    return (first, sorted(u.key for u in raw.unary))


def _verify(num_devices: int, conflict: Conflict) -> str:
    """How `conflict` was proven minimal: ``"z3"`` (and structurally) or ``"structure"`` (too large for Z3)."""
    unary = [r.constraint for r in conflict.pins]
    edges = [s.constraint for s in conflict.path]
    if not structurally_minimal(unary, edges, num_devices):
        raise PlacementInternalError(f"conflict {conflict.number} failed its minimality certificate")
    if len(unary) + len(edges) > Z3_VERIFY_LIMIT:
        return "structure"
    if not z3_minimal(conflict.constraints, num_devices):
        raise PlacementInternalError(f"conflict {conflict.number} failed Z3's deletion pass")
    return "z3"
