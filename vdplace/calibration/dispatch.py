"""The Ray executor's own costs, measured by running tiny programs through it: per step, per op, per copy.

A kernel timed inside an actor (`ray_actors`) is the kernel alone.  A run on
Ray actors (`runtime.ray.RayExecutor`) costs more: the driver sends the
inputs and a script to every actor and fetches the results (a fixed cost
per step, which no placement changes), the actor's VM steps through each
instruction (a cost per op), and a copy between actors ends the sender's
script and starts one on the receiver, which fetches the sender's value
through the driver that owns it (a cost per copy, far above the bare
object-store copy that `RayDevices.links` measures when the receiver is
already waiting).

`measure_dispatch` runs, on one `RayExecutor` over the module's vdevices
with the calibration's actor specs, three kinds of entry on a 4-float
tensor, and the program itself with every op on the host where it can
(`host_program`: its weights constants there, its calibrated kernels summed
to K over its N op calls; TP), each once to warm up, then `runs` rounds of
the probes in turn (so that the machine's load touches them alike); every
difference below is the median over rounds of the difference within a round:

* ``step``: one ``relu`` on the host: T1;
* ``chain``: `CHAIN` ``relu`` calls on the host: TK;
* ``trip_i``, one per other physical device: ``relu`` on the host, a copy
  to the device, a ``relu`` there, a copy back, a ``relu`` on the host: Ti.

The program runs in rounds of its own after the probes' rounds (a step
probe right after a program of megabytes measured its clean-up, not the
executor's step), and its TP is its median.  Per op P = (TK - T1) /
(CHAIN - 1), at least 0: the VM's step through one instruction.  The
program's run, TP - T1, is more than its N ops' K + N P: kernels that run
once each between other kernels, on fresh output buffers, take longer than
their best timed call, and a small op's step costs more than a ``relu`` on
4 floats.  That excess is spread over the program's ops in proportion to
what each costs: every op's kernel time k and step P are scaled by
F = (TP - T1) / (K + N P), at least 1 (the ``kernel scale``).  Where the
kernels are tiny, F P is about (TP - T1) / N, the executor's step of an op
in the program; where they are milliseconds, F is the run's kernels over
their best calls.  Per op then: F P; per step: T1 (the median) less the
probe's one op; per copy to and from device i: (Ti - T1 - 2 ops) / 2 (at
least 0), the whole round trip split evenly over its two copies.
`apply_dispatch` adds them to a calibrated `CostModel`: the per-op cost to
every kernel timed on an actor, each such kernel on a CPU actor (``cpu``,
``sim``: the host actor's kind, whose run measured F) scaled by F first
(its table times, and its fallback roofline's overhead, flops and
bandwidth), the
per-copy cost as the latency of the links between actors, and the upload of
a runtime input as the driver makes it (`CostModel.upload_time`: straight to
the actor that reads it, its latency in the per-step cost, so the `Time`
model's upload from the host actor does not apply); it records the three
costs under the model's ``about["ray dispatch"]``; `step_overhead(model)` is
the per-step cost, which a prediction of a measured step adds to the
schedule's makespan.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vdplace.ir.builder import ModuleBuilder, tensor
from vdplace.ir.module import IRModule
from vdplace.ir.normalize import host_vdevice
from vdplace.ir.vdevice import VDevice, kind_ordinal

CHAIN = 21  # relu calls of the ``chain`` entry
PREFIX = "vdplace_probe_"  # the probes' function names, beside the program's
DRIVER_BANDWIDTH = 1e9  # bytes/s of the driver's uploads when no link between actors was measured
SHAPE = (4,)


@dataclass
class Dispatch:
    """What `measure_dispatch` found, in seconds (module docstring)."""

    step: float  # per step: inputs in, scripts sent, results out, on the driver's side
    op: float  # per op an actor's VM runs, besides the kernel
    copy: dict[str, float]  # device key ("cuda:0") -> seconds per copy between it and the host, either way
    host: str  # the host's device key ("llvm:0")
    runs: int
    probe_op: float | None = None  # per op from the ``chain`` probe
    program_op: float | None = None  # per op from the program's own run on the host, where it ran
    kernel_scale: float = 1.0  # F: the program's run over its calibrated kernels and steps (module docstring)
    scaled: tuple[str, ...] = ()  # device keys of the CPU actors whose kernels F scales

    def as_about(self) -> dict[str, Any]:
        """The JSON-able record kept in the cost file's ``about``."""
        return {
            "step seconds": self.step,
            "op seconds": self.op,
            "op seconds, chain probe": self.probe_op,
            "op seconds, the program's own run": self.program_op,
            "kernel scale": self.kernel_scale,
            "kernel scale devices": list(self.scaled),
            "copy seconds": dict(self.copy),
            "host": self.host,
            "how": f"medians of {self.runs} runs of tiny programs on a RayExecutor like the run's (dispatch.py)",
        }


