"""Compile a placed module to VM instructions and run it on real or simulated devices.

    exe = runtime.compile(placed_module)            # every tensor site must have a vdevice
    vm = runtime.VirtualMachine(exe, simulate_missing=True)
    out = vm.run("main", *runtime.random_inputs(placed_module))
    print(vm.profile.table())

`run_reference` evaluates an unplaced module with plain NumPy: the oracle.
"""

from .compile import check_placed, compile
from .devices import CPU, CUDA, Device, DeviceArray, MemoryStats, Simulated, TorchDevice, available_devices
from .errors import CompileError, DeviceMismatch, DeviceUnavailable, InputError, KernelError, UnplacedError, VMError
from .executable import CompiledFunction, Executable
from .inputs import random_inputs
from .profile import Profile
from .reference import run_reference
from .vm import VirtualMachine

__all__ = [
    "CPU",
    "CUDA",
    "CompileError",
    "CompiledFunction",
    "Device",
    "DeviceArray",
    "DeviceMismatch",
    "DeviceUnavailable",
    "Executable",
    "InputError",
    "KernelError",
    "MemoryStats",
    "Profile",
    "Simulated",
    "TorchDevice",
    "UnplacedError",
    "VMError",
    "VirtualMachine",
    "available_devices",
    "check_placed",
    "compile",
    "random_inputs",
    "run_reference",
]
