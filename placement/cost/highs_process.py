"""HiGHS's MILP (`scipy.optimize.milp`) under a hard deadline.

HiGHS honours its ``time_limit`` between its phases, not inside presolve:
on a 100k-unit program over three vdevices (`benchmarks/bench_cost.py`,
``chain``, ``3dev``) presolve ran on for more than eight minutes past a 20 s
limit.  So a program with more than `IN_PROCESS_NONZEROS` nonzeros is solved
in a child Python (``python -m vdplace.placement.cost.highs_process``) that
gets the arrays on its standard input, and is killed `GRACE_S` after the
deadline; a smaller one (presolve in milliseconds) is solved in this
process, where starting a child (about half a second of CPU to import
scipy) would cost more than the solve.

Contract: `solve_milp_by(program, deadline)` returns a `MilpAnswer` (HiGHS's
status, solution and bounds, as `scipy.optimize.milp` gives them) or None
when no answer came by ``deadline + GRACE_S`` (`time.time()` seconds; a
wall-clock instant, so that parent and child agree on it).  The child
reads nothing but arrays (``numpy.load`` without pickles).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import LinearConstraint, milp
from scipy.sparse import csr_array

IN_PROCESS_NONZEROS = 200_000
GRACE_S = 0.5
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
    n = program.cost.size
    matrix = csr_array((program.vals, (program.rows, program.cols)), shape=(program.lo.size, n))
    rows = LinearConstraint(matrix, program.lo, program.hi) if program.lo.size else None
    res = milp(
        program.cost,
        integrality=program.integer,
        bounds=(np.zeros(n), np.ones(n)),
        constraints=rows,
        options={"time_limit": max(seconds, 1e-3), "mip_rel_gap": 0.0},
    )
    x = None if res.x is None else np.asarray(res.x)
    fun = None if res.fun is None else float(res.fun)
    bound = getattr(res, "mip_dual_bound", None)
    return MilpAnswer(int(res.status), x, fun, None if bound is None else float(bound))


def _solve_in_child(program: MilpProgram, deadline: float) -> MilpAnswer | None:
    sent = io.BytesIO()
    np.savez(sent, deadline=np.array(deadline), **{f: getattr(program, f) for f in _FIELDS})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}  # vdplace as this process finds it
    child = subprocess.Popen(
        _child_command(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        out, _ = child.communicate(sent.getvalue(), timeout=max(0.0, deadline - time.time()) + GRACE_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return None
    if child.returncode != 0 or not out:
        return None
    got = np.load(io.BytesIO(out), allow_pickle=False)
    x = got["x"] if got["x"].size == program.cost.size else None
    fun, bound = float(got["fun"]), float(got["dual_bound"])
    return MilpAnswer(int(got["status"]), x, None if np.isnan(fun) else fun, None if np.isnan(bound) else bound)


def _child_command() -> list[str]:
    return [sys.executable, "-m", __name__]


_FIELDS = ("cost", "integer", "rows", "cols", "vals", "lo", "hi")


def _child_main() -> None:
    """The child: a program on stdin, HiGHS's answer on stdout (both ``np.savez`` archives)."""
    got = np.load(io.BytesIO(sys.stdin.buffer.read()), allow_pickle=False)
    program = MilpProgram(**{f: got[f] for f in _FIELDS})
    answer = _solve(program, float(got["deadline"]) - time.time())
    reply = io.BytesIO()
    np.savez(
        reply,
        status=np.array(answer.status),
        x=answer.x if answer.x is not None else np.zeros(0),
        fun=np.array(np.nan if answer.fun is None else answer.fun),
        dual_bound=np.array(np.nan if answer.dual_bound is None else answer.dual_bound),
    )
    sys.stdout.buffer.write(reply.getvalue())


if __name__ == "__main__":
    _child_main()
