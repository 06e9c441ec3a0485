"""A proved lower bound that sees placement, copies, links and memory together: one linear relaxation.

The bounds of `bounds` relax each resource on its own: heads and tails take
every op's best vdevice (links free), the work bound every stream alone.
This one is a linear program over fractional placements ``x[u][d]`` (each
unit's sum 1) whose every constraint holds for the 0/1 placement and the
times of any schedule of the model (so its least ``T`` bounds the makespan):

* *Copies.*  For an op i reading value v locally from another unit, and
  homes h, vdevices d (h != d): ``p >= x[U_v][h] + x[u_i][d] - 1`` is 1
  when v is copied from h for i; the copy lasts at least ``c(h, d)``, the
  least copy time from h to a vdevice of d's physical device (a relay
  through another scope of it first takes such a copy).  For a physical
  link (from h's device to a device P), ``z >= x[U_v][h] + sum over d on P
  of x[w][d] - 1`` for each user unit w: the link carries at least one copy
  of v from h, lasting at least ``c(h, P)``.  A runtime input placed on h
  off the host is uploaded over (host, h) for ``upload[h]``.
* *Precedence.*  Start variables ``S``: an op starts after each operand's
  producer ends (``S_p + sum t x``) plus its copy (``sum c p``: one term at
  most is 1), an uploaded input after its upload; ``S_i >= sum head x`` and
  ``T >= S_i + sum (time + tail) x`` (`bounds.heads_tails`).
* *Streams and links at levels.*  As in `bounds.energy_bound`: for every
  stream (and every link direction), and level θ of heads (releases) or
  tails, ``T >= θ y_j + sum of the work at or past the level`` (y the
  variable of a task whose level is θ).  A copy's release: its value's
  earliest end at h; its tail: the least time + tail of a reader on P.
* *Memory.*  Weights and constants hold their bytes on their vdevice for
  the whole run, and while op i runs there (for a positive time) its
  operands and results that are not views of weights are there too: per
  vdevice d with a limit, ``sum of weight bytes x + need_i x[u_i][d] <=
  limit`` (used only when every schedule has a positive makespan, so that
  the whole run is an interval).  While an op i that takes time wherever it
  runs is running, wherever that is, d also holds each value made by an
  ancestor of i and read at home by a descendant (`_through`, when its home
  is d), and each value two of whose readers on d straddle i, one a strict
  ancestor of i and one a strict descendant (`_live_across`): a stay on d
  (the home or the copy there) lasts from before its first reader there
  starts to its last reader's end.  A 0/1 variable ``L >= A + D - 1`` says
  so, with ``A`` at least each earlier reader's placement on d (by a pass
  over the DAG) and ``D`` each later one's; a weight at home on d (held) and
  a `_through` value at home count there once.  So a weight read on a capped
  GPU at every step of a recurrence is resident there between its reads,
  whether it lives there or is copied.  A view made on d extends the stay of
  what it views there to its own readers' ends, so an op reading on d such a
  view of v (as TVM's frontend reads a weight, through a transpose per use)
  is a reader of v there too.  Fractional placements may leave ``L``
  at 0 (half a unit on d makes ``A + D - 1`` zero): these rows serve the
  whole-placement version.
* *Apart.*  Two values of more than half of d's limit are never on d at
  once, so the ops that read or make one there and the copies of one into d
  take turns: ``T >= sum t x + sum c z`` (`lp_memory.add_apart`), which sees
  weights streamed one at a time through a GPU too small to hold two.

The bound is the Lagrangian value of HiGHS's duals with every variable in a
box (``S`` and ``T`` within `upper`, a known upper bound on the optimum), so
it holds whatever HiGHS's tolerances.
"""

from __future__ import annotations

import time
from typing import NamedTuple

from vdplace.placement.schedule.bounds import LEVELS, PER_LEVEL
from vdplace.placement.schedule.cpsat_proto import INT_MIN, add_linear
from vdplace.placement.schedule.graph import INPUT, OP, TaskGraph
from vdplace.placement.schedule.lp_allowance import LPAllowance
from vdplace.placement.schedule.lp_memory import add_apart, add_memory

