"""The memory rows of the placement relaxation (`lp_bound`, its docstring's *Memory* item): what every plan of
positive makespan holds on a limited vdevice over the whole run and while each op runs, as rows over the
relaxation's 0/1 placement variables (and, for what two readers on a vdevice hold across an op, auxiliary
variables over the program's DAG).  `memory_rows` gives the rows without auxiliary variables (also CP-SAT's
memory knapsacks, `cpsat_redundant`); `add_memory` adds all of them to a relaxation.

`tests/placement/test_schedule_memory_rows.py` checks every row against the liveness of random plans.
"""

from __future__ import annotations

from typing import Any

from vdplace.placement.schedule.graph import CONST, INPUT, OP, WEIGHT, TaskGraph
from vdplace.placement.schedule.liveness import loaded


def memory_rows(g: TaskGraph, allowed: list[list[int]]) -> list[tuple[int, int, dict[int, int]]]:
    """Rows ``(d, limit, coef)``: every plan of positive makespan has ``sum of coef[u] * [unit u on d] <= limit``
    (`lp_bound`'s docstring, *Memory*).  Empty when some plan may take no time.

    * the weights and constants held on d (bytes per unit), the whole run;
    * with op i's unit there (op i taking time on d): also i's operands and results that are not weights,
      and the weights i reads whose unit is elsewhere (copied to d while i runs);
    * when op i takes time wherever it runs: also every value (not a view, not a weight) made by an ancestor
      of i and read at its home by a descendant of i, whose unit is on d: it is live there while i runs.
    """
    return [(d, limit, coef) for d, limit, coef, _, _, extra in _tagged_rows(g, allowed) if extra]


def _tagged_rows(
    g: TaskGraph, allowed: list[list[int]]
) -> list[tuple[int, int, dict[int, int], int | None, bool, bool]]:
    """The rows of `memory_rows`, each with the op it holds during (None: the whole run), whether it counts
    that op's working set on d, and whether it says more than the weights held (a row of an op i that takes
    time wherever it runs is given even when it does not: `add_memory` adds to it what lives across i)."""
    if not any(lim is not None for lim in g.limits):
        return []
    # the whole run is an interval only when every schedule takes time: some op takes time wherever it runs
    positive = _positive(g, allowed)
    if not any(positive):
        return []
    held_values = [
        v for v in range(g.num_values) if g.val_kind[v] in (WEIGHT, CONST) and g.val_base[v] == v and loaded(g, v)
    ]  # a weight nothing reads is never loaded (`liveness.loaded`)
    through = _through(g)
    out: list[tuple[int, int, dict[int, int], int | None, bool, bool]] = []
    for d, limit in enumerate(g.limits):
        if limit is None:
            continue
        held: dict[int, int] = {}
        for v in held_values:
            u = g.val_unit[v]
            if d in allowed[u] and g.val_bytes[v]:
                held[u] = held.get(u, 0) + g.val_bytes[v]
        if held:
            out.append((d, limit, dict(held), None, False, True))
        for i in range(g.num_ops):
            u = g.op_unit[i]
            live: dict[int, int] = {}
            if positive[i]:
                for v in through[i]:
                    if d in allowed[g.val_unit[v]]:
                        live[g.val_unit[v]] = live.get(g.val_unit[v], 0) + g.val_bytes[v]
            base = dict(held)
            for w, b in live.items():
                base[w] = base.get(w, 0) + b
            if positive[i]:
                out.append((d, limit, dict(base), i, False, bool(live)))
            if d not in allowed[u] or not (g.op_time[i][d] or 0.0) > 0:
                continue
            need, reads = 0, {}
            for b in {g.val_base[v] for v in g.op_local[i] + g.op_makes[i]}:
                if g.val_kind[b] not in (WEIGHT, CONST):
                    need += g.val_bytes[b]
                elif g.val_bytes[b]:
                    reads[b] = min(g.val_bytes[v] for v in g.op_local[i] if g.val_base[v] == b)
            coef = dict(base)
            for b, nbytes in reads.items():
                w = g.val_unit[b]
                if w in held:
                    coef[w] -= nbytes
                coef[u] = coef.get(u, 0) + nbytes
            coef[u] = coef.get(u, 0) + need
            out.append((d, limit, coef, i, True, bool(need or reads)))
    return out


