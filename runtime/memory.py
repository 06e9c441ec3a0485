"""Memory limits: every tensor the runtime creates is checked against its device's limit first.

A device's ``memory_limit`` is the most bytes one tensor may take on it
(None: no limit).  NumPy-backed devices (`CPU`, `Simulated`) default to the
memory the host has available when the device is made (`host_available`);
pass ``memory_limit=`` to simulate a smaller device.  A tensor over the limit
raises `DeviceMemoryError` naming it, its shape and dtype, its bytes and the
limit, before NumPy is asked for the memory: a dim of 10**18 is this error,
never NumPy's "array is too big" or a `MemoryError`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from vdplace.ir.dtype import itemsize
from vdplace.ir.units import format_bytes

from .errors import DeviceMemoryError

# ``memory_limit="available"``: the host's available memory, read when the device is made.
AVAILABLE = "available"
MemoryLimit = int | None


def host_available() -> int | None:
    """Bytes of memory the host can give now (Linux ``MemAvailable``, else free pages); None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def resolve_limit(memory_limit: int | str | None) -> MemoryLimit:
    """A device's limit in bytes from its ``memory_limit`` argument (`AVAILABLE`, bytes, or None)."""
    if memory_limit == AVAILABLE:
        return host_available()
    if memory_limit is None:
        return None
    if isinstance(memory_limit, bool) or not isinstance(memory_limit, int) or memory_limit < 0:
        raise ValueError(f"memory_limit must be a number of bytes, {AVAILABLE!r} or None, got {memory_limit!r}")
    return memory_limit


def tensor_nbytes(shape: Sequence[int], dtype: str) -> int:
    """Bytes of a tensor (exact: Python ints do not overflow)."""
    return math.prod(int(d) for d in shape) * itemsize(dtype)


def check_fits(device: str, limit: MemoryLimit, tensor: str, shape: Sequence[int], dtype: str) -> None:
    """Raise `DeviceMemoryError` when a `shape` x `dtype` tensor (called `tensor`) exceeds `limit` bytes."""
    if limit is None:
        return
    nbytes = tensor_nbytes(shape, dtype)
    if nbytes <= limit:
        return
    shape = tuple(int(d) for d in shape)
    raise DeviceMemoryError(
        f"{tensor}: a {dtype} tensor of shape {shape} needs {nbytes} bytes ({format_bytes(nbytes)}), more than "
        f"the {format_bytes(limit)} ({limit} bytes) {device} can hold (its memory_limit)",
        tensor,
        shape,
        nbytes,
        limit,
        device,
    )
