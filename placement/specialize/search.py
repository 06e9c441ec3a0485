"""`place_specialized`: place a module, cloning functions per call-site device signature when it must.

1. The module as it is: when it places, no copy is made (zero is the fewest).
2. Full specialization: one copy of a unit (a function, or a recursion as a
   whole) per chain of call sites from a root (`instances.Forest.full`).  More
   than `MAX_CLONES` functions: the original conflict, with a note saying so.
   When the fully specialized module has no placement, no specialization has
   one (any specialized module's placement gives one of the full module), so
   the original conflict is raised.
3. Exact search (`exact`): the ways of merging copies are listed a function
   count at a time, fewest first, and placed; the first count at which one
   places is the fewest, and among those the fewest bytes is the answer.  At
   most `MAX_EXACT` placements (fewer for a module of over 10,000 sites:
   `EXACT_SITES`): when listing every way would take more, pairs of copies
   that cannot merge on their own prune the list first; when it still would,
   steps 4 to 6 run instead.
4. Merge by signature, callers first: two live copies of a unit with the same
   signature in the placement of step 2 become one (the first; what only the
   other reached dies).  The placement of step 2 restricted to what is left
   places the merged module, so this step needs no solving.
5. Greedy merges: for each unit, every ordered pair of its live copies is
   tried (drop one, its calls go to the other) by placing the result; of those
   that place, the one with the fewest bytes copied is taken, and the unit is
   tried again until no pair merges or `MAX_TRIALS` placements were spent.
6. Moves: one call at a time goes to another live copy of its callee, kept
   when the module has fewer functions, or as many and fewer bytes copied,
   until no move improves or `MAX_MOVES` placements (fewer for a big module,
   as in step 3) were spent.
7. Names (`naming`), the final placement, and `Placement.clones`.

What is exact and what is greedy: steps 1, 2 and 3 are exact.  After steps
4 to 6 the number of copies is a local minimum: without the trial limit, no
two remaining copies of one function can be merged into one that still
places, but a different set of merges could need fewer; and step 4 merges
by the signatures of one placement, which may cost bytes that another merge
would not.  Among the merges tried, the fewest bytes wins, and the final
module is placed by the usual optimizing solver.
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations
from typing import TYPE_CHECKING

from vdplace.placement.diagnose.names import device_name
from vdplace.placement.errors import PlacementConflict
from vdplace.placement.result import Clone
from vdplace.placement.specialize.callgraph import CallGraph
from vdplace.placement.specialize.exact import PlaceFn, Trial, exact_search, place_forest
from vdplace.placement.specialize.instances import Forest, Names
from vdplace.placement.specialize.naming import Signatures, final_names, instance_signature, signatures

if TYPE_CHECKING:
    from vdplace.ir.module import IRModule
    from vdplace.placement.result import Placement

# Full specialization may create at most this many functions (a call tree can be exponential in its depth).
MAX_CLONES = 10_000
# Placements step 4 may spend on trial merges.
MAX_TRIALS = 200
# Placements step 6 may spend on moving calls between copies.
MAX_MOVES = 100
# Placements the exact search (step 3) may make, pairs and candidates together; more, and steps 4 to 6 run.
MAX_EXACT = 400
# Sites step 3 may place in all: a module of more than EXACT_SITES / MAX_EXACT sites gets fewer placements
# (MIN_EXACT at least), as each is a placement of the whole module.
EXACT_SITES = 4_000_000
MIN_EXACT = 4


def place_specialized(mod: IRModule, place: PlaceFn) -> Placement:
    """`place(mod)`, or the placement of `mod` specialized per call site (module docstring); `mod` is not changed.

    `place` is the driver with the caller's options bound (`placement.api.specialize` passes it; a
    conflict it raises carries no advice).  Raises the `PlacementConflict` of `mod` itself when
    specialization cannot remove it.
    """
    try:
        return place(mod)
    except PlacementConflict as err:
        conflict = err
    graph = CallGraph(mod)
    needed = graph.copies_needed(MAX_CLONES)
    if needed > MAX_CLONES:
        conflict.add_note(
            f"specialization was not tried: cloning per call site would create more than {MAX_CLONES:,} functions"
        )
        raise conflict
    if needed == len(graph.functions):  # nothing is called twice: the full specialization is the module
        raise conflict
    full = place_forest(Forest.full(graph), place)
    if full is None:
        raise conflict
    affordable = max(MIN_EXACT, EXACT_SITES // max(full.placement.stats.sites, 1))  # placements of this module
    best = exact_search(full.forest, place, min(MAX_EXACT, affordable))
    if best is None:
        merged = merge_same_signatures(full.forest, full.names, signatures(full.placement))
        best = move_calls(merge_greedily(merged, place), place, min(MAX_MOVES, affordable))
    forest, live = best.forest, best.live
    final = final_names(forest, live, best.names, signatures(best.placement), best.placement.constraints.vdevices)
    result = place(forest.module(live, final))
    result.clones = clone_records(forest, live, final, result)
    return result


def merge_same_signatures(forest: Forest, names: Names, sigs: Signatures) -> Forest:
    """Step 4: callers first, each instance joins an earlier live one of its unit with its signature, if any.

    A root is alone in its unit; an instance is live when its creating call
    (in its parent, which comes earlier) is live and still reaches it.
    """
    out = forest.copy()
    alive: set[int] = set()
    first: dict[tuple[int, tuple[int | None, ...]], int] = {}
    for inst in out.instances:
        group = (inst.unit, instance_signature(forest, inst.number, names, sigs))
        if inst.parent is None or inst.origin is None:
            first[group] = inst.number
            alive.add(inst.number)
            continue
        parent = out.instances[inst.parent]
        key = (inst.origin.caller, inst.origin.index)
        if inst.parent not in alive or parent.targets[key] != inst.number:
            continue
        same = first.setdefault(group, inst.number)
        if same == inst.number:
            alive.add(inst.number)
        else:
            parent.targets[key] = same
    return out


def merge_greedily(forest: Forest, place: PlaceFn) -> Trial:
    """Step 5 (step 4's result placed first): the best merged module that places."""
    current = place_forest(forest, place)
    if current is None:  # step 4 keeps step 2's placement
        raise RuntimeError("internal error: merging copies by signature lost the placement")
    trials = 0
    changed = True
    while changed and trials < MAX_TRIALS:
        changed = False
        forest, live = current.forest, current.live
        for group in forest.by_unit(live).values():
            best: Trial | None = None
            for keep, drop in permutations(group, 2):
                if trials >= MAX_TRIALS:
                    break
                trials += 1
                got = place_forest(forest.merged(drop, keep), place)
                if got is not None and (best is None or got.bytes_moved < best.bytes_moved):
                    best = got
            if best is not None:
                current = best
                changed = True
                break  # the groups changed: start over from the first unit
    return current


def move_calls(current: Trial, place: PlaceFn, max_moves: int) -> Trial:
    """Step 6: one call at a time goes to another live copy of its callee, kept when the module then has
    fewer functions, or as many and fewer bytes copied (a call free of devices that step 4 sent to a
    copy where its value must be copied); until no move improves or `max_moves` placements were spent."""
    best = (current.functions, current.bytes_moved)
    trials = 0
    improved = True
    while improved:
        improved = False
        forest, live = current.forest, current.live
        groups = forest.by_unit(live)
        moves = [
            (caller, key, other)
            for caller in live
            for key, target in forest.instances[caller].targets.items()
            for other in groups[forest.instances[target].unit]
            if other != target
        ]
        for caller, key, other in moves:
            if trials >= max_moves:
                return current
            trials += 1
            trial = forest.copy()
            trial.instances[caller].targets[key] = other
            got = place_forest(trial, place)
            if got is not None and (got.functions, got.bytes_moved) < best:
                current = got
                best = (got.functions, got.bytes_moved)
                improved = True
                break  # the copies changed: list the moves again
    return current


def clone_records(forest: Forest, live: list[int], names: Names, placed: Placement) -> list[Clone]:
    """`Placement.clones`: every copy of every function that has more than one, in module order."""
    graph = forest.graph
    sigs = signatures(placed)
    vdevices = placed.constraints.vdevices
    # A copy is called from other units as `forest.callers` counts, and from its own unit by every call
    # of its unit's members to it (a copy of a unit calls its own members): no walk of the placed module.
    counts = forest.callers(live)
    own_unit = Counter(
        s.callee for m in graph.functions for s in graph.sites[m] if graph.unit_of.get(s.callee) == graph.unit_of[m]
    )
    groups = forest.by_unit(live)
    out: list[Clone] = []
    for member in graph.functions:
        group = groups.get(graph.unit_of[member], [])
        if len(group) < 2:
            continue
        for i in sorted(group, key=lambda i: names[(i, member)] != member):
            name = names[(i, member)]
            leaves = tuple((leaf, None if d is None else device_name(vdevices, d)) for leaf, d in sigs.get(name, ()))
            out.append(Clone(member, name, counts.get((i, member), 0) + own_unit[member], leaves))
    return out