def device_key(vdevices: list[VDevice], index: int) -> str:
    """``kind:ordinal`` of vdevice `index`, the key its actor's timings have."""
    return f"{vdevices[index].kind}:{kind_ordinal(vdevices, index)}"


def probe_module(vdevices: list[VDevice]) -> tuple[IRModule, dict[str, str]]:
    """The probe programs over `vdevices` (module docstring); and entry ``trip_i`` -> the device key it visits."""
    host = host_vdevice(vdevices)
    if host is None:
        raise ValueError("measuring Ray dispatch needs the module's vdevices")
    mb = ModuleBuilder(vdevices)
    on_host = tensor(SHAPE, vdevice=host)
    f = mb.function("step", [("x", on_host)], ret=on_host)
    f.finish(f.emit("nn.relu", f.params[0], name="y"))
    f = mb.function("chain", [("x", on_host)], ret=on_host)
    cur = f.params[0]
    for i in range(CHAIN):
        cur = f.emit("nn.relu", cur, name=f"y{i}")
    f.finish(cur)
    trips: dict[str, str] = {}
    seen = {host.physical}
    for i, v in enumerate(vdevices):
        if v.physical in seen:
            continue
        seen.add(v.physical)
        name = f"trip_{len(trips)}"
        trips[name] = device_key(vdevices, i)
        f = mb.function(name, [("x", on_host)], ret=on_host)
        a = f.emit("nn.relu", f.params[0], name="a")
        b = f.emit("to_vdevice", a, name="b", dst_vdevice=v)
        c = f.emit("nn.relu", b, name="c")
        d = f.emit("to_vdevice", c, name="d", dst_vdevice=host)
        f.finish(f.emit("nn.relu", d, name="e"))
    return mb.get(), trips


@dataclass
class Program:
    """The calibrated program itself with every op on the host (`host_program`)."""

    module: IRModule  # placed on the host, its weights constants there
    entry: str
    inputs: list[Any]  # the entry's runtime inputs
    calls: int  # its op calls (device ops aside)
    kernels: float  # the calibrated seconds of those calls on the host, summed (before any dispatch cost)
    params: Any = None  # values of the metadata constants, as `runtime.compile` takes them


def host_program(mod: IRModule, inputs: Sequence[Any], model: Any, entry: str, params: Any) -> Program | None:
    """`mod` placed with every op on the host (weights: the entry's parameters past ``num_input``, as
    constants), or None where it cannot be (a pin elsewhere, a copy, a placement error)."""
    from vdplace.bench.step import weights_as_constants
    from vdplace.placement import place
    from vdplace.placement.cost import describe_ops
    from vdplace.placement.cost.problem import COPY_OPS

    try:
        placed = place(mod, default="host").module
    except Exception:  # noqa: BLE001  (the probes alone then)
        return None
    func = placed[entry]
    count = int(func.attrs.get("num_input", len(func.params)))
    weights = {p.name: np.asarray(v) for p, v in zip(func.params[count:], inputs[count:], strict=False)}
    resident = weights_as_constants(placed, weights, entry) if weights else placed
    ops = describe_ops(resident)
    host = host_vdevice(list(resident.vdevices))
    if host is None or any(op.op in COPY_OPS or not _on(op.result, host) for op in ops):
        return None
    calls = [op for op in ops if op.registry is None or op.registry.device_rule != "explicit"]
    kernels = 0.0
    for op in calls:
        seconds = model.kernel(op, host, resident.vdevices)
        if seconds is None:
            return None
        kernels += seconds
    return Program(resident, entry, list(inputs[:count]), len(calls), kernels, params)


def _on(sinfo: Any, host: VDevice) -> bool:
    """Whether every tensor of `sinfo` is on `host` (or says nothing of its vdevice)."""
    from vdplace.ir.struct_info import tensor_leaves

    return all(getattr(leaf, "vdevice", None) in (None, host) for _, leaf in tensor_leaves(sinfo))