def _positive(g: TaskGraph, allowed: list[list[int]]) -> list[bool]:
    """Per op: whether it takes time wherever it may run."""
    return [all((g.op_time[i][d] or 0.0) > 0 for d in allowed[g.op_unit[i]]) for i in range(g.num_ops)]


def _through(g: TaskGraph) -> list[list[int]]:
    """Per op i: the values (not views, not weights, with bytes) made by a strict ancestor of i, not read or
    made by i nor viewed by what it reads or makes, and read at their home (by an op of their unit, or one
    that reads where the value lives) by a strict descendant of i."""
    n = g.num_ops
    anc = [0] * n
    for i in range(n):
        for v in g.op_local[i] + g.op_home[i]:
            p = g.val_producer[v]
            if p >= 0:
                anc[i] |= anc[p] | (1 << p)
    # what op i reads or makes, and what those view: counted in its own working set, not here
    touched = [{g.val_base[w] for w in g.op_local[i] + g.op_home[i] + g.op_makes[i]} for i in range(n)]
    for i in range(n):
        touched[i].update(g.op_local[i] + g.op_home[i] + g.op_makes[i])
    out: list[list[int]] = [[] for _ in range(n)]
    for v in range(g.num_values):
        p = g.val_producer[v]
        if p < 0 or g.val_view[v] >= 0 or not g.val_bytes[v]:
            continue
        at_home = [j for j in g.val_readers[v] if g.op_unit[j] == g.val_unit[v]] + list(g.val_home_readers[v])
        if not at_home:
            continue
        for i in range(n):
            if i == p or not (anc[i] >> p) & 1:
                continue
            if v in touched[i]:
                continue
            if any((anc[j] >> i) & 1 for j in at_home):
                out[i].append(v)
    return out


def add_memory(g: TaskGraph, allowed: list[list[int]], x: list[dict[int, int]], lp: Any) -> None:
    """The rows of `memory_rows` over the relaxation's placement variables, with what lives across each op
    (`_live_across`) added to the rows of the ops that take time wherever they run.  Each row is noted in
    ``lp.memory`` as ``(vdevice, op or None, row index)``."""
    rows = _tagged_rows(g, allowed)
    if not rows:
        return
    through = _through(g)
    views: dict[int, list[int]] = {}  # value -> the views of it (of its views ...)
    for w in range(g.num_values):
        if g.val_view[w] >= 0:
            views.setdefault(g.val_base[w], []).append(w)
    across = {d: _live_across(g, x, lp, d, through, views) for d in {row[0] for row in rows}}
    touched = [{g.val_base[w] for w in g.op_local[i] + g.op_home[i] + g.op_makes[i]} for i in range(g.num_ops)]
    for d, limit, coef, i, during, extra in rows:
        terms = {x[u][d]: float(c) for u, c in coef.items() if c}
        added = False
        if i is not None:
            for v, var in across[d].get(i, ()):
                if not (during and v in touched[i]):  # counted in i's working set
                    terms[var] = float(g.val_bytes[v])
                    added = True
        if extra or added:
            lp.le(terms, float(limit))
            lp.memory.append((d, i, len(lp.rows) - 1))