# Programs with more op calls than this are not given the relaxation (its size grows with reads x vdevices^2).
MAX_OPS = 400
# CP-SAT's deterministic time units per second of the integer relaxation's limit (one worker: deterministic;
# the wall clock, at twice the limit, is a safety net).  One worker does about 0.2 units a second on the shared
# 2-core box under load.
DETERMINISTIC_PER_SECOND = 0.1
# Nominal seconds a nonzero of the integer relaxation costs before its search: its rows built, written into
# CP-SAT's model and loaded by CP-SAT.  About 1.1 us on the idle 2-core box (the corpus's GRU on 13 vdevices,
# 2.3M nonzeros: 0.4 s, 0.8 s and 1.2 s), doubled for a loaded box.
BUILD_SECONDS_PER_NONZERO = 2e-6


class _LP:
    """Variables with boxes, rows ``sum a x <= b`` and ``sum a x == b``."""

    def __init__(self) -> None:
        self.ub: list[float] = []
        self.time: list[bool] = []  # a time in seconds (else a 0/1 variable)
        self.rows: list[tuple[dict[int, float], float]] = []
        self.eqs: list[tuple[dict[int, float], float]] = []
        self.x: list[dict[int, int]] = []  # the placement variables, per unit and vdevice
        self.memory: list[tuple[int, int | None, int]] = []  # memory rows: (vdevice, op or None, row index)

    def var(self, ub: float, time: bool = False) -> int:
        self.ub.append(ub)
        self.time.append(time)
        return len(self.ub) - 1

    def nonzeros(self) -> int:
        """The nonzeros of the rows and equations: what building and solving them costs grows with."""
        return sum(len(terms) for terms, _ in self.rows) + sum(len(terms) for terms, _ in self.eqs)

    def solve_integer(
        self, objective: int, upper: float, seconds: float, wall_end: float
    ) -> tuple[float, list[int] | None, float, bool]:
        """A proved lower bound on the least `objective` with every 0/1 variable whole, by CP-SAT within
        `seconds`.  Times are in units q (a power of two): a row with a time variable (``sum a y + S_p - S_i
        <= 0`` and the like, every a >= 0) holds for floor(S / q) with every a floored to whole units, since
        floor(u + w) >= floor(u) + floor(w); a row without one has whole coefficients already (bytes, 1s).
        So CP-SAT's bound B on floor(T / q) gives T >= B q.  Also the values of its best solution (None
        without one), the deterministic time the search took, and whether the wall clock (the
        ``time.perf_counter()`` `wall_end`, reached while the model was built or during the search) ended it
        before its deterministic limit (`cpsat.clock_ended`)."""
        import math

        from ortools.sat.python import cp_model

        from vdplace.placement.schedule.cpsat import clock_ended, units_taken

        q = 2.0 ** math.floor(math.log2(upper / 2**20))
        m = cp_model.CpModel()
        top = int(upper / q) + 1
        v = [m.new_int_var(0, top, f"t{j}") if t else m.new_bool_var(f"b{j}") for j, t in enumerate(self.time)]
        index = [var.index for var in v]
        for terms, rhs in self.rows:  # written into the model's proto directly (`cpsat_proto`)
            if any(self.time[j] for j in terms):
                whole = {index[j]: int(a) if self.time[j] else math.floor(a / q) for j, a in terms.items()}
                add_linear(m, whole, INT_MIN, 0)
            else:
                add_linear(m, {index[j]: int(a) for j, a in terms.items()}, INT_MIN, math.floor(rhs))
        for terms, rhs in self.eqs:
            add_linear(m, {index[j]: int(a) for j, a in terms.items()}, int(rhs), int(rhs))
        m.minimize(v[objective])
        wall_s = wall_end - time.perf_counter()
        if wall_s <= 0:
            return 0.0, None, 0.0, True
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = 0
        solver.parameters.max_time_in_seconds = max(0.05, wall_s)  # a safety net: the deterministic limit ends it
        solver.parameters.max_deterministic_time = max(0.01, seconds * DETERMINISTIC_PER_SECOND)
        status = solver.solve(m)
        clock = clock_ended(solver, status)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return 0.0, None, units_taken(solver), clock
        bound = max(0.0, math.floor(solver.best_objective_bound + 1e-6) * q)
        return bound, [solver.value(var) for var in v], units_taken(solver), clock

    def le(self, terms: dict[int, float], rhs: float) -> None:
        self.rows.append((terms, rhs))

    def solve(self, objective: int, lp: LPAllowance | None = None) -> float:
        """The Lagrangian value (a proved lower bound on the least `objective`) from HiGHS's duals, within `lp`;
        0 when HiGHS finds no optimum, or `lp` leaves the solve out or ends it."""
        import numpy as np
        from scipy.optimize import linprog
        from scipy.sparse import coo_matrix

        n = len(self.ub)

        def matrix(rows: list[tuple[dict[int, float], float]]) -> tuple:
            r, c, v = [], [], []
            for k, (terms, _) in enumerate(rows):
                for j, a in terms.items():
                    r.append(k)
                    c.append(j)
                    v.append(a)
            return coo_matrix((v, (r, c)), shape=(len(rows), n)).tocsr(), np.array([b for _, b in rows])

        lp = LPAllowance() if lp is None else lp
        if not lp.admits(self.nonzeros()):
            return 0.0
        a_ub, b_ub = matrix(self.rows)
        a_eq, b_eq = matrix(self.eqs)
        cost = np.zeros(n)
        cost[objective] = 1.0
        ub = np.array(self.ub)
        res = linprog(
            cost,
            A_ub=a_ub,
            b_ub=b_ub,
            A_eq=a_eq,
            b_eq=b_eq,
            bounds=np.stack([np.zeros(n), ub], axis=1),
            method="highs",
            options=lp.options(),
        )
        lp.ended(res.status)
        if res.status != 0:
            return 0.0
        # For any y_ub <= 0 and y_eq: c x >= y_ub b_ub + y_eq b_eq + sum_j min over [0, ub_j] of r_j x_j,
        # r = c - A_ub^T y_ub - A_eq^T y_eq, for every x in the boxes that meets the rows.
        y_ub = np.minimum(res.ineqlin.marginals, 0.0)
        y_eq = res.eqlin.marginals
        r = cost - a_ub.T @ y_ub - a_eq.T @ y_eq
        value = float(y_ub @ b_ub + y_eq @ b_eq + np.minimum(r * ub, 0.0).sum())
        return max(0.0, value * (1 - 1e-9))


