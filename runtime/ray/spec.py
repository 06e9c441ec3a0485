"""What runs each vdevice: one Ray actor per physical device, with the resources it asks Ray for.

``devices={"llvm:0": "cpu", "cuda:0": "sim", "cuda:1": ActorSpec("gpu", node="10.0.0.7")}``:
a key is a vdevice name (`ir.vdevice.lookup_vdevice`: ``"cuda"``, ``"cuda:1"``,
``"vdevice:2"``), a value an `ActorSpec` or its kind.  vdevices of one
physical device share one actor (they share memory); a vdevice left out gets
``"cpu"`` when it is a CPU, else ``"sim"`` (`simulate_missing`, the default)
or ``"gpu"``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from vdplace.ir.vdevice import VDevice, lookup_vdevice, vdevice_name

from ..errors import DeviceUnavailable
from ..mapping import limits_by_physical

KINDS = ("cpu", "sim", "gpu")


@dataclass(frozen=True)
class ActorSpec:
    """The device an actor owns and where Ray may put it.

    - ``kind``: ``"cpu"`` (host memory, NumPy kernels), ``"sim"`` (a `Simulated`
      device: host memory that only copies reach, with ``memory_limit``), or
      ``"gpu"`` (a `CUDA` device in a process holding one GPU, ``num_gpus=1``).
    - ``node``: run on the node with this IP address (Ray's ``node:<ip>`` resource).
    - ``resources``: custom Ray resources (labels) the actor needs, e.g. ``{"preproc": 1}``.
    - ``num_cpus``: logical CPUs the actor holds (default 1).
    - ``memory_limit``: the most bytes live on the device at once (None: the
      GPU's free memory; no budget on a CPU or simulated device, each tensor
      bounded by what the actor's host has available; `runtime.memory`).
    """

    kind: str = "cpu"
    node: str | None = None
    resources: Mapping[str, float] = field(default_factory=dict)
    num_cpus: float = 1.0
    memory_limit: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise DeviceUnavailable(f"ActorSpec kind {self.kind!r}: want one of {', '.join(KINDS)}")

    def ray_options(self) -> dict[str, Any]:
        """The options of ``ActorClass.options(...)`` for this actor."""
        resources = dict(self.resources)
        if self.node is not None:
            resources[f"node:{self.node}"] = 0.001
        # Anonymous actors, one call at a time each: two executors may run side by side.
        options: dict[str, Any] = {"num_cpus": self.num_cpus, "num_gpus": 1 if self.kind == "gpu" else 0}
        options["max_concurrency"] = 1
        if resources:
            options["resources"] = resources
        return options


SpecLike = ActorSpec | str


@dataclass(frozen=True)
class ActorPlan:
    """One actor: the physical device it owns, its vdevice indices and names, and its spec."""

    physical: tuple[str, int]
    vdevices: tuple[int, ...]
    names: tuple[str, ...]
    spec: ActorSpec

    @property
    def label(self) -> str:
        """``cuda:0:global`` (or ``llvm:0:global+llvm:0:shared``): how errors and profiles name the actor."""
        return "+".join(self.names)

    @property
    def device_name(self) -> str:
        """The runtime device's name on the actor, as the local VM names it."""
        kind, ident = self.physical
        if self.spec.kind == "cpu":
            return "cpu" if ident == 0 and kind == "cpu" else f"cpu:{kind}:{ident}"
        return f"cuda:{ident}" if self.spec.kind == "gpu" else f"sim:{kind}:{ident}"


def _as_spec(key: str, value: SpecLike) -> ActorSpec:
    if isinstance(value, ActorSpec):
        return value
    if isinstance(value, str) and value in KINDS:
        return ActorSpec(value)
    raise DeviceUnavailable(f"devices[{key!r}] = {value!r}: want an ActorSpec or one of {', '.join(KINDS)}")


def plan_actors(
    vdevices: Sequence[VDevice],
    devices: Mapping[str, SpecLike] | None,
    simulate_missing: bool = True,
    memory: Mapping[str, int] | None = None,
) -> tuple[list[ActorPlan], list[int]]:
    """The actors, and for each vdevice index the index of its actor; `memory` (vdevice name -> bytes) replaces
    the ``memory_limit`` of those vdevices' actors."""
    chosen: dict[tuple[str, int], ActorSpec] = {}
    for key, value in (devices or {}).items():
        try:
            vdevice = lookup_vdevice(vdevices, key)
        except LookupError as err:
            raise DeviceUnavailable(f"devices[{key!r}]: {err}") from None
        spec = _as_spec(key, value)
        if chosen.get(vdevice.physical, spec) != spec:
            raise DeviceUnavailable(f"devices gives two actors to {key!r}'s physical device; its vdevices share one")
        chosen[vdevice.physical] = spec
    limits = limits_by_physical(vdevices, memory or {})
    order: list[tuple[str, int]] = list(dict.fromkeys(v.physical for v in vdevices))
    plans = []
    for phys in order:
        members = tuple(i for i, v in enumerate(vdevices) if v.physical == phys)
        default = "cpu" if phys[0] == "cpu" else ("sim" if simulate_missing else "gpu")
        spec = chosen.get(phys, ActorSpec(default))
        if phys in limits:
            spec = replace(spec, memory_limit=limits[phys])
        plans.append(ActorPlan(phys, members, tuple(vdevice_name(vdevices, vdevices[i]) for i in members), spec))
    actor_of = [order.index(v.physical) for v in vdevices]
    return plans, actor_of


def check_gpus(plans: Sequence[ActorPlan], cluster_gpus: float) -> None:
    """`DeviceUnavailable` at once when the actors ask for more GPUs than the cluster has (`cluster_gpus`).

    For a cluster started here, where no node can join later: waiting for a GPU
    that no node has would only end at the start timeout.
    """
    wanted = [p for p in plans if p.spec.kind == "gpu"]
    if len(wanted) > cluster_gpus:
        labels = ", ".join(p.label for p in wanted)
        raise DeviceUnavailable(
            f"the actor(s) of {labels} need {len(wanted)} GPU(s) and the Ray cluster has {cluster_gpus:g}; "
            "give them a simulated device instead (--actor VDEVICE=sim) or join a cluster with GPUs (--ray=ADDRESS)"
        )