def _live_across(
    g: TaskGraph, x: list[dict[int, int]], lp: Any, d: int, through: list[list[int]], views: dict[int, list[int]]
) -> dict:
    """Per op i that takes time wherever it runs: ``(value, L)`` for each value v (not a view, with bytes)
    that two of its readers on d may hold on d across i, L a 0/1 variable at least 1 when they do.

    A stay on d (`liveness`: v's home, or its copy there) covers every op that reads it there, from before
    the op starts to after it ends.  So when some op reading v on d is a strict ancestor of i and another
    a strict descendant, v is on d from before i starts to after i ends: ``L >= A + D - 1``, with ``A >= x``
    of each earlier reader's unit on d (by a pass over the DAG: A at least A of each predecessor and the
    witnesses among them) and D likewise of the later ones.  At home the producer is an earlier reader (the
    stay starts with it), a reader at home (`op_home`) one of both, an input that starts at home (not sent
    by the driver) is there from 0, and an output stays where it is returned to the end.  A weight or
    constant at home on d is held the whole run and a value of `_through` at home already counted: their L
    is at least ``A + D - 1 - [home on d]``, their copy only.  For a value of more than half of d's limit,
    an op reading on d a view of it made on d is a reader too (`_view_readers`)."""
    n = g.num_ops
    preds, succs, anc, desc = _dag(g)
    positive = _positive(g, [list(row) for row in x])
    in_through = [set(vs) for vs in through]
    limit = g.limits[d]
    everything = (1 << n) - 1
    out: dict[int, list[tuple[int, int]]] = {}
    for v in range(g.num_values):
        kind = g.val_kind[v]
        if g.val_view[v] >= 0 or not g.val_bytes[v] or not loaded(g, v):
            continue
        home = x[g.val_unit[v]].get(d)
        before: dict[int, set[int]] = {}  # op -> variables: v on d while it runs, as an earlier reader of i
        after: dict[int, set[int]] = {}  # as a later reader
        for j in g.val_readers[v]:
            var = x[g.op_unit[j]].get(d)
            if var is not None:
                before.setdefault(j, set()).add(var)
                after.setdefault(j, set()).add(var)
        if limit is not None and 2 * g.val_bytes[v] > limit:
            for j, var in _view_readers(g, x, lp, d, v, views):
                before.setdefault(j, set()).add(var)
                after.setdefault(j, set()).add(var)
        if home is not None:
            for j in g.val_home_readers[v]:
                before.setdefault(j, set()).add(home)
                after.setdefault(j, set()).add(home)
            if kind == OP and g.val_producer[v] >= 0:
                before.setdefault(g.val_producer[v], set()).add(home)
        from_start = home if kind == INPUT and home is not None and (not g.inputs_from_driver or d == g.host) else None
        to_end = {x[o][d] for w, o in g.outputs if w == v and d in x[o]}
        has_before = everything if from_start is not None else 0
        for j in before:
            has_before |= desc[j]
        has_after = everything if to_end else 0
        for j in after:
            has_after |= anc[j]
        span = has_before & has_after
        if not span:
            continue
        ops = [i for i in range(n) if (span >> i) & 1]
        A = _reach(lp, ops, preds, before, {from_start} if from_start is not None else set())
        D = _reach(lp, list(reversed(ops)), succs, after, to_end)
        for i in ops:
            if not positive[i]:
                continue
            L = lp.var(1.0)
            terms = {A[i]: 1.0, D[i]: 1.0, L: -1.0}
            if home is not None and (kind in (WEIGHT, CONST) or v in in_through[i]):
                terms[home] = -1.0
            lp.le(terms, 1.0)
            out.setdefault(i, []).append((v, L))
    return out


def _view_readers(
    g: TaskGraph, x: list[dict[int, int]], lp: Any, d: int, v: int, views: dict[int, list[int]]
) -> list[tuple[int, int]]:
    """``(op, variable)`` per op j that reads on d a view w of v (of a view of v ...) made on d: while j runs
    there, v's stay on d holds (a view made where its operand is extends that stay to its readers' ends).
    The variable is at least ``x[U][d]`` summed over the units U of j and of every view of the chain from w
    to v, less their number less one: 1 when all of them are on d.  `_live_across` asks it only for values
    of more than half of d's limit, whose stays decide what else fits: for every value, the variables slow
    the integer relaxation more than they lift it (docs/schedule.md, "Memory caps")."""
    out = []
    for w in views.get(v, ()):
        chain, link = [], w
        while link != v:
            chain.append(g.val_unit[link])
            link = g.val_view[link]
        for j in g.val_readers[w]:
            units = set(chain) | {g.op_unit[j]}
            if w not in g.op_local[j] or any(d not in x[u] for u in units):
                continue
            if len(units) == 1:
                out.append((j, x[units.pop()][d]))
                continue
            both = lp.var(1.0)
            lp.le({**{x[u][d]: 1.0 for u in units}, both: -1.0}, float(len(units) - 1))
            out.append((j, both))
    return out


