"""The actor of one physical device: it owns the device, its constants and its share of every frame.

`VDeviceActor` is a plain class; the executor makes it a Ray actor
(``ray.remote(VDeviceActor).options(...)``), so this module imports Ray only
for `ray.get` of its imports and `ray.put` / `ray.get` of copies, only in the actor's process.

The driver talks to it in *scripts*: ``run(commands, imports)`` runs the
commands in order and returns the exports (`commands`).  Between commands
the actor runs its own steps (`actor_steps`), so it starts an instruction as
soon as the instruction before it on this actor is done and the data it
receives is there; Ray runs an actor's scripts in the order the driver sent
them.  Frames (one per function call of one run or micro-batch) are keyed by
ids the driver hands out.
"""

from __future__ import annotations

import time
from typing import Any

from ..devices import CPU, Device, Simulated, upload_constant
from ..diagnostics import Diagnostics
from ..executable import Executable
from ..frame import Frame
from ..instructions import LoadConst
from ..memory import AVAILABLE
from ..steps import StepBuilder
from .actor_steps import build_steps, local_device_map
from .commands import CommandRunner
from .errors import Failure
from .schedule import schedule
from .spec import ActorPlan


def make_device(plan: ActorPlan) -> Device:
    """The runtime device `plan` asks for, made in the actor's process."""
    kind = plan.spec.kind
    limit = plan.spec.memory_limit if plan.spec.memory_limit is not None else AVAILABLE
    if kind == "gpu":
        from ..torch_device import CUDA

        device = CUDA(0, memory_limit=limit)  # Ray's num_gpus=1 leaves exactly one visible GPU to this process
        device.name = plan.device_name  # the vdevice's GPU as the profile names it, not the process's "cuda:0"
        return device
    if kind == "sim":
        return Simulated(plan.device_name, memory_limit=limit)
    return CPU(plan.device_name, memory_limit=limit)


class VDeviceActor:
    """Actor `me` of `plans`: runs the instructions of its vdevices (`actor_of` maps vdevice -> actor)."""

    def __init__(self, executable: Executable, plans: list[ActorPlan], actor_of: list[int], me: int) -> None:
        self.plan = plans[me]
        self.device = make_device(self.plan)
        self.names = [p.device_name for p in plans]
        diagnostics = Diagnostics(executable.device_name)
        constants = _load_constants(executable, actor_of, me, self.device)
        self.constants = constants
        schedules = schedule(executable, actor_of)
        device_map = local_device_map(actor_of, me, self.device)
        builder = StepBuilder(device_map, constants, {}, {}, [], diagnostics)
        self.protos = {name: Frame(fn) for name, fn in executable.functions.items()}
        for name, proto in self.protos.items():
            proto.steps = build_steps(proto, schedules[name], me, builder)
        self.runner = CommandRunner(self.device, self.names, self.protos, diagnostics, self.plan.label, constants)

    def run(self, commands: list[tuple], imports: list[Any]) -> list[Any]:
        """Run one script; return its exports.  A failure is raised as one picklable `Failure`.

        `imports` are Ray references (the driver's inputs, other actors' script
        exports), each fetched when the command that takes it runs (`Imports`):
        the instructions before a copy's receive run while the sender is still
        working.  One that cannot be fetched (its actor died, its script
        failed) abandons the script.
        """
        return self.runner.script(commands, Imports(imports, self.plan.label))

    def begin(self, profile: bool) -> None:
        """Start a measured window: clear counters and the profile, remember memory."""
        self.runner.begin(profile)

    def report(self) -> dict[str, Any]:
        return self.runner.report()

    def reset(self) -> int:
        """Drop every frame (after a failed run); return how many there were."""
        return self.runner.reset()

    def where(self) -> str:
        """The node this actor runs on and its device, for logs and tests."""
        import ray

        return f"{ray.get_runtime_context().get_node_id()} {self.device.name}"


class Imports:
    """A script's imports (Ray references), each fetched by `next` when a command takes it.

    `waited` is the seconds spent waiting for them (not busy time: the actor
    had nothing to run).  A reference that cannot be fetched raises
    `Failure` (kind ``abandoned``): the failed script it came from is the
    run's root error, not this one.
    """

    __slots__ = ("refs", "label", "taken", "waited")

    def __init__(self, refs: list[Any], label: str) -> None:
        self.refs = refs
        self.label = label
        self.taken = 0
        self.waited = 0.0

    def __iter__(self) -> Imports:
        return self

    def __next__(self) -> Any:
        if self.taken >= len(self.refs):
            raise StopIteration
        import ray

        ref = self.refs[self.taken]
        self.taken += 1
        start = time.perf_counter()
        try:
            return ray.get(ref)
        except Exception as err:  # noqa: BLE001  (the failed script is the run's root error, not this one)
            message = f"on vdevice {self.label}: an input from another actor failed: {type(err).__name__}"
            raise Failure({"kind": "abandoned", "message": message, "vdevice": self.label, "instruction": ""}) from None
        finally:
            self.waited += time.perf_counter() - start


def _load_constants(executable: Executable, actor_of: list[int], me: int, device: Device) -> list[Any]:
    """The constant pool as this actor sees it: its own device's constants uploaded, host ones as they are."""
    devices: dict[int, int] = {}
    for fn in executable.functions.values():
        for instr in fn.instructions:
            if isinstance(instr, LoadConst) and instr.device is not None:
                devices[instr.index] = instr.device
    constants: list[Any] = []
    for index, value in enumerate(executable.constants):
        if index in devices:
            if actor_of[devices[index]] != me:
                constants.append(None)
                continue
            value = upload_constant(device, index, value)
        constants.append(value)
    return constants
