"""Placement search for large programs: start plans, then moves of groups of units, each list-scheduled.

A plan is judged by its list schedule (`list_scheduler.list_schedule`):
first by how many bytes its memory peaks exceed the limits by (0 fits),
then by its makespan.  The start plans are HEFT's (`list_scheduler.heft`),
every unit on each vdevice in turn where it may go (else on its fastest),
and whatever the caller adds (the cost objective's plans).  The best is then
improved by moving *groups*: the units of consecutive op calls in program
order, with the weights, constants and inputs that only they read, to
another vdevice where every one of them may go; a move is kept when it
makes the plan better.  A unit of a callee's parameters that the units of
several op calls read (`calls`: it decides where each call copies its
argument) is a group of its own, after its first reader's.  Groups start at a quarter of the ops and halve
until single units, as long as the budget lasts.

The budget is counted in simulated op calls (`Budget`), so the same module
and model give the same plan on any machine; the wall-clock deadline is a
safety net that stops the search early on a machine too slow for the
budget (the result then says so).
"""

from __future__ import annotations

import time

from vdplace.placement.schedule.graph import PASSED, TaskGraph
from vdplace.placement.schedule.list_scheduler import heft, list_schedule
from vdplace.placement.schedule.liveness import peak_bytes
from vdplace.placement.schedule.simulate import Timing

# Simulated op calls per second of time limit: a list schedule and its memory peaks run about 30-60 thousand
# op calls a second on the shared 2-core CI box, so the budget, not the clock, ends a search.
OPS_PER_SECOND = 15_000
REL_EPS = 1e-12


class Budget:
    """Simulated op calls left (`ops`) and a wall-clock `deadline` (``time.perf_counter()``).

    `stopped` maps a step that ended before it was done to why: ``"budget"`` (the op calls ran out: the
    same on every machine) or ``"clock"`` (the deadline passed: a machine slower than the budget assumes).
    The parts of a budget (`part`) report into the same mapping.
    """

    def __init__(self, ops: int, deadline: float, stopped: dict[str, str] | None = None) -> None:
        self.ops = ops
        self.deadline = deadline
        self.cut_by_clock = False
        self.stopped: dict[str, str] = {} if stopped is None else stopped

    def spend(self, ops: int) -> None:
        self.ops -= ops

    @property
    def left(self) -> bool:
        if self.ops <= 0:
            return False
        if time.perf_counter() >= self.deadline:
            self.cut_by_clock = True
            return False
        return True

    def part(self, share: float, deadline: float | None = None) -> Budget:
        """`share` of the op calls left, until `deadline` (this one's by default), reporting into `stopped`."""
        return Budget(max(1, int(self.ops * share)), self.deadline if deadline is None else deadline, self.stopped)

    def stop(self, step: str) -> None:
        """Record that `step` ended before it was done, and why (the first reason given stays)."""
        self.stopped.setdefault(step, "clock" if self.cut_by_clock else "budget")


class Plan:
    """A placement with its list schedule, memory peaks (bytes per vdevice) and `excess` over the limits."""

    __slots__ = ("placement", "timing", "peaks", "excess", "makespan", "copied")

    def __init__(self, g: TaskGraph, placement: list[int], timing: Timing) -> None:
        self.placement = placement
        self.timing = timing
        self.peaks = peak_bytes(g, timing)
        self.excess = sum(max(0, p - lim) for p, lim in zip(self.peaks, g.limits, strict=True) if lim is not None)
        self.makespan = timing.makespan
        # Bytes moved (copies and uploads of runtime inputs), then how many of those moves are uploads:
        # as the bytes objective counts them, an input moved off the host is the worse of two equal moves.
        uploads = [v for v, d in timing.copies if d == placement[g.val_unit[v]]]
        self.copied = (sum(g.val_bytes[v] for v, _ in timing.copies), len(uploads))

    def key(self) -> tuple[int, float]:
        return (self.excess, self.makespan)

    def better_than(self, other: Plan) -> bool:
        """Less over the limits; else a makespan shorter by more than `REL_EPS`; else, at a makespan equal
        within it, fewer bytes moved, then fewer uploads."""
        if self.excess != other.excess:
            return self.excess < other.excess
        if self.makespan < other.makespan * (1 - REL_EPS):
            return True
        return self.makespan <= other.makespan * (1 + REL_EPS) and self.copied < other.copied


