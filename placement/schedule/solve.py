"""The front door of the time objective: a vdevice per unit and the schedule it runs, within a time limit.

1. The task graph (`graph.build_graph`) with the memory limits of the model
   and of `memory` (the lower of the two where both give one).
2. Proved lower bounds (`bounds`); a unit that no vdevice can hold under the
   limits makes them infeasible (proved).
3. Start plans (`starts`: the cost objective's plans, by `backend`, when its solver is
   deterministic, without the limits and with them as static limits; then
   `search.start_plans`: HEFT, every unit on each vdevice; then the best
   contiguous split, `splits.best_split`: the plans users get today,
   prefixes in program order and accelerate's rule; and the weight rules,
   `weight_rules.weight_rule_plans`: weights fixed by accelerate's fill, all
   on the host, or sampled cuts, the rest placed by the cost objective's
   exact solver),
   improved by group moves (`search.search`), each judged by its list
   schedule.  The budget (`deadline.Allowance`): the time limit less the
   fixed work estimated from the program's size, counted in simulated op
   calls; all of it for a large program, a tenth of it when CP-SAT follows
   (the splits may spend half of it).  When it cannot pay one list
   schedule, the *least plan* is the plan: every unit on its fastest
   vdevice, with the bound of work over devices (the critical-path bound
   too when what is left pays it).
4. Programs of at most `cpsat.MAX_OPS` op calls: first the best plan so
   far and accelerate's own runs (`weight_rules.accelerate_runs`, the best
   `ORDERED` by their list schedules), each ordered by CP-SAT with its
   placement fixed (`_ordered`: a list schedule under a memory limit can be
   far from a placement's best order, and these are the plans users compare
   with); then CP-SAT
   (`cpsat.solve_exact`) from the best plan so far, for the rest of the
   time: proved optimal, or its plan and proved bound.  With
   memory limits, a third of that time goes first to the program without
   them: its optimum bounds the limited one, and its plan is optimal when it
   fits the limits, as it is or with interchangeable vdevices renamed (two
   like GPUs of which only one is limited: `_best_renaming`).  Before CP-SAT,
   `RELAX_SHARE` of its time goes to the placement relaxation with whole
   placements (`lp_bound.integer_bound`): its bound is CP-SAT's floor, and its
   placement, scheduled (`_relaxed_plan`), CP-SAT's hint where it is better.

The result fits every limit, or is None with `infeasible` (proved: CP-SAT
or the bounds) or not (none found in time); `best` then holds the plan that
exceeds the limits least, which the conflict report describes.  The same
module, model and limit give the same plan: the search's budget counts
simulated op calls, CP-SAT runs one worker under a deterministic time limit;
the wall clock only stops a machine too slow for those, and `stopped` says
which steps it (``"clock"``) or the budget (``"budget"``) ended.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Mapping

from vdplace.placement.cost.model import CostModel
from vdplace.placement.cost.problem import Coarsened
from vdplace.placement.cost.solve import PlanBackend
from vdplace.placement.schedule import cpsat
from vdplace.placement.schedule.bounds import effective_allowed, heads_tails, lower_bound, serial_total, subset_bound
from vdplace.placement.schedule.deadline import Allowance
from vdplace.placement.schedule.events import OPTIMAL_TOLERANCE, Schedule
from vdplace.placement.schedule.graph import TaskGraph, build_graph
from vdplace.placement.schedule.lp_allowance import LPAllowance
from vdplace.placement.schedule.lp_bound import integer_bound
from vdplace.placement.schedule.search import (
    OPS_PER_SECOND,
    Budget,
    Plan,
    evaluate,
    evaluate_streaming,
    fastest,
)
from vdplace.placement.schedule.simulate import Timing, run_order
from vdplace.placement.schedule.starts import cost_seconds, limited_cost_plan, searched
from vdplace.placement.schedule.symmetry import renamed, renamings
from vdplace.placement.schedule.timeline import to_schedule
from vdplace.placement.schedule.weight_rules import accelerate_runs

# Share of the time limit for the placement search when CP-SAT follows.
SEARCH_SHARE = 0.1
# Share of CP-SAT's time for the program without its memory limits, when it has any.
FREE_SHARE = 1 / 3
# Share of the exact solver's time for the integer relaxation's bound (`lp_bound.integer_bound`) before it.
RELAX_SHARE = 0.2
# Share of the seconds left that a bound's linear programs may spend (`lp_allowance`).
LP_SHARE = 0.25
# The search's best and accelerate's runs ordered with their placement fixed (`_ordered`): the best, then at
# most `ORDERED` runs with two solves each, each under a CP-SAT limit of `ORDER_SHARE` of the exact solver's
# time, at most `ORDER_S` seconds, in steps of `ORDER_STEP_S`.  CP-SAT's deterministic limit ends such a solve
# in a third of its limit or less on the models of tests/models (0.1-0.7 s at 2 s), so the five take a third to
# a half of it; the rest is the free problem's.
ORDER_SHARE = 0.5
ORDERED = 2
ORDER_S = 2.0
ORDER_STEP_S = 0.25
# Seconds kept back from CP-SAT for reading its plan back (the steps after the solver: `deadline.Allowance`).
MARGIN_S = 0.25


class TimeSolution:
    """A plan for the time objective: `plan` (vdevice per unit, as `CostSolution.plan`) and its `schedule`.

    graph, timing   the task graph and the plan's timing (for naming copies and re-checking)
    optimal         proved optimal: makespan - lower_bound <= tolerance
    lower_bound     seconds no plan beats (proved)
    tolerance       `events.OPTIMAL_TOLERANCE` times the makespan, or CP-SAT's discretization error if larger
    method          ``"cp-sat"`` (the exact solver's plan) or ``"list"`` (list scheduling of the search's plan)
    status          ``"optimal"``, ``"time limit"``, ``"infeasible"`` (proved) or ``"unknown"`` (none found)
    best            when no plan fits: the `search.Plan` that exceeds the limits least (None if no plan)
    seconds         wall time spent
    stopped         the steps that ended before they were done, and why: ``"budget"`` (the counted work
                    the limit pays ran out) or ``"clock"`` (the wall-clock safety net; `deadline`)
    schedule        the plan's `Schedule` (its copies unnamed), made when first read; None without a plan
    """

    __slots__ = (
        "graph",
        "plan",
        "timing",
        "_schedule",
        "optimal",
        "lower_bound",
        "tolerance",
        "method",
        "status",
        "best",
        "seconds",
        "stopped",
    )

    def __init__(self, graph: TaskGraph) -> None:
        self.graph = graph
        self.plan: list[int] | None = None
        self.timing: Timing | None = None
        self._schedule: Schedule | None = None
        self.optimal = False
        self.lower_bound = 0.0
        self.tolerance = 0.0
        self.method = ""
        self.status = "unknown"
        self.best: Plan | None = None
        self.seconds = 0.0
        self.stopped: dict[str, str] = {}

    @property
    def infeasible(self) -> bool:
        return self.status == "infeasible"

    @property
    def schedule(self) -> Schedule | None:
        if self._schedule is None and self.timing is not None:
            self._schedule = self.make_schedule()
        return self._schedule

    def make_schedule(self, copy_names: dict[tuple[int, int], str] | None = None) -> Schedule:
        """The plan's `Schedule`, its copies named by `copy_names` where given."""
        assert self.timing is not None
        out = to_schedule(self.graph, self.timing, copy_names)
        out.lower_bound, out.optimal, out.tolerance = self.lower_bound, self.optimal, self.tolerance
        out.method, out.status, out.seconds = self.method, self.status, self.seconds
        out.stopped = dict(self.stopped)
        return out


