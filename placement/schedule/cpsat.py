"""The exact solver: placement and order together, as one OR-Tools CP-SAT model.

Every unit has one Boolean per vdevice it may go on (exactly one true).
Every op is an optional interval on each of those vdevices, with one start
variable; the intervals of each physical device (all its vdevices, which are
memory scopes of it) do not overlap.  A value read on a vdevice other than
its home has a copy there (a Boolean true exactly when some reader's unit is
on that vdevice and the home is not); the copy is one optional interval per
possible source (the home's vdevice) on that link, and the links' intervals
do not overlap (a copy between two scopes of one physical device takes no
link, and no time); a runtime input placed off the host has an upload the
same way.  A copy's sender's share (`CostModel.send`, where not 0) is one
more optional interval with the copy's start and presence, on its source's
physical device, in that device's no-overlap with its ops.
Interchangeable vdevices are told apart by value precedence
(`_Model._symmetry`).  An op starts after each operand is at its home and,
when it reads a copy, after the copy.  Memory limits: `cpsat_memory`;
redundant constraints that help the bound: `cpsat_redundant`.

Exactness.  CP-SAT works in integers: the time unit `q` is a power of two
seconds, so that every ``k * q`` is exact in floating point, and every
duration is rounded *up* to whole units, ``D = ceil(d / q)``.  So:

* the plan is feasible in real time: started where CP-SAT starts them, tasks
  end no later than CP-SAT's ends, every stay shrinks, and no limit breaks.
  Without limits the plan is then re-timed in floats, in CP-SAT's order per
  vdevice and link (`simulate.run_order`), which only moves tasks earlier;
* CP-SAT's proved bound `B` (its optimum when it proves one) bounds the real
  optimum: T* >= (B - N - 1) * q, N the number of tasks.  Any real schedule
  maps to an integer one whose makespan is at most T*/q + N + 1 (start each
  task at ``ceil(s / q)`` plus the number of positive-length tasks on the
  longest chain of "must follow" relations ending at it: each positive task
  gains at most one unit from rounding, a copy's sender's share, which
  starts with the copy and is no longer, with it; stays that are disjoint stay
  disjoint, so by Helly's property for intervals every set of stays live at
  one integer time was live at one real time).

`q` is chosen so that (N + 1) * q is at most a quarter of the optimality
tolerance (`events.OPTIMAL_TOLERANCE`) times the best known lower bound,
unless the horizon would pass `MAX_UNITS` (2^30) units: larger coefficients
made CP-SAT's presolve lose the optimum.  The discretization error
`ExactResult.slack` = (N + 1) * q is then what optimality is claimed up to
(`Schedule.tolerance`); on the models of tests/models it is about 1e-6 of the
makespan.  The search is deterministic (interleaved workers, a
deterministic time limit); the wall-clock limit is a safety net.

Long because: one CP-SAT model's variables, constraints, symmetry, hint and
plan read back share its index tables, and split apart they would pass them
all around.
"""

from __future__ import annotations

import copy
import math
import time
from typing import Any

from vdplace.placement.errors import PlacementInternalError
from vdplace.placement.schedule.cpsat_memory import add_memory
from vdplace.placement.schedule.cpsat_redundant import add_heads_tails, add_knapsacks, add_link_work
from vdplace.placement.schedule.events import OPTIMAL_TOLERANCE
from vdplace.placement.schedule.graph import INPUT, OP, PASSED, TaskGraph
from vdplace.placement.schedule.simulate import (
    Timing,
    ready_order,
    relays,
    required_copies,
    run_order,
    send_seconds,
)
from vdplace.placement.schedule.symmetry import renamed, symmetric_classes, unit_order

