"""Memory limits and/or three or more vdevices: a mixed-integer linear program for HiGHS (`scipy.optimize.milp`).

The same problem as `exact.py`, with linear rows instead of clauses:

* ``x[u, d]`` binary, one per unit and allowed device, ``sum_d x[u, d] == 1``
  (a unit with one allowed device is a constant); its cost is u's compute
  on d less its cheapest device (the cheapest is a constant, added back).
* ``y[v, d]`` in [0, 1]: value v is held on d as a copy;
  ``y[v, d] >= x[c, d] - x[home, d]`` for every consumer c.  Nothing else
  forces y up, and every y costs time or memory, so at an optimum y is
  exactly "some consumer on d and the home elsewhere".
* Transfers, per value v and physical device P (the vdevices of P that v
  may be copied to: the first copy into P pays, `CostProblem.transfer_time`):

  - when the price of a copy from h into P is one figure ``c[h, P]`` for
    every vdevice of P (always so when P holds one vdevice, or the cost model
    prices by physical device), a flow from the home: ``z[v, h, P] <=
    x[home, h]`` and, for every d of P, ``sum(z[v, h, P], h != d) >= y[v, d]``
    (a free copy, from another vdevice of P, is ``x[home, h]`` itself); cost
    ``c[h, P] z[v, h, P]``.  This implies the product rows
    ``z >= x + y - 1`` and is tighter in the LP relaxation;
  - otherwise the first vdevice in order pays: y of P's vdevices is binary
    and exact (``y[v, d] <= 1 - x[home, d]``, ``y[v, d] <= sum_c x[c, d]``),
    and ``f[v, h, d] >= x[home, h] + y[v, d] - sum(y[v, e], e before d on P) - 1``
    with cost ``copy[v][h][d] f[v, h, d]``.

  Both are exact on integral x: the optimum of the program is the optimum of
  `objective.plan_cost`, and the plan is re-priced by it anyway.
* For every limited device d: ``sum(memory[u] x[u, d]) + sum(bytes[v] y[v, d]) <= limit``.

The objective is scaled so that the plan the caller already has (``hint``)
costs about 1e6: HiGHS's absolute gap tolerance (1e-6) is then negligible,
and the relative gap asked for is 0.  scipy's `milp` takes no start
solution, so the hint only sets that scale; the front door keeps it as a
candidate.  At the time limit HiGHS's best plan (if any) is returned with its
proved dual bound.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np

from vdplace.placement.cost.highs_process import (
    STATUS_INFEASIBLE,
    STATUS_OPTIMAL,
    MilpAnswer,
    MilpProgram,
    solve_milp_by,
)
from vdplace.placement.cost.objective import allowed, allowed_times, plan_cost
from vdplace.placement.cost.plan_problem import PlanResult
from vdplace.placement.cost.problem import CostProblem

ONE = -1  # the column index of the constant 1 in a row's terms
Terms = list[tuple[int, float]]


class _Program:
    """Columns (cost, integrality) and rows (sparse triplets, bounds) of the program being built."""

    def __init__(self) -> None:
        self.cost: list[float] = []
        self.integer: list[int] = []
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.vals: list[float] = []
        self.lo: list[float] = []
        self.hi: list[float] = []

    def column(self, cost: float, integer: bool) -> int:
        self.cost.append(cost)
        self.integer.append(1 if integer else 0)
        return len(self.cost) - 1

    def row(self, terms: Terms, lo: float, hi: float) -> None:
        """``lo <= sum(coef * column) <= hi``; a term on `ONE` moves into the bounds."""
        r = len(self.lo)
        for col, coef in terms:
            if col == ONE:
                lo, hi = lo - coef, hi - coef
            elif coef:
                self.rows.append(r)
                self.cols.append(col)
                self.vals.append(coef)
        self.lo.append(lo)
        self.hi.append(hi)

    def solve(self, deadline: float) -> MilpAnswer | None:
        """HiGHS's answer by `deadline` (`time.time()`), or None (`highs_process`)."""
        index = np.int32 if max(len(self.lo), len(self.cost), len(self.vals)) < 2**31 else np.int64
        program = MilpProgram(
            cost=np.array(self.cost),
            integer=np.array(self.integer),
            rows=np.array(self.rows, dtype=index),
            cols=np.array(self.cols, dtype=index),
            vals=np.array(self.vals, dtype=float),
            lo=np.array(self.lo, dtype=float),
            hi=np.array(self.hi, dtype=float),
        )
        return solve_milp_by(program, deadline)


