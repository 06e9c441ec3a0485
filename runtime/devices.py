"""Runtime devices: where arrays live, which kernels run there, and how many bytes they hold.

- `CPU()`: NumPy arrays in host memory; the op library's NumPy kernels.
- `Simulated(name)`: NumPy memory that belongs to one named device, so a
  heterogeneous program runs, and is checked, on a machine without a GPU:
  data reaches it only by an explicit copy, exactly as on a real GPU.
- `CUDA(id)` and `TorchDevice(torch_device)`, in `runtime.torch_device`:
  torch tensors; PyTorch is imported only when one is made.

Every runtime array is a `DeviceArray(data, device)`.  Each device counts the
bytes it holds: buffers are reference-counted by the VM's registers and keyed
by the memory that owns them (a view shares its base's bytes), so `peak` is the
real high-water mark.  A kernel's result is a new tensor (`adopt_result`: a
result that shares memory with a live array, is a part of a larger buffer or
is not C-contiguous is copied) unless the call is a view (`adopt_view`, where
`vdplace.ir.views` says so): the bytes the schedule's memory model predicts.
The same count is the device's budget: a new buffer that would take the live
bytes past `memory_limit` is refused (`runtime.memory.over_budget`), as a
GPU's allocator refuses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vdplace.ir.dtype import to_numpy
from vdplace.ir.op import Op

from .errors import DeviceUnavailable
from .memory import AVAILABLE, check_fits, over_budget, resolve_limit

Kernel = Callable[..., Any]


class DeviceArray:
    """An array and the device that holds it.

    `key` identifies the memory it lives in and `owner_bytes` is that memory's
    size (a view's key and bytes are its base's).
    """

    __slots__ = ("data", "device", "key", "owner_bytes")

    def __init__(self, data: Any, device: Device, key: Any, owner_bytes: int) -> None:
        self.data = data
        self.device = device
        self.key = key
        self.owner_bytes = owner_bytes

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def dtype(self) -> str:
        return self.device.dtype_of(self.data)

    @property
    def nbytes(self) -> int:
        return self.device.nbytes_of(self.data)

    def numpy(self) -> np.ndarray:
        """A host copy (or, on the CPU, the array itself)."""
        return self.device.to_host(self.data)

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype}, device={self.device.name})"


class MemoryStats:
    """Bytes freed, live now and at the peak, and buffers allocated, on one device.

    `allocated` is derived (every byte allocated is freed or still live), so the
    hot path updates one counter less; `held_before` is what was already live when
    a measured window (one run) began.
    """

    __slots__ = ("freed", "live", "peak", "allocations", "held_before")

    def __init__(self, freed: int = 0, live: int = 0, peak: int = 0, allocations: int = 0, held_before: int = 0):
        self.freed = freed
        self.live = live
        self.peak = peak
        self.allocations = allocations
        self.held_before = held_before

    @property
    def allocated(self) -> int:
        return self.freed + self.live - self.held_before

    def snapshot(self) -> MemoryStats:
        return MemoryStats(self.freed, self.live, self.peak, self.allocations, self.held_before)

    def since(self, start: MemoryStats) -> MemoryStats:
        """The window from `start` (an earlier snapshot) to now."""
        return MemoryStats(
            self.freed - start.freed, self.live, self.peak, self.allocations - start.allocations, start.live
        )


class Device:
    """Base class of runtime devices.  Identity is the object: two `CPU()` are two devices.

    `memory_limit` is the most bytes live here at once (None: no budget;
    `runtime.memory`): a new buffer that would take the live bytes past it is
    refused when the device is to hold it (`DeviceMemoryError`).
    `tensor_limit` bounds one tensor, which is refused before it is made
    (`check_fits`).  Both are set by `set_memory_limit`.
    """

    kind = "device"

    def __init__(self, name: str, memory_limit: int | str | None = None) -> None:
        self.name = name
        self.memory_limit: int | None = None
        self.tensor_limit: int | None = None
        self.set_memory_limit(memory_limit)
        self.stats = MemoryStats()
        # memory key -> register references to it.  The memory stays alive while the
        # count is positive, since the device arrays in those registers reference it.
        self._refs: dict[Any, int] = {}
        self._kernels: dict[str, Kernel] = {}

    # -- what a backend provides ---------------------------------------------
    def from_host(self, array: np.ndarray) -> Any:
        """Native storage on this device for host array `array`."""
        raise NotImplementedError

    def to_host(self, data: Any) -> np.ndarray:
        raise NotImplementedError

    def empty(self, shape: tuple[int, ...], dtype: str) -> Any:
        raise NotImplementedError

    def copy_into(self, dst: Any, src: DeviceArray) -> None:
        """Fill `dst` (native, on this device) with `src` (on any device)."""
        raise NotImplementedError

    def owner(self, data: Any) -> tuple[Any, Any, int]:
        """(memory key, owning object, bytes of the owner) of native array `data`."""
        raise NotImplementedError

    def make_kernel(self, op: Op) -> Kernel:
        raise NotImplementedError

    def dtype_of(self, data: Any) -> str:
        raise NotImplementedError

    def nbytes_of(self, data: Any) -> int:
        raise NotImplementedError

    def normalize(self, result: Any) -> Any:
        """A kernel's result as native storage (NumPy kernels may return scalars)."""
        return result

    def is_array(self, value: Any) -> bool:
        """Whether `value`, a field of a kernel's result, is an array this device adopts (not a shape)."""
        return isinstance(value, np.ndarray)

    # -- shared --------------------------------------------------------------
    def set_memory_limit(self, memory_limit: int | str | None) -> None:
        """Bytes (the budget of bytes live at once, and the most one tensor may take), None (no limit), or
        `AVAILABLE`: the host's available memory now bounds each tensor, and there is no budget (the host's
        memory is shared with the rest of the process, whose arrays, the inputs among them, it already
        excludes)."""
        limit = resolve_limit(memory_limit)
        self.tensor_limit = limit
        self.memory_limit = None if memory_limit == AVAILABLE else limit

    def check_fits(self, tensor: str, shape: tuple[int, ...], dtype: str) -> None:
        """Raise `DeviceMemoryError` if a `shape` x `dtype` tensor named `tensor` alone exceeds `tensor_limit`."""
        check_fits(self.name, self.tensor_limit, tensor, shape, dtype)

    def kernel(self, op: Op) -> Kernel:
        """The kernel for `op` on this device, resolved once and cached."""
        found = self._kernels.get(op.name)
        if found is None:
            found = self._kernels[op.name] = self.make_kernel(op)
        return found

    def adopt(self, data: Any) -> DeviceArray:
        """Wrap native `data` held by this device and count one reference to its memory."""
        key, _, nbytes = self.owner(data)
        self._hold(key, nbytes)
        return DeviceArray(data, self, key, nbytes)

    def _hold(self, key: Any, nbytes: int) -> None:
        """Count one reference to buffer `key`; a new one must fit the budget (else nothing is counted)."""
        refs = self._refs
        count = refs.get(key)
        if count is None:
            stats = self.stats
            live = stats.live + nbytes
            limit = self.memory_limit
            if limit is not None and live > limit:
                raise over_budget(self.name, limit, stats.live, nbytes)
            refs[key] = 1
            stats.allocations += 1
            stats.live = live
            if live > stats.peak:
                stats.peak = live
        else:
            refs[key] = count + 1

    def owns(self, data: Any, owner: Any, nbytes: int) -> bool:
        """Whether native `data` is the whole of its buffer (`owner`, of `nbytes`), in C order."""
        raise NotImplementedError

    def copy_of(self, data: Any) -> Any:
        """A C-contiguous copy of native `data` on this device."""
        raise NotImplementedError

    def adopt_result(self, result: Any) -> DeviceArray:
        """`adopt` for a kernel's result (which may need `normalize` first) as a new tensor: copied when it
        shares memory with an array held here (an operand), is part of a larger buffer or is not C-contiguous."""
        data = self.normalize(result)
        key, owner, nbytes = self.owner(data)
        if key in self._refs or not self.owns(data, owner, nbytes):
            data = self.copy_of(data)
            key, _, nbytes = self.owner(data)
        self._hold(key, nbytes)
        return DeviceArray(data, self, key, nbytes)

    def adopt_view(self, result: Any) -> DeviceArray:
        """`adopt` for the result of a view call (`vdplace.ir.views`): it shares its operand's memory."""
        return self.adopt(self.normalize(result))

    def acquire(self, array: DeviceArray) -> None:
        """One more register holds `array` (again, if an earlier run handed it back)."""
        self._hold(array.key, array.owner_bytes)

    def release(self, array: DeviceArray) -> None:
        refs = self._refs
        count = refs.get(array.key)
        if count is None:
            return
        if count > 1:
            refs[array.key] = count - 1
        else:
            del refs[array.key]
            stats = self.stats
            stats.live -= array.owner_bytes
            stats.freed += array.owner_bytes

    def reset_peak(self) -> None:
        self.stats.peak = self.stats.live

    def upload(self, array: np.ndarray) -> DeviceArray:
        return self.adopt(self.from_host(array))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def upload_constant(device: Device, index: int, value: Any) -> Any:
    """Constant `index` of an executable on `device`: checked against its memory limit, read-only, uploaded."""
    device.check_fits(f"constant {index}", np.shape(value), str(np.asarray(value).dtype))
    array = np.array(value, order="C", copy=True)
    array.setflags(write=False)
    return device.upload(array)


