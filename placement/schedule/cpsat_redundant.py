"""Redundant constraints of the CP-SAT model (`cpsat`) that its own reasoning does not derive.

* *Heads, tails and stream work* (`bounds.heads_tails`): each op starts
  after its head and leaves its tail before the makespan; every stream's
  work past each head level fits before the makespan.
* *Link work at release levels.*  A link carries one copy at a time, so for
  every level θ of the copies' releases (the earliest their value can be at
  its source: `bounds.heads_tails`), if a copy released at θ or later runs on
  the link, the makespan is at least θ plus the sizes of all such copies
  that run.  (The no-overlap constraint says the same, but CP-SAT's linear
  relaxation does not see it.)
* *Memory knapsacks* (`lp_memory.memory_rows`): the weights and constants
  held on a limited vdevice for the whole run fit its limit, together with
  each op's working set (and the values live across it) when its unit is
  there.  CP-SAT's reservoirs say the same of each schedule, but their
  linear relaxation says nothing.

Both hold for every plan the model admits, so they change no optimum, only
what CP-SAT proves and how early.  Measured together they help, alone
neither: onnx_shape_ops with cuda:0 capped (2 vdevices, 60 s) ended with a
bound of 0.0411 ms with either alone and 0.0502 ms with both.
"""

from __future__ import annotations

import time
from typing import Any

from vdplace.placement.schedule.bounds import LEVELS
from vdplace.placement.schedule.cpsat_proto import INT_MAX, add_implication, add_linear
from vdplace.placement.schedule.lp_bound import release
from vdplace.placement.schedule.lp_memory import memory_rows

# Head levels per stream in the head-level work constraints (`add_heads_tails`).
HEAD_LEVELS = 16


def add_link_work(model: Any, head: list[dict[int, float]], until: float | None = None) -> None:
    """Per link, the work of the copies released at each level or later (module docstring), in units; written
    into the model's proto directly (`cpsat_proto`: on 13 vdevices they are half a million rows).  Rows stop
    being added once the wall clock (``time.perf_counter()``) passes `until`: they are redundant."""
    g, m, q = model.g, model.m, model.q
    makespan = model.makespan.index
    for link, items in sorted(model.link_items.items()):
        if until is not None and time.perf_counter() >= until:
            return
        timed = [(int(release(g, head, v, src) / q) if v >= 0 else 0, size, lit.index) for size, lit, src, v in items]
        levels = sorted({r for r, size, _ in timed if size})
        if len(levels) > LEVELS:
            levels = [levels[round(j * (len(levels) - 1) / (LEVELS - 1))] for j in range(LEVELS)]
        for theta in levels:
            at = [(size, lit) for r, size, lit in timed if r >= theta and size]
            terms = {makespan: 1}
            for size, lit in at:
                terms[lit] = terms.get(lit, 0) - size
            if theta == 0:
                add_linear(m, terms, 0, INT_MAX)
                continue
            some = m.new_bool_var(f"link{link[0]}_{link[1]}_{theta}").index
            for _, lit in at:
                add_implication(m, lit, some)
            add_linear(m, terms, theta, INT_MAX, enforced_by=some)


def add_knapsacks(model: Any) -> None:
    """The memory rows of `lp_memory.memory_rows` over the model's placement Booleans."""
    m, x = model.m, model.x
    for d, limit, coef in memory_rows(model.g, model.allowed):
        m.add(sum(c * x[u][d] for u, c in coef.items() if c) <= limit)


def add_heads_tails(model: Any, head: list[dict[int, float]], tail: list[dict[int, float]]) -> None:
    """Heads, tails and head-level work per stream (physical device: its scopes' ops together, `bounds`), in
    whole units rounded down."""
    g, m, q = model.g, model.m, model.q
    for i in range(g.num_ops):
        row = model.x[g.op_unit[i]]
        m.add(model.s[i] >= sum(int(head[i][d] / q) * lit for d, lit in row.items()))
        m.add(model.makespan >= model.e[i] + sum(int(tail[i][d] / q) * lit for d, lit in row.items()))
    for stream in sorted(set(g.physical)):
        scopes = [d for d in range(g.num_devices) if g.physical[d] == stream]
        items = [
            (int(head[i][d] / q), model.dur(g.op_time[i][d]), i, d)
            for i in range(g.num_ops)
            for d in scopes
            if d in head[i]
        ]
        levels = sorted({h for h, size, _, _ in items if size})
        if len(levels) > HEAD_LEVELS:
            levels = [levels[round(j * (len(levels) - 1) / (HEAD_LEVELS - 1))] for j in range(HEAD_LEVELS)]
        for theta in levels:
            at = [(size, model.x[g.op_unit[i]][d]) for h, size, i, d in items if h >= theta]
            some = m.new_bool_var(f"on{stream}_{theta}")  # true when an op of the level runs on the stream
            for _, lit in at:
                m.add_implication(lit, some)
            work = sum(size * lit for size, lit in at if size)
            m.add(model.makespan >= theta + work).only_enforce_if(some)