def relaxation_bound(
    g: TaskGraph,
    allowed: list[list[int]],
    ht: tuple[list[dict[int, float]], list[dict[int, float]]],
    upper: float,
    lp: LPAllowance | None = None,
) -> float:
    """The least makespan of the linear relaxation (module docstring), solved within `lp` (0 where it is left
    out or ended); `upper` bounds the optimum from above."""
    lp = LPAllowance() if lp is None else lp
    if not lp.in_time():
        return 0.0
    built = _build(g, allowed, ht, upper)
    return 0.0 if built is None else built[0].solve(built[1], lp)


class IntegerBound(NamedTuple):
    """What `integer_bound` found: the proved `bound` (seconds; 0 when it proves nothing), the `placement` of
    its best solution (a vdevice per unit, a plan worth scheduling; None without one), the seconds of the
    limit the search `counted` for (its deterministic time over `DETERMINISTIC_PER_SECOND`: the same on every
    machine), and whether the wall clock ended it before its deterministic limit (`clock`: only then may
    another run's differ)."""

    bound: float
    placement: list[int] | None
    counted: float
    clock: bool


def integer_bound(
    g: TaskGraph,
    allowed: list[list[int]],
    ht: tuple[list[dict[int, float]], list[dict[int, float]]],
    upper: float,
    seconds: float,
    wall_s: float | None = None,
) -> IntegerBound:
    """The relaxation with whole placements (module docstring, *Integer*), solved by CP-SAT within `seconds`
    counted, stopped by the wall clock `wall_s` from now (twice `seconds` when None).

    Its model's build and load are charged first, `BUILD_SECONDS_PER_NONZERO` a nonzero (the same on every
    machine); a model whose charge passes half of `seconds` is not built (it proves nothing), else the search
    has the rest as its deterministic limit."""
    end = time.perf_counter() + (2 * seconds if wall_s is None else wall_s)
    built = _build(g, allowed, ht, upper)
    if built is None or seconds <= 0:
        return IntegerBound(0.0, None, 0.0, False)
    lp, _ = built
    build_s = lp.nonzeros() * BUILD_SECONDS_PER_NONZERO
    if build_s > seconds / 2:
        return IntegerBound(0.0, None, 0.0, False)
    bound, values, units, clock = lp.solve_integer(built[1], upper, seconds - build_s, end)
    counted = build_s + min(seconds - build_s, units / DETERMINISTIC_PER_SECOND)
    if values is None:
        return IntegerBound(bound, None, counted, clock)
    placement = [next((d for d, var in row.items() if values[var]), allowed[u][0]) for u, row in enumerate(lp.x)]
    return IntegerBound(bound, placement, counted, clock)


