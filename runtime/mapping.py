"""Map a module's vdevices to runtime devices, per physical device.

vdevices that are one physical device (`VDevice.physical`) share one runtime
device: the compiler turns moves between them into register moves, so they
must see the same memory.  A vdevice that gets no runtime device is an error
here, at VM creation, listing what this machine has; ``simulate_missing``
gives such vdevices `Simulated` devices instead.  `set_memory_limits` gives
the devices of named vdevices a memory limit (``vdplace run --memory``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from vdplace.ir.vdevice import VDevice, lookup_vdevice, vdevice_name

from .devices import CPU, Device, Simulated
from .errors import DeviceUnavailable
from .memory import MemoryLimit, resolve_limit
from .torch_device import CUDA, available_devices, cuda_backend

DeviceSpec = str | Mapping[VDevice | str, Device] | None


def _physical_name(vdevice: VDevice) -> str:
    kind, ident = vdevice.physical
    return f"{kind}:{ident}"


def _explicit(vdevices: Sequence[VDevice], devices: Mapping[VDevice | str, Device]) -> dict[tuple[str, int], Device]:
    chosen: dict[tuple[str, int], Device] = {}
    for key, device in devices.items():
        if not isinstance(device, Device):
            raise DeviceUnavailable(f"devices[{key!r}] must be a runtime Device (CPU(), Simulated(name), CUDA(i))")
        if isinstance(key, VDevice):
            if key not in vdevices:
                raise DeviceUnavailable(f"devices maps {key!r}, which is not in the module's vdevice list")
            vdevice = key
        else:
            try:
                vdevice = lookup_vdevice(vdevices, key)
            except LookupError as err:
                raise DeviceUnavailable(f"devices[{key!r}]: {err}") from None
        phys = vdevice.physical
        if phys in chosen and chosen[phys] is not device:
            raise DeviceUnavailable(
                f"devices maps {_physical_name(vdevice)} to both {chosen[phys].name} and {device.name}; "
                "vdevices of one physical device share one runtime device"
            )
        chosen[phys] = device
    return chosen


def resolve_devices(vdevices: Sequence[VDevice], devices: DeviceSpec, simulate_missing: bool) -> list[Device]:
    """The runtime device of each vdevice of the list, in list order."""
    if isinstance(devices, str):
        if devices != "cpu":
            raise DeviceUnavailable(f"devices={devices!r}: want 'cpu', a dict of vdevice -> Device, or None (auto)")
        cpu = CPU()
        return [cpu] * len(vdevices)
    by_physical = _explicit(vdevices, devices or {})
    missing: list[VDevice] = []
    for v in vdevices:
        phys = v.physical
        if phys in by_physical:
            continue
        kind, ident = phys
        if kind == "cpu":
            by_physical[phys] = CPU("cpu" if ident == 0 else f"cpu:{ident}")
        elif kind == "cuda" and cuda_backend(ident) is not None:
            by_physical[phys] = CUDA(ident)
        elif simulate_missing:
            by_physical[phys] = Simulated(f"sim:{kind}:{ident}")
        else:
            missing.append(v)
    if missing:
        names = ", ".join(f"{vdevice_name(vdevices, v)} ({_physical_name(v)})" for v in missing)
        raise DeviceUnavailable(
            f"no runtime device for vdevice(s) {names}; this machine has: {', '.join(available_devices())}. "
            "Map them with devices={...}, simulate them with simulate_missing=True (vdplace run --simulate), "
            "or run everything on the CPU with devices='cpu'"
        )
    return [by_physical[v.physical] for v in vdevices]


def limits_by_physical(vdevices: Sequence[VDevice], memory: Mapping[str, int]) -> dict[tuple[str, int], MemoryLimit]:
    """``{"cuda:0": bytes}`` (vdevice names, `lookup_vdevice`) as limits per physical device; two different
    limits for one physical device, or a name no vdevice has, are `DeviceUnavailable`."""
    chosen: dict[tuple[str, int], MemoryLimit] = {}
    for name, limit in memory.items():
        try:
            vdevice = lookup_vdevice(vdevices, name)
        except LookupError as err:
            raise DeviceUnavailable(f"memory[{name!r}]: {err}") from None
        resolved = resolve_limit(limit)
        if chosen.setdefault(vdevice.physical, resolved) != resolved:
            raise DeviceUnavailable(f"memory gives {_physical_name(vdevice)} two limits; its vdevices share one memory")
    return chosen


def set_memory_limits(vdevices: Sequence[VDevice], device_map: Sequence[Device], memory: Mapping[str, int]) -> None:
    """Set the `memory_limit` of the runtime device of each vdevice `memory` names (bytes live at once)."""
    limits = limits_by_physical(vdevices, memory)
    for vdevice, device in zip(vdevices, device_map, strict=True):
        if vdevice.physical in limits:
            device.set_memory_limit(limits[vdevice.physical])
