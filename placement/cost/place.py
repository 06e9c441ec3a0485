"""``place(mod, cost=model)``: extract -> coarsen -> solve -> rewrite -> check -> realize -> evaluate.

The pipeline of `placement.api.place` with a cost model: the solver decides
a vdevice per unit (`problem.coarsen`, `solve.solve_cost`), `rewrite.rewrite`
writes the plan's copies into the module, and the ordinary extraction,
checker and realization run on that module, every site's device given.  The
placed module's cost is then recomputed from the module alone
(`evaluate.evaluate`): it must equal the solver's, or the result is never
returned (`PlacementInternalError`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from vdplace.ir.module import IRModule
from vdplace.ir.normalize import host_vdevice
from vdplace.ir.units import format_bytes
from vdplace.ir.vdevice import vdevice_name
from vdplace.placement.cost.conflict import memory_conflict, no_device_error
from vdplace.placement.cost.evaluate import Evaluation, Transfer, evaluate
from vdplace.placement.cost.model import CostModel
from vdplace.placement.cost.problem import Coarsened, coarsen
from vdplace.placement.cost.rewrite import rewrite, site_devices
from vdplace.placement.cost.solve import SOLVERS, CostSolution, solve_cost
from vdplace.placement.errors import PlacementError, PlacementInternalError
from vdplace.placement.extract.extract import extract
from vdplace.placement.model.classes import collapse
from vdplace.placement.model.constraints import ConstraintSet, pin_columns
from vdplace.placement.solve.check import check

# The plan on a terminal lists this many copies, then sums the rest on one line.
SHOWN_TRANSFERS = 20


class PlacementCost:
    """What a cost-aware plan costs, and how sure vdplace is that it is the best.

    total, compute, transfer   seconds (one stream, no overlap: total = compute + transfer)
    device_compute             seconds of kernels per vdevice name
    memory                     bytes per vdevice name (values placed there plus copies into it)
    limits                     the memory limits, bytes per vdevice name
    transfers                  every copy (`evaluate.Transfer`), in program order
    optimal                    the plan is proved optimal
    lower_bound                seconds no plan can beat (proved); equals `total` when optimal
    method, status             the solver (`solve.CostSolution.method`: ``"mincut"``, ``"milp"``, ...) and how it ended
    solve_seconds              the solver's wall time
    """

    __slots__ = (
        "total",
        "compute",
        "transfer",
        "device_compute",
        "memory",
        "limits",
        "transfers",
        "optimal",
        "lower_bound",
        "method",
        "status",
        "solve_seconds",
    )

    def __init__(self, ev: Evaluation, solution: CostSolution, limits: dict[str, int]) -> None:
        self.total = ev.total
        self.compute = ev.compute
        self.transfer = ev.transfer
        self.device_compute = dict(ev.device_compute)
        self.memory = dict(ev.memory)
        self.limits = limits
        self.transfers: list[Transfer] = list(ev.transfers)
        self.optimal = solution.optimal
        self.lower_bound = min(solution.lower_bound, ev.total)
        self.method = solution.method
        self.status = solution.status
        self.solve_seconds = solution.seconds

    @property
    def gap(self) -> float:
        """How far above the lower bound the plan may be, relative to its total (0 when optimal)."""
        if self.optimal or self.total <= 0:
            return 0.0
        return max(0.0, (self.total - self.lower_bound) / self.total)

    def describe(self) -> str:
        """The plan for a terminal: time per device, transfers, memory per device, proved optimal or the gap."""
        lines = [f"estimated time {_s(self.total)} = compute {_s(self.compute)} + transfers {_s(self.transfer)}"]
        for name, seconds in self.device_compute.items():
            limit = self.limits.get(name)
            cap = f" of {format_bytes(limit)} limit" if limit is not None else ""
            lines.append(f"  {name}: compute {_s(seconds)}, memory {format_bytes(self.memory.get(name, 0))}{cap}")
        for t in self.transfers[:SHOWN_TRANSFERS]:
            lines.append(f"  copy {t.function}:{t.var}: {t.src} -> {t.dst}, {format_bytes(t.nbytes)}, {_s(t.seconds)}")
        if len(self.transfers) > SHOWN_TRANSFERS:
            rest = self.transfers[SHOWN_TRANSFERS:]
            moved = sum(t.nbytes for t in rest)
            lines.append(f"  … {len(rest)} more copies, {format_bytes(moved)}, {_s(sum(t.seconds for t in rest))}")
        if self.optimal:
            lines.append(f"proved optimal ({self.method}, {self.solve_seconds:.2f} s)")
        else:
            lines.append(
                f"best found within the time limit ({self.method}); lower bound {_s(self.lower_bound)}, "
                f"gap {self.gap:.1%}"
            )
        return "\n".join(lines) + "\n"

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {name: getattr(self, name) for name in self.__slots__ if name != "transfers"}
        out["gap"] = self.gap
        out["transfers"] = [{name: getattr(t, name) for name in Transfer.__slots__} for t in self.transfers]
        return out

    def __repr__(self) -> str:
        return f"PlacementCost(total={self.total:.6g}s, optimal={self.optimal}, lower_bound={self.lower_bound:.6g}s)"


def _s(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def place_cost(
    mod: IRModule, model: CostModel, time_limit_s: float, make: Callable[..., object], solver: str = "highs"
) -> object:
    """The placement of `mod` under `model`; `make(module, assignment, cs, copies, phases)` builds the `Placement`.

    `solver` names the exact solver (`solve.SOLVERS`).
    """
    if not isinstance(model, CostModel):
        raise TypeError(f"cost must be a placement.CostModel, not {type(model).__name__}")
    if not (isinstance(time_limit_s, (int, float)) and math.isfinite(time_limit_s) and time_limit_s > 0):
        raise ValueError(f"time_limit_s must be a positive number of seconds, not {time_limit_s!r}")
    if solver not in SOLVERS:
        raise ValueError(f"unknown cost solver {solver!r}; use one of {', '.join(SOLVERS)}")
    co, limits = prepare(mod, model)
    solution = solve_cost(co.problem, time_limit_s, solver)
    if solution.plan is None:
        raise memory_conflict(co, mod, proved=solution.infeasible)
    placed, assignment, cs2, copies, _ = realize_plan(co, solution.plan)
    ev = evaluate(placed, model)
    _check_cost(solution, ev)
    cost = PlacementCost(ev, solution, {k: v for k, v in limits.items() if v is not None})
    return make(placed, assignment, cs2, copies, cost)


def prepare(mod: IRModule, model: CostModel) -> tuple[Coarsened, dict[str, int | None]]:
    """The coarsened problem of `mod` under `model` and its memory limits by vdevice name.

    `PlacementError` when the module declares no vdevice or a limit names none; a unit that no
    vdevice can take is reported here (`conflict.no_device_error`).
    """
    if not mod.vdevices:
        raise PlacementError(
            "cost-aware placement needs the module to declare its vdevices: add "
            "I.module_global_infos({'vdevice': [...]}) to it, or pass them as mod.replace(vdevices=[...]) "
            "(on the command line: --vdevice llvm:0 --vdevice cuda:0)"
        )
    try:
        limits = {vdevice_name(mod.vdevices, v): model.limit(v, mod.vdevices) for v in mod.vdevices}
    except ValueError as err:
        raise PlacementError(str(err)) from None
    ex = extract(mod)
    co = coarsen(ex, model)
    p = co.problem
    stuck = [u for u in range(p.num_units) if all(t is None for t in p.compute[u])]
    if stuck:
        raise no_device_error(co, stuck, mod)
    return co, limits


def realize_plan(co: Coarsened, plan: list[int]) -> tuple[IRModule, list[int | None], ConstraintSet, list, IRModule]:
    """`plan` (a vdevice per unit) written into the module: its copies inserted (`rewrite.rewrite`), then
    extracted, checked and realized as every placement is.

    Returns the placed module, the assignment per site and the constraint set it satisfies, its
    copies, and the rewritten module before realization (the copies' bindings are named there).
    """
    placed_input, inserted = rewrite(co, plan)
    ex2 = extract(placed_input)
    cs2 = ex2.constraints
    known = site_devices(co, plan, ex2.var_sites)
    for site, device in zip(*pin_columns(cs2.pins), strict=True):
        known.setdefault(site, device)
    classes = collapse(len(cs2.sites), cs2.equals)
    # A site no op and no pin decides (a constant that `R.shape_of` reads) goes to the host, as
    # ``default="host"`` puts it: the placed module is fully placed.
    host = host_vdevice(list(placed_input.vdevices))
    by_class: list[int | None] = [None if host is None else placed_input.vdevices.index(host)] * len(classes)
    for site, device in known.items():
        by_class[classes.of[site]] = device
    assignment = classes.expand(by_class)
    violations = check(cs2, assignment)
    if violations:
        shown = "; ".join(f"{c!r}: {why}" for c, why in violations[:5])
        raise PlacementInternalError(f"the cost plan failed the checker ({len(violations)} violations): {shown}")
    from vdplace.placement.rewrite.realize import realize

    placed, copies = realize(ex2, assignment)
    for copy in copies:
        if copy.var in inserted:
            copy.inserted, copy.why = True, "chosen by the cost plan"
    return placed, assignment, cs2, copies, placed_input


def _check_cost(solution: CostSolution, ev: Evaluation) -> None:
    """The solver's cost must be the placed module's, recomputed from it alone."""
    solved = solution.cost
    assert solved is not None
    if not math.isclose(solved.total, ev.total, rel_tol=1e-9, abs_tol=1e-15):
        raise PlacementInternalError(
            f"the cost plan counted {solved.total!r} s but the placed module costs {ev.total!r} s "
            f"(compute {solved.compute!r} vs {ev.compute!r}, transfer {solved.transfer!r} vs {ev.transfer!r})"
        )
    if solved.memory != list(ev.memory.values()):
        raise PlacementInternalError(f"the cost plan's memory {solved.memory} is not the placed module's {ev.memory}")
