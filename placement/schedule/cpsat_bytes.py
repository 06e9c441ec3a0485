"""CP-SAT's second phase: among plans of the optimal makespan, the one that copies the fewest bytes.

CP-SAT minimizes the makespan alone, so of the plans that reach it, any may come back, one with
copies another plan of the same makespan does without (ties are common: a device idle while the
other bounds the makespan can take or leave work).  When the first phase proves its makespan
optimal, `fewest_bytes` solves the same model again with the makespan bounded by that optimum and
the bytes of every copy to a vdevice other than its value's home as the objective, started from the
first phase's solution.  Uploads of runtime inputs are not counted.  The plan it returns has the
optimal makespan (the bound is a constraint); when the second phase finds nothing in its time, the
first phase's solution stands.
"""

from __future__ import annotations

from typing import Any

from vdplace.placement.schedule.graph import INPUT


def fewest_bytes(model: Any, first: Any, seconds: float, wall_s: float) -> tuple[Any, Any] | None:
    """A solver holding the second phase's solution for `model` (a `cpsat._Model` that `first` solved to a
    proved optimum) and its status, or None when there is nothing to gain or no solution came within a
    search of `seconds` (`cpsat.configured_solver`; the wall clock stops it at `wall_s`)."""
    from ortools.sat.python import cp_model

    from vdplace.placement.schedule.cpsat import configured_solver

    g, m = model.g, model.m
    # Twice the bytes of each copy; of each upload (a runtime input placed off the host), one more.
    terms = [(2 * int(g.val_bytes[v]), y) for (v, _), y in model.y.items() if g.val_bytes[v] > 0]
    if g.host is not None:
        for v, kind in enumerate(g.val_kind):
            row = model.x[g.val_unit[v]]
            if kind == INPUT and len(row) > 1:
                terms += [(2 * int(g.val_bytes[v]) + 1, lit) for d, lit in row.items() if d != g.host]
    if seconds <= 0.05 or wall_s <= 0.05 or not terms or sum(b for b, lit in terms if first.boolean_value(lit)) == 0:
        return None
    m.add(model.makespan <= first.value(model.makespan))
    m.minimize(sum(b * y for b, y in terms))
    m.clear_hints()
    for row in model.x:
        for lit in row.values():
            m.add_hint(lit, int(first.boolean_value(lit)))  # ortools < 9.11 takes no bool
    for y in model.y.values():
        m.add_hint(y, int(first.boolean_value(y)))
    for start in model.s:
        m.add_hint(start, first.value(start))
    solver = configured_solver(model, seconds, wall_s)
    status = solver.solve(m)
    return (solver, status) if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None
