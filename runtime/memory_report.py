"""An out-of-memory error located: the instruction (or input) that needed the bytes and the largest tensors live.

Kept apart from `runtime.memory` (the budget arithmetic, which `runtime.devices` uses) because naming the live
tensors needs `runtime.devices.DeviceArray`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vdplace.ir.units import format_bytes

from .devices import DeviceArray
from .errors import DeviceMemoryError
from .memory import LARGEST


def locate(err: DeviceMemoryError, where: str, holders: Iterable[tuple[str, Any]]) -> DeviceMemoryError:
    """`err` (from `over_budget`) at `where` (an instruction with its line, or an input), naming the largest live
    tensors among `holders` ((name, register value) pairs: arrays on the device, counted once each)."""

    seen: dict[Any, tuple[str, int]] = {}

    def visit(name: str, value: Any) -> None:
        if value.__class__ is DeviceArray:
            if value.device.name == err.device and value.key not in seen:
                seen[value.key] = (name, value.owner_bytes)
        elif value.__class__ is tuple:
            for i, v in enumerate(value):
                visit(f"{name}[{i}]", v)

    for name, value in holders:
        visit(name, value)
    ranked = sorted(seen.values(), key=lambda item: -item[1])
    live = err.live or 0
    elsewhere = live - sum(n for _, n in ranked)
    listed = ", ".join(f"{name} ({format_bytes(n)})" for name, n in ranked[:LARGEST]) or "none in registers"
    more = f", and {len(ranked) - LARGEST} more" if len(ranked) > LARGEST else ""
    rest = f"; {format_bytes(elsewhere)} held outside the run's registers" if elsewhere > 0 else ""
    return DeviceMemoryError(
        f"out of memory on {err.device}: {where} needs {format_bytes(err.nbytes)} more, but {format_bytes(live)} of "
        f"its {format_bytes(err.limit)} memory_limit ({err.limit} bytes) are live; the largest live tensors: "
        f"{listed}{more}{rest}",
        where,
        err.shape,
        err.nbytes,
        err.limit,
        err.device,
        live,
        tuple(ranked[:LARGEST]),
        where,
    )
