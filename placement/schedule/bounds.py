"""Proved lower bounds on the makespan: no placement and order under the model is faster.

* *Where an op may run* (`effective_allowed`): a vdevice its unit may go on,
  and whose memory limit holds, while the op runs there for a positive time,
  every value it reads there and every value it makes (each is live then,
  whatever the schedule; a view counted as the value it shares memory with,
  once).  A unit left with no vdevice makes the limits
  infeasible (`None`).
* *Heads and tails* (`heads_tails`): ``head[i][d]``, the earliest op i can
  start on d: each operand made as early as its producer can end on some
  vdevice, plus the copy (or upload) to d when it is made elsewhere, every
  device and link free; ``tail[i][d]``, the least time from op i's end on d
  to the end of the run: for every reader of what it makes, the least over
  the reader's vdevices of copy + its time + its tail (0 for programs of
  more than `LP_MAX_OPS` ops: heads alone already bound the critical path).
* *Critical path*: some op i runs on some d, so the makespan is at least
  ``min over d of head + time + tail`` for every i.
* *Work over devices*: every op runs on one stream (physical device) for its
  time there, so for every stream and level θ, if an op j whose head there is
  θ runs there, the ops there whose head is at least θ end no earlier than θ
  plus their total time: T >= θ x_j + Σ t_i x_i (x: on that stream), which
  also holds when j runs elsewhere; likewise for tails.  The least makespan of
  the linear relaxation (each op split over its vdevices) is a bound
  (`energy_bound`, solved with HiGHS for at most `LP_MAX_OPS` ops; the value
  taken is the Lagrangian value of its duals, which holds whatever HiGHS's
  tolerances).  For more ops: the ops that may run only on a set S of streams
  share |S| streams: their least times summed over |S|.

Each is a relaxation of the model (devices and links free, placements
fractional), and memory limits only remove schedules, so each bounds the
makespan with or without them.  None counts a copy's sender's share
(`CostModel.send`): it only adds to what a device does, so each stays a
bound with it.
"""

from __future__ import annotations

from itertools import combinations

from vdplace.placement.schedule.graph import INPUT, OP, PASSED, TaskGraph
from vdplace.placement.schedule.lp_allowance import LPAllowance

# Subsets of at most this many streams are enumerated (2^k - 1 subsets); more: singletons and the whole set.
MAX_SUBSET_STREAMS = 8
# The linear relaxation of the energy bound is solved for at most this many ops, with at most LEVELS levels.
LP_MAX_OPS = 1000
LEVELS = 64
# At a level, the constraint is written for at most this many ops whose head (or tail) is the level.
PER_LEVEL = 8
INF = float("inf")


def effective_allowed(g: TaskGraph) -> list[list[int]] | None:
    """Per unit, the vdevices it may go on with every op's working set within the limit (module docstring)."""
    allowed = [list(a) for a in g.allowed]
    if all(lim is None for lim in g.limits):
        return allowed
    for i in range(g.num_ops):
        need = sum(g.val_bytes[b] for b in {g.val_base[v] for v in g.op_local[i] + g.op_makes[i]})
        u = g.op_unit[i]
        allowed[u] = [d for d in allowed[u] if not _over(g, i, d, need)]
    if any(not a for a in allowed):
        return None
    return allowed


def _over(g: TaskGraph, i: int, d: int, need: int) -> bool:
    """Op i cannot run on d: it takes time there and its working set is over d's limit."""
    limit, t = g.limits[d], g.op_time[i][d]
    return limit is not None and need > limit and t is not None and t > 0


def heads_tails(
    g: TaskGraph, allowed: list[list[int]], tails: bool = True
) -> tuple[list[dict[int, float]], list[dict[int, float]]]:
    """``head[i][d]`` and ``tail[i][d]`` for every op i and vdevice d it may run on (module docstring);
    every tail 0 when not `tails`."""
    n = g.num_ops
    head: list[dict[int, float]] = [{} for _ in range(n)]
    end: list[dict[int, float]] = [{} for _ in range(n)]
    for i in range(n):
        u = g.op_unit[i]
        for d in allowed[u]:
            start = 0.0
            for v in g.op_local[i]:
                start = max(start, _arrive(g, allowed, end, v, d, g.val_unit[v] == u))
            for v in g.op_home[i]:
                start = max(start, min(_ready(g, allowed, end, v, h) for h in allowed[g.val_unit[v]]))
            head[i][d] = start
            end[i][d] = start + (g.op_time[i][d] or 0.0)
    tail: list[dict[int, float]] = [dict.fromkeys(h, 0.0) for h in head]
    for i in range(n - 1 if tails else -1, -1, -1):
        u = g.op_unit[i]
        for d in allowed[u]:
            after = 0.0
            for v in g.op_makes[i]:
                if g.val_unit[v] != u:
                    continue
                table = g.val_copy[v]
                for j in g.val_readers[v]:
                    best = INF
                    for e in allowed[g.op_unit[j]]:
                        move = 0.0 if e == d or table is None else table[d][e]
                        best = min(best, move + (g.op_time[j][e] or 0.0) + tail[j][e])
                    after = max(after, best)
                for j in g.val_home_readers[v]:
                    best = min((g.op_time[j][e] or 0.0) + tail[j][e] for e in allowed[g.op_unit[j]])
                    after = max(after, best)
            tail[i][d] = after
    return head, tail