# Programs with more op calls than this are left to the placement search (docs/schedule.md).
MAX_OPS = 300
# Under memory limits, programs whose values' bytes add up to more than this (1 PiB) are left to the search
# too: the reservoirs and knapsacks sum bytes in CP-SAT's 64-bit integers.
MAX_BYTES = 1 << 50
# The horizon in units stays below this: CP-SAT's presolve lost the optimum of a 5-op program once its
# horizon reached 2e10 units with the redundant constraints in (tests/placement/test_schedule.py found it).
MAX_UNITS = 2**30
# CP-SAT's search: two workers taking turns in one thread, one task at a time (deterministic; with the default
# batch, OR-Tools 9.15 sometimes ran on to the time limit after proving the optimum), stopped by CP-SAT's
# deterministic clock (`deterministic_units`): `DETERMINISTIC_PER_SECOND` units per second of the first
# `STARTUP_S` seconds of the limit, `LONG_PER_SECOND` of the rest.  On the shared 2-core box (load about 2)
# CP-SAT does 0.09-0.2 units a second in a solve of a few seconds, most of it spent loading its subsolvers,
# and 0.24-0.5 in solves of 18-54 s on the models of tests/models; at 0.1 throughout, the 60 s limit ended
# bert's, transformer_encoder's and onnx_shape_ops's (cuda:0 capped) searches 20-40 s early, unproved, all three
# proved since.  Where the wall clock ends a search first, `Schedule.stopped` says so (``"cp-sat": "clock"``).
WORKERS = 2
DETERMINISTIC_PER_SECOND = 0.1
STARTUP_S = 10.0
LONG_PER_SECOND = 0.3
# Subsolvers left out: they spend far more wall time per deterministic unit than the others, most of all with a
# reservoir in the model (onnx_shape_ops with cuda:0 capped: `fixed` 53.6 s for 0.52 units, `reduced_costs` 20 s
# for 1.0, the others 0.2-0.5 units a second, so in a 60 s limit the rest got 2 units); without limits too, gru on
# 3 vdevices and bert on 2 were proved in 24 s and 35 s without them, left at gaps of 14.5% and 4.5% in 60 s
# with them (docs/schedule.md, "Benchmarks").
SLOW_SUBSOLVERS = ("fixed", "reduced_costs")
# Reservoirs of at most this many events in all are expanded into Booleans (see solve_exact).
EXPAND_EVENTS = 40
# At most this share of the time limit goes to the second phase (`cpsat_bytes`).
FEWEST_BYTES_SHARE = 0.25


class ExactResult:
    """CP-SAT's answer: `status` (``"optimal"``, ``"feasible"``, ``"infeasible"``, ``"unknown"``),
    the plan (`placement`, real `timing`) when one was found, the proved lower `bound` in seconds, and
    whether the wall clock ended the search before its deterministic limit (`clock`, `clock_ended`), and the
    deterministic time its searches took (`units`: the same on every machine where `clock` is False)."""

    __slots__ = ("status", "placement", "timing", "bound", "unit", "tasks", "clock", "units")

    @property
    def slack(self) -> float:
        """The discretization error: the real optimum is within this many seconds of CP-SAT's, times the unit."""
        return (self.tasks + 1) * self.unit

    def __init__(self, status: str, bound: float, unit: float, tasks: int) -> None:
        self.status = status
        self.placement: list[int] | None = None
        self.timing: Timing | None = None
        self.bound = bound
        self.unit = unit
        self.tasks = tasks
        self.clock = False
        self.units = 0.0


def applicable(g: TaskGraph) -> bool:
    """CP-SAT is used for at most `MAX_OPS` op calls, and under memory limits for at most `MAX_BYTES` in all."""
    if g.num_ops > MAX_OPS:
        return False
    return all(lim is None for lim in g.limits) or sum(g.val_bytes) + sum(lim or 0 for lim in g.limits) <= MAX_BYTES


def relay_possible(g: TaskGraph, allowed: list[list[int]]) -> bool:
    """Whether some plan copies a value from one of its copies (`simulate.relays`): two vdevices of one
    physical device, neither the value's home, may read it.  This model copies every value from its home, so
    for such a program its plans are re-timed (the relay) but its bound and infeasibility prove nothing."""
    outputs: dict[int, list[int]] = {}
    for v, unit in g.outputs:
        outputs.setdefault(v, []).append(unit)
    for v in range(g.num_values):
        dests = {d for u in (*g.val_users[v], *outputs.get(v, ())) for d in allowed[u]}
        by_physical: dict[int, set[int]] = {}
        for d in dests:
            by_physical.setdefault(g.physical[d], set()).add(d)
        for same in by_physical.values():
            if len(same) >= 2 and any(len(same - {h}) >= 2 for h in allowed[g.val_unit[v]]):
                return True
    return False