def with_limits(g: TaskGraph, memory: Mapping[str, int | str] | None) -> None:
    """Lower `g.limits` to those of `memory` (vdevice name -> bytes or ``"2GiB"``) where they are lower, into
    `g.stated_limits` too; then drop from `g.limits` every limit of at least the bytes of all of `g`'s values
    together: a vdevice holds each value once at most (at home or as its copy), so no plan reaches it, and
    the solvers need not count bytes up to it (a limit of 2**63 bytes is past CP-SAT's integers)."""
    if memory:
        extra = CostModel(memory=memory)
        for d, v in enumerate(g.vdevices):
            lim = extra.limit(v, g.vdevices)
            if lim is not None and (g.limits[d] is None or lim < g.limits[d]):  # type: ignore[operator]
                g.limits[d] = lim
    g.stated_limits = list(g.limits)
    total = sum(g.val_bytes)
    g.limits = [None if lim is not None and lim >= total else lim for lim in g.limits]


def solve_time(
    co: Coarsened,
    model: CostModel,
    memory: Mapping[str, int | str] | None = None,
    time_limit_s: float = 60.0,
    exact: bool = True,
    backend: PlanBackend | str = "highs",
    propagate: bool = True,
    started: float | None = None,
) -> TimeSolution:
    """The best plan for the time objective within `time_limit_s` (module docstring).

    `exact=False` skips CP-SAT (the search's plan and the bounds only).  `backend` and `propagate`
    are those of the cost objective's plans the search starts from (`cost.solve.solve_cost`).
    `started`: the ``time.perf_counter()`` the limit counts from when it covers `place()`'s whole call
    (`deadline.Allowance`); None: the limit is this call's alone.
    `ValueError` for a limit that names no vdevice of the module.
    """
    if isinstance(time_limit_s, bool) or not (
        isinstance(time_limit_s, (int, float)) and math.isfinite(time_limit_s) and time_limit_s > 0
    ):
        raise ValueError(f"time_limit_s must be a positive number of seconds, not {time_limit_s!r}")
    start = time.perf_counter()
    allowance = Allowance(time_limit_s, start if started is None else started, started is not None)
    g = build_graph(co, model)
    with_limits(g, memory)
    out = TimeSolution(g)
    allowed = effective_allowed(g)
    if allowed is None:
        out.status = "infeasible"
        out.seconds = time.perf_counter() - start
        return out
    allowance.measure_pace(g)
    allowance.warn_if_short(g)
    end = allowance.deadline(g)
    free_s = allowance.optional_s(g)
    total = Budget(0, end, out.stopped)
    lower, free_s = _bound(g, allowed, allowance, free_s, total)
    total.ops = int(OPS_PER_SECOND * free_s)
    use_exact = exact and cpsat.applicable(g)
    share = SEARCH_SHARE if use_exact else 1.0
    limited = limited_cost_plan(co, g, total, cost_seconds(time_limit_s, end), backend, propagate)
    now = time.perf_counter()
    budget = total.part(share, min(end, now + (end - now) * share))
    if total.ops >= g.num_ops and budget.left:  # one list schedule paid: the start plans, as far as they go
        best = searched(co, g, budget, cost_seconds(time_limit_s, end), backend, propagate, limited)
    else:  # the least plan: every unit on its fastest vdevice
        budget.stop("start plans")
        budget.stop("search")
        best = evaluate(g, [fastest(g, u) for u in range(g.num_units)])
        if use_exact:
            budget.stop("cp-sat")
            use_exact = False
    if use_exact and time.perf_counter() >= end:  # nothing left of the limit for CP-SAT
        budget.cut_by_clock = True
        budget.stop("cp-sat")
        use_exact = False
    lower, free_s = _planned_bound(g, best, lower, free_s, total)
    chosen: tuple[list[int], Timing] | None = (best.placement, best.timing) if best.excess == 0 else None
    out.method = "list"
    slack = 0.0
    if use_exact:
        nominal = free_s * (1 - SEARCH_SHARE) - MARGIN_S  # counted: what the limit leaves past the search's share
        res, lower = _exact(g, allowed, lower, best, _Allotted(nominal, end + MARGIN_S, out.stopped))
        if res.status == "infeasible":
            out.status, out.best = "infeasible", best
            out.seconds = time.perf_counter() - start
            return out
        slack = res.slack
        if res.timing is not None and (chosen is None or res.timing.makespan <= chosen[1].makespan):
            assert res.placement is not None  # a timing comes with its placement
            chosen = (res.placement, res.timing)
            out.method = "cp-sat"
    out.seconds = time.perf_counter() - start
    if started is not None:
        allowance.warn_if_late()
    if chosen is None:
        out.best = best
        return out
    return _chosen(out, chosen, lower, slack)


