"""Interchangeable vdevices: classes of them, and renaming a plan within them.

Two vdevices are *interchangeable* when swapping them maps every plan to one
with the same times and memory (`interchangeable`): two like GPUs.  CP-SAT
breaks that symmetry (`cpsat._Model._symmetry`); the time objective's plan
without memory limits is tried renamed within the classes, to fit limits that
tell the twins apart (`solve._best_renaming`).
"""

from __future__ import annotations

import itertools
from typing import cast

from vdplace.placement.schedule.graph import TaskGraph

# Renamings of interchangeable vdevices tried on the plan without limits (`renamings`).
RENAMINGS = 24


def symmetric_classes(g: TaskGraph, allowed: list[list[int]]) -> list[list[int]]:
    """Classes of at least two vdevices any permutation of which maps every plan to one as good: each is
    interchangeable (`interchangeable`) with the class's first, so the swaps with it, which generate every
    permutation of the class, are symmetries.  Only vdevices alone on their physical device are considered."""
    alone = [d for d in range(g.num_devices) if g.physical.count(g.physical[d]) == 1]
    classes: list[list[int]] = []
    for d in alone:
        for cls in classes:
            if interchangeable(g, allowed, cls[0], d):
                cls.append(d)
                break
        else:
            classes.append([d])
    return [cls for cls in classes if len(cls) > 1]


def renamed(
    placement: list[int], order: list[tuple[str, object]], rename: dict[int, int]
) -> tuple[list[int], list[tuple[str, object]]]:
    """A plan with its vdevices renamed (`rename`, identity where it says nothing): the placement and the
    task order (a copy's key names its destination)."""
    tasks: list[tuple[str, object]] = []
    for kind, key in order:
        if kind == "copy":
            v, d = cast("tuple[int, int]", key)
            key = (v, rename.get(d, d))
        tasks.append((kind, key))
    return [rename.get(d, d) for d in placement], tasks


def renamings(g: TaskGraph, allowed: list[list[int]], most: int = RENAMINGS) -> list[dict[int, int]]:
    """Every renaming within the classes of `symmetric_classes` (each a symmetry: the plan it renames runs
    alike), the identity first; at most `most` of them."""
    out: list[dict[int, int]] = []
    classes = symmetric_classes(g, allowed)
    # `product` reads its inputs whole: each class's permutations cut to `most` first (12 like GPUs have 479M)
    firsts = [list(itertools.islice(itertools.permutations(cls), most)) for cls in classes]
    for perms in itertools.product(*firsts):
        out.append({d: e for cls, perm in zip(classes, perms, strict=True) for d, e in zip(cls, perm, strict=True)})
        if len(out) >= most:
            break
    return out or [{}]


def unit_order(g: TaskGraph) -> list[int]:
    """The units in the order of their first op call, then those without ops by index."""
    order = list(dict.fromkeys(g.op_unit))
    seen = set(order)
    return order + [u for u in range(g.num_units) if u not in seen]


def interchangeable(g: TaskGraph, allowed: list[list[int]], d1: int, d2: int) -> bool:
    """Swapping vdevices d1 and d2 maps every plan to one with the same times and memory: the same limit,
    every unit may go on both or neither, the same op, copy and upload times and senders' shares."""
    if g.limits[d1] != g.limits[d2] or d1 == g.host or d2 == g.host:
        return False
    if any((d1 in a) != (d2 in a) for a in allowed):
        return False
    if any(row[d1] != row[d2] for row in g.op_time):
        return False
    swap = {d1: d2, d2: d1}
    k = g.num_devices
    for v in range(g.num_values):
        for up in (g.val_upload[v], g.val_upload_send[v]):
            if up is not None and up[d1] != up[d2]:
                return False
        for table in (g.val_copy[v], g.val_send[v]):
            if table is not None and any(
                table[h][d] != table[swap.get(h, h)][swap.get(d, d)] for h in range(k) for d in range(k)
            ):
                return False
    return True
