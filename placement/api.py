"""`place()` and the `realize_vdevice` pass: the placement pipeline end to end.

extract (one walk, `ConstraintSet`) -> collapse (union-find classes) ->
solve (propagation, then a backend: Z3 MaxSMT by default) -> check (every
constraint, independently) -> realize (a new module with every site
annotated and every copy explicit).

The garbage collector is paused while the pipeline runs: it builds hundreds
of thousands of small acyclic objects, and the collections they trigger cost
more than the walk itself (measured at 100k bindings, CPU time of place():
chain 0.47 s paused vs 1.31 s with the collector running; transformer-like
0.61 s vs 1.81 s).  It is re-enabled before `place` returns, and what it
tracks moves to its oldest generation first (`ir.collector`): the placed
module is long-lived, and scanning its objects as young ones, once on the
first allocation after `place` and again a few thousand allocations later,
cost a fifth of `place` (a second at a million bindings).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from vdplace.ir.collector import collector_paused
from vdplace.ir.fill_vdevice import HOST_VDEVICE
from vdplace.ir.module import IRModule
from vdplace.ir.vdevice import VDevice
from vdplace.placement.cost.model import CostModel
from vdplace.placement.diagnose import conflict_error
from vdplace.placement.errors import PlacementInternalError
from vdplace.placement.extract.extract import extract
from vdplace.placement.model.classes import Classes, collapse
from vdplace.placement.model.constraints import ConstraintSet, Site
from vdplace.placement.rewrite.module_pass import module_pass
from vdplace.placement.rewrite.realize import Copy, realize
from vdplace.placement.solve.backend import Backend, resolve_backend
from vdplace.placement.solve.check import check, copy_bytes
from vdplace.placement.solve.solve import POLICIES, ClassSolution, solve
from vdplace.placement.specialize.record import Clone

if TYPE_CHECKING:
    from vdplace.placement.cost.place import PlacementCost
    from vdplace.placement.schedule.events import Schedule
    from vdplace.placement.schedule.objective import Time

PHASES = ("extract", "collapse", "solve", "check", "realize")


class Stats:
    """Sizes of the problem and seconds per phase (`times`, keyed by `PHASES`).

    `z3_variables`, `z3_soft` and `z3_status` are the backend's (named after
    the default backend): the size of its encoding and its status, or
    ``"unused"`` when propagation decided everything.
    """

    __slots__ = (
        "sites",
        "classes",
        "constraints",
        "pins",
        "equals",
        "prefers",
        "domains",
        "z3_variables",
        "z3_soft",
        "z3_status",
        "copies",
        "bytes_copied",
        "times",
    )

    def __init__(self) -> None:
        self.sites = 0
        self.classes = 0
        self.constraints = 0
        self.pins = 0
        self.equals = 0
        self.prefers = 0
        self.domains = 0
        self.z3_variables = 0
        self.z3_soft = 0
        self.z3_status = "unused"
        self.copies = 0
        self.bytes_copied = 0  # what every copy of the placed module moves across physical devices: the objective
        self.times: dict[str, float] = {}

    @property
    def total_time(self) -> float:
        return sum(self.times.values())

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {name: getattr(self, name) for name in self.__slots__ if name != "times"}
        out["times"] = dict(self.times)
        out["total_time"] = self.total_time
        return out

    def __repr__(self) -> str:
        times = ", ".join(f"{k}={v * 1000:.1f}ms" for k, v in self.times.items())
        return (
            f"Stats(sites={self.sites}, classes={self.classes}, constraints={self.constraints}, "
            f"z3_variables={self.z3_variables}, {times})"
        )


class Placement:
    """The result of `place`.

    module       the placed module (new; the input is untouched)
    devices      site label (``func:var``, ``func:var.1`` for a tuple leaf,
                 ``func:<ret>``) -> VDevice, or None where the policy left a site
                 unplaced; the k-th redefinition of a shadowed name (and the k-th
                 anonymous value of one kind) is labelled ``func:name#k``.
                 Built on first access: large modules do not pay for it unless asked.
    assignment   per site id: the vdevice index (or None), as the checker saw it
    constraints  the ConstraintSet that was solved
    copies       every `Copy` in the placed module, in program order
    stats        `Stats`
    clones       every `Clone` of a function that ``place(..., specialize=True)``
                 made (the copy keeping the original name included); empty otherwise
    cost         ``place(..., cost=model)``: the plan's `placement.cost.place.PlacementCost`
                 (time, memory, proved optimal or lower bound); None otherwise
    schedule     ``place(..., objective=Time(model))``: the `placement.schedule.Schedule` the plan
                 predicts (makespan, proved lower bound, events, peak memory); None otherwise
    """

    __slots__ = ("module", "assignment", "constraints", "copies", "stats", "clones", "cost", "schedule", "_devices")

    def __init__(
        self,
        module: IRModule,
        assignment: list[int | None],
        constraints: ConstraintSet,
        copies: list[Copy],
        stats: Stats,
    ) -> None:
        self.module = module
        self.assignment = assignment
        self.constraints = constraints
        self.copies = copies
        self.stats = stats
        self.clones: list[Clone] = []
        self.cost: PlacementCost | None = None
        self.schedule: Schedule | None = None
        self._devices: dict[str, VDevice | None] | None = None

    @property
    def devices(self) -> dict[str, VDevice | None]:
        if self._devices is None:
            self._devices = _device_map(self.constraints.sites, self.constraints.vdevices, self.assignment)
        return self._devices

    def device_of(self, site: int) -> VDevice | None:
        """The device of site id `site` (see `constraints.sites`)."""
        value = self.assignment[site]
        return None if value is None else self.constraints.vdevices[value]

    @property
    def bytes_copied(self) -> int:
        """Bytes that cross physical devices through every copy of the placed module: what placement minimizes."""
        return self.stats.bytes_copied

    def __repr__(self) -> str:
        return f"Placement({len(self.assignment)} sites, {len(self.copies)} copies, {self.stats!r})"


def place(
    mod: IRModule,
    *,
    strict_hints: bool = False,
    default: str = "none",
    backend: Backend | str = "z3",
    propagate: bool = True,
    timeout_ms: int | None = None,
    specialize: bool = False,
    cost: CostModel | None = None,
    time_limit_s: float = 60.0,
    cost_solver: str = "highs",
    objective: Time | None = None,
) -> Placement:
    """Place every tensor of `mod` on a vdevice, or raise `PlacementConflict`.

    strict_hints  make every ``hint_on_device`` a hard equality (no copy allowed)
    default       ``"none"`` leaves sites nothing constrains unplaced (TVM),
                  ``"first"`` puts them on the first vdevice,
                  ``"host"`` on the host (the last CPU entry, else the last entry;
                  a module that declares no vdevice gets ``ir.fill_vdevice.HOST_VDEVICE``
                  added to its list, so every site is placed there)
    backend       what decides the classes propagation leaves open: a
                  `placement.solve.backend.Backend`, or a registered name:
                  ``"z3"`` (Z3 MaxSMT, EnumSort encoding), ``"z3-enum"``, ``"z3-bv"``
    propagate     decide trivial classes without the backend (False: the
                  backend decides every constrained class; same answer, slower)
    timeout_ms    a limit for the backend's search; on timeout its best placement
                  so far is used (it still satisfies every hard constraint)
    specialize    when no placement exists, clone functions per device signature their
                  call sites need (fewest clones, then fewest bytes; `Placement.clones`
                  lists them; docs/placement.md, "Specialization")
    cost          a `placement.CostModel`: decide where every unpinned op runs so that the
                  estimated time is least and every memory limit holds (docs/placement.md,
                  "Cost-aware placement"); `Placement.cost` reports the plan
    time_limit_s  the cost solvers' time limit: past it, the best plan found and a proved lower bound
    cost_solver   the exact solver for limits or three vdevices: ``"highs"`` (a MILP) or ``"z3"`` (MaxSAT)
    objective     ``placement.Time(model, memory=...)``: least makespan of the predicted schedule, memory
                  peaks within limits (docs/schedule.md); `Placement.schedule` holds the schedule
    """
    if not isinstance(mod, IRModule):
        raise TypeError(f"place() takes an IRModule, not {type(mod).__name__}")
    if objective is not None:
        return _place_time(mod, objective, time_limit_s, (strict_hints, specialize, default != "none", cost))
    if cost is not None:
        other_options = strict_hints or specialize or default != "none"
        return _place_cost(mod, cost, time_limit_s, cost_solver, other_options)
    if specialize:
        from vdplace.placement.specialize.search import place_specialized

        options = {"strict_hints": strict_hints, "default": default, "backend": backend, "propagate": propagate}
        return place_specialized(mod, lambda m: place(m, timeout_ms=timeout_ms, **options))  # type: ignore[arg-type]
    if default not in POLICIES:
        raise ValueError(f"unknown default policy {default!r}; use one of {', '.join(POLICIES)}")
    if default == "host" and not mod.vdevices:
        mod = mod.replace(vdevices=[HOST_VDEVICE])
    decider = resolve_backend(backend)
    stats = Stats()
    phase = _Phases(stats.times)
    with collector_paused():
        with phase("extract"):
            ex = extract(mod, strict_hints=strict_hints)
        cs = ex.constraints
        with phase("collapse"):
            classes = collapse(len(cs.sites), cs.equals)
        with phase("solve"):
            solution = solve(cs, classes, decider, default=default, propagate=propagate, timeout_ms=timeout_ms)
        if solution.conflicting:
            raise conflict_error(cs, mod)
        with phase("check"):
            assignment = classes.expand(solution.devices)
            _check(cs, assignment)
        _fill_stats(stats, cs, classes, solution)
        del classes, solution  # one entry per site: freed before the placed module is built
        with phase("realize"):
            placed, copies = realize(ex, assignment)
            _check_objective(cs, assignment, copies)
    stats.copies = len(copies)
    stats.bytes_copied = sum(c.nbytes for c in copies if c.physical)
    return Placement(placed, assignment, cs, copies, stats)


def _place_cost(mod: IRModule, model: CostModel, time_limit_s: float, solver: str, other_options: bool) -> Placement:
    """`place` with a cost model (`placement.cost.place`); the options of the bytes objective do not apply."""
    if other_options:
        raise ValueError("place(..., cost=...) takes no strict_hints, default or specialize option")
    from vdplace.placement.cost.place import place_cost

    stats = Stats()
    start = time.perf_counter()

    def make(placed: IRModule, assignment: list, cs: ConstraintSet, copies: list[Copy], plan: PlacementCost) -> Any:
        stats.times["solve"] = plan.solve_seconds
        stats.times["other"] = time.perf_counter() - start - plan.solve_seconds
        stats.sites, stats.pins, stats.equals = len(cs.sites), len(cs.pins), len(cs.equals)
        stats.copies = len(copies)
        stats.bytes_copied = sum(c.nbytes for c in copies if c.physical)
        stats.z3_status = plan.status
        result = Placement(placed, assignment, cs, copies, stats)
        result.cost = plan
        return result

    with collector_paused():
        return place_cost(mod, model, time_limit_s, make, solver)  # type: ignore[return-value]


def _place_time(mod: IRModule, objective: Time, time_limit_s: float, other_options: tuple) -> Placement:
    """`place` with the time objective (`placement.schedule.place`); the other objectives' options do not apply."""
    if any(option not in (False, None) for option in other_options):
        raise ValueError("place(..., objective=Time(...)) takes no cost, strict_hints, default or specialize option")
    from vdplace.placement.schedule.place import place_time

    stats = Stats()
    start = time.perf_counter()

    def make(placed: IRModule, assignment: list, cs: ConstraintSet, copies: list[Copy], schedule: Schedule) -> Any:
        stats.times["solve"] = schedule.seconds
        stats.times["other"] = time.perf_counter() - start - schedule.seconds
        stats.sites, stats.pins, stats.equals = len(cs.sites), len(cs.pins), len(cs.equals)
        stats.copies = len(copies)
        stats.bytes_copied = sum(c.nbytes for c in copies if c.physical)
        stats.z3_status = schedule.status
        result = Placement(placed, assignment, cs, copies, stats)
        result.schedule = schedule
        return result

    with collector_paused():
        return place_time(mod, objective, time_limit_s, make)  # type: ignore[return-value]


