"""The compiled form of a module: per-function instruction lists and a constant pool.

An `Executable` knows nothing of runtime devices: its instructions name
vdevices by index into `vdevices`; a `VirtualMachine` maps those to `CPU`,
`Simulated` or `CUDA` devices.  ``str(executable)`` lists every function.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vdplace.ir.struct_info import StructInfo
from vdplace.ir.vdevice import VDevice, vdevice_name

from .instructions import Instruction

# A parameter's devices: a vdevice index for a tensor, a tuple of these for a
# tuple, None for a value that carries no device (shape, scalar).
DeviceTree = int | None | tuple["DeviceTree", ...]


class SymbolBinding:
    """At entry, symbolic dim `name` takes the size of parameter `param`'s leaf `path`, axis `axis`."""

    __slots__ = ("param", "path", "axis", "name")

    def __init__(self, param: int, path: tuple[int, ...], axis: int, name: str) -> None:
        self.param = param
        self.path = path
        self.axis = axis
        self.name = name


class CompiledFunction:
    """One function: parameters in registers ``0..len(params)-1``, then its instructions."""

    __slots__ = (
        "name",
        "params",
        "param_sinfo",
        "param_devices",
        "ret_sinfo",
        "ret_devices",
        "num_registers",
        "register_names",
        "instructions",
        "entry_drop",
        "symbols",
        "num_input",
    )

    def __init__(
        self,
        name: str,
        params: Sequence[str],
        param_sinfo: Sequence[StructInfo],
        param_devices: Sequence[DeviceTree],
        ret_sinfo: StructInfo,
        ret_devices: DeviceTree,
        register_names: Sequence[str],
        instructions: Sequence[Instruction],
        entry_drop: Sequence[int],
        symbols: Sequence[SymbolBinding],
        num_input: int | None = None,
    ) -> None:
        self.name = name
        self.params = tuple(params)
        self.param_sinfo = tuple(param_sinfo)
        self.param_devices = tuple(param_devices)
        self.ret_sinfo = ret_sinfo
        self.ret_devices = ret_devices
        self.register_names = list(register_names)
        self.num_registers = len(self.register_names)
        self.instructions = list(instructions)
        # Parameters nothing reads: released as soon as the function is entered.
        self.entry_drop = tuple(entry_drop)
        self.symbols = tuple(symbols)
        # The runtime inputs are the first `num_input` parameters (R.func_attr; None: not marked).
        self.num_input = num_input

    def reg_name(self, r: int) -> str:
        name = self.register_names[r]
        return f"r{r}:{name}" if name else f"r{r}"


class Executable:
    """Compiled functions by name, the module's vdevice list and the constant pool."""

    __slots__ = ("functions", "vdevices", "constants")

    def __init__(
        self,
        functions: dict[str, CompiledFunction],
        vdevices: Sequence[VDevice],
        constants: Sequence[Any],
    ) -> None:
        self.functions = functions
        self.vdevices = list(vdevices)
        self.constants = list(constants)

    def device_name(self, index: int | None) -> str:
        if index is None:
            return "host"
        return vdevice_name(self.vdevices, self.vdevices[index])

    def __getitem__(self, name: str) -> CompiledFunction:
        return self.functions[name]

    def __contains__(self, name: str) -> bool:
        return name in self.functions

    def num_instructions(self) -> int:
        return sum(len(f.instructions) for f in self.functions.values())

    def __str__(self) -> str:
        lines = ["vdevices:"]
        for i, v in enumerate(self.vdevices):
            kind, ident = v.physical
            lines.append(f"  [{i}] {self.device_name(i)}  ({kind}({ident}))")
        for name, func in self.functions.items():
            params = ", ".join(func.reg_name(i) for i in range(len(func.params)))
            lines.append("")
            lines.append(f"function {name}({params})  ; {func.num_registers} registers")
            if func.entry_drop:
                lines.append("      ; unused, freed on entry: " + ", ".join(func.reg_name(r) for r in func.entry_drop))
            width = len(str(len(func.instructions)))
            for pc, instr in enumerate(func.instructions):
                lines.append(f"  {pc:>{width}}  {instr.format(func.reg_name, self.device_name)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Executable(functions={list(self.functions)}, instructions={self.num_instructions()})"
