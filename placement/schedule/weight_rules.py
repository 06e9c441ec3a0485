"""Start plans that fix the weights by a rule and place everything else by the cost objective's exact solver.

The plans people compare with (accelerate's device map, everything on the
host) fix where each *weight* lives; the ops then go where the cost
objective puts them.  Such a plan may keep most weights on the host and copy
each to the fast device while its op reads it (by liveness the copy is live
only then, so it fits a cap the weights alone would not).  For each pair
(a, b) of vdevices (a any vdevice but the host, b the host; every ordered
pair without a host), the weight units in parameter order
(`splits.weight_units`) are split at a *cut* c: the first c on a, the rest
on b.  The cuts, in this order:

* accelerate's fill at a's limit, raised: the most weights in order whose
  bytes fit the limit (`splits.accelerate_cut`); and literal: the most
  whose bytes fit the limit less the largest weight unit (accelerate keeps
  room for its largest layer);
* the same two fills at a's limit less the activations' headroom: the
  bytes of everything but the weights live on a at its peak when every unit
  that may go there runs there (`headroom`, one list schedule).  accelerate's
  ``max_memory`` budgets weights only, and its users give it the device's
  memory less that headroom, so this is the map they get;
* c = 0: every weight on b (the host);
* `SAMPLES` + 1 evenly spaced cuts from 0 to the raised cut (to all the
  weights without a limit).

For each cut, a copy of the coarsened `CostProblem` with every weight unit
that may go where the rule puts it fixed there (its other vdevices made
impossible: None in its ``compute`` row) and without memory limits is
solved by `cost.solve.solve_cost` (two vdevices: `mincut.solve_mincut`,
exact at any size; more: the backend within a small time, kept only when
proved optimal, so the same module gives the same plan).  For the cuts
that are not sampled, the plan accelerate itself runs is tried too: every
unit that may go on a runs there, the weights on b copied in as their
readers run (accelerate's hooks run a module mapped to the CPU on the main
GPU, its weights moved in for each call; docs/accelerate.md, "What
accelerate runs").  Each plan is then
judged by its list schedule with the limits (`search.evaluate`: bytes over
the limits first, then makespan), and the best goes on with the other start
plans (`solve.solve_time`).

*Fitting the limits.*  The cost objective knows no liveness, so its plan
may run on a capped vdevice more than fits there at once (two large weights
copied in for ops that run side by side).  A rule's plan over a limit is
then repaired, one step at a time (`fit`): at the peak of a vdevice over its
limit, the largest value live there that the rule does not fix there (a
weight copied in, an activation) is taken off it, its readers there (and
its own unit, when it was made there) moved to the rule's other vdevice b;
each step's list schedule is judged like any plan, and the best of the
plan and its steps is the rule's plan.  At most `REPAIR_STEPS` steps a
rule, each charged like the rule's own schedule.  So a rule that keeps
weights on the host and runs their ops on the capped vdevice also yields
the plan that runs there only what fits at once (accelerate's weights with
ops placed for the cap, where its own plan leaves the fast device idle).

Cost: accelerate's cuts and c = 0 of every pair come first and are always
tried, outside the search's budget of simulated op calls (a few solves and
list schedules: on a large program the budget holds only a few list
schedules, which the other start plans need).  The sampled cuts follow
while `SHARE` of that budget lasts (on a large program: none), each solve
charged `SOLVE_OPS` simulated op calls per op call, its list schedule one.
All stop when the wall clock says the next solve (as long as the last one
took; the first: as long as the cost objective's own plan took) would pass
`SHARE` of the time to the budget's deadline.
"""

from __future__ import annotations

import copy
import time

from vdplace.placement.cost.problem import CostProblem
from vdplace.placement.cost.solve import PlanBackend, solve_cost
from vdplace.placement.schedule.graph import TaskGraph
from vdplace.placement.schedule.liveness import stays
from vdplace.placement.schedule.search import Budget, Plan, evaluate, evaluate_streaming, fastest
from vdplace.placement.schedule.splits import accelerate_cut, weight_unit_bytes, weight_units

# Share of the search's budget (ops and time to its deadline) these plans may spend.
SHARE = 0.25
# Evenly spaced cuts beyond accelerate's and c = 0.
SAMPLES = 4
# A cost solve is charged as this many list schedules (a min cut takes a few times a list schedule).
SOLVE_OPS = 4
# The cost backend's seconds per solve on more than two vdevices.
SOLVE_SECONDS = 1.0
# Repair steps at most per rule whose plan is over a limit (`fit`).
REPAIR_STEPS = 24