class _OutOfTime(Exception):
    """The deadline passed while the program was being built."""


class _Encoding:
    def __init__(self, p: CostProblem, deadline: float) -> None:
        self.p = p
        self.deadline = deadline
        self.scale = 1.0  # objective units per second, set before the columns are made
        self.lp = _Program()
        self.times = [allowed_times(p, u) for u in range(p.num_units)]
        self.allowed = [list(times) for times in self.times]
        self.offset = sum(min(times.values()) for times in self.times)
        self.x: dict[tuple[int, int], int] = {}
        self.y: dict[tuple[int, int], int] = {}
        self.impossible = False

    def on(self, u: int, d: int) -> Terms:
        """x[u, d] as terms: a column, the constant 1, or nothing (u cannot go on d)."""
        if (u, d) in self.x:
            return [(self.x[u, d], 1.0)]
        return [(ONE, 1.0)] if self.allowed[u] == [d] else []

    def units(self) -> None:
        lp = self.lp
        for u, a in enumerate(self.allowed):
            if len(a) < 2:
                continue
            times = self.times[u]
            cheapest = min(times.values())
            for d, seconds in times.items():
                self.x[u, d] = lp.column((seconds - cheapest) * self.scale, True)
            lp.row([(self.x[u, d], 1.0) for d in a], 1.0, 1.0)

    def values(self) -> None:
        for v, value in enumerate(self.p.values):
            if v % 4096 == 0 and time.time() > self.deadline:
                raise _OutOfTime
            home = self.allowed[value.unit]
            dests = sorted(
                {d for c in value.consumers for d in self.allowed[c]} - ({home[0]} if len(home) == 1 else set())
            )
            groups: dict[object, list[int]] = {}
            for d in dests:
                self.y[v, d] = self.lp.column(0.0, False)
                for c in value.consumers:
                    if d in self.allowed[c]:
                        self.lp.row([(self.y[v, d], 1.0)] + _neg(self.on(c, d)) + self.on(value.unit, d), 0.0, math.inf)
                groups.setdefault(self.p.physical[d], []).append(d)
            for ds in groups.values():
                prices = self._uniform_prices(v, ds)
                if prices is None:
                    self._first_pays(v, ds)
                else:
                    self._flow(v, ds, prices)

    def _uniform_prices(self, v: int, ds: list[int]) -> dict[int, float] | None:
        """``{h: price of a copy from h into any of ds}``, or None when some home prices them differently."""
        out = {}
        for h in self.allowed[self.p.values[v].unit]:
            prices = {self.p.copy[v][h][d] for d in ds if d != h}
            if len(prices) > 1:
                return None
            out[h] = prices.pop() if prices else 0.0
        return out

    def _flow(self, v: int, ds: list[int], prices: dict[int, float]) -> None:
        """Copies into one physical device priced per home: a flow from the home (module docstring)."""
        unit = self.p.values[v].unit
        source: dict[int, Terms] = {}
        for h, price in prices.items():
            if price > 0 and len(self.allowed[unit]) > 1:
                z = self.lp.column(price * self.scale, False)
                self.lp.row([(z, 1.0)] + _neg(self.on(unit, h)), -math.inf, 0.0)
                source[h] = [(z, 1.0)]
            elif price > 0:
                source[h] = [(self.lp.column(price * self.scale, False), 1.0)]
            else:
                source[h] = self.on(unit, h)
        for d in ds:
            terms = [t for h in prices if h != d for t in source[h]]  # a home on d: y[v, d] is 0 already
            self.lp.row(terms + [(self.y[v, d], -1.0)], 0.0, math.inf)

    def _first_pays(self, v: int, ds: list[int]) -> None:
        """Copies into one physical device priced per vdevice: y exact and binary, the first in order pays."""
        p, lp = self.p, self.lp
        value = p.values[v]
        for d in ds:
            y = self.y[v, d]
            lp.integer[y] = 1
            lp.row([(y, 1.0)] + self.on(value.unit, d), -math.inf, 1.0)
            lp.row([(y, 1.0)] + _neg([t for c in value.consumers for t in self.on(c, d)]), -math.inf, 0.0)
        for h in self.allowed[value.unit]:
            for i, d in enumerate(ds):
                price = p.copy[v][h][d]
                if d == h or price <= 0:
                    continue
                f = lp.column(price * self.scale, False)
                earlier = [(self.y[v, e], 1.0) for e in ds[:i] if e != h]
                lp.row([(f, 1.0)] + _neg(self.on(value.unit, h)) + [(self.y[v, d], -1.0)] + earlier, -1.0, math.inf)

    def limits(self) -> None:
        p = self.p
        for d, limit in enumerate(p.limits):
            if limit is None:
                continue
            fixed = sum(p.memory[u] for u, a in enumerate(self.allowed) if a == [d])
            terms: Terms = [(col, float(p.memory[u])) for (u, e), col in self.x.items() if e == d and p.memory[u]]
            terms += [
                (col, float(p.values[v].nbytes)) for (v, e), col in self.y.items() if e == d and p.values[v].nbytes
            ]
            if fixed > limit:
                self.impossible = True
            elif terms:  # in units of the largest coefficient: bytes can be 1e10, the other rows' are 1
                unit = max(coef for _, coef in terms)
                self.lp.row([(col, coef / unit) for col, coef in terms], -math.inf, (limit - fixed) / unit)

    def plan(self, x: np.ndarray) -> list[int]:
        return [max(a, key=lambda d: x[self.x[u, d]]) if len(a) > 1 else a[0] for u, a in enumerate(self.allowed)]