def solve_exact(
    g: TaskGraph,
    allowed: list[list[int]],
    lower: float,
    hint: tuple[list[int], Timing, bool] | None,
    seconds: float,
    heads_tails: tuple[list[dict[int, float]], list[dict[int, float]]] | None = None,
    wall_s: float | None = None,
) -> ExactResult:
    """The best plan and proved bound CP-SAT finds within `seconds` (module docstring): its deterministic
    limit is `deterministic_units(seconds)`, its wall-clock limit `wall_s` from now, the model's build
    included (`seconds` when None).

    `allowed`: the vdevices per unit (`bounds.effective_allowed`); `lower`: a proved lower bound in
    seconds; `hint`: (placement, timing, fits the limits) of a plan to start from; `heads_tails`:
    `bounds.heads_tails`, added as redundant constraints (each op's start and what follows its end,
    and every stream's work past each head level).
    """
    from ortools.sat.python import cp_model

    from vdplace.placement.schedule.cpsat_bytes import fewest_bytes

    end = time.perf_counter() + (seconds if wall_s is None else wall_s)
    model = _Model(g, allowed, lower, hint)
    if heads_tails is not None:
        add_heads_tails(model, *heads_tails)
        add_link_work(model, heads_tails[0], end)
    add_knapsacks(model)
    started = time.perf_counter()
    wall = end - started
    if wall <= 0:  # the model's build took the wall clock's time
        out = ExactResult("unknown", 0.0, model.q, model.n_tasks)
        out.clock = True
        return out
    solver = configured_solver(model, seconds, wall)
    status = solver.solve(model.m)
    q, n = model.q, model.n_tasks
    if status == cp_model.INFEASIBLE:
        out = ExactResult("infeasible", math.inf, q, n)
        out.units = units_taken(solver)
        return out
    bound = max(0.0, (solver.best_objective_bound - n - 1) * q)
    out = ExactResult({cp_model.OPTIMAL: "optimal", cp_model.FEASIBLE: "feasible"}.get(status, "unknown"), bound, q, n)
    out.clock = clock_ended(solver, status)
    out.units = units_taken(solver)
    if out.status == "unknown":
        return out
    if status == cp_model.OPTIMAL:
        share = seconds * FEWEST_BYTES_SHARE
        second = fewest_bytes(model, solver, share, min(share, wall - (time.perf_counter() - started)))
        if second is not None:
            solver, status = second
            out.clock = clock_ended(solver, status)
            out.units += units_taken(solver)
    out.placement, out.timing = model.plan(solver)
    return out


def configured_solver(model: _Model, seconds: float, wall_s: float) -> Any:
    """A CP-SAT solver set up for `model` and a search of `seconds` (deterministic: see `WORKERS`), stopped by
    the wall clock at `wall_s`."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = WORKERS
    params.interleave_search = True  # the workers take turns in one thread: deterministic
    params.interleave_batch_size = 1
    params.random_seed = 0
    # Memory: CP-SAT's own reservoir propagator, unless the reservoirs are small.  Expanded into a Boolean per
    # pair of events, an 11-op model took CP-SAT's whole time in presolve; not expanded, CP-SAT proved far less
    # on 2-op programs (10 s against 0.1 s).
    params.expand_reservoir_constraints = model.events <= EXPAND_EVENTS
    params.ignore_subsolvers.extend(SLOW_SUBSOLVERS)
    params.max_time_in_seconds = max(0.05, wall_s)
    params.max_deterministic_time = deterministic_units(seconds)
    return solver


def deterministic_units(seconds: float) -> float:
    """CP-SAT's deterministic limit for a search of `seconds` (see `DETERMINISTIC_PER_SECOND`)."""
    units = min(seconds, STARTUP_S) * DETERMINISTIC_PER_SECOND + max(0.0, seconds - STARTUP_S) * LONG_PER_SECOND
    return max(0.01, units)