def weight_rule_plans(
    g: TaskGraph,
    p: CostProblem,
    budget: Budget,
    backend: PlanBackend | str = "highs",
    propagate: bool = True,
    solve_s: float = 0.0,
) -> Plan | None:
    """The best plan of the weight rules (module docstring) within `SHARE` of `budget`; None when none was made.

    `p` is the coarsened problem `g` was built from (the same units); `solve_s` the seconds one cost solve
    of it is expected to take (the cost objective's plan's), until the first one here is timed.
    """
    if g.num_devices < 2 or g.num_units == 0:
        return None
    weights = weight_units(g)
    if not weights:
        return None
    start = time.perf_counter()
    share = budget.part(SHARE, min(budget.deadline, start + (budget.deadline - start) * SHARE))
    before = share.ops
    best: Plan | None = None
    seen: set[tuple[int, ...]] = set()
    last = solve_s  # seconds the last solve took
    for a, b, cut, sampled in _rules(g, weights, headroom(g)):
        fixed = {u: a if k < cut else b for k, u in enumerate(weights)}
        key = tuple(fixed[u] for u in weights)
        if key in seen:
            continue
        seen.add(key)
        if time.perf_counter() + last > share.deadline:
            share.cut_by_clock = True
            share.stop("weight rules")
            break
        if sampled and share.ops <= 0:
            share.stop("weight rules")
            break
        began = time.perf_counter()
        if sampled:
            share.spend(SOLVE_OPS * max(1, g.num_ops))
        by_cost = _ops_by_cost(p, fixed, min(SOLVE_SECONDS, max(0.01, share.deadline - began)), backend, propagate)
        last = time.perf_counter() - began
        plans = []
        if by_cost is not None:
            plan = evaluate_streaming(g, by_cost, share if sampled else None)
            if plan.excess > 0:
                plan = fit(g, plan, set(fixed), b, share if sampled else None, share.deadline)
            plans.append(plan)
        if not sampled:  # accelerate's own run: every op on a, the weights left on b copied in as read
            plans.append(evaluate_streaming(g, _accelerate_run(g, fixed, a)))
        for plan in plans:
            if best is None or plan.better_than(best):
                best = plan
    budget.spend(min(before, before - share.ops))
    if share.cut_by_clock:
        budget.cut_by_clock = True
    return best


def accelerate_runs(g: TaskGraph) -> list[list[int]]:
    """The placements of accelerate's own run for each rule that is not sampled (module docstring), in the
    rules' order, without repeats: every unit that may go on a runs there, the weights on b copied in as read."""
    weights = weight_units(g)
    if g.num_devices < 2 or not weights:
        return []
    out: dict[tuple[int, ...], list[int]] = {}
    for a, b, cut, sampled in _rules(g, weights, headroom(g)):
        if not sampled:
            placement = _accelerate_run(g, {u: a if k < cut else b for k, u in enumerate(weights)}, a)
            out.setdefault(tuple(placement), placement)
    return list(out.values())


def _accelerate_run(g: TaskGraph, fixed: dict[int, int], a: int) -> list[int]:
    """Each unit of `fixed` where it fixes it, every other on `a`; a unit that may not go there on its fastest."""
    runs = [fixed[u] if fixed.get(u) in g.allowed[u] else a for u in range(g.num_units)]
    return [d if d in g.allowed[u] else fastest(g, u) for u, d in enumerate(runs)]


def fit(g: TaskGraph, plan: Plan, fixed: set[int], b: int, budget: Budget | None, deadline: float) -> Plan:
    """The best of `plan` and its repair steps toward the limits (module docstring, "Fitting the limits").

    Units in `fixed` stay where `plan` has them; moved units go to `b`.  Each step's list schedule is
    charged to `budget` (None: not charged); no step starts after `deadline` (``time.perf_counter()``).
    """
    best = current = plan
    for _ in range(REPAIR_STEPS):
        if current.excess == 0 or time.perf_counter() >= deadline or (budget is not None and not budget.left):
            break
        moved = _off_peak(g, current, fixed, b)
        if not moved:
            break
        placement = list(current.placement)
        for u in moved:
            placement[u] = b
        current = evaluate(g, placement, budget)
        if current.better_than(best):
            best = current
    return best