def _reach(lp: Any, ops: list[int], links: list[set[int]], witnesses: dict[int, set[int]], seed: set[int]) -> dict:
    """Per op of `ops` (in an order where each op's `links` come first): a variable at least each of `seed`,
    of the `witnesses` of each linked op, and of each linked op's own variable (A over predecessors; D, in
    reverse order, over successors)."""
    out: dict[int, int] = {}
    for i in ops:
        out[i] = lp.var(1.0)
        lower = set(seed)
        for j in links[i]:
            lower |= witnesses.get(j, set())
            if j in out:
                lower.add(out[j])
        for var in lower:
            lp.le({var: 1.0, out[i]: -1.0}, 0.0)
    return out


def _dag(g: TaskGraph) -> tuple[list[set[int]], list[set[int]], list[int], list[int]]:
    """The ops' predecessors and successors (the producers of what each reads, and the reverse), and each
    op's strict ancestors and descendants as bit sets."""
    n = g.num_ops
    preds: list[set[int]] = [set() for _ in range(n)]
    succs: list[set[int]] = [set() for _ in range(n)]
    for i in range(n):
        for v in g.op_local[i] + g.op_home[i]:
            p = g.val_producer[v]
            if p >= 0 and p != i:
                preds[i].add(p)
                succs[p].add(i)
    anc, desc = [0] * n, [0] * n
    for i in range(n):
        for p in preds[i]:
            anc[i] |= anc[p] | (1 << p)
    for i in reversed(range(n)):
        for s in succs[i]:
            desc[i] |= desc[s] | (1 << s)
    return preds, succs, anc, desc


def add_apart(g: TaskGraph, x: list[dict[int, int]], lp: Any, T: int) -> None:
    """Per limited vdevice d: ``T >= sum of t(i, d) x[u_i][d] + sum of c(v, d) z[v, d]``, over the ops i that
    take time on d and read (locally) or make a *big* value, one of more than half d's limit, and the big
    values v that may be copied to d (``z[v, d]`` at least ``x[w][d] - x[U_v][d]`` for each unit w that reads
    v locally: then v is on d off its home, in its copy; c(v, d) the least time of a copy of v to d).

    Two stays of big values on d never overlap (together they exceed the limit), and each op i above runs
    within one (v's own, its copy's, or the stay of what v views, which holds at least v's bytes), as does
    each copy of a big value to d (its stay starts with it).  The ops run one at a time on d's stream, the
    copies into d come before their readers in their stays, so the ops and copies counted are disjoint
    intervals within the run."""
    for d, limit in enumerate(g.limits):
        if limit is None:
            continue
        big = [v for v in range(g.num_values) if 2 * g.val_bytes[v] > limit]
        if not big:
            continue
        is_big = set(big)
        terms: dict[int, float] = {}
        for i in range(g.num_ops):
            var = x[g.op_unit[i]].get(d)
            t = g.op_time[i][d] or 0.0
            if var is not None and t > 0 and any(v in is_big for v in g.op_local[i] + g.op_makes[i]):
                terms[var] = terms.get(var, 0.0) + t
        for v in big:
            table = g.val_copy[v]
            readers = {g.op_unit[i] for i in g.val_readers[v] if d in x[g.op_unit[i]] and v in g.op_local[i]}
            home = x[g.val_unit[v]].get(d)
            readers.discard(g.val_unit[v])
            if table is None or not readers:
                continue
            c = min(table[s][d] for s in range(g.num_devices) if s != d)
            if not c > 0:
                continue
            z = lp.var(1.0)
            for w in readers:
                row = {x[w][d]: 1.0, z: -1.0}
                if home is not None:
                    row[home] = -1.0
                lp.le(row, 0.0)
            terms[z] = c
        if terms:
            terms[T] = -1.0
            lp.le(terms, 0.0)