def _chosen(out: TimeSolution, chosen: tuple[list[int], Timing], lower: float, slack: float) -> TimeSolution:
    """`out` with the plan `chosen`, its bound `lower` and whether it is optimal (up to the exact solver's
    discretization `slack`)."""
    out.plan, out.timing = chosen
    makespan = chosen[1].makespan
    out.lower_bound = min(lower, makespan)
    out.tolerance = max(OPTIMAL_TOLERANCE * makespan, slack)
    out.optimal = makespan - out.lower_bound <= out.tolerance
    out.status = "optimal" if out.optimal else "time limit"
    return out


def _bound(g: TaskGraph, allowed: list[list[int]], allowance: Allowance, free_s: float, total: Budget) -> tuple:
    """``(lower bound, seconds left)``: the bound of work over devices always (one pass), the bounds of
    `bounds.lower_bound` when `free_s` pays them and the clock allows (else `total` records "bound" stopped)."""
    lower = subset_bound(g, allowed)
    if free_s < allowance.bound_seconds(g):
        total.stop("bound")
    elif not allowance.fits_clock(allowance.bound_seconds(g), total.deadline):
        total.cut_by_clock = True
        total.stop("bound")
    else:
        free_s -= allowance.bound_seconds(g)
        lp = LPAllowance.share_of(free_s, LP_SHARE, total.deadline)
        lower = max(lower, lower_bound(g, lp=lp))
        free_s -= lp.spent
        total.cut_by_clock |= lp.record(total.stopped)
    return lower, free_s