def units_taken(solver: Any) -> float:
    """The deterministic time `solver`'s last search took (from its response: OR-Tools 9.10 has no
    `CpSolver.deterministic_time`)."""
    return float(solver.response_proto.deterministic_time)


def nominal_seconds(units: float) -> float:
    """The seconds of a search whose deterministic limit is `units` (the inverse of `deterministic_units`):
    what a search that took `units` counts against the time limit, the same on every machine."""
    startup = STARTUP_S * DETERMINISTIC_PER_SECOND
    if units <= startup:
        return units / DETERMINISTIC_PER_SECOND
    return STARTUP_S + (units - startup) / LONG_PER_SECOND


def clock_ended(solver: Any, status: Any) -> bool:
    """Whether the wall clock, not the deterministic limit, ended `solver`'s search (that returned `status`)
    unproved and unrefuted: where it did, the same model may end elsewhere on another run."""
    from ortools.sat.python import cp_model

    params = solver.parameters
    unfinished = status not in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
    return unfinished and units_taken(solver) < params.max_deterministic_time * 0.99


class _Model:
    """The CP-SAT model of one task graph (module docstring), and the plan read back from a solution."""

    def __init__(self, g: TaskGraph, allowed: list[list[int]], lower: float, hint: Any) -> None:
        from ortools.sat.python import cp_model

        self.g = g
        self.allowed = allowed
        self.m = m = cp_model.CpModel()
        dests = [self._dests(v) for v in range(g.num_values)]
        self.n_tasks = g.num_ops + sum(len(d) for d in dests) + g.num_values
        total = self._serial_total(dests)
        self.q = q = _unit(total, lower, self.n_tasks)
        fits = hint is not None and hint[2]
        horizon = _ceil(total, q) + self.n_tasks + 2
        if fits:
            horizon = min(horizon, _ceil(hint[1].makespan, q) + self.n_tasks + 2)
        self.horizon = horizon
        # The real optimum is at least `lower`, so CP-SAT's is at least lower / q, less the rounding margin.
        floor = min(horizon, max(0, _ceil(lower, q) - self.n_tasks - 1)) if math.isfinite(lower) else 0
        self.makespan = m.new_int_var(floor, horizon, "M")
        self.x = [{d: m.new_bool_var(f"x{u}_{d}") for d in allowed[u]} for u in range(g.num_units)]
        for row in self.x:
            m.add_exactly_one(row.values())
        self.true: Any = None
        self.events = 0  # reservoir events
        self.dev_iv: dict[int, list[Any]] = {}  # per physical device (its first vdevice): its ops
        self.link_iv: dict[tuple[int, int], list[Any]] = {}
        self.link_items: dict[tuple[int, int], list[tuple[int, Any, int, int]]] = {}  # (size, lit, src, value)
        self._ops()
        self._values(dests)
        for ivs in self.dev_iv.values():
            if len(ivs) > 1:
                m.add_no_overlap(ivs)
        for ivs in self.link_iv.values():
            if len(ivs) > 1:
                m.add_no_overlap(ivs)
        if any(lim is not None for lim in g.limits):
            add_memory(self)
        self.classes = symmetric_classes(g, allowed)
        self.order = unit_order(g)
        self.seen: list[tuple[Any, int, list[int]]] = []
        self._symmetry()
        m.minimize(self.makespan)
        if hint is not None:
            self._hint(hint[0], hint[1])

    # -- sizes -----------------------------------------------------------------
    def _dests(self, v: int) -> list[int]:
        """The vdevices value v may be copied to: where a user (or an output's unit) may go."""
        g = self.g
        units = set(g.val_users[v]) | {o for w, o in g.outputs if w == v and o != g.val_unit[v]}
        return sorted({d for u in units for d in self.allowed[u]})

    def _serial_total(self, dests: list[list[int]]) -> float:
        """Every op and every possible copy and upload at its slowest, one after another."""
        g, total = self.g, 0.0
        for i in range(g.num_ops):
            total += max((g.op_time[i][d] or 0.0) for d in self.allowed[g.op_unit[i]])
        for v in range(g.num_values):
            table, homes = g.val_copy[v], self.allowed[g.val_unit[v]]
            if table is not None:
                total += sum(max(table[h][d] for h in homes) for d in dests[v])
            if g.val_upload[v] is not None:
                total += max(g.val_upload[v][h] for h in homes)  # type: ignore[index]
        return total

    def dur(self, seconds: float | None) -> int:
        return _ceil(seconds or 0.0, self.q)

    # -- ops and values --------------------------------------------------------
    def _ops(self) -> None:
        g, m = self.g, self.m
        self.s = []
        self.e = []
        for i in range(g.num_ops):
            u = g.op_unit[i]
            s = m.new_int_var(0, self.horizon, f"s{i}")
            end: Any = 0
            for d, lit in self.x[u].items():
                size = self.dur(g.op_time[i][d])
                iv = m.new_optional_fixed_size_interval_var(s, size, lit, f"op{i}_{d}")
                self.dev_iv.setdefault(g.physical[d], []).append(iv)
                end = end + size * lit
            self.s.append(s)
            self.e.append(s + end)
            m.add(self.makespan >= s + end)

    def _values(self, dests: list[list[int]]) -> None:
        g, m = self.g, self.m
        self.ready: list[Any] = []  # when each value is at its home
        self.up: dict[int, Any] = {}
        self.y: dict[tuple[int, int], Any] = {}
        self.c: dict[tuple[int, int], Any] = {}
        self.ce: dict[tuple[int, int], Any] = {}
        self.z: dict[tuple[int, int, int], Any] = {}  # copy of v from h to d (where more than one h is possible)
        for v in range(g.num_values):
            self.ready.append(self._ready(v))
            for d in dests[v]:
                self._copy(v, d)
        for i in range(g.num_ops):
            c = g.op_unit[i]
            for v in g.op_local[i]:
                m.add(self.s[i] >= self.ready[v])
                if c == g.val_unit[v]:
                    continue
                for d, lit in self.x[c].items():
                    if (v, d) in self.y:
                        m.add(self.s[i] >= self.ce[v, d]).only_enforce_if([lit, self.y[v, d]])
            for v in g.op_home[i]:
                m.add(self.s[i] >= self.ready[v])
            for j in g.op_after[i]:
                m.add(self.s[i] >= self.e[j])

    def _ready(self, v: int) -> Any:
        g, m = self.g, self.m
        kind = g.val_kind[v]
        if kind == OP:
            return self.e[g.val_producer[v]]
        if kind == PASSED:  # a callee's parameter: its argument on the parameter's vdevice (`calls`)
            src = g.val_source[v]
            ready = m.new_int_var(0, self.horizon, f"param{v}")
            m.add(ready >= self.ready[src])
            for d, lit in self.x[g.val_unit[v]].items():
                if (src, d) in self.y:
                    m.add(ready >= self.ce[src, d]).only_enforce_if([lit, self.y[src, d]])
            return ready
        if kind != INPUT or g.host is None or g.val_upload[v] is None:
            return 0
        home = self.x[g.val_unit[v]]
        start = m.new_int_var(0, self.horizon, f"up{v}")
        end: Any = 0
        for d, lit in home.items():
            if d == g.host:
                m.add(start == 0).only_enforce_if(lit)
                continue
            size = self.dur(g.val_upload[v][d])  # type: ignore[index]
            self._on_link(g.host, d, start, size, lit, f"up{v}_{d}")
            self._send(g.host, d, start, send_seconds(g, v, g.host, d, True), lit, f"upsend{v}_{d}")
            end = end + size * lit
        self.up[v] = start
        m.add(self.makespan >= start + end)
        return start + end

    def _copy(self, v: int, d: int) -> None:
        g, m = self.g, self.m
        home = self.x[g.val_unit[v]]
        users = set(g.val_users[v]) | {o for w, o in g.outputs if w == v and o != g.val_unit[v]}
        lits = [self.x[u][d] for u in sorted(users) if d in self.x[u]]
        y = m.new_bool_var(f"y{v}_{d}")
        at_home = home.get(d)
        for lit in lits:
            m.add_bool_or([lit.Not(), y] if at_home is None else [lit.Not(), at_home, y])
        m.add_bool_or(lits).only_enforce_if(y)
        if at_home is not None:
            m.add_implication(y, at_home.Not())
        table = g.val_copy[v]
        assert table is not None
        start = m.new_int_var(0, self.horizon, f"c{v}_{d}")
        m.add(start >= self.ready[v])
        end: Any = 0
        for h, lit in home.items():
            if h == d:
                continue
            if len(home) - (d in home) == 1:
                z = y
            else:
                z = self.z[v, h, d] = m.new_bool_var(f"z{v}_{h}_{d}")
                m.add_bool_and([lit, y]).only_enforce_if(z)
                m.add_bool_or([lit.Not(), y.Not(), z])
            size = self.dur(table[h][d])
            self._on_link(h, d, start, size, z, f"copy{v}_{h}_{d}", v)
            self._send(h, d, start, send_seconds(g, v, h, d), z, f"send{v}_{h}_{d}")
            end = end + size * z
        self.y[v, d], self.c[v, d], self.ce[v, d] = y, start, start + end
        m.add(self.makespan >= start + end)

    def _on_link(self, src: int, dst: int, start: Any, size: int, lit: Any, name: str, value: int = -1) -> None:
        """A copy from vdevice src to dst occupies their link (one direction between two physical devices)
        when `lit` holds; between two memory scopes of one physical device it takes no link.  `value`: the
        value copied (-1 for an upload), kept in `link_items` for the redundant link work (`cpsat_redundant`)."""
        link = (self.g.physical[src], self.g.physical[dst])
        if link[0] != link[1]:
            iv = self.m.new_optional_fixed_size_interval_var(start, size, lit, name)
            self.link_iv.setdefault(link, []).append(iv)
            self.link_items.setdefault(link, []).append((size, lit, src, value))

    def _send(self, src: int, dst: int, start: Any, seconds: float, lit: Any, name: str) -> None:
        """The sender's share of a copy from src to dst (`simulate.send_seconds`): from the copy's start, on
        src's stream with its ops, when `lit` holds and the copy takes a link."""
        if seconds and self.g.physical[src] != self.g.physical[dst]:
            iv = self.m.new_optional_fixed_size_interval_var(start, self.dur(seconds), lit, name)
            self.dev_iv.setdefault(self.g.physical[src], []).append(iv)

    # -- symmetry ----------------------------------------------------------------
    def _symmetry(self) -> None:
        """Value precedence over each class of interchangeable vdevices (`symmetric_classes`): in the units'
        order (`symmetry.unit_order`), a unit goes on the class's (k+1)-th vdevice only after some earlier unit went on
        its k-th.  Any plan becomes one that satisfies this, as good, by renaming the class's vdevices in the
        order units first use them (`canonical`)."""
        m = self.m
        for cls in self.classes:
            units = [u for u in self.order if cls[0] in self.x[u]]
            for d1, d2 in zip(cls, cls[1:], strict=False):
                before = None  # true only when some unit so far went on d1
                for k, u in enumerate(units):
                    if before is None:
                        m.add(self.x[u][d2] == 0)
                    else:
                        m.add_implication(self.x[u][d2], before)
                    if k + 1 < len(units):
                        now = m.new_bool_var(f"seen{d1}_{k}")
                        m.add_bool_or([now.Not(), self.x[u][d1]] + ([] if before is None else [before]))
                        self.seen.append((now, d1, units[: k + 1]))
                        before = now

    def canonical(self, placement: list[int]) -> dict[int, int]:
        """The renaming of vdevices (within each interchangeable class) that makes `placement` satisfy
        `_symmetry`: the class's vdevices in the order units first use them."""
        rename: dict[int, int] = {}
        for cls in self.classes:
            used: list[int] = []
            for u in self.order:
                d = placement[u]
                if d in cls and d not in used:
                    used.append(d)
            used += [d for d in cls if d not in used]
            rename.update(zip(used, cls, strict=True))
        return rename

    # -- hint and plan ---------------------------------------------------------
    def _hint(self, placement: list[int], timing: Timing) -> None:
        """A whole solution to start from: `placement` run in `timing`'s order with the durations in units."""
        m, g = self.m, self.g
        placement, order = renamed(placement, timing.order, self.canonical(placement))
        for u, row in enumerate(self.x):
            for d, lit in row.items():
                m.add_hint(lit, int(placement[u] == d))  # ortools < 9.11 takes no bool
        for lit, d, units in self.seen:
            m.add_hint(lit, int(any(placement[u] == d for u in units)))
        try:
            whole = run_order(_in_units(g, self), placement, order, None)
        except PlacementInternalError:
            return  # an order that is not this model's (it cannot be here): the placement alone is a hint
        for i, s in enumerate(self.s):
            m.add_hint(s, min(self.horizon, int(whole.op_start[i])))
        for (v, d), y in self.y.items():
            m.add_hint(y, int((v, d) in whole.copies))
        for (v, h, d), z in self.z.items():
            m.add_hint(z, int((v, d) in whole.copies and placement[g.val_unit[v]] == h))
        for (v, d), (start, _) in whole.copies.items():
            var = self.up.get(v) if d == placement[g.val_unit[v]] else self.c.get((v, d))
            if var is not None:
                m.add_hint(var, min(self.horizon, int(start)))
        m.add_hint(self.makespan, min(self.horizon, int(whole.makespan)))

    def plan(self, solver: Any) -> tuple[list[int], Timing]:
        """The placement and the real timing of the solution (module docstring)."""
        g, q = self.g, self.q
        placement = []
        for row in self.x:
            placement.append(next(d for d, lit in row.items() if solver.boolean_value(lit)))
        tasks: list[tuple[int, int, float, tuple[str, object]]] = []
        for i in range(g.num_ops):
            start = solver.value(self.s[i])
            tasks.append((start, solver.value(self.e[i]), float(i), ("op", i)))
        relayed = relays(g, placement)
        for v, d in required_copies(g, placement):
            home = placement[g.val_unit[v]]
            if d == home:
                start, end = solver.value(self.up[v]), solver.value(self.ready[v])
                key = -1.0
            else:
                start, end = solver.value(self.c[v, d]), solver.value(self.ce[v, d])
                p = g.val_producer[v]
                key = p + 0.5 if p >= 0 else -0.5
            tasks.append((start, end, key, ("copy", (v, d))))
        tasks.sort(key=lambda t: t[:3])
        order = [t[3] for t in tasks]
        if relayed or PASSED in g.val_kind:  # relays are not in this model (`relay_possible`), and a parameter
            order = ready_order(g, placement, order)  # may tie with its argument's copy: each after what it needs
        release = None
        if any(lim is not None for lim in g.limits):
            release = {t[3]: t[0] * q for t in tasks}
        return placement, run_order(g, placement, order, release)


