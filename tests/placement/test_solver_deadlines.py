"""Solvers under a hard deadline: HiGHS (`placement/cost/highs_process.py`) and Z3 (`placement/solve/z3_child.py`)
answer from a child process as they do in this one, and a child that does not answer by the deadline is
killed and gives None, soon after the deadline (`placement/solve/child_process.py`)."""

from __future__ import annotations

import sys
import time
from fractions import Fraction

import numpy as np
import pytest

from vdplace.placement.cost import highs_process
from vdplace.placement.cost.highs_process import MilpProgram, solve_milp_by
from vdplace.placement.solve import child_process
from vdplace.placement.solve.z3_child import optimize_by


def _knapsack() -> MilpProgram:
    """max 5a + 4b + 3c subject to 2a + 3b + c <= 4 (as a minimum): a = c = 1, value 8."""
    return MilpProgram(
        cost=np.array([-5.0, -4.0, -3.0]),
        integer=np.array([1, 1, 1]),
        rows=np.array([0, 0, 0], dtype=np.int32),
        cols=np.array([0, 1, 2], dtype=np.int32),
        vals=np.array([2.0, 3.0, 1.0]),
        lo=np.array([-np.inf]),
        hi=np.array([4.0]),
    )


def test_in_process_answer() -> None:
    answer = solve_milp_by(_knapsack(), time.time() + 30)
    assert answer is not None and answer.status == highs_process.STATUS_OPTIMAL
    assert answer.fun == pytest.approx(-8.0)
    assert answer.x is not None and np.allclose(answer.x, [1, 0, 1])


def test_child_answers_as_the_process_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(highs_process, "IN_PROCESS_NONZEROS", 0)
    answer = solve_milp_by(_knapsack(), time.time() + 60)
    assert answer is not None and answer.status == highs_process.STATUS_OPTIMAL
    assert answer.fun == pytest.approx(-8.0)
    assert answer.x is not None and np.allclose(answer.x, [1, 0, 1])


def test_child_past_the_deadline_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(highs_process, "IN_PROCESS_NONZEROS", 0)
    monkeypatch.setattr(child_process, "_command", lambda worker: [sys.executable, "-c", "import time; time.sleep(60)"])
    start = time.time()
    assert solve_milp_by(_knapsack(), start + 1.0) is None
    assert time.time() - start < 1.0 + child_process.GRACE_S + 5.0


def test_z3_child_answers_and_bounds() -> None:
    text = """
(declare-fun a () Bool)
(declare-fun b () Bool)
(assert ((_ pbeq 1 1 1) a b))
(assert-soft (not a) :weight 3)
(assert-soft (not b) :weight 5)
"""
    answer = optimize_by(text, ["a", "b"], time.time() + 60, hint={"b": True})
    assert answer is not None and answer.status == "sat"
    assert answer.values == {"a": True, "b": False}
    assert answer.lower == Fraction(3)


def test_z3_child_reports_unsat() -> None:
    text = "(declare-fun a () Bool)\n(assert a)\n(assert (not a))\n(assert-soft a :weight 1)\n"
    answer = optimize_by(text, ["a"], time.time() + 60)
    assert answer is not None and answer.status == "unsat" and answer.values is None


def test_z3_child_past_the_deadline_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(child_process, "_command", lambda worker: [sys.executable, "-c", "import time; time.sleep(60)"])
    start = time.time()
    assert optimize_by("(declare-fun a () Bool)", ["a"], start + 1.0) is None
    assert time.time() - start < 1.0 + child_process.GRACE_S + 5.0
