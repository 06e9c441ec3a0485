"""The time objective's time limit: work counted from the program's size, the wall clock as a safety net.

``place(mod, objective=Time(...), time_limit_s=T)`` counts T from the start
of the call: extraction, coarsening, the task graph, the solver, and
writing, checking and ordering the placed module all come out of it
(`solve.solve_time` called alone counts T from its own start and leaves out
what comes before and after it).

What the solver does within T is decided in *counted work*, so the same
module, model and limit give the same plan on any machine:

* The *fixed* work, every step but the solver's optional ones, is estimated
  from the size of the task graph (`Allowance.fixed_seconds`): nominal
  seconds per op call and value (`BEFORE_S`, `GRAPH_S`, `LEAST_S`,
  `AFTER_S`, measured in CPU time on the 2-core development box at 100k
  bindings, rounded up).  The *least plan* is part of it: every unit on its
  fastest vdevice (`search.fastest`) and its list schedule, and the bound of
  work over devices (`bounds.subset_bound`, one pass over the ops).
* What the limit leaves past the fixed work (`Allowance.optional_s`) pays
  the optional steps: the critical-path bound (heads and tails, `BOUND_S` per
  task; without it the bound is the work over devices alone), then the
  search's budget of simulated op calls (`search.OPS_PER_SECOND` per second
  left), from which the cost objective's plans, the weight rules, the splits,
  HEFT's and the other start plans and the group moves are paid, in that
  order (`solve.solve_time`).  A step the budget cannot pay is not taken:
  with less than one list schedule's worth (the program's op calls), the
  least plan is the plan.
* The wall clock is a safety net (`Allowance.deadline`): the end of the
  limit less the time the steps after the solver are expected to take, at
  the pace measured so far (the wall time spent before the solver over its
  nominal estimate, at least 1).  It stops a step only on a machine slower
  than the nominal pace (a loaded one): the plan may then differ from an
  unloaded run's, and the result says which steps stopped and why
  (`TimeSolution.stopped`, `Schedule.stopped`: ``"budget"`` when the counted
  work ran out, the same on every machine; ``"clock"`` when the safety net
  stopped it).

When the fixed work alone is estimated past the limit, the least plan is
all the solver does, and a warning on the ``vdplace`` logger says so with
the estimate (`Allowance.warn_if_short`; deterministic, as the plan is): a
plan a few seconds late is worth more than none, and the limit the program
needs is in the message.  When the
call has run past the limit on the wall clock before the placed module is
written (a loaded machine), a second warning says by how much
(`Allowance.warn_if_late`).
"""

from __future__ import annotations

import logging
import time

from vdplace.placement.schedule.graph import TaskGraph

log = logging.getLogger(__name__)

# Nominal seconds per task (op call or value of the task graph) of each fixed step: extraction and
# coarsening (before the solver), the task graph, the least plan (every unit on its fastest vdevice, its list
# schedule, the bound of work over devices, the schedule's events), and after the solver: the plan written
# into the module and extracted again, realized, its schedule named and checked, its bindings ordered.
# CPU time at 100k bindings on the 2-core development box, each step's most over the chain, transformer and
# branchy families on 2 and 4 vdevices (8.7, 6.3, 8.4 and 19.4 us a task), rounded up; in all 27 us a task
# (chain, 2 vdevices) to 41 (transformer and branchy, 4 vdevices: their plans' 59-67k copies are most of the
# steps after).
BEFORE_S = 9e-6
GRAPH_S = 6.5e-6
LEAST_S = 8.5e-6
AFTER_S = 20e-6
# The critical-path bound (heads, and tails on small programs) per task at two vdevices; it grows as the
# number of vdevices to the power 1.5 (4.5 us at 2, 11.5 us at 4 measured).
BOUND_S = 4.5e-6
# Seconds always kept back on the wall clock; the pace is clamped to [1, MAX_PACE].
MARGIN_S = 0.25
MAX_PACE = 20.0


class Allowance:
    """The limit of one solve: `limit_s` seconds from `started` (``time.perf_counter()``); `whole` when they
    cover `place()`'s whole call (extraction to the ordered placed module), else the solver alone."""

    __slots__ = ("limit_s", "started", "whole", "pace")

    def __init__(self, limit_s: float, started: float, whole: bool) -> None:
        self.limit_s = limit_s
        self.started = started
        self.whole = whole
        self.pace = 1.0

    def fixed_seconds(self, g: TaskGraph) -> float:
        """Nominal seconds of the fixed work of `g` (module docstring): the least the limit must cover."""
        seconds = _tasks(g) * (GRAPH_S + LEAST_S)
        if self.whole:
            seconds += _tasks(g) * (BEFORE_S + AFTER_S)
        return seconds

    def bound_seconds(self, g: TaskGraph) -> float:
        """Nominal seconds of the critical-path bound."""
        return _tasks(g) * BOUND_S * (g.num_devices / 2) ** 1.5

    def optional_s(self, g: TaskGraph) -> float:
        """Seconds of the limit past the fixed work: what pays the optional steps (counted, deterministic)."""
        return max(0.0, self.limit_s - self.fixed_seconds(g))

    def measure_pace(self, g: TaskGraph) -> None:
        """The wall time spent so far (before the solver, and the task graph) over its nominal estimate."""
        nominal = _tasks(g) * (GRAPH_S + (BEFORE_S if self.whole else 0.0))
        spent = time.perf_counter() - self.started
        self.pace = min(MAX_PACE, max(1.0, spent / nominal)) if nominal > 0 else 1.0

    def deadline(self, g: TaskGraph) -> float:
        """The wall-clock safety net of the solver: the end of the limit less the steps after it, at `pace`."""
        after = _tasks(g) * (LEAST_S * 0.5 + (AFTER_S if self.whole else 0.0))  # the schedule's events, then after
        return self.started + self.limit_s - after * self.pace - MARGIN_S

    def fits_clock(self, seconds: float, deadline: float) -> bool:
        """Whether a step of `seconds` nominal seconds ends before `deadline` at the pace measured."""
        return time.perf_counter() + seconds * self.pace <= deadline

    def warn_if_short(self, g: TaskGraph) -> bool:
        """Warn when the fixed work alone is estimated past the limit (module docstring); whether it is."""
        need = self.fixed_seconds(g)
        if need <= self.limit_s:
            return False
        what = "place() with the time objective" if self.whole else "the time objective's solver"
        log.warning(
            "%s needs about %.2g s for this program (%d op calls, %d values, %d vdevices) before any search, "
            "more than time_limit_s=%g: it returns every unit on its fastest vdevice with the bound of work "
            "over devices, late; "
            "a limit of %.0f s or more leaves time to search",
            what,
            need,
            g.num_ops,
            g.num_values,
            g.num_devices,
            self.limit_s,
            need * 1.5 + 1,
        )
        return True

    def warn_if_late(self) -> float:
        """Warn when the wall clock is past the limit already (module docstring); the seconds past it."""
        past = time.perf_counter() - (self.started + self.limit_s)
        if past > 0:
            log.warning(
                "time_limit_s=%g is past by %.2g s before the placed module is written (a machine slower than "
                "the nominal pace: %.1fx); place() returns late",
                self.limit_s,
                past,
                self.pace,
            )
        return past


def _tasks(g: TaskGraph) -> int:
    return g.num_ops + g.num_values
