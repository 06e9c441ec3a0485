"""Memory limits and/or three or more vdevices: a weighted MaxSAT / pseudo-Boolean problem for Z3.

Variables: ``x[u, d]`` (unit u on device d; exactly one per unit, only for
the devices u may go on; a unit with one such device is a constant) and
``y[v, d]`` (value v is copied to d), defined exactly:
``y[v, d] == (home not on d) and (some consumer on d)``.

Soft clauses (the objective, each paid when violated):
* ``not x[u, d]`` weighs u's compute on d less its cheapest device (the
  cheapest is a constant, added back);
* ``not (x[home, h] and y[v, d] and not y[v, d'] for every earlier d' on
  d's physical device)`` weighs the copy from h to d: the first copy into a
  physical device pays, the others come from it (`CostProblem.transfer_time`).

Hard pseudo-Boolean constraints: for every limited device d,
``sum(memory[u] x[u, d]) + sum(bytes[v] y[v, d]) <= limit``.

Weights are integers: seconds divided by a quantum of 2**-48 of the largest
possible total, so a plan's objective is exact to that quantum; the plan's
reported cost is recomputed from the plan in floats (`objective.plan_cost`).
Z3's MaxSAT (MaxRes) improves a lower bound and an upper bound; at the time
limit the best model found so far is returned with the lower bound proved so
far.  No model within the limit leaves the caller to its own plan.  The
search runs in a child Python killed at the limit (`placement.solve.z3_child`:
Z3's pseudo-Boolean propagation does not heed its timeout or an interrupt).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import z3

from vdplace.placement.cost.objective import allowed_times
from vdplace.placement.cost.plan_problem import PlanResult
from vdplace.placement.cost.problem import CostProblem
from vdplace.placement.solve.z3_child import optimize_by


class _Encoding:
    def __init__(self, p: CostProblem) -> None:
        self.p = p
        self.ctx = z3.Context()
        self.opt = z3.Optimize(ctx=self.ctx)
        self.times = [allowed_times(p, u) for u in range(p.num_units)]
        self.allowed = [list(times) for times in self.times]
        self.x: dict[tuple[int, int], z3.BoolRef] = {}
        self.y: dict[tuple[int, int], z3.BoolRef] = {}
        self.offset = sum(min(times.values()) for times in self.times)
        worst = sum(max(times.values()) for times in self.times)
        worst += sum(max(max(row) for row in p.copy[v]) * p.num_devices for v in range(len(p.values)))
        self.quantum = max(worst, 1e-300) / 2.0**48

    def on(self, u: int, d: int) -> z3.BoolRef:
        a = self.allowed[u]
        if len(a) == 1:
            return z3.BoolVal(a[0] == d, self.ctx)
        return self.x.get((u, d), z3.BoolVal(False, self.ctx))

    def soft(self, clause: z3.BoolRef, seconds: float) -> None:
        weight = round(seconds / self.quantum)
        if weight > 0:
            self.opt.add_soft(clause, weight)

    def units(self) -> None:
        opt = self.opt
        for u, a in enumerate(self.allowed):
            if len(a) < 2:
                continue
            times = self.times[u]
            cheapest = min(times.values())
            for d in a:
                self.x[u, d] = z3.Bool(f"x{u}_{d}", self.ctx)
            opt.add(z3.PbEq([(self.x[u, d], 1) for d in a], 1))
            for d, seconds in times.items():
                self.soft(z3.Not(self.x[u, d]), seconds - cheapest)

    def values(self) -> None:
        p, opt = self.p, self.opt
        k = p.num_devices
        for v, value in enumerate(p.values):
            for d in range(k):
                need = z3.Or([self.on(c, d) for c in value.consumers])
                y = z3.Bool(f"y{v}_{d}", self.ctx)
                opt.add(y == z3.And(z3.Not(self.on(value.unit, d)), need))
                self.y[v, d] = y
            for h in self.allowed[value.unit]:
                for d in range(k):
                    cost = p.copy[v][h][d]
                    if d == h or cost <= 0:
                        continue
                    earlier = [self.y[v, e] for e in range(d) if e != h and p.physical[e] == p.physical[d]]
                    paid = z3.And([self.on(value.unit, h), self.y[v, d]] + [z3.Not(e) for e in earlier])
                    self.soft(z3.Not(paid), cost)

    def limits(self) -> None:
        p, opt = self.p, self.opt
        for d, limit in enumerate(p.limits):
            if limit is None:
                continue
            fixed = sum(p.memory[u] for u, a in enumerate(self.allowed) if a == [d])
            terms = [(self.x[u, d], p.memory[u]) for u in range(p.num_units) if (u, d) in self.x and p.memory[u]]
            terms += [(self.y[v, d], val.nbytes) for v, val in enumerate(p.values) if val.nbytes]
            if fixed > limit:
                opt.add(z3.BoolVal(False, self.ctx))
            elif terms:
                opt.add(z3.PbLe(terms, limit - fixed))

    def plan(self, chosen: set[tuple[int, int]]) -> list[int]:
        """A device per unit: the one `chosen` (the ``x[u, d]`` true in the model) holds, else its first."""
        out = []
        for u, a in enumerate(self.allowed):
            out.append(next((d for d in a if (u, d) in chosen), a[0]))
        return out


def solve_exact(p: CostProblem, time_limit_s: float, hint: Sequence[int] | None = None) -> PlanResult:
    """The optimal plan, or the best within `time_limit_s` with a proved lower bound.

    Building the encoding counts against the limit: a problem too large to encode in time returns
    no plan and the trivial bound (every unit on its cheapest device, no copy).
    """
    deadline = time.time() + time_limit_s
    enc = _Encoding(p)
    if any(not a for a in enc.allowed):
        return PlanResult(None, False, float("inf"), infeasible=True)
    for step in (enc.units, enc.values, enc.limits):
        step()
        if time.time() > deadline:
            return PlanResult(None, False, enc.offset)
    names = {str(var): key for key, var in enc.x.items()}
    start = {str(var): hint[u] == d for (u, d), var in enc.x.items()} if hint is not None else None
    answer = optimize_by(enc.opt.sexpr(), list(names), deadline, start)
    if answer is None:
        return PlanResult(None, False, enc.offset)
    if answer.status == "unsat":
        return PlanResult(None, True, float("inf"), infeasible=True)
    lower = enc.offset + (float(answer.lower) * enc.quantum if answer.lower is not None else 0.0)
    if answer.values is None:
        return PlanResult(None, False, lower)
    chosen = {names[n] for n, on in answer.values.items() if on}
    return PlanResult(enc.plan(chosen), answer.status == "sat", lower)
