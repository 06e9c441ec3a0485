"""Register reference counting: a value in a register keeps its device memory alive.

A register holds a `DeviceArray`, a tuple of values, or a host value (a shape,
a scalar, a string).  Each device array held by a register counts one
reference on its device (`Device.acquire`); clearing the register releases it,
and the device frees the buffer's bytes when its last reference goes.  So the
devices' `MemoryStats` count what the program really holds at each point.
"""

from __future__ import annotations

from typing import Any

from .devices import DeviceArray
from .executable import CompiledFunction

_DA = DeviceArray


def acquire(value: Any) -> None:
    """Count one more register reference to every device array inside `value`."""
    if value.__class__ is _DA:
        value.device.acquire(value)
    elif value.__class__ is tuple:
        for v in value:
            acquire(v)


def release(value: Any) -> None:
    """Drop one register reference to every device array inside `value`."""
    if value.__class__ is _DA:
        value.device.release(value)
    elif value.__class__ is tuple:
        for v in value:
            release(v)


def drop(regs: list, dropped: tuple[int, ...]) -> None:
    """Clear the registers in `dropped`, releasing what they held.

    It runs after almost every instruction, so `Device.release` is inlined for
    a plain device array.
    """
    for r in dropped:
        v = regs[r]
        regs[r] = None
        if v.__class__ is _DA:
            refs = v.device._refs
            key = v.key
            count = refs.get(key)
            if count is None:
                continue
            if count > 1:
                refs[key] = count - 1
            else:
                del refs[key]
                stats = v.device.stats
                stats.live -= v.owner_bytes
                stats.freed += v.owner_bytes
        else:
            release(v)


def named(fn: CompiledFunction, regs: list) -> list[tuple[str, Any]]:
    """The values in `fn`'s registers as ``("function:binding", value)``, for errors naming what is live."""
    names = fn.register_names
    return [(f"{fn.name}:{names[r] or f'r{r}'}", regs[r]) for r in range(min(len(names), len(regs)))]
