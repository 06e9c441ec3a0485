"""The exact cost solvers on random `CostProblem`s against enumeration priced by `objective.plan_cost`.

The problems are drawn directly (no module): up to four vdevices, two of them
scopes of one physical device, copy prices that differ per destination scope
(so the first copy into a physical device pays its own price), pinned units,
units that cannot go somewhere, and memory limits that are often tight or
impossible.
"""

from __future__ import annotations

import itertools
import random

import pytest

from vdplace.ir.vdevice import VDevice
from vdplace.placement.cost.exact import solve_exact
from vdplace.placement.cost.milp import solve_milp
from vdplace.placement.cost.objective import allowed, plan_cost
from vdplace.placement.cost.problem import CostProblem, Value

CPU, GPU0, GPU1 = VDevice("llvm", 0), VDevice("cuda", 0), VDevice("cuda", 1)
TEXTURE = VDevice("cuda", 0, "global.texture")
DEVICE_SETS = ([CPU, GPU0], [CPU, GPU0, GPU1], [CPU, GPU0, TEXTURE], [CPU, GPU0, TEXTURE, GPU1])
SOLVERS = {"highs": solve_milp, "z3": solve_exact}


def random_problem(seed: int) -> CostProblem:
    r = random.Random(seed)
    vdevices = r.choice(DEVICE_SETS)
    k, n = len(vdevices), r.randint(1, 6)
    p = CostProblem(vdevices, [r.choice([None, None, r.randint(0, 30)]) for _ in range(k)])
    p.compute = [
        [None if d and r.random() < 0.2 else r.choice([0.0, 0.1, 0.5, 1.0, 2.0]) for d in range(k)] for _ in range(n)
    ]
    p.memory = [r.randint(0, 8) for _ in range(n)]
    p.pinned = [None] * n
    for u in range(n):
        if r.random() < 0.15:
            d = r.randrange(k)
            p.compute[u] = [(t if t is not None else 0.3) if e == d else None for e, t in enumerate(p.compute[u])]
            p.pinned[u] = d
    for u in range(n):
        consumers = tuple(c for c in range(n) if c != u and r.random() < 0.4)
        if consumers:
            p.values.append(Value(u, u, r.randint(0, 6), consumers))
            same = [[vdevices[h].physical == vdevices[d].physical for d in range(k)] for h in range(k)]
            p.copy.append([[0.0 if same[h][d] else r.choice([0.05, 0.2, 0.7]) for d in range(k)] for h in range(k)])
    return p


def enumerated_optimum(p: CostProblem) -> float | None:
    best = None
    for plan in itertools.product(*(allowed(p, u) for u in range(p.num_units))):
        cost = plan_cost(p, plan)
        if cost.feasible and (best is None or cost.total < best):
            best = cost.total
    return best


@pytest.mark.parametrize("solver", list(SOLVERS))
def test_exact_solvers_find_the_enumerated_optimum(solver: str) -> None:
    for seed in range(150):
        p = random_problem(seed)
        want = enumerated_optimum(p)
        result = SOLVERS[solver](p, 10.0, None)
        if want is None:
            assert result.infeasible and result.plan is None, seed
            continue
        assert result.optimal and result.plan is not None, seed
        got = plan_cost(p, result.plan)
        assert got.feasible, seed
        assert got.total == pytest.approx(want, rel=1e-9, abs=1e-12), seed
        assert result.lower_bound <= want + 1e-9, seed
