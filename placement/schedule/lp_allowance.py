"""What the linear relaxations of the bounds may spend (`bounds.energy_bound`, `lp_bound.relaxation_bound`).

HiGHS's time on these programs grows with their nonzeros, which grow with
the square of the vdevices and more: on the corpus's GRU with 9 vdevices one
relaxation with a plan's makespan as its upper bound took 8 s, where on 2 it
takes 0.05 s, and a call with a 5 s limit ran 20 s.  So each solve is
charged, before it runs, `SECONDS_PER_NONZERO` nominal seconds a nonzero of
its rows (the same on every machine: one that would pass what is `left` is
left out), and HiGHS's own time limit ends it at the wall-clock `until` (the
safety net: only there can a run's bound differ from another's).  A
relaxation left out or ended proves nothing: its bound is 0.
"""

from __future__ import annotations

import math
import time
from typing import Any

# Nominal seconds a nonzero of a relaxation's rows costs, its rows built and HiGHS's solve: 0.8-0.9 us on the
# idle 2-core box for the corpus's BERT and GRU on 2 to 9 vdevices with the search's upper bound (41k-1.1M
# nonzeros), doubled for a loaded box; a plan's makespan as the bound can take several times that, which the
# wall clock then ends.
SECONDS_PER_NONZERO = 2e-6


class LPAllowance:
    """`left`: nominal seconds the relaxations may still be charged; `until`: the wall-clock end of their
    solves (a ``time.perf_counter()``, None for none).  `spent` is what was charged; `skipped` whether one
    was left out for want of `left`, `clocked` whether HiGHS's time limit ended one."""

    def __init__(self, left: float = math.inf, until: float | None = None) -> None:
        self.left = left
        self.until = until
        self.spent = 0.0
        self.skipped = False
        self.clocked = False

    @classmethod
    def share_of(cls, seconds: float, share: float, deadline: float) -> LPAllowance:
        """`share` of `seconds` counted, twice that on the wall clock, within `deadline` (``time.perf_counter()``)."""
        part = seconds * share
        return cls(part, min(deadline, time.perf_counter() + 2 * part))

    def record(self, stopped: dict[str, str]) -> bool:
        """Note in `stopped` (as ``"bound"``) a solve left out (``"budget"``) or ended by the clock (``"clock"``);
        whether the clock ended one."""
        if self.clocked:
            stopped["bound"] = "clock"
        elif self.skipped:
            stopped.setdefault("bound", "budget")
        return self.clocked

    def in_time(self) -> bool:
        """Whether the wall clock is before `until` (building a relaxation's rows takes seconds on many vdevices);
        if not, the relaxation is left out (`skipped`)."""
        if self.until is not None and time.perf_counter() >= self.until:
            self.skipped = True
            return False
        return True

    def admits(self, nonzeros: int) -> bool:
        """Charge a solve of `nonzeros` if `left` pays it and the clock has not passed `until`; else leave it out."""
        cost = nonzeros * SECONDS_PER_NONZERO
        if not self.in_time():
            return False
        if cost > self.left:
            self.skipped = True
            return False
        self.left -= cost
        self.spent += cost
        return True

    def options(self) -> dict[str, Any]:
        """`scipy.optimize.linprog`'s options for HiGHS: its time limit at `until`."""
        if self.until is None:
            return {}
        return {"time_limit": max(0.01, self.until - time.perf_counter())}

    def ended(self, status: int) -> None:
        """Note a solve that `linprog` ended with `status`: 1 is its iteration or time limit."""
        if status == 1:
            self.clocked = True