def _in_units(g: TaskGraph, model: _Model) -> TaskGraph:
    """`g` with every op, copy and upload time in whole units of the model (exact integers as floats)."""
    out = copy.copy(g)
    out.op_time = [[None if t is None else float(model.dur(t)) for t in row] for row in g.op_time]
    out.val_copy = [None if t is None else [[float(model.dur(x)) for x in r] for r in t] for t in g.val_copy]
    out.val_upload = [None if t is None else [float(model.dur(x)) for x in t] for t in g.val_upload]
    out.val_send = [None if t is None else [[float(model.dur(x)) for x in r] for r in t] for t in g.val_send]
    out.val_upload_send = [None if t is None else [float(model.dur(x)) for x in t] for t in g.val_upload_send]
    return out


def _ceil(seconds: float, q: float) -> int:
    """Whole units of q (a power of two) covering `seconds`: exact, since seconds / q is."""
    return int(math.ceil(seconds / q))


def _unit(total: float, lower: float, tasks: int) -> float:
    """The time unit: a power of two with (tasks + 1) * q <= tolerance / 4 * lower, unless the horizon
    would pass `MAX_UNITS`: then the least power of two that keeps it below."""
    if total <= 0:
        return 1.0
    base = lower if lower > 0 else total / max(1, tasks)
    q = OPTIMAL_TOLERANCE / 4 * base / (tasks + 1)
    q = 2.0 ** math.floor(math.log2(q))
    while total / q > MAX_UNITS:
        q *= 2
    return q
