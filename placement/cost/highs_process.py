"""HiGHS's MILP (`scipy.optimize.milp`) under a hard deadline.

HiGHS honours its ``time_limit`` between its phases, not inside presolve:
on a 100k-unit program over three vdevices (`benchmarks/bench_cost.py`,
``chain``, ``3dev``) presolve ran on for more than eight minutes past a 20 s
limit.  So a program with more than `IN_PROCESS_NONZEROS` nonzeros is solved
in a child Python (``python highs_worker.py``, importing NumPy and SciPy
alone; `placement.solve.child_process`) that gets the arrays on its standard input
and is killed half a second after the deadline; a smaller one (presolve in milliseconds) is solved in this
process, where starting a child (about half a second of CPU to import
scipy) would cost more than the solve.

Contract: `solve_milp_by(program, deadline)` returns a `MilpAnswer` (HiGHS's
status, solution and bounds, as `scipy.optimize.milp` gives them) or None
when no answer came in time (``deadline`` is `time.time()` seconds: a
wall-clock instant, so that parent and child agree on it).  The child
reads nothing but arrays (``numpy.load`` without pickles).
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vdplace.placement.cost.highs_worker import FIELDS, solve_arrays
from vdplace.placement.solve.child_process import run_by_deadline

WORKER = Path(__file__).with_name("highs_worker.py")

IN_PROCESS_NONZEROS = 200_000
STATUS_OPTIMAL, STATUS_INFEASIBLE = 0, 2  # scipy's `milp` statuses (1: a limit was reached)


@dataclass(frozen=True)
class MilpProgram:
    """``min cost @ x`` over ``0 <= x <= 1`` with ``lo <= A x <= hi``; ``integer[j]`` marks binary columns.

    ``A`` is given as triplets (``rows``, ``cols``, ``vals``) of int32 indices (HiGHS in scipy < 1.15
    takes no other) over ``len(lo)`` rows and ``len(cost)`` columns.
    """

    cost: np.ndarray
    integer: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    vals: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    @property
    def nonzeros(self) -> int:
        return int(self.vals.size)


@dataclass(frozen=True)
class MilpAnswer:
    """What HiGHS said: `status` (0 optimal, 1 a limit, 2 infeasible, ...), its best `x` and `fun` if any,
    and its proved `dual_bound` (None when it proved none)."""

    status: int
    x: np.ndarray | None
    fun: float | None
    dual_bound: float | None


def solve_milp_by(program: MilpProgram, deadline: float) -> MilpAnswer | None:
    """HiGHS's answer to `program` by `deadline` (`time.time()`), or None when none came in time."""
    if program.nonzeros <= IN_PROCESS_NONZEROS:
        return _solve(program, deadline - time.time())
    return _solve_in_child(program, deadline)


def _solve(program: MilpProgram, seconds: float) -> MilpAnswer:
    p = program
    status, x, fun, bound = solve_arrays(p.cost, p.integer, p.rows, p.cols, p.vals, p.lo, p.hi, seconds)
    return MilpAnswer(status, x, fun, bound)


def _solve_in_child(program: MilpProgram, deadline: float) -> MilpAnswer | None:
    sent = io.BytesIO()
    np.savez(sent, deadline=np.array(deadline), **{f: getattr(program, f) for f in FIELDS})
    out = run_by_deadline(WORKER, sent.getvalue(), deadline)
    if out is None:
        return None
    got = np.load(io.BytesIO(out), allow_pickle=False)
    x = got["x"] if got["x"].size == program.cost.size else None
    fun, bound = float(got["fun"]), float(got["dual_bound"])
    return MilpAnswer(int(got["status"]), x, None if np.isnan(fun) else fun, None if np.isnan(bound) else bound)
