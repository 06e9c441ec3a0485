"""Compile a placed module to VM instructions and run it on real or simulated devices.

    exe = runtime.compile(placed_module)            # every tensor site must have a vdevice
    vm = runtime.VirtualMachine(exe, simulate_missing=True)
    out = vm.run("main", *runtime.random_inputs(placed_module))
    print(vm.profile.table())

`run_reference` evaluates an unplaced module with plain NumPy: the oracle.

Modules, one job each:

- compiling: `compile` (placed IR -> `instructions`, per function),
  `liveness` (when each register is read for the last time), `executable`;
- running: `vm` (the interpreter loop), `steps` and `call_steps` (each
  instruction made into a pre-resolved step), `frame` (a function ready to
  run), `callstack` (callers waiting on the heap, the call-depth limit),
  `registers` (register reference counting of device memory),
  `arguments` (inputs onto their devices, results back), `diagnostics`
  (errors naming the instruction);
- devices: `devices` (CPU, Simulated), `torch_device` (TorchDevice, CUDA;
  torch imported lazily), `mapping` (vdevices -> runtime devices);
- measuring: `accounting` (what a run counts), `work` (estimated op work),
  `profile` (the report);
- `reference` (the NumPy oracle), `inputs` (random inputs), `shapes`
  (symbolic dims at run time), `memory` (a device's memory limit: a budget
  of bytes live at once, and its errors), `batch` (runtime inputs and
  weights; a batch split into micro-batches);
- `ray` (sub-package): `RayExecutor`, one Ray actor per device, across
  processes and hosts (the ``ray`` extra; Ray is imported on first use);
- `tir` (sub-package): TIR functions run on NumPy arrays, the kernel of
  ``R.call_tir`` (imported here, so that every device runs it).
"""

from . import tir
from .compile import check_placed, compile
from .devices import CPU, Device, DeviceArray, MemoryStats, Simulated
from .errors import (
    BatchError,
    CallDepthError,
    CompileError,
    DeviceMemoryError,
    DeviceMismatch,
    DeviceUnavailable,
    InputError,
    KernelError,
    MissingConstantError,
    UnplacedError,
    VMError,
)
from .executable import CompiledFunction, Executable
from .inputs import input_dims, random_inputs
from .profile import Profile
from .reference import run_reference
from .torch_device import CUDA, TorchDevice, available_devices
from .vm import VirtualMachine


def __getattr__(name: str) -> object:
    """`RayExecutor`, imported on first use so that ``import vdplace.runtime`` never imports Ray."""
    if name == "RayExecutor":
        from .ray import RayExecutor

        return RayExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BatchError",
    "CPU",
    "CUDA",
    "CallDepthError",
    "CompileError",
    "CompiledFunction",
    "Device",
    "DeviceArray",
    "DeviceMemoryError",
    "DeviceMismatch",
    "DeviceUnavailable",
    "Executable",
    "InputError",
    "KernelError",
    "MemoryStats",
    "MissingConstantError",
    "Profile",
    "Simulated",
    "TorchDevice",
    "UnplacedError",
    "VMError",
    "VirtualMachine",
    "available_devices",
    "check_placed",
    "compile",
    "input_dims",
    "random_inputs",
    "run_reference",
    "tir",
]