def _build(g: TaskGraph, allowed: list[list[int]], ht: tuple, upper: float) -> tuple[_LP, int] | None:
    """The relaxation's rows and its makespan variable (None for a program it is not built for)."""
    if g.num_ops == 0 or g.num_ops > MAX_OPS or not upper > 0 or upper == float("inf"):
        return None
    head, tail = ht
    lp = _LP()
    T = lp.var(upper, time=True)
    x = lp.x = [{d: lp.var(1.0) for d in allowed[u]} for u in range(g.num_units)]
    for row in x:
        lp.eqs.append((dict.fromkeys(row.values(), 1.0), 1.0))
    S = [lp.var(upper, time=True) for _ in range(g.num_ops)]

    def t(i: int, d: int) -> float:
        return g.op_time[i][d] or 0.0

    def reach(v: int, h: int, d: int) -> float:
        """The least time a copy of v from h takes to reach d (directly, or to another scope of d's device)."""
        table = g.val_copy[v]
        if table is None:
            return 0.0
        return min(table[h][e] for e in range(g.num_devices) if g.physical[e] == g.physical[d] and e != h)

    def add(terms: dict[int, float], j: int, a: float) -> None:
        terms[j] = terms.get(j, 0.0) + a

    def ready(v: int, terms: dict[int, float]) -> None:
        """Add when value v is at its home (its producer's end, its upload's end) to `terms`."""
        kind = g.val_kind[v]
        if kind == OP:
            p = g.val_producer[v]
            add(terms, S[p], 1.0)
            for d, var in x[g.op_unit[p]].items():
                add(terms, var, t(p, d))
        elif kind == INPUT and g.host is not None and g.val_upload[v] is not None:
            for h, var in x[g.val_unit[v]].items():
                if h != g.host:
                    add(terms, var, g.val_upload[v][h])  # type: ignore[index]

    # precedence, heads and tails
    for i in range(g.num_ops):
        u = g.op_unit[i]
        for v in g.op_local[i] + g.op_home[i]:
            terms: dict[int, float] = {}
            ready(v, terms)
            if v in g.op_local[i] and g.val_unit[v] != u:
                for h, xh in x[g.val_unit[v]].items():
                    for d, xd in x[u].items():
                        c = reach(v, h, d) if h != d else 0.0
                        if c > 0:
                            p = lp.var(1.0)
                            lp.le({xh: 1.0, xd: 1.0, p: -1.0}, 1.0)
                            add(terms, p, c)
            if terms:
                add(terms, S[i], -1.0)
                lp.le(terms, 0.0)
        lp.le({**{var: head[i][d] for d, var in x[u].items()}, S[i]: -1.0}, 0.0)
        terms = {S[i]: 1.0, T: -1.0}
        for d, var in x[u].items():
            add(terms, var, t(i, d) + tail[i][d])
        lp.le(terms, 0.0)

    # streams at head and tail levels
    for stream in sorted(set(g.physical)):
        items = []
        for i in range(g.num_ops):
            for d, var in x[g.op_unit[i]].items():
                if g.physical[d] == stream:
                    items.append((var, t(i, d), head[i][d], tail[i][d]))
        _levels(lp, T, items)

    # links at release and tail levels
    for link, items in _link_items(g, allowed, x, head, tail, reach, lp).items():
        del link
        _levels(lp, T, items)

    add_memory(g, allowed, x, lp)
    add_apart(g, x, lp, T)
    return lp, T


