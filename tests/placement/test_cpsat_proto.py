"""Rows written into a CP-SAT model's proto directly (`placement.schedule.cpsat_proto`) are the rows
OR-Tools' own `CpModel.add` writes for the same sums, so a model built either way is the same model."""

from __future__ import annotations

import pytest

pytest.importorskip("ortools")


def _models():
    from ortools.sat.python import cp_model

    pair = []
    for _ in range(2):
        m = cp_model.CpModel()
        t = m.new_int_var(0, 100, "t")
        a, b, c = (m.new_bool_var(name) for name in "abc")
        pair.append((m, t, a, b, c))
    return pair


def test_linear_rows_and_implications_match_what_cp_model_writes() -> None:
    from vdplace.placement.schedule.cpsat_proto import INT_MAX, INT_MIN, add_implication, add_linear

    (m1, t1, a1, b1, c1), (m2, t2, a2, b2, c2) = _models()
    m1.add(t1 >= 7 + (3 * c1 + 5 * a1 + 2 * c1)).only_enforce_if(b1)
    m1.add(t1 >= 4 * a1)
    m1.add(2 * a1 + 3 * b1 <= 4)
    m1.add(a1 + b1 + c1 == 1)
    m1.add_implication(a1, b1)
    # the same, in an order of terms the proto sorts, with a duplicate term and a zero coefficient
    add_linear(m2, {c2.index: -5, t2.index: 1, a2.index: -5}, 7, INT_MAX, enforced_by=b2.index)
    add_linear(m2, {a2.index: -4, t2.index: 1, b2.index: 0}, 0, INT_MAX)
    add_linear(m2, {b2.index: 3, a2.index: 2}, INT_MIN, 4)
    add_linear(m2, {c2.index: 1, b2.index: 1, a2.index: 1}, 1, 1)
    add_implication(m2, a2.index, b2.index)
    assert _rows(m1) == _rows(m2)


def _rows(model) -> list[tuple]:
    """Each constraint of `model` as (enforcement literals, implied literals, linear terms sorted by variable,
    domain): OR-Tools before 9.15 may write a row's terms in another order, and an implication as a one-literal
    clause (``bool_or``) where 9.15 writes a one-literal conjunction (``bool_and``): the same constraint."""
    rows = []
    for ct in model.proto.constraints:
        terms = sorted(zip(ct.linear.vars, ct.linear.coeffs, strict=True))
        implied = list(ct.bool_and.literals) or list(ct.bool_or.literals)
        rows.append((list(ct.enforcement_literal), implied, terms, list(ct.linear.domain)))
    return rows


def test_a_model_built_from_the_proto_solves() -> None:
    from ortools.sat.python import cp_model

    from vdplace.placement.schedule.cpsat_proto import INT_MAX, add_implication, add_linear

    m, t, a, b, c = _models()[0]
    add_linear(m, {a.index: 1, b.index: 1, c.index: 1}, 1, 1)  # exactly one of a, b, c
    add_implication(m, a.index, b.index)  # a is then impossible
    add_linear(m, {t.index: 1, b.index: -9, c.index: -6}, 0, INT_MAX)  # t >= 9 b + 6 c
    m.minimize(t)
    solver = cp_model.CpSolver()
    assert solver.solve(m) == cp_model.OPTIMAL
    assert (solver.value(t), solver.value(a), solver.value(c)) == (6, 0, 1)
