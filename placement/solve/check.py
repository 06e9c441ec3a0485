"""An independent checker: does a per-site assignment satisfy every constraint of the set?

It reads the `ConstraintSet` itself, never the equality classes or the
solver's encoding, so a bug in collapsing, propagation or Z3 shows up here
before a wrong module is returned.  A site assigned ``None`` is unplaced: it
satisfies an equality only with another unplaced site, and never a pin or a
domain.
"""

from __future__ import annotations

from collections.abc import Sequence

from vdplace.placement.model.constraints import ConstraintSet, Domain, Equal, EqualTable, Pin, pin_columns

Violation = tuple[Pin | Equal | Domain | None, str]
"""A broken constraint and why; None for a site whose value is no device index (no constraint to blame)."""


def check(cs: ConstraintSet, assignment: Sequence[int | None]) -> list[Violation]:
    """Every hard constraint `assignment` breaks, with a reason (empty when it satisfies them all)."""
    if len(assignment) != len(cs.sites):
        raise ValueError(f"assignment has {len(assignment)} entries for {len(cs.sites)} sites")
    n = len(cs.vdevices)
    bad: list[Violation] = []
    if not _all_valid(assignment, n):
        for i, value in enumerate(assignment):
            if value is not None and not (type(value) is int and 0 <= value < n):
                bad.append((None, f"site {i} has device {value!r}, not an index below {n}"))
    sites, devices = pin_columns(cs.pins)
    for i, (site, device) in enumerate(zip(sites, devices, strict=True)):
        if assignment[site] != device:
            pin = cs.pins[i]
            bad.append((pin, f"site {pin.site} is on {assignment[pin.site]!r}, pinned to {pin.device}"))
    for eq in _broken_equals(cs.equals, assignment):
        bad.append((eq, f"sites {eq.a} and {eq.b} are on {assignment[eq.a]!r} and {assignment[eq.b]!r}"))
    for dom in cs.domains:
        if assignment[dom.site] not in dom.allowed:
            bad.append((dom, f"site {dom.site} is on {assignment[dom.site]!r}, allowed {sorted(dom.allowed)}"))
    return bad


def _all_valid(assignment: Sequence[int | None], n: int) -> bool:
    """Whether every value is None or an int (not a bool) in ``range(n)``: set operations, no loop per site."""
    if not set(map(type, assignment)) <= {int, type(None)}:
        return False
    return all(0 <= v < n for v in set(assignment) if v is not None)


def _broken_equals(equals: EqualTable | Sequence[Equal], assignment: Sequence[int | None]) -> list[Equal]:
    """The equalities `assignment` breaks; an `EqualTable` is read by its columns (its objects built only for those)."""
    if type(equals) is not EqualTable:
        return [eq for eq in equals if assignment[eq.a] != assignment[eq.b]]
    pairs = zip(equals.a, equals.b, strict=True)
    for a, b in pairs:  # the common case first: nothing broken, no index kept
        if assignment[a] != assignment[b]:
            break
    else:
        return []
    pairs = zip(equals.a, equals.b, strict=True)
    return [equals[i] for i, (a, b) in enumerate(pairs) if assignment[a] != assignment[b]]


def copy_bytes(cs: ConstraintSet, assignment: Sequence[int | None]) -> int:
    """The objective: the sum of weights of `Prefer` edges whose ends are on different physical devices.

    Every copy op that moves data has one `Prefer` edge (reused copies have
    none), so this equals the bytes the placed module's copies move.
    """
    physical = [v.physical for v in cs.vdevices]
    total = 0
    for pref in cs.prefers:
        a = assignment[pref.a]
        b = assignment[pref.b]
        if a != b and (a is None or b is None or physical[a] != physical[b]):
            total += pref.weight
    return total


def upload_bytes(cs: ConstraintSet, assignment: Sequence[int | None]) -> int:
    """The uploads the objective counts: every `Start` whose site is on a device that is not a CPU.

    An unplaced site stays where the caller has it, on the host.
    """
    host = cs.host_devices
    total = 0
    for start in cs.starts:
        d = assignment[start.site]
        if d is not None and d not in host:
            total += start.weight
    return total