def _infeasible() -> PlanResult:
    return PlanResult(None, True, float("inf"), infeasible=True)


def _neg(terms: Terms) -> Terms:
    return [(col, -coef) for col, coef in terms]


def _scale(p: CostProblem, hint: Sequence[int] | None, offset: float) -> float:
    """Objective units per second: the hint's cost above the trivial bound becomes about 1e6."""
    above = plan_cost(p, hint).total - offset if hint is not None else 0.0
    if not (math.isfinite(above) and above > 0):
        above = sum(max(r) for v in range(len(p.values)) for r in p.copy[v]) or 1.0
    return 1e6 / above


def solve_milp(p: CostProblem, time_limit_s: float, hint: Sequence[int] | None = None) -> PlanResult:
    """The optimal plan, or HiGHS's best within `time_limit_s` with its proved dual bound (`PlanResult`).

    Building the program counts against the limit, and the limit is kept: a program not built by then,
    or one HiGHS does not answer by then (`highs_process`), gives no plan and the trivial bound (every
    unit on its cheapest device, nothing copied).  `hint` (a plan) only scales the objective (module
    docstring).  Infeasible limits are reported when HiGHS proves them.
    """
    deadline = time.time() + time_limit_s
    if any(not allowed(p, u) for u in range(p.num_units)):
        return _infeasible()
    enc = _Encoding(p, deadline)
    enc.scale = _scale(p, hint, enc.offset)
    try:
        for step in (enc.units, enc.values, enc.limits):
            step()
    except _OutOfTime:
        return PlanResult(None, False, enc.offset)
    if enc.impossible:
        return _infeasible()
    if not enc.lp.cost:  # every unit has one device and nothing is copied: nothing to decide
        cost = plan_cost(p, enc.plan(np.zeros(0)))
        return PlanResult(enc.plan(np.zeros(0)), True, cost.total) if cost.feasible else _infeasible()
    res = enc.lp.solve(deadline) if time.time() < deadline else None
    if res is None:
        return PlanResult(None, False, enc.offset)
    if res.status == STATUS_INFEASIBLE:
        return _infeasible()
    bound = res.fun if res.status == STATUS_OPTIMAL else res.dual_bound
    lower = enc.offset + (bound / enc.scale if bound is not None and math.isfinite(bound) else 0.0)
    plan = None if res.x is None else enc.plan(res.x)
    if plan is None or not plan_cost(p, plan).feasible:  # none, or a row kept only within HiGHS's tolerance
        return PlanResult(None, False, lower)
    return PlanResult(plan, res.status == STATUS_OPTIMAL, lower)