def _planned_bound(g: TaskGraph, best: Plan, lower: float, free_s: float, total: Budget) -> tuple[float, float]:
    """``(lower bound, seconds left)``: with limits, `lower` raised by the relaxation of `lp_bound`, which needs a
    plan's makespan (`best`'s, where it fits them), unless the first bound was stopped."""
    if best.excess or all(lim is None for lim in g.limits) or "bound" in total.stopped:
        return lower, free_s
    lp = LPAllowance.share_of(free_s, LP_SHARE, total.deadline)
    lower = max(lower, lower_bound(g, best.makespan, lp))
    total.cut_by_clock |= lp.record(total.stopped)
    return lower, free_s - lp.spent


class _Allotted:
    """The exact solver's time: `nominal` seconds left, from the time limit and the counted work alone, which
    every CP-SAT search's deterministic limit is computed from and charged to by the deterministic time it
    took (`cpsat.nominal_seconds`), so the same program and limit run the same searches on every machine;
    and the wall-clock `deadline`, each search's safety net: a search it ended (`cpsat.clock_ended`) is
    recorded in `stopped` as ``"cp-sat": "clock"``."""

    def __init__(self, nominal: float, deadline: float, stopped: dict[str, str]) -> None:
        self.nominal = nominal
        self.deadline = deadline
        self.stopped = stopped

    @property
    def left(self) -> float:
        return max(0.05, self.nominal)

    @property
    def past(self) -> bool:
        """Whether the wall clock is past the deadline (less `MARGIN_S`): the safety net starts no more searches,
        whose models alone take seconds on many vdevices; each one left out is recorded as ended by the clock."""
        if time.perf_counter() < self.deadline - MARGIN_S:
            return False
        self.stopped["cp-sat"] = "clock"
        return True

    def wall(self, seconds: float | None = None) -> float:
        """The wall-clock limit of a search of `seconds` (twice that, within the deadline; the deadline alone
        for the last search, `seconds` None)."""
        until = self.deadline - time.perf_counter() - MARGIN_S
        return max(0.05, until if seconds is None else min(2 * seconds, until))

    def solve(
        self,
        g: TaskGraph,
        allowed: list[list[int]],
        lower: float,
        hint: tuple[list[int], Timing, bool] | None,
        seconds: float | None,
        ht: tuple[list[dict[int, float]], list[dict[int, float]]],
    ) -> cpsat.ExactResult:
        """`cpsat.solve_exact` for `seconds` (the rest when None), charged, a clock's end recorded."""
        if self.past:
            return cpsat.ExactResult("unknown", 0.0, 0.0, 0)
        limit = self.left if seconds is None else seconds
        res = cpsat.solve_exact(g, allowed, lower, hint, limit, ht, self.wall(seconds))
        self.charge(cpsat.nominal_seconds(res.units), res.clock)
        return res

    def charge(self, seconds: float, clock: bool) -> None:
        """Count a search that took `seconds` of the nominal time; `clock`: the wall clock ended it."""
        self.nominal -= seconds
        if clock:
            self.stopped["cp-sat"] = "clock"


