"""Measured step time and peak memory of a placed module: what a prediction is checked against.

    from vdplace.bench.step import measure_step
    m = measure_step(placed, [x], weights=weights, runs=5)                    # the local VM
    m = measure_step(placed, [x], weights=weights, ray={"cuda:0": "cpu"})     # one Ray actor per device
    m.step_seconds, m.peak_bytes                                              # median; bytes per vdevice

`measure_step` compiles the placed module and runs its entry `warmup` times,
then `runs` times, each run timed on the wall clock around the call (inputs
in, results back), on the local `VirtualMachine` or, with `ray`, on a
`RayExecutor` (one actor per physical device: give each actor one thread by
setting ``OMP_NUM_THREADS=1`` before Ray starts, as Ray does for an actor of
one logical CPU when the variable is unset; copies go through Ray's object
store).  Give the local VM's process one thread too (the same variable,
before NumPy is imported) to compare with the actors.

`weights` (parameter name -> array) are bound into the module as constants
placed where the placement put their parameters (`weights_as_constants`):
each device loads its weights once, before the first run, as the `Time`
objective assumes ("weights start where they are placed"), rather than
receiving them with every run's inputs.  `inputs` are the entry's other
parameters, in order: they start on the host, every run.

The peak is the runtime's own count (`Profile.peak_bytes`: the most bytes
live on a device at once during a run, its resident weights included), the
largest over the timed runs, given per vdevice name (``"cuda:0:global"``;
vdevices of one physical device share its count) and per runtime device.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vdplace.ir.bind_constants import ConstantValues
from vdplace.ir.expr import Binding, BindingBlock, Constant, Expr, Function, SeqExpr, Var
from vdplace.ir.module import IRModule
from vdplace.ir.mutator import ExprMutator
from vdplace.ir.vdevice import vdevice_name


@dataclass
class StepMeasurement:
    """What `measure_step` measured (module docstring)."""

    step_seconds: float  # the median of `run_seconds`
    run_seconds: list[float]  # each timed run, wall clock
    peak_bytes: dict[str, int]  # vdevice name -> the most bytes live on its device at once, over the timed runs
    device_peak_bytes: dict[str, int]  # runtime device name ("cpu", "sim:cuda:0") -> the same
    devices: dict[str, str]  # vdevice name -> the runtime device that ran it
    on: str  # "vm" or "ray"
    outputs: Any = field(default=None, repr=False)  # the last run's results (NumPy arrays, tuples as tuples)


def measure_step(
    placed: IRModule,
    inputs: Sequence[Any],
    *,
    weights: Mapping[str, np.ndarray] | None = None,
    params: ConstantValues | None = None,
    entry: str = "main",
    runs: int = 5,
    warmup: int = 1,
    ray: Mapping[str, Any] | None = None,
    ray_address: str | None = None,
    simulate_missing: bool = True,
    timeout: float = 600.0,
    memory: Mapping[str, int] | None = None,
) -> StepMeasurement:
    """Run `placed` (every tensor placed) `warmup` + `runs` times; its `StepMeasurement` (module docstring).

    `params`: values of the metadata constants the text only references, as
    for `runtime.compile`.  `ray`: vdevice name -> `ActorSpec` or kind (``{}``
    for the defaults) to run on Ray actors, `ray_address` a cluster to join;
    without it, the local VM, with `simulate_missing` devices.  `memory`
    (vdevice name -> bytes): each such device's budget of live bytes in the
    run, as ``vdplace run --memory`` sets it.  Errors of the run are the
    runtime's (`runtime.VMError`; over a budget, `runtime.DeviceMemoryError`).
    """
    from vdplace.runtime import VirtualMachine
    from vdplace.runtime import compile as compile_placed

    if runs < 1 or warmup < 0:
        raise ValueError(f"runs must be >= 1 and warmup >= 0, got {runs} and {warmup}")
    mod = weights_as_constants(placed, weights, entry) if weights else placed
    executable = compile_placed(mod, params=params)
    names = [vdevice_name(mod.vdevices, v) for v in mod.vdevices]
    if ray is None:
        vm = VirtualMachine(executable, simulate_missing=simulate_missing, memory=memory)
        devices = {name: vm.device_of(i).name for i, name in enumerate(names)}
        return _measure("vm", lambda: vm.run(entry, *inputs), lambda: vm.profile, devices, runs, warmup)
    from vdplace.runtime.ray import RayExecutor

    with RayExecutor(executable, ray, address=ray_address, timeout=timeout, memory=memory) as executor:
        devices = {names[i]: plan.device_name for plan in executor.plans for i in plan.vdevices}
        return _measure(
            "ray", lambda: executor.run(entry, *inputs), lambda: executor.profile.local, devices, runs, warmup
        )


def _measure(on: str, run: Any, profile: Any, devices: dict[str, str], runs: int, warmup: int) -> StepMeasurement:
    for _ in range(warmup):
        run()
    seconds: list[float] = []
    peaks: dict[str, int] = {}
    outputs = None
    for _ in range(runs):
        start = time.perf_counter()
        outputs = run()
        seconds.append(time.perf_counter() - start)
        for device, peak in profile().peak_bytes.items():
            peaks[device] = max(peaks.get(device, 0), peak)
    return StepMeasurement(
        step_seconds=statistics.median(seconds),
        run_seconds=seconds,
        peak_bytes={name: peaks.get(device, 0) for name, device in devices.items()},
        device_peak_bytes=peaks,
        devices=devices,
        on=on,
        outputs=outputs,
    )


def weights_as_constants(mod: IRModule, weights: Mapping[str, np.ndarray], entry: str = "main") -> IRModule:
    """`mod` with `entry`'s parameters named in `weights` replaced by constants holding those values.

    Each weight becomes one binding ``name = R.const(...)`` at the start of
    the function (a block of its own, before the others), named and typed as
    its parameter, vdevice included, and every use reads that variable: the
    device the parameter was placed on loads it once, however often it is
    read (a constant written at each use would be a constant, and device
    memory, per use); a weight nothing reads is dropped, as a run never
    loads it.  The
    function's ``num_input`` counts the parameters left before it; its
    ``params`` attribute (TVM's list of the weights' metadata) is dropped.  A
    name that is no parameter of `entry`, or a value whose shape or dtype
    does not fit its parameter, is a `ValueError`.  `mod` is not modified.
    """
    if entry not in mod.functions:
        raise ValueError(f"no function {entry!r} in the module; it has {', '.join(mod.functions) or 'none'}")
    func = mod[entry]
    by_name = {p.name: p for p in func.params}
    unknown = sorted(set(weights) - set(by_name))
    if unknown:
        raise ValueError(f"{entry} has no parameter {', '.join(map(repr, unknown))}; weights name parameters")
    constants: dict[Var, Constant] = {}
    for name, value in weights.items():
        param = by_name[name]
        array = np.asarray(value)
        sinfo = param.struct_info
        want = getattr(sinfo, "static_shape", None)
        dtype = getattr(sinfo, "dtype", "")
        if want is None or tuple(array.shape) != tuple(want) or str(array.dtype) != dtype:
            raise ValueError(
                f"weight {name!r} is {array.dtype}{list(array.shape)}, but the parameter is {sinfo!r} "
                "(a tensor of static shape and that dtype is needed)"
            )
        constants[param] = Constant(array, sinfo, param.span)
    bound = {param: Var(param.name, param.struct_info, param.span) for param in constants}
    substitute = _Substitute(bound)
    body = substitute.mutate(func.body)
    loads = BindingBlock(
        [Binding(bound[p], constants[p], p.struct_info, p.span) for p in func.params if p in substitute.used]
    )
    body = SeqExpr([loads, *body.blocks], body.body, body.struct_info, body.span)
    kept = [p for p in func.params if p not in constants]
    attrs = {k: v for k, v in func.attrs.items() if k != "params"}
    if "num_input" in attrs:
        first = func.params[: int(attrs["num_input"])]
        attrs["num_input"] = sum(1 for p in first if p not in constants)
    new = Function(kept, body, func.ret_struct_info, attrs, func.span, func.ret_span)
    return mod.replace(functions={**mod.functions, entry: new})


class _Substitute(ExprMutator):
    """Every use of a variable of `constants` becomes the expression it maps to."""

    def __init__(self, constants: Mapping[Var, Expr]) -> None:
        super().__init__()
        self.constants = constants
        self.used: set[Var] = set()  # the variables of `constants` that were read

    def visit_var(self, var: Var) -> Expr:
        found = self.constants.get(var)
        if found is None:
            return super().visit_var(var)
        self.used.add(var)
        return found
