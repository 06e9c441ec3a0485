"""Start plans that cover the plans users get today: contiguous splits of the program between two vdevices.

For each ordered pair (a, b) of vdevices, two families of plans, each
indexed by a *cut* c:

* **op prefix**: the units of the first c op calls in program order on a,
  the rest on b (c from 0 to the number of op calls).  A unit without op
  calls (a weight, constant or input) goes with its first reader in program
  order; one that nothing reads, on b.
* **weight prefix** (the rule of accelerate's device map: weights in module
  order onto a device until its memory is full, the ops following their
  weights): the units of the first c weights in parameter order on a, the
  rest on b; an op's unit follows the first weight its op calls read, and a
  unit whose op calls read no weight follows the op unit before it in
  program order (a for the first).  Inputs and constants go with their first
  reader.  Where a has a memory limit, accelerate's own cut, the most weights
  in order whose bytes fit the limit, is among the cuts tried.

A unit that may not go where its family puts it goes on the other vdevice
of the pair when it may, else on its fastest (`search.fastest`).

Each plan is judged by its list schedule like every start plan (bytes
over the limits first, then makespan), and where its eager copies pass a
limit also with its copies late (`search.evaluate_streaming`: a split that
streams values into a capped vdevice can fit with each copy made when it
is read), each schedule paid for from the search's budget.  Not every cut
is tried on a large program: a family of more than `GRID` + 1 cuts is
first tried at `GRID` + 1 evenly spaced cuts (and accelerate's), then
around the best cut at half the spacing on either side, halving down to
neighbouring cuts (the best of each step kept).  The grids of every family come first, then the refinements, so
a small budget still sees every pair and family; `best_split` stops when
its share of the budget is spent, or at the budget's deadline.
"""

from __future__ import annotations

from collections.abc import Callable

from vdplace.placement.schedule.graph import WEIGHT, TaskGraph
from vdplace.placement.schedule.search import Budget, Plan, evaluate_streaming, fastest

# Evenly spaced cuts per family before refining (a family with at most GRID + 1 cuts is tried whole).
GRID = 8
# Share of the search's budget the splits may spend.
SPLIT_SHARE = 0.5