def _numpy_owner(data: np.ndarray) -> tuple[Any, Any, int]:
    owner = data
    base = data.base
    while isinstance(base, np.ndarray):
        owner = base
        base = owner.base
    return id(owner), owner, owner.nbytes


class NumpyDevice(Device):
    """Host-memory devices whose kernels are the op library's NumPy kernels."""

    def to_host(self, data: np.ndarray) -> np.ndarray:
        return data

    def empty(self, shape: tuple[int, ...], dtype: str) -> np.ndarray:
        return np.empty(shape, dtype=to_numpy(dtype))

    def copy_into(self, dst: np.ndarray, src: DeviceArray) -> None:
        # Between NumPy-backed devices the source's own array is read: no staging copy.
        data = src.data if isinstance(src.device, NumpyDevice) else src.device.to_host(src.data)
        np.copyto(dst, data, casting="no")

    def owner(self, data: np.ndarray) -> tuple[Any, Any, int]:
        return _numpy_owner(data)

    def owns(self, data: np.ndarray, owner: Any, nbytes: int) -> bool:
        return owner is data and data.flags.c_contiguous

    def copy_of(self, data: np.ndarray) -> np.ndarray:
        return np.array(data, order="C", copy=True)

    def adopt_result(self, result: Any) -> DeviceArray:
        """`Device.adopt_result` in one call: the VM's hot path for every op result."""
        if result.__class__ is not np.ndarray:
            result = np.asarray(result)
        owner = result
        base = result.base
        while base.__class__ is np.ndarray:
            owner = base
            base = owner.base
        key = id(owner)
        nbytes = owner.nbytes
        refs = self._refs
        if key in refs or nbytes != result.nbytes or not result.flags.c_contiguous:
            result = np.array(result, order="C", copy=True)  # a new tensor, as the schedule counts it
            key = id(result)
            nbytes = result.nbytes
        self._hold(key, nbytes)  # a buffer no register holds yet (above): a new allocation
        return DeviceArray(result, self, key, nbytes)

    def make_kernel(self, op: Op) -> Kernel:
        if op.kernel is None:
            raise DeviceUnavailable(f"R.{op.name} has no NumPy kernel, so it cannot run on {self.name}")
        return op.kernel

    def normalize(self, result: Any) -> Any:
        return result if type(result) is np.ndarray else np.asarray(result)

    def dtype_of(self, data: np.ndarray) -> str:
        return str(data.dtype)

    def nbytes_of(self, data: np.ndarray) -> int:
        return data.nbytes