def measure_dispatch(
    vdevices: Sequence[VDevice],
    actors: Mapping[str, Any] | None,
    *,
    address: str | None = None,
    runs: int = 9,
    program: Program | None = None,
) -> Dispatch:
    """Run the probes (and `program`) on a `RayExecutor` like the run's (module docstring); the costs."""
    from vdplace.runtime import compile as compile_placed
    from vdplace.runtime.ray import RayExecutor

    probes, trips = probe_module(list(vdevices))
    x = np.ones(SHAPE, "float32")
    calls = {PREFIX + name: (x,) for name in ["step", "chain", *trips]}
    mod, params = probes.replace(functions={PREFIX + n: f for n, f in probes.functions.items()}), None
    if program is not None:
        functions = {**program.module.functions, **mod.functions}
        mod, params = program.module.replace(functions=functions), program.params
        calls[program.entry] = tuple(program.inputs)
    seconds: dict[str, list[float]] = {entry: [] for entry in calls}
    with RayExecutor(compile_placed(mod, params=params), actors, address=address) as executor:
        for entry, args in calls.items():
            executor.run(entry, *args)  # the first run of an entry: warm-up
        probe_entries = [entry for entry in calls if entry.startswith(PREFIX)]
        for _ in range(runs):  # round robin, so that a change of the machine's load touches every probe alike
            for entry in probe_entries:
                _timed(executor, entry, calls[entry], seconds[entry])
        if program is not None:  # after the probes: its clean-up would be a probe's time (module docstring)
            for _ in range(runs):
                _timed(executor, program.entry, calls[program.entry], seconds[program.entry])
    steps = seconds[PREFIX + "step"]
    one = statistics.median(steps)

    def over_step(entry: str) -> float:
        """The median over rounds of `entry`'s time less the one-relu step's in the same round."""
        return statistics.median(t - s for t, s in zip(seconds[entry], steps, strict=True))

    probe = max(0.0, over_step(PREFIX + "chain") / (CHAIN - 1))
    own, scale = None, 1.0
    if program is not None and program.calls:
        scale = kernel_scale(statistics.median(seconds[program.entry]) - one, program.kernels, program.calls, probe)
        own = scale * probe if program.kernels + program.calls * probe > 0 else None
    op = probe if own is None else own
    copy = {key: max(0.0, (over_step(PREFIX + entry) - 2 * op) / 2) for entry, key in trips.items()}
    host = host_vdevice(list(vdevices))
    assert host is not None
    key = device_key(list(vdevices), list(vdevices).index(host))
    scaled = tuple(sorted(cpu_actor_keys(list(vdevices), actors) | {key}))
    return Dispatch(max(0.0, one - probe), op, copy, key, runs, probe, own, scale, scaled)


def _timed(executor: Any, entry: str, args: tuple, into: list[float]) -> None:
    start = time.perf_counter()
    executor.run(entry, *args)
    into.append(time.perf_counter() - start)


def kernel_scale(run: float, kernels: float, calls: int, op: float) -> float:
    """F of the module docstring: `run` (seconds of a program's `calls` ops beyond a step) over its calibrated
    `kernels` (summed) plus `calls` steps of `op` seconds; at least 1, and 1 where that sum is 0."""
    expected = kernels + calls * op
    return max(1.0, run / expected) if expected > 0 else 1.0


def cpu_actor_keys(vdevices: list[VDevice], actors: Mapping[str, Any] | None) -> set[str]:
    """Device keys (``kind:ordinal``) of the vdevices that `actors` gives a ``cpu`` or ``sim`` actor."""
    out = set()
    for i, _ in enumerate(vdevices):
        key = device_key(vdevices, i)
        spec = (actors or {}).get(key)
        kind = spec if isinstance(spec, str) else getattr(spec, "kind", None)
        if kind in ("cpu", "sim"):
            out.add(key)
    return out


def apply_dispatch(model: Any, dispatch: Dispatch) -> None:
    """Add `dispatch` to the calibrated `model` in place (module docstring): ops, copies, ``about``."""
    from vdplace.placement.cost.roofline import Roof

    table = model.source
    for device, times in table.times.items():
        scale = dispatch.kernel_scale if device in dispatch.scaled else 1.0
        for key, seconds in times.items():
            if seconds is not None:
                times[key] = seconds * scale + dispatch.op
    fallback = table.fallback
    if fallback is not None:
        for device in table.times:
            roof = fallback.devices.get(device)
            if roof is not None:
                scale = dispatch.kernel_scale if device in dispatch.scaled else 1.0
                fallback.devices[device] = Roof(
                    roof.flops / scale, roof.bandwidth / scale, roof.overhead * scale + dispatch.op
                )
        for (src, dst), link in list(fallback.links.items()):
            pair = {src, dst}
            if dispatch.host in pair and len(pair) == 2:
                other = (pair - {dispatch.host}).pop()
                if other in dispatch.copy:
                    fallback.links[src, dst] = link._replace(latency=dispatch.copy[other])
            elif src in dispatch.copy and dst in dispatch.copy:  # two devices besides the host: the slower path
                fallback.links[src, dst] = link._replace(latency=max(dispatch.copy[src], dispatch.copy[dst]))
    bandwidths = [link.bandwidth for link in fallback.links.values()] if fallback is not None else []
    model.upload_time = DriverUpload(min(bandwidths, default=DRIVER_BANDWIDTH))
    model.about["ray dispatch"] = dispatch.as_about()


class DriverUpload:
    """A runtime input's upload on Ray: the driver sends it to whichever actor reads it, in the step's fixed
    cost, so no actor's link is taken; only its bytes, at `bandwidth`, count beyond that."""

    def __init__(self, bandwidth: float) -> None:
        self.bandwidth = bandwidth

    def __call__(self, nbytes: int, vdevice: str) -> float:
        return nbytes / self.bandwidth


def step_overhead(model: Any) -> float:
    """Seconds a step on Ray actors costs besides the schedule (``about["ray dispatch"]``); 0 without it."""
    found = getattr(model, "about", {}).get("ray dispatch")
    return float(found["step seconds"]) if isinstance(found, Mapping) else 0.0