@module_pass("RealizeVDevice")
def realize_vdevice(mod: IRModule, **options: object) -> IRModule:
    """The RealizeVDevice pass: `place(mod, **options).module`."""
    return place(mod, **options).module  # type: ignore[arg-type]


class _Phases:
    """``with phase("name"):`` records the block's wall time as ``times["name"]``."""

    __slots__ = ("times", "name", "start")

    def __init__(self, times: dict[str, float]) -> None:
        self.times = times
        self.name = ""
        self.start = 0.0

    def __call__(self, name: str) -> _Phases:
        self.name = name
        return self

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.times[self.name] = time.perf_counter() - self.start


def _check(cs: ConstraintSet, assignment: list[int | None]) -> None:
    """The independent checker's verdict: a violated constraint is a bug in placement, never the user's."""
    violations = check(cs, assignment)
    if violations:
        shown = "; ".join(f"{c!r}: {why}" for c, why in violations[:5])
        raise PlacementInternalError(f"placement failed its own check ({len(violations)} violations): {shown}")


def _check_objective(cs: ConstraintSet, assignment: list[int | None], copies: list[Copy]) -> None:
    """The bytes the solver minimized must be the bytes the placed module's copies move."""
    solved = copy_bytes(cs, assignment)
    realized = sum(c.nbytes for c in copies if c.physical)
    if solved != realized:
        raise PlacementInternalError(f"the objective counted {solved} bytes but the placed module copies {realized}")