def _exact(g: TaskGraph, allowed: list[list[int]], lower: float, best: Plan, clock: _Allotted) -> tuple:
    """CP-SAT's result and the best lower bound (module docstring, step 4) within `clock`; with limits, first
    without them.

    The program without its limits is a relaxation: its optimum bounds the limited one, and when
    its optimal plan fits the limits it is optimal with them.
    """
    best = _ordered(g, best, accelerate_runs(g), clock)
    if any(lim is not None for lim in g.limits):
        free = copy.copy(g)
        free.limits = [None] * g.num_devices
        free_allowed = [list(a) for a in free.allowed]
        hint = (best.placement, best.timing, True)
        ht_free = heads_tails(free, free_allowed)
        share = clock.left * LP_SHARE
        lp = LPAllowance(share, time.perf_counter() + clock.wall(share))
        free_lower = lower_bound(free, lp=lp)
        clock.charge(lp.spent, lp.clocked)
        res = clock.solve(free, free_allowed, free_lower, hint, clock.left * FREE_SHARE, ht_free)
        if cpsat.relay_possible(free, free_allowed):
            _distrust(res, free)
        lower = max(lower, res.bound)
        if res.timing is not None and res.placement is not None:
            relaxed = _best_renaming(g, free, free_allowed, res.placement, res.timing)
            if relaxed.excess == 0 and res.status == "optimal":
                res.placement, res.timing = relaxed.placement, relaxed.timing
                res.bound = lower
                return res, lower
            if relaxed.better_than(best):
                best = relaxed
    ht = heads_tails(g, allowed)
    upper = best.makespan if best.excess == 0 else None
    if upper is None and all(lim is None for lim in g.limits):
        upper = serial_total(g, allowed)
    if upper is not None and lower < upper * (1 - OPTIMAL_TOLERANCE) and not clock.past:
        share = clock.left * RELAX_SHARE
        integer = integer_bound(g, allowed, ht, upper, share, clock.wall(share))
        clock.charge(integer.counted, integer.clock)
        lower = max(lower, integer.bound)
        if integer.placement is not None and lower < best.makespan * (1 - OPTIMAL_TOLERANCE):
            best = _relaxed_plan(g, integer.placement, best, share / 2, clock)
    res = clock.solve(g, allowed, lower, (best.placement, best.timing, best.excess == 0), None, ht)
    if best.excess == 0 and (res.timing is None or best.makespan < res.timing.makespan):
        res.placement, res.timing = best.placement, best.timing  # the relaxation's plan (CP-SAT's hint)
    if cpsat.relay_possible(g, allowed):
        _distrust(res, g)
    return res, max(lower, res.bound)


def _relaxed_plan(g: TaskGraph, placement: list[int], best: Plan, seconds: float, clock: _Allotted) -> Plan:
    """The better of `best` and the relaxation's placement, scheduled: by its list schedule, and with memory
    limits, by CP-SAT with the placement fixed for at most `seconds` (it may delay copies that the list
    schedule runs early and holds too long)."""
    plan = evaluate(g, placement)
    if plan.better_than(best):
        best = plan
    if any(lim is not None for lim in g.limits):
        best = _fixed_order(g, placement, best, seconds, clock)
    return best