class CPU(NumpyDevice):
    """The host: NumPy arrays, used as they are (an input is copied only when it is a view, is not C-contiguous
    or is passed twice: `adopt_result`).

    `memory_limit` defaults to `AVAILABLE`: each tensor bounded by the memory
    the host has available now, no budget; give bytes for a budget.
    """

    kind = "cpu"

    def __init__(self, name: str = "cpu", memory_limit: int | str | None = AVAILABLE) -> None:
        super().__init__(name, memory_limit)

    def from_host(self, array: np.ndarray) -> np.ndarray:
        return np.asarray(array)

    def upload(self, array: np.ndarray) -> DeviceArray:
        return self.adopt_result(array)  # no copy (host memory is this device's), but of a view or one held


class Simulated(NumpyDevice):
    """NumPy memory owned by the device called `name`; data enters and leaves only by copies.

    `memory_limit` is the simulated device's capacity: give the real
    device's size to see what would not fit on it (by default each tensor is
    bounded by the memory the host has available now, where its arrays live).
    """

    kind = "sim"

    def __init__(self, name: str, memory_limit: int | str | None = AVAILABLE) -> None:
        super().__init__(name, memory_limit)

    def from_host(self, array: np.ndarray) -> np.ndarray:
        return np.array(array, order="C", copy=True)

    def to_host(self, data: np.ndarray) -> np.ndarray:
        return np.array(data, copy=True)
