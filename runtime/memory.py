"""Memory limits: a device's ``memory_limit`` is a budget of bytes live on it at once.

As a GPU's allocator does, each device refuses a new buffer that would take
the bytes live on it past its ``memory_limit`` (None: no limit): the
runtime frees a buffer when the last register holding it is dropped
(`runtime.liveness`: after its last use), weights are held for the whole run,
so what counts is what the program keeps alive together, not what it
allocates in total.  Pass ``memory_limit=`` bytes (or ``vdplace run
--memory VDEV=SIZE``) to give a device its size; `CUDA` takes the GPU's free
memory when it is made.  NumPy-backed devices (`CPU`, `Simulated`) default to
`AVAILABLE`: no budget, and each tensor bounded by the memory the host has
available when the device is made (`host_available`): that memory is the
whole process's, and already excludes the arrays (inputs) made before.

Two checks raise `DeviceMemoryError`:

- `check_fits`, before a tensor is made: one tensor larger than the whole
  limit can never fit, and NumPy is never asked for it (a dim of 10**18 is
  this error, never NumPy's "array is too big" or a `MemoryError`);
- `over_budget`, when a device is to hold a new buffer (`Device.adopt`) that
  would take its live bytes past the limit.  The device does not know which
  instruction allocates; the VM (or a Ray actor) `locate`s the error: it
  names the instruction and its source line, or the input, and the largest
  tensors live on the device.
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


def over_budget(device: str, limit: int, live: int, nbytes: int) -> DeviceMemoryError:
    """A new buffer of `nbytes` would take `device` past `limit` with `live` bytes held: not located yet."""
    return DeviceMemoryError(
        f"{device} is out of memory: {format_bytes(nbytes)} more would take the {format_bytes(live)} live there "
        f"past its memory_limit of {format_bytes(limit)} ({limit} bytes)",
        "",
        (),
        nbytes,
        limit,
        device,
        live,
    )


LARGEST = 5  # how many live tensors an out-of-memory error names
