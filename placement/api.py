"""`place()` and `realize_vdevice()`: the placement pipeline end to end.

extract (one walk, `ConstraintSet`) -> collapse (union-find classes) ->
solve (propagation + Z3) -> check (every constraint, independently) ->
realize (a new module with every site annotated and every copy explicit).

The garbage collector is paused while the pipeline runs: it builds hundreds
of thousands of small acyclic objects, and the collections they trigger cost
more than the walk itself (measured at 100k bindings, CPU time of place():
chain 0.47 s paused vs 1.31 s with the collector running; transformer-like
0.61 s vs 1.81 s).  It is re-enabled before `place` returns.
"""

from __future__ import annotations

import gc
import time

from vdplace.ir.module import IRModule
from vdplace.ir.vdevice import VDevice

from .check import check, copy_bytes
from .classes import collapse
from .conflict import build_conflict
from .constraints import ConstraintSet, Site
from .errors import PlacementInternalError
from .extract import extract
from .realize import Copy, realize
from .solve import DEFAULT_ENCODING, POLICIES, solve

PHASES = ("extract", "collapse", "solve", "check", "realize")


class Stats:
    """Sizes of the problem and seconds per phase (`times`, keyed by `PHASES`)."""

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
        "hint_bytes",
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
        self.bytes_copied = 0  # every copy of the placed module that crosses physical devices
        self.hint_bytes = 0  # the part placement chose: copies made from hints (the MaxSMT objective)
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
    """

    __slots__ = ("module", "assignment", "constraints", "copies", "stats", "_devices")

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
        """Bytes that cross physical devices through every copy of the placed module."""
        return self.stats.bytes_copied

    @property
    def hint_bytes(self) -> int:
        """Bytes moved by the copies placement made from hints: what it minimizes."""
        return self.stats.hint_bytes

    def __repr__(self) -> str:
        return f"Placement({len(self.assignment)} sites, {len(self.copies)} copies, {self.stats!r})"


def place(
    mod: IRModule,
    *,
    strict_hints: bool = False,
    default: str = "none",
    encoding: str = DEFAULT_ENCODING,
    propagate: bool = True,
    timeout_ms: int | None = None,
) -> Placement:
    """Place every tensor of `mod` on a vdevice, or raise `PlacementConflict`.

    strict_hints  make every ``hint_on_device`` a hard equality (no copy allowed)
    default       ``"none"`` leaves sites nothing constrains unplaced (TVM),
                  ``"first"`` puts them on the first vdevice (the RFC),
                  ``"host"`` on the host (the last CPU entry, else the last entry)
    encoding      ``"bv"`` or ``"enum"``: how Z3 sees a device variable
    propagate     decide trivial classes without Z3 (False: Z3 decides every
                  constrained class; same answer, slower)
    timeout_ms    a limit for the MaxSMT search; on timeout Z3's best placement
                  so far is used (it still satisfies every hard constraint)
    """
    if not isinstance(mod, IRModule):
        raise TypeError(f"place() takes an IRModule, not {type(mod).__name__}")
    if default not in POLICIES:
        raise ValueError(f"unknown default policy {default!r}; use one of {', '.join(POLICIES)}")
    stats = Stats()
    times = stats.times
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        ex = extract(mod, strict_hints=strict_hints)
        cs = ex.constraints
        t1 = time.perf_counter()
        times["extract"] = t1 - t0
        classes = collapse(len(cs.sites), cs.equals)
        t2 = time.perf_counter()
        times["collapse"] = t2 - t1
        solution = solve(cs, classes, default=default, encoding=encoding, propagate=propagate, timeout_ms=timeout_ms)
        t3 = time.perf_counter()
        times["solve"] = t3 - t2
        if solution.class_cores:
            raise build_conflict(mod, cs, classes, solution.class_cores, solution.more_conflicts)
        assignment = classes.expand(solution.devices)
        violations = check(cs, assignment)
        if violations:
            shown = "; ".join(f"{c!r}: {why}" for c, why in violations[:5])
            raise PlacementInternalError(f"placement failed its own check ({len(violations)} violations): {shown}")
        t4 = time.perf_counter()
        times["check"] = t4 - t3
        placed, copies = realize(ex, assignment)
        times["realize"] = time.perf_counter() - t4
    finally:
        if gc_was_enabled:
            gc.enable()
    stats.sites = len(cs.sites)
    stats.classes = len(classes)
    stats.constraints = cs.num_constraints
    stats.pins = len(cs.pins)
    stats.equals = len(cs.equals)
    stats.prefers = len(cs.prefers)
    stats.domains = len(cs.domains)
    stats.z3_variables = solution.z3_variables
    stats.z3_soft = solution.z3_soft
    stats.z3_status = solution.z3_status
    stats.copies = len(copies)
    stats.bytes_copied = sum(c.nbytes for c in copies if c.physical)
    stats.hint_bytes = copy_bytes(cs, assignment)
    return Placement(placed, assignment, cs, copies, stats)


def realize_vdevice(mod: IRModule, **options: object) -> IRModule:
    """The RealizeVDevice pass: `place(mod, **options).module`."""
    return place(mod, **options).module  # type: ignore[arg-type]


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
