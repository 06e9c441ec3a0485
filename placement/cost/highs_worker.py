"""HiGHS (`scipy.optimize.milp`) on a program given as arrays: in this process, or as a script in a child.

`solve_arrays` is what `highs_process` calls in process.  Run as a script (``python highs_worker.py``),
it imports NumPy and SciPy alone (not vdplace), reads an ``np.savez`` archive of the `FIELDS` and a
``deadline`` (`time.time()` seconds) on standard input, and writes HiGHS's answer as another archive
(``status``, ``x``, ``fun``, ``dual_bound``; NaN and an empty ``x`` for none) on standard output.
"""

from __future__ import annotations

import io
import sys
import time

import numpy as np
from scipy.optimize import LinearConstraint, milp
from scipy.sparse import csr_array

FIELDS = ("cost", "integer", "rows", "cols", "vals", "lo", "hi")


def solve_arrays(
    cost: np.ndarray,
    integer: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    vals: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    seconds: float,
) -> tuple[int, np.ndarray | None, float | None, float | None]:
    """HiGHS's status, best x, its objective and its proved dual bound for ``min cost @ x``, ``0 <= x <= 1``,
    ``lo <= A x <= hi`` (``A`` as triplets), ``integer`` marking binary columns, within `seconds`."""
    n = cost.size
    matrix = csr_array((vals, (rows, cols)), shape=(lo.size, n))
    constraints = LinearConstraint(matrix, lo, hi) if lo.size else None
    res = milp(
        cost,
        integrality=integer,
        bounds=(np.zeros(n), np.ones(n)),
        constraints=constraints,
        options={"time_limit": max(seconds, 1e-3), "mip_rel_gap": 0.0},
    )
    x = None if res.x is None else np.asarray(res.x)
    fun = None if res.fun is None else float(res.fun)
    bound = getattr(res, "mip_dual_bound", None)
    return int(res.status), x, fun, None if bound is None else float(bound)


def _main() -> None:
    got = np.load(io.BytesIO(sys.stdin.buffer.read()), allow_pickle=False)
    cost, integer, rows, cols, vals, lo, hi = (got[f] for f in FIELDS)
    status, x, fun, bound = solve_arrays(cost, integer, rows, cols, vals, lo, hi, float(got["deadline"]) - time.time())
    reply = io.BytesIO()
    np.savez(
        reply,
        status=np.array(status),
        x=x if x is not None else np.zeros(0),
        fun=np.array(np.nan if fun is None else fun),
        dual_bound=np.array(np.nan if bound is None else bound),
    )
    sys.stdout.buffer.write(reply.getvalue())


if __name__ == "__main__":
    _main()