class _Family:
    """One family of one pair: its plan for each cut, the cuts tried and the best so far."""

    def __init__(self, size: int, make: Callable[[int], list[int]], extra: list[int]) -> None:
        self.size = size  # cuts 0..size
        self.make = make
        self.extra = extra  # cuts always tried (accelerate's)
        self.tried: dict[int, Plan] = {}
        self.best: int | None = None
        self.step = 0

    def grid(self) -> list[int]:
        if self.size <= GRID:
            cuts = list(range(self.size + 1))
        else:
            cuts = sorted({round(k * self.size / GRID) for k in range(GRID + 1)})
            self.step = max(1, self.size // (2 * GRID))
        return sorted(set(cuts) | set(self.extra))

    def record(self, cut: int, plan: Plan) -> None:
        self.tried[cut] = plan
        if self.best is None or plan.better_than(self.tried[self.best]):
            self.best = cut


def best_split(g: TaskGraph, budget: Budget) -> Plan | None:
    """The best contiguous split of `g` (module docstring) within `SPLIT_SHARE` of `budget`; None for one vdevice."""
    if g.num_devices < 2 or g.num_units == 0:
        return None
    families = _families(g)
    share = budget.part(SPLIT_SHARE)
    before = share.ops
    best: Plan | None = None

    def try_cut(family: _Family, cut: int) -> bool:
        nonlocal best
        if cut in family.tried or not 0 <= cut <= family.size:
            return True
        if best is not None and not share.left:
            return False
        plan = evaluate_streaming(g, family.make(cut), share)
        family.record(cut, plan)
        if best is None or plan.better_than(best):
            best = plan
        return True

    try:
        for family in families:
            for cut in family.grid():
                if not try_cut(family, cut):
                    raise StopIteration
        for family in families:
            while family.step >= 1 and family.best is not None:
                centre = family.best
                for cut in (centre - family.step, centre + family.step):
                    if not try_cut(family, cut):
                        raise StopIteration
                family.step //= 2
    except StopIteration:
        share.stop("splits")
    budget.spend(before - share.ops)
    if share.cut_by_clock:
        budget.cut_by_clock = True
    return best


def _families(g: TaskGraph) -> list[_Family]:
    """Both families for every ordered pair of vdevices (module docstring)."""
    pos = _first_use(g)
    weights = weight_units(g)
    first = _first_weight(g)
    fast = [fastest(g, u) for u in range(g.num_units)]
    out = []
    for a in range(g.num_devices):
        for b in range(g.num_devices):
            if a == b:
                continue

            def op_prefix(cut: int, a: int = a, b: int = b) -> list[int]:
                return _legal(g, [a if pos[u] < cut else b for u in range(g.num_units)], a, b, fast)

            def weight_prefix(cut: int, a: int = a, b: int = b) -> list[int]:
                return _legal(g, _follow_weights(g, weights, first, cut, a, b, pos), a, b, fast)

            out.append(_Family(g.num_ops, op_prefix, []))
            out.append(_Family(len(weights), weight_prefix, accelerate_cut(g, weights, a)))
    return out


def _first_use(g: TaskGraph) -> list[int]:
    """Each unit's place in program order: its first op call, or the first op call that reads its values."""
    pos = [g.num_ops] * g.num_units
    for i, u in enumerate(g.op_unit):
        if i < pos[u]:
            pos[u] = i
    for v in range(g.num_values):
        u = g.val_unit[v]
        for i in g.val_readers[v] + g.val_home_readers[v]:
            if i < pos[u]:
                pos[u] = i
    return pos


def weight_units(g: TaskGraph) -> list[int]:
    """The units holding weights, in the order of their first weight (parameter order)."""
    out: list[int] = []
    seen: set[int] = set()
    for v, kind in enumerate(g.val_kind):
        u = g.val_unit[v]
        if kind == WEIGHT and u not in seen:
            seen.add(u)
            out.append(u)
    return out


def weight_unit_bytes(g: TaskGraph) -> dict[int, int]:
    """The bytes of the weights of every weight unit."""
    size: dict[int, int] = {}
    for v, kind in enumerate(g.val_kind):
        if kind == WEIGHT:
            size[g.val_unit[v]] = size.get(g.val_unit[v], 0) + g.val_bytes[v]
    return size


def accelerate_cut(
    g: TaskGraph, weights: list[int], a: int, reserve_largest: bool = False, headroom: int = 0
) -> list[int]:
    """The most weight units, in order, whose weights' bytes fit a's limit less `headroom` (none without a
    limit); with `reserve_largest`, less the largest unit's bytes too (accelerate's literal map keeps that room)."""
    limit = g.limits[a]
    if limit is None:
        return []
    size = weight_unit_bytes(g)
    room = limit - headroom - (max(size[u] for u in weights) if reserve_largest and weights else 0)
    total = 0
    for k, u in enumerate(weights):
        total += size[u]
        if total > room:
            return [k]
    return [len(weights)]


def _follow_weights(
    g: TaskGraph, weights: list[int], first: list[int | None], cut: int, a: int, b: int, pos: list[int]
) -> list[int]:
    """The weight-prefix plan at `cut` before legality (module docstring); `first` is `_first_weight`'s."""
    where: list[int | None] = [None] * g.num_units
    for k, u in enumerate(weights):
        where[u] = a if k < cut else b
    previous = a
    for u in g.op_unit:
        here = where[u]
        if here is None:
            w = first[u]
            found = None if w is None else where[w]  # a weight unit's: set above
            here = where[u] = previous if found is None else found
        previous = here
    out = []
    for u, d in enumerate(where):
        if d is None:  # inputs and constants: with their first reader; nothing reads it: b
            d = where[g.op_unit[pos[u]]] if pos[u] < g.num_ops else b
        out.append(b if d is None else d)
    return out


def _first_weight(g: TaskGraph) -> list[int | None]:
    """Each unit's first weight unit that its op calls read, in program order, or None."""
    out: list[int | None] = [None] * g.num_units
    for i, u in enumerate(g.op_unit):
        if out[u] is not None:
            continue
        for v in g.op_local[i] + g.op_home[i]:
            if g.val_kind[v] == WEIGHT:
                out[u] = g.val_unit[v]
                break
    return out


def _legal(g: TaskGraph, plan: list[int], a: int, b: int, fast: list[int]) -> list[int]:
    """`plan` with every unit on a vdevice it may go on: the pair's other one, else its fastest."""
    out = []
    for u, d in enumerate(plan):
        allowed = g.allowed[u]
        if d not in allowed:
            other = b if d == a else a
            d = other if other in allowed else fast[u]
        out.append(d)
    return out