def evaluate(g: TaskGraph, placement: list[int], budget: Budget | None = None) -> Plan:
    """The list schedule of `placement` as a `Plan`; its op calls are spent from `budget`."""
    if budget is not None:
        budget.spend(max(1, g.num_ops))
    return Plan(g, placement, list_schedule(g, placement))


def evaluate_streaming(g: TaskGraph, placement: list[int], budget: Budget | None = None) -> Plan:
    """`evaluate`, and where its copies, run as soon as they can, pass a memory limit, the best of that and
    the schedules with copies started late (`list_schedule`'s ``copies``: ``"late"``, then ``"on demand"``
    while still over), each charged: for plans that stream weights into a capped vdevice."""
    plan = evaluate(g, placement, budget)
    for copies in ("late", "on demand"):
        if plan.excess == 0:
            break
        if budget is not None:
            budget.spend(max(1, g.num_ops))
        later = Plan(g, placement, list_schedule(g, placement, copies))
        if later.better_than(plan):
            plan = later
    return plan


def start_plans(g: TaskGraph) -> list[list[int]]:
    """HEFT's plan, then every unit on each vdevice in turn (its fastest where it may not go there)."""
    plans = [heft(g)]
    best = [fastest(g, u) for u in range(g.num_units)]
    for d in range(g.num_devices):
        plans.append([d if d in g.allowed[u] else best[u] for u in range(g.num_units)])
    return plans


def fastest(g: TaskGraph, u: int) -> int:
    """The vdevice unit u may go on where its op calls take the least time in all (the first on ties)."""
    total = {d: 0.0 for d in g.allowed[u]}
    for i in g.unit_ops.get(u, ()):
        for d in total:
            total[d] += g.op_time[i][d] or 0.0
    return min(total, key=lambda d: (total[d], d))


def groups_in_order(g: TaskGraph) -> list[list[int]]:
    """Units in program order of their first op, each with the op-less units only it reads (module docstring)."""
    order: list[int] = []
    seen: set[int] = set()
    for u in g.op_unit:
        if u not in seen:
            seen.add(u)
            order.append(u)
    readers: dict[int, set[int]] = {}
    first: dict[int, int] = {}  # an op-less unit -> its first reader
    passed: set[int] = set()  # the op-less units holding values passed to a callee (`calls`)
    for v in range(g.num_values):
        u = g.val_unit[v]
        if u in seen:
            continue
        if g.val_kind[v] == PASSED:
            passed.add(u)
        for i in g.val_readers[v] + g.val_home_readers[v]:
            readers.setdefault(u, set()).add(g.op_unit[i])
            first[u] = min(first.get(u, i), i)
    attached: dict[int, list[int]] = {}
    alone: dict[int, list[int]] = {}  # a unit -> the passed values' units that are groups after its group
    for u, who in sorted(readers.items()):
        if len(who) == 1:
            attached.setdefault(next(iter(who)), []).append(u)
        elif u in passed:
            alone.setdefault(g.op_unit[first[u]], []).append(u)
    out: list[list[int]] = []
    for u in order:
        out.append([u, *attached.get(u, ())])
        out.extend([w] for w in alone.get(u, ()))
    return out


def search(g: TaskGraph, starts: list[list[int] | Plan], budget: Budget) -> Plan:
    """The best plan found from `starts` (placements, or plans judged already) and group moves within `budget`
    (module docstring).  Every plan judged already is compared; placements only while the budget lasts."""
    best: Plan | None = None
    for placement in starts:
        if isinstance(placement, Plan):
            plan = placement  # judged already: compared whatever the budget
        elif best is not None and not budget.left:
            budget.stop("start plans")
            continue
        else:
            plan = evaluate(g, placement, budget)
        if best is None or plan.better_than(best):
            best = plan
    assert best is not None
    units = groups_in_order(g)
    size = max(1, len(units) // 4)
    while units:
        if not budget.left:
            budget.stop("search")
            return best
        improved = False
        for first in range(0, len(units), size):
            block = [u for group in units[first : first + size] for u in group]
            for d in range(g.num_devices):
                moved = list(best.placement)
                for u in block:
                    if d in g.allowed[u]:
                        moved[u] = d
                if moved == best.placement:
                    continue
                if not budget.left:
                    budget.stop("search")
                    return best
                plan = evaluate(g, moved, budget)
                if plan.better_than(best):
                    best, improved = plan, True
        if size == 1 and not improved:
            break
        size = max(1, size // 2)
    return best
