"""`interrupt_after`: a Z3 call past its deadline is interrupted, whatever Z3's own timeout does."""

from __future__ import annotations

import time

import z3

from vdplace.placement.solve.deadline import interrupt_after


def _pigeonholes(ctx: z3.Context, holes: int) -> z3.Solver:
    """holes + 1 pigeons in `holes` holes: unsatisfiable, and exponentially hard for a SAT solver."""
    solver = z3.Solver(ctx=ctx)
    x = [[z3.Bool(f"p{i}_{h}", ctx) for h in range(holes)] for i in range(holes + 1)]
    for row in x:
        solver.add(z3.Or(row))
    for h in range(holes):
        for i in range(holes + 1):
            for j in range(i):
                solver.add(z3.Not(z3.And(x[i][h], x[j][h])))
    return solver


def test_a_call_past_the_deadline_is_interrupted_and_answers_unknown():
    ctx = z3.Context()
    solver = _pigeonholes(ctx, 14)  # minutes of search without a deadline
    solver.set("timeout", 20_000)  # without the interrupt the call ends here, and the test fails below
    start = time.monotonic()
    with interrupt_after(ctx, 0.2):
        result = solver.check()
    assert result == z3.unknown
    assert time.monotonic() - start < 10


def test_a_call_within_the_deadline_is_left_alone_and_the_timer_does_not_outlive_the_block():
    ctx = z3.Context()
    solver = _pigeonholes(ctx, 3)
    with interrupt_after(ctx, 0.2):
        assert solver.check() == z3.unsat
    time.sleep(1.0)  # past the deadline: the cancelled timer must not interrupt the next call
    assert solver.check() == z3.unsat
    with interrupt_after(ctx, None):
        assert solver.check() == z3.unsat