def _off_peak(g: TaskGraph, plan: Plan, fixed: set[int], b: int) -> set[int]:
    """The units one repair step moves to `b`: for the first vdevice over its limit, those holding or reading
    there the largest value live at its peak that can leave (no unit of `fixed`); empty when none can."""
    placement = plan.placement
    for d, (peak, limit) in enumerate(zip(plan.peaks, g.limits, strict=True)):
        if d == b or limit is None or peak <= limit:
            continue
        on_d = [(v, start, end) for v, e, start, end in stays(g, plan.timing) if e == d and end > start]
        when = _peak_time(g, on_d)
        live = sorted({v for v, start, end in on_d if start <= when < end}, key=lambda v: (-g.val_bytes[v], v))
        for v in live:
            home = g.val_unit[v]
            readers = g.val_readers[v] + g.val_home_readers[v]
            units = {g.op_unit[i] for i in readers if placement[g.op_unit[i]] == d}
            if placement[home] == d:
                if home in fixed:
                    continue  # it stays there whatever runs where
                units.add(home)
            units = {u for u in units if u not in fixed and b in g.allowed[u]}
            if units:
                return units
    return set()


def _peak_time(g: TaskGraph, on_d: list[tuple[int, float, float]]) -> float:
    """The earliest instant at which the stays `on_d` of one vdevice hold the most bytes (ends before starts)."""
    points = [(start, g.val_bytes[v]) for v, start, _ in on_d] + [(end, -g.val_bytes[v]) for v, _, end in on_d]
    best, when, current = -1, 0.0, 0
    for t, delta in sorted(points):
        current += delta
        if current > best:
            best, when = current, t
    return when


def headroom(g: TaskGraph) -> list[int]:
    """Per vdevice with a limit (0 for the others): the bytes of everything but weights live there at its peak
    when every unit that may go there runs there, the rest on its fastest vdevice (one list schedule each)."""
    size = weight_unit_bytes(g)
    out = []
    for a in range(g.num_devices):
        if g.limits[a] is None:
            out.append(0)
            continue
        placement = [a if a in g.allowed[u] else fastest(g, u) for u in range(g.num_units)]
        plan = evaluate(g, placement)
        resident = sum(b for u, b in size.items() if placement[u] == a)
        out.append(max(0, plan.peaks[a] - resident))
    return out


def _rules(g: TaskGraph, weights: list[int], room: list[int]) -> list[tuple[int, int, int, bool]]:
    """``(a, b, cut, sampled)`` of every rule, in the order of the module docstring (duplicates left in):
    accelerate's cuts (at a's limit, and at it less `room[a]`) and c = 0 of every pair first, then the
    sampled cuts (`sampled` true)."""
    if g.host is not None:
        pairs = [(a, g.host) for a in range(g.num_devices) if a != g.host]
    else:
        pairs = [(a, b) for a in range(g.num_devices) for b in range(g.num_devices) if a != b]
    n = len(weights)
    first: list[tuple[int, int, int, bool]] = []
    then: list[tuple[int, int, int, bool]] = []
    for a, b in pairs:
        raised = accelerate_cut(g, weights, a)
        top = raised[0] if raised else n
        fills = raised + accelerate_cut(g, weights, a, reserve_largest=True)
        if room[a]:
            fills += accelerate_cut(g, weights, a, headroom=room[a])
            fills += accelerate_cut(g, weights, a, reserve_largest=True, headroom=room[a])
        first += [(a, b, c, False) for c in fills + [0]]
        then += [(a, b, round(k * top / SAMPLES), True) for k in range(SAMPLES + 1)]
    return first + then


def _ops_by_cost(
    p: CostProblem, fixed: dict[int, int], seconds: float, backend: PlanBackend | str, propagate: bool
) -> list[int] | None:
    """The cost objective's plan of `p` without limits, each unit of `fixed` on its vdevice where it may go;
    None when the solver is not deterministic there (not min cut, not proved optimal)."""
    q = copy.copy(p)
    q.limits = [None] * p.num_devices
    q.compute = list(p.compute)
    for u, d in fixed.items():
        row = p.compute[u]
        if row[d] is not None:
            q.compute[u] = [t if e == d else None for e, t in enumerate(row)]
    solution = solve_cost(q, seconds, backend, propagate)
    if solution.plan is None or not (solution.optimal or solution.method in ("trivial", "mincut")):
        return None
    return list(solution.plan)