def _ready(g: TaskGraph, allowed: list[list[int]], end: list[dict[int, float]], v: int, h: int) -> float:
    """The earliest value v can be at its home h."""
    kind = g.val_kind[v]
    if kind == OP:
        p = g.val_producer[v]
        return end[p].get(h, min(end[p].values(), default=0.0))
    if kind == PASSED:  # its argument on h (`calls`)
        src = g.val_source[v]
        return _arrive(g, allowed, end, src, h, g.val_unit[src] == g.val_unit[v])
    if kind == INPUT and g.host is not None and h != g.host and g.val_upload[v] is not None:
        return g.val_upload[v][h]  # type: ignore[index]
    return 0.0


def _arrive(g: TaskGraph, allowed: list[list[int]], end: list[dict[int, float]], v: int, d: int, same: bool) -> float:
    """The earliest value v can be on d (read there): from its home, copied when the home is elsewhere."""
    if same:
        return _ready(g, allowed, end, v, d)
    table = g.val_copy[v]
    best = INF
    for h in allowed[g.val_unit[v]]:
        move = 0.0 if h == d or table is None else table[h][d]
        best = min(best, _ready(g, allowed, end, v, h) + move)
    return best


def critical_path(g: TaskGraph, allowed: list[list[int]], ht: tuple | None = None) -> float:
    """The least head + time + tail of the op where it is largest (module docstring)."""
    head, tail = ht or heads_tails(g, allowed)
    best = 0.0
    for i in range(g.num_ops):
        here = min((head[i][d] + (g.op_time[i][d] or 0.0) + tail[i][d] for d in head[i]), default=0.0)
        best = max(best, here)
    return best


def subset_bound(g: TaskGraph, allowed: list[list[int]]) -> float:
    """The ops that may run only on a set of streams, at their least times there, over the number of streams."""
    streams = sorted(set(g.physical))
    if len(streams) <= MAX_SUBSET_STREAMS:
        subsets = [frozenset(c) for k in range(1, len(streams) + 1) for c in combinations(streams, k)]
    else:
        subsets = [frozenset({s}) for s in streams] + [frozenset(streams)]
    groups: dict[frozenset[int], list[int]] = {}
    for i in range(g.num_ops):
        key = frozenset(g.physical[d] for d in allowed[g.op_unit[i]])
        groups.setdefault(key, []).append(i)
    # An op's streams (its group's key) are in every subset that counts it: its least time there is its least
    # time on any vdevice it may go on, the same for every such subset (found once per group, as first needed).
    least: dict[frozenset[int], list[float]] = {}
    best = 0.0
    for subset in subsets:
        total = 0.0
        for key, ops in groups.items():
            if key <= subset:
                times = least.get(key)
                if times is None:
                    times = least[key] = [min((g.op_time[i][d] or 0.0) for d in allowed[g.op_unit[i]]) for i in ops]
                for t in times:  # added one by one, in op order: the same sum whatever is hoisted
                    total += t
        best = max(best, total / len(subset))
    return best