def _fill_stats(stats: Stats, cs: ConstraintSet, classes: Classes, solution: ClassSolution) -> None:
    """The sizes of the problem and the solver's figures (the copies' are filled once the module is placed)."""
    stats.sites = len(cs.sites)
    stats.classes = len(classes)
    stats.constraints = cs.num_constraints
    stats.pins = len(cs.pins)
    stats.equals = len(cs.equals)
    stats.prefers = len(cs.prefers)
    stats.domains = len(cs.domains)
    stats.z3_variables = solution.variables
    stats.z3_soft = solution.soft
    stats.z3_status = solution.status


def _device_map(sites: list[Site], vdevices: list[VDevice], assignment: list[int | None]) -> dict[str, VDevice | None]:
    """Site labels -> devices; the k-th redefinition of a name (or k-th anonymous value) gets ``#k``."""
    out: dict[str, VDevice | None] = {}
    seen: dict[tuple[str, str, str, tuple[int, ...]], int] = {}
    for site in sites:
        key = (site.func, site.name, site.kind, site.path)
        count = seen.get(key, 0)
        seen[key] = count + 1
        leaf = "".join([f".{i}" for i in site.path]) if site.path else ""
        label = f"{site.func}:{site.name}#{count}{leaf}" if count else f"{site.func}:{site.name}{leaf}"
        value = assignment[site.id]
        out[label] = None if value is None else vdevices[value]
    return out