def _link_items(g, allowed, x, head, tail, reach, lp) -> dict:
    """Per physical link, ``(variable, seconds, release, tail)`` of every copy and upload it may carry."""
    out: dict[tuple[int, int], list] = {}
    phys = g.physical
    for v in range(g.num_values):
        U = g.val_unit[v]
        if g.val_kind[v] == INPUT and g.host is not None and g.val_upload[v] is not None:
            for h, var in x[U].items():
                if phys[h] != phys[g.host]:
                    out.setdefault((phys[g.host], phys[h]), []).append((var, g.val_upload[v][h], 0.0, 0.0))
        if g.val_copy[v] is None:
            continue
        users = set(g.val_users[v]) | {o for w, o in g.outputs if w == v and o != U}
        users.discard(U)
        readers = [j for j in g.val_readers[v] if g.op_unit[j] != U]
        for h, xh in x[U].items():
            ready_at = release(g, head, v, h)
            for dest in sorted({phys[d] for w in users for d in allowed[w]} - {phys[h]}):
                c = reach(v, h, next(d for d in range(g.num_devices) if phys[d] == dest))
                if c <= 0:
                    continue
                z = lp.var(1.0)
                for w in users:
                    on = {var: 1.0 for d, var in x[w].items() if phys[d] == dest}
                    if on:
                        lp.le({xh: 1.0, **on, z: -1.0}, 1.0)
                after = [
                    (g.op_time[j][d] or 0.0) + tail[j][d]
                    for j in readers
                    for d in allowed[g.op_unit[j]]
                    if phys[d] == dest
                ]
                least = min(after) if after and _only_readers(g, v, U, users, readers) else 0.0
                out.setdefault((phys[h], dest), []).append((z, c, ready_at, least))
    return out


def _only_readers(g: TaskGraph, v: int, U: int, users: set[int], readers: list[int]) -> bool:
    """Every reason to copy v is an op of `readers` reading it: no output returned on another unit, and
    every user unit has such an op."""
    if any(w == v and o != U for w, o in g.outputs):
        return False
    return users <= {g.op_unit[j] for j in readers}


def release(g: TaskGraph, head: list[dict[int, float]], v: int, h: int) -> float:
    """The earliest value v can be at home h."""
    kind = g.val_kind[v]
    if kind == OP:
        p = g.val_producer[v]
        return head[p].get(h, 0.0) + (g.op_time[p][h] or 0.0) if h in head[p] else 0.0
    if kind == INPUT and g.host is not None and g.val_upload[v] is not None and h != g.host:
        return g.val_upload[v][h]  # type: ignore[index]
    return 0.0


def _levels(lp: _LP, T: int, items: list[tuple[int, float, float, float]]) -> None:
    """``T >= θ y_j + sum of the seconds of the items at or past level θ`` for head and tail levels."""
    for side in (2, 3):
        levels = sorted({it[side] for it in items})
        if len(levels) > LEVELS:
            levels = [levels[round(j * (len(levels) - 1) / (LEVELS - 1))] for j in range(LEVELS)]
        for theta in levels:
            at = [it for it in items if it[side] >= theta]
            work: dict[int, float] = {}
            for it in at:
                if it[1] > 0:
                    work[it[0]] = work.get(it[0], 0.0) + it[1]
            if not work:
                continue
            firsts = [it[0] for it in at if it[side] == theta][:PER_LEVEL] if theta > 0 else [None]
            for j in firsts:
                terms = dict(work)
                if j is not None:
                    terms[j] = terms.get(j, 0.0) + theta
                terms[T] = -1.0
                lp.le(terms, 0.0)