def energy_bound(
    g: TaskGraph, allowed: list[list[int]], ht: tuple | None = None, lp: LPAllowance | None = None
) -> float:
    """The linear relaxation of the work-over-devices bound with head and tail levels (module docstring), within
    `lp` (0 where it leaves the solve out or ends it)."""
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    lp = LPAllowance() if lp is None else lp

    head, tail = ht or heads_tails(g, allowed)
    columns: list[tuple[int, int, float]] = []  # (op, vdevice, seconds)
    for i in range(g.num_ops):
        for d in head[i]:
            columns.append((i, d, g.op_time[i][d] or 0.0))
    if not columns:
        return 0.0
    rows, cols, vals, rhs = [], [], [], []
    row = 0
    t_col = len(columns)
    for stream in sorted(set(g.physical)):
        mine = [k for k, (_, d, _) in enumerate(columns) if g.physical[d] == stream]
        for side in (head, tail):
            levels = sorted({side[columns[k][0]][columns[k][1]] for k in mine})
            if len(levels) > LEVELS:
                levels = [levels[round(j * (len(levels) - 1) / (LEVELS - 1))] for j in range(LEVELS)]
            for theta in levels:
                at = [k for k in mine if side[columns[k][0]][columns[k][1]] >= theta]
                work = [k for k in at if columns[k][2] > 0]
                for j in [k for k in at if side[columns[k][0]][columns[k][1]] == theta][:PER_LEVEL]:
                    # T >= theta * x_j + sum of t x over the level: valid whether or not op j is on the stream
                    for k in work:
                        rows.append(row)
                        cols.append(k)
                        vals.append(columns[k][2] + (theta if k == j else 0.0))
                    if j not in work:
                        rows.append(row)
                        cols.append(j)
                        vals.append(theta)
                    rows.append(row)
                    cols.append(t_col)
                    vals.append(-1.0)
                    rhs.append(0.0)
                    row += 1
    if not row or not lp.admits(len(vals) + len(columns)):
        return 0.0
    scale = max(max(abs(x) for x in vals), 1e-300)
    a_ub = coo_matrix((np.array(vals) / scale, (rows, cols)), shape=(row, t_col + 1)).tocsr()
    a_ub[:, t_col] = -1.0
    b_ub = np.array(rhs) / scale
    eq_rows = [columns[k][0] for k in range(len(columns))]
    a_eq = coo_matrix(([1.0] * len(columns), (eq_rows, range(len(columns)))), shape=(g.num_ops, t_col + 1)).tocsr()
    cost = np.zeros(t_col + 1)
    cost[t_col] = 1.0
    res = linprog(
        cost,
        A_ub=a_ub,
        b_ub=b_ub,
        A_eq=a_eq,
        b_eq=np.ones(g.num_ops),
        bounds=(0, None),
        method="highs",
        options=lp.options(),
    )
    lp.ended(res.status)
    if res.status != 0:
        return 0.0
    # The bound is not HiGHS's objective (met to a tolerance) but the Lagrangian value of its duals y
    # (y >= 0, sum y <= 1): sum_r y_r theta_r + sum over ops of the least column cost a^T y, which holds
    # for any such y.
    y = np.clip(-res.ineqlin.marginals, 0.0, None)
    if y.sum() > 1.0:
        y = y / y.sum()
    priced = a_ub[:, :t_col].T @ y
    per_op = np.full(g.num_ops, np.inf)
    np.minimum.at(per_op, np.array(eq_rows), priced)
    value = float(y @ -b_ub) + float(per_op.sum())
    return max(0.0, value * scale * (1 - 1e-12))


def serial_total(g: TaskGraph, allowed: list[list[int]]) -> float:
    """Every op at its slowest, and every copy and upload any plan may make at the slowest, one after another:
    at least the makespan of every schedule in which each task starts at the end of some earlier one (or 0),
    so at least the optimum without memory limits."""
    total = sum(max((g.op_time[i][d] or 0.0) for d in allowed[g.op_unit[i]]) for i in range(g.num_ops))
    for v in range(g.num_values):
        table = g.val_copy[v]
        if table is not None:
            total += g.num_devices * max(max(row) for row in table)
        upload = g.val_upload[v]
        if upload is not None:
            total += max((t or 0.0) for t in upload)
    return total


def lower_bound(g: TaskGraph, upper: float | None = None, lp: LPAllowance | None = None) -> float:
    """The best of the bounds above, and `lp_bound`'s relaxation; infinity when the limits admit no vdevice for
    some unit.  `upper`: a proved upper bound on the optimum (a plan's makespan that fits the limits), which the
    relaxation needs; without one it is `serial_total` where no vdevice has a limit, else the relaxation is
    left out.  The linear programs spend within `lp` (`lp_allowance`; None: no limit)."""
    from vdplace.placement.schedule.lp_bound import relaxation_bound

    allowed = effective_allowed(g)
    if allowed is None:
        return INF
    ht = heads_tails(g, allowed, tails=g.num_ops <= LP_MAX_OPS)
    best = max(critical_path(g, allowed, ht), subset_bound(g, allowed))
    if g.num_ops <= LP_MAX_OPS:
        best = max(best, energy_bound(g, allowed, ht, lp))
    if upper is None and all(lim is None for lim in g.limits):
        upper = serial_total(g, allowed)
    if upper is not None and best < upper:
        best = max(best, relaxation_bound(g, allowed, ht, upper, lp))
    return best
