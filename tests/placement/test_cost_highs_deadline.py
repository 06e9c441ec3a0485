"""`placement/cost/highs_process.py`: HiGHS's answer in a child process equals the in-process one, and a
child that does not answer by the deadline is killed and gives None, soon after the deadline."""

from __future__ import annotations

import sys
import time

import numpy as np
import pytest

from vdplace.placement.cost import highs_process
from vdplace.placement.cost.highs_process import MilpProgram, solve_milp_by


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
    monkeypatch.setattr(highs_process, "_child_command", lambda: [sys.executable, "-c", "import time; time.sleep(60)"])
    start = time.time()
    assert solve_milp_by(_knapsack(), start + 1.0) is None
    assert time.time() - start < 1.0 + highs_process.GRACE_S + 5.0