def _ordered(g: TaskGraph, best: Plan, placements: list[list[int]], clock: _Allotted) -> Plan:
    """The best of `best` and `placements`, each timed by its list schedules (`search.evaluate_streaming`),
    and ordered by CP-SAT with the placement fixed: `best` from its order (where it fits the limits), then
    the best `ORDERED` of `placements` by their timing twice, from the list schedule's order and from none
    (each finds orders the other misses: on the scaled attention and Llama block one each).  Each solve's
    limit is `ORDER_SHARE` of `clock`'s nominal seconds left when the step starts, at most `ORDER_S` and at
    most what is left, rounded down to a multiple of `ORDER_STEP_S`; none below one step.

    A list schedule orders the ops by rank and its copies by one rule, which under a memory limit can leave
    a placement far slower than its best order (accelerate's own run of a Llama block: 0.87 ms listed, 0.62
    ms ordered), and the search judges placements by it.  So its best and the placements users compare with
    (`weight_rules.accelerate_runs`) are ordered here before CP-SAT starts on the free problem.
    """
    plans = sorted((evaluate_streaming(g, p) for p in {tuple(p): p for p in placements}.values()), key=Plan.key)
    solves: list[tuple[Plan, Plan | None]] = [(best, best)] if best.excess == 0 else []
    solves += [(plan, hint) for plan in plans[:ORDERED] for hint in (plan, None)]
    seconds = clock.left * ORDER_SHARE
    for plan, hint in solves:
        if plan.better_than(best):
            best = plan
        each = math.floor(min(seconds, ORDER_S, clock.nominal) / ORDER_STEP_S) * ORDER_STEP_S
        if each >= ORDER_STEP_S:
            best = _fixed_order(g, plan.placement, best, each, clock, hint)
    return best


def _fixed_order(
    g: TaskGraph,
    placement: list[int],
    best: Plan,
    seconds: float,
    clock: _Allotted,
    hint: Plan | None = None,
) -> Plan:
    """The better of `best` and `placement` ordered by CP-SAT within `seconds` of `clock` (none below 0.05 s),
    from the order of `hint` (a `Plan` of `placement` that fits the limits) where given."""
    if seconds <= 0.05:
        return best
    fixed = [[d] for d in placement]
    start = None if hint is None or hint.excess else (hint.placement, hint.timing, True)
    res = clock.solve(g, fixed, 0.0, start, seconds, heads_tails(g, fixed))
    if res.timing is not None and res.placement is not None and not cpsat.relay_possible(g, fixed):
        scheduled = Plan(g, res.placement, res.timing)
        if scheduled.better_than(best):
            best = scheduled
    return best


def _distrust(res: cpsat.ExactResult, g: TaskGraph) -> None:
    """`res` of a program where a copy may come from another copy (`cpsat.relay_possible`), which CP-SAT's
    model does not see: its plan, re-timed with the relay, is kept only where it fits the limits, and its
    bound, optimality and infeasibility prove nothing."""
    res.bound = 0.0
    if res.status == "infeasible":
        res.status = "unknown"
    elif res.status == "optimal":
        res.status = "feasible"
    if res.placement is not None and res.timing is not None and Plan(g, res.placement, res.timing).excess > 0:
        res.placement = res.timing = None


def _best_renaming(
    g: TaskGraph, free: TaskGraph, free_allowed: list[list[int]], placement: list[int], timing: Timing
) -> Plan:
    """A plan of `free` (`g` without its limits) renamed within free's classes of interchangeable vdevices
    (`symmetry.renamings`: in `g` they may differ in their limits) to fit `g`'s limits best; each renaming runs
    as fast."""
    best: Plan | None = None
    for rename in renamings(free, free_allowed):
        moved, order = renamed(placement, timing.order, rename)
        plan = Plan(g, moved, run_order(g, moved, order, None))
        if best is None or plan.better_than(best):
            best = plan
    assert best is not None  # the identity is always tried
    return best


def evaluate_plan(co: Coarsened, model: CostModel, plan: list[int]) -> Plan:
    """The list schedule of a given plan (a vdevice per unit), e.g. the cost objective's, as a `search.Plan`."""
    return evaluate(build_graph(co, model), plan)
