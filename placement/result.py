"""What `place()` returns: `Placement` (the placed module and how it was decided), `Stats` and `Clone`.

Its own module so that the stages (specialization reads placements, reports
draw them) name these types without importing the driver (`placement.api`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from vdplace.ir.module import IRModule
from vdplace.ir.vdevice import VDevice
from vdplace.placement.model.constraints import ConstraintSet, Site
from vdplace.placement.rewrite.realize import Copy

if TYPE_CHECKING:
    from vdplace.placement.cost.report import PlacementCost
    from vdplace.placement.objective import Objective
    from vdplace.placement.schedule.events import Schedule

# The driver's phases, in order, as `Stats.times` keys them.
PHASES = ("extract", "collapse", "solve", "check", "realize", "verify")


class Stats:
    """Sizes of the problem, the backend's figures, and seconds per phase (`times`, keyed by `PHASES`).

    Each field means the same under every objective:

    sites, constraints, pins, equals, prefers, domains   the constraint set that was realized
    classes      what the objective decided one device for: equality classes (`Bytes`) or units (`Cost`)
    backend      the name of the backend that decided what the objective's exact steps left open,
                 or ``""`` when nothing was left to it
    variables    the size of the backend's encoding (0 when it was not asked)
    soft         its soft constraints or weighted terms (0 when it was not asked)
    status       how the search ended: ``"unused"`` (decided without a backend), ``"sat"`` /
                 ``"optimal"`` (proved best), ``"unknown"`` / ``"time limit"`` (the best found in time)
    copies       the placed module's copies; `bytes_copied` what they move across physical devices
    starts       runtime inputs of entry functions the constraint set starts on the host
    bytes_uploaded   what the placement moves of those inputs off the host (with `bytes_copied`: the bytes
                 objective, `Placement.bytes_moved`); `bytes_loaded` the entry functions' weights per
                 vdevice name (reported, not minimized); `dims` the size each symbolic dim was taken to be
    """

    __slots__ = (
        "sites",
        "classes",
        "constraints",
        "pins",
        "equals",
        "prefers",
        "domains",
        "backend",
        "variables",
        "soft",
        "status",
        "copies",
        "bytes_copied",
        "starts",
        "bytes_uploaded",
        "bytes_loaded",
        "dims",
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
        self.backend = ""
        self.variables = 0
        self.soft = 0
        self.status = "unused"
        self.copies = 0
        self.bytes_copied = 0  # what every copy of the placed module moves across physical devices
        self.starts = 0
        self.bytes_uploaded = 0  # entry runtime inputs moved off the host: with bytes_copied, the bytes objective
        self.bytes_loaded: dict[str, int] = {}  # weights of entry functions, per vdevice name
        self.dims: dict[str, int] = {}  # the size each symbolic dim the figures use was taken to be
        self.times: dict[str, float] = {}

    @property
    def total_time(self) -> float:
        return sum(self.times.values())

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {name: getattr(self, name) for name in self.__slots__ if name != "times"}
        out["bytes_loaded"] = dict(self.bytes_loaded)
        out["dims"] = dict(self.dims)
        out["times"] = dict(self.times)
        out["total_time"] = self.total_time
        return out

    def __repr__(self) -> str:
        times = ", ".join(f"{k}={v * 1000:.1f}ms" for k, v in self.times.items())
        return (
            f"Stats(sites={self.sites}, classes={self.classes}, constraints={self.constraints}, "
            f"variables={self.variables}, {times})"
        )


class Clone:
    """A copy of module function `function` named `name`, called by `call_sites` calls of the placed module.

    Every call counts, a recursive or mutually recursive function's calls of
    its own copy included.

    `signature` is the device of every parameter leaf and return leaf in the
    placed module: ``(("x", "llvm:0"), ("<ret>", "llvm:0"))``, a leaf of a
    tuple as ``"t.1"``, a device as conflict reports name it, None where the
    placement left the leaf unplaced.  The copy that keeps the original name is
    listed too (``name == function``).
    """

    __slots__ = ("function", "name", "call_sites", "signature")

    def __init__(
        self, function: str, name: str, call_sites: int, signature: tuple[tuple[str, str | None], ...]
    ) -> None:
        self.function = function
        self.name = name
        self.call_sites = call_sites
        self.signature = signature

    def as_dict(self) -> dict[str, object]:
        """The JSON form: ``{"function", "name", "call_sites", "signature": {leaf: device}}``."""
        return {
            "function": self.function,
            "name": self.name,
            "call_sites": self.call_sites,
            "signature": dict(self.signature),
        }

    def describe(self) -> str:
        """``scale_cuda0: copy of scale with x on "cuda:0", <ret> on "cuda:0" (1 call site)``."""
        leaves = ", ".join(f'{leaf} on "{device}"' if device else f"{leaf} unplaced" for leaf, device in self.signature)
        what = "the original" if self.name == self.function else f"copy of {self.function}"
        sites = f"{self.call_sites} call site{'' if self.call_sites == 1 else 's'}"
        return f"{self.name}: {what} with {leaves or 'no tensors'} ({sites})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Clone) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash((self.function, self.name, self.call_sites, self.signature))

    def __repr__(self) -> str:
        return f"Clone({self.function!r} -> {self.name!r}, {dict(self.signature)!r}, call_sites={self.call_sites})"


class Placement:
    """The result of `place`.

    module       the placed module (new; the input is untouched)
    devices      site label (``func:var``, ``func:var.1`` for a tuple leaf,
                 ``func:<ret>``) -> VDevice, or None where the policy left a site
                 unplaced; the k-th redefinition of a shadowed name (and the k-th
                 anonymous value of one kind) is labelled ``func:name#k``.
                 Built on first access: large modules do not pay for it unless asked.
    assignment   per site id: the vdevice index (or None), as the checker saw it
    constraints  the ConstraintSet that was solved and checked
    copies       every `Copy` in the placed module, in program order
    stats        `Stats`
    clones       every `Clone` of a function that specialization made (the copy keeping the
                 original name included); empty otherwise
    objective    the `placement.objective.Objective` it was placed under
    report       what the objective says of the plan (None for `Bytes`): under `Cost` a
                 `placement.cost.report.PlacementCost`, also readable as `cost`; an objective
                 whose `report_name` is ``"schedule"`` makes it readable as `schedule`
    """

    __slots__ = ("module", "assignment", "constraints", "copies", "stats", "clones", "objective", "report", "_devices")

    def __init__(
        self,
        module: IRModule,
        assignment: list[int | None],
        constraints: ConstraintSet,
        copies: list[Copy],
        stats: Stats,
        objective: Objective | None = None,
        report: object = None,
    ) -> None:
        self.module = module
        self.assignment = assignment
        self.constraints = constraints
        self.copies = copies
        self.stats = stats
        self.clones: list[Clone] = []
        self.objective = objective
        self.report = report
        self._devices: dict[str, VDevice | None] | None = None

    @property
    def cost(self) -> PlacementCost | None:
        """The report of an objective whose `report_name` is ``"cost"`` (`Cost`), else None."""
        return cast("PlacementCost | None", self._report("cost"))  # what that `report_name` promises

    @property
    def schedule(self) -> Schedule | None:
        """The report of an objective whose `report_name` is ``"schedule"`` (a time objective), else None."""
        return cast("Schedule | None", self._report("schedule"))  # what that `report_name` promises

    def _report(self, name: str) -> object:
        return self.report if self.objective is not None and self.objective.report_name == name else None

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
    def bytes_moved(self) -> int:
        """What the bytes objective minimizes: the bytes copied plus the entry inputs uploaded off the host."""
        return self.stats.bytes_copied + self.stats.bytes_uploaded

    def __repr__(self) -> str:
        return f"Placement({len(self.assignment)} sites, {len(self.copies)} copies, {self.stats!r})"


def _device_map(
    sites: Iterable[Site], vdevices: list[VDevice], assignment: list[int | None]
) -> dict[str, VDevice | None]:
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
