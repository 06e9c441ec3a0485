"""Devices whose arrays are torch tensors: `TorchDevice(torch_device)` and `CUDA(id)`.

PyTorch is optional: it is imported when one of these devices is made (or, on a machine with a GPU driver, when
`cuda_backend` / `available_devices` asks), never when this module is.

An op runs as its registered torch kernel (`Op.torch_kernel`, called with a
`TorchContext` for this device).  When the op has none, or its torch kernel
raises `Fallback` for the inputs at hand, the device runs the op's NumPy kernel
on a host copy of the inputs and uploads the result; each such call is
counted in `TorchDevice.fallbacks` (op name -> calls), which the profile shows.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

from vdplace.ir.dtype import torch_dtype
from vdplace.ir.op import Fallback, Op, TorchContext

from .devices import Device, DeviceArray, Kernel
from .errors import DeviceUnavailable
from .memory import AVAILABLE


def _import_torch() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch


# What a machine that can run CUDA (or ROCm, which PyTorch also calls "cuda") shows on Linux: the NVIDIA
# driver's files and devices, WSL2's GPU device, AMD's kernel driver.
GPU_DRIVER_PATHS = ("/proc/driver/nvidia/version", "/dev/nvidiactl", "/dev/nvidia0", "/dev/dxg", "/dev/kfd")


def gpu_driver_present() -> bool:
    """Whether this machine may have a GPU PyTorch can use: False only where no GPU driver is there (Linux).

    Importing PyTorch takes a second or more; without a driver it could find no GPU anyway.
    """
    if not sys.platform.startswith("linux"):
        return True
    return any(os.path.exists(path) for path in GPU_DRIVER_PATHS)


def cuda_backend(device_id: int = 0) -> str | None:
    """'torch' when PyTorch is installed and sees CUDA device `device_id`, else None.

    PyTorch is imported only where a GPU driver is present (`gpu_driver_present`).
    """
    if not gpu_driver_present():
        return None
    torch = _import_torch()
    if torch is not None and torch.cuda.is_available() and device_id < torch.cuda.device_count():
        return "torch"
    return None


def available_devices() -> list[str]:
    """Names of the runtime devices this machine has, for error messages."""
    names = ["cpu"]
    torch = _import_torch() if gpu_driver_present() else None
    if torch is not None and torch.cuda.is_available():
        names += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    return names


class TorchDevice(Device):
    """Arrays are torch tensors on `torch_device` (``"cpu"`` checks the torch kernels without a GPU).

    `memory_limit`: the most bytes live on the device at once (None: no limit; `runtime.memory`).
    """

    kind = "torch"

    def __init__(
        self, torch_device: str = "cpu", name: str | None = None, memory_limit: int | str | None = None
    ) -> None:
        torch = _import_torch()
        if torch is None:
            raise DeviceUnavailable("PyTorch is not installed (pip install 'vdplace[torch]')")
        super().__init__(name or f"torch:{torch_device}", memory_limit)
        self.torch = torch
        self.device = torch.device(torch_device)
        self.context = TorchContext(torch, self.device)
        self.fallbacks: dict[str, int] = {}

    def _wrap_host(self, array: Any) -> Any:
        """A CPU tensor over `array` (copied only when torch cannot share it: read-only or strided)."""
        array = np.asarray(array)
        if not array.flags.writeable or not array.flags.c_contiguous:
            array = np.array(array, order="C", copy=True)
        return self.torch.from_numpy(array)

    def from_host(self, array: np.ndarray) -> Any:
        return self._wrap_host(array).to(self.device, copy=True)

    def to_host(self, data: Any) -> np.ndarray:
        if data.dtype == self.torch.bfloat16:  # NumPy has no bfloat16: the IR stores it as float32
            data = data.float()
        return data.detach().cpu().numpy()

    def empty(self, shape: tuple[int, ...], dtype: str) -> Any:
        return self.torch.empty(shape, dtype=torch_dtype(self.torch, dtype), device=self.device)

    def copy_into(self, dst: Any, src: DeviceArray) -> None:
        if isinstance(src.device, TorchDevice):
            dst.copy_(src.data)
        else:
            dst.copy_(self._wrap_host(src.device.to_host(src.data)))

    def owner(self, data: Any) -> tuple[Any, Any, int]:
        storage = data.untyped_storage()
        return storage.data_ptr(), storage, storage.nbytes()

    def owns(self, data: Any, owner: Any, nbytes: int) -> bool:
        return data.is_contiguous() and data.storage_offset() == 0 and nbytes == self.nbytes_of(data)

    def copy_of(self, data: Any) -> Any:
        return data.clone(memory_format=self.torch.contiguous_format)

    def normalize(self, result: Any) -> Any:
        if isinstance(result, self.torch.Tensor):
            return result
        return self.torch.as_tensor(np.asarray(result), device=self.device)

    def is_array(self, value: Any) -> bool:
        return isinstance(value, (np.ndarray, self.torch.Tensor))

    def dtype_of(self, data: Any) -> str:
        return str(data.dtype).removeprefix("torch.")

    def nbytes_of(self, data: Any) -> int:
        return data.numel() * data.element_size()

    def make_kernel(self, op: Op) -> Kernel:
        native = op.torch_kernel
        numpy_kernel = op.kernel
        name = op.name
        if native is None and numpy_kernel is None:
            raise DeviceUnavailable(f"R.{op.name} has neither a torch nor a NumPy kernel")

        def host_round_trip(*args: Any, **attrs: Any) -> Any:
            if numpy_kernel is None:
                raise DeviceUnavailable(f"R.{name} cannot run on {self.name} for these inputs (no NumPy kernel)")
            self.fallbacks[name] = self.fallbacks.get(name, 0) + 1
            result = numpy_kernel(*[self._host(a) for a in args], **attrs)
            return self._device(result)

        if native is None:
            return host_round_trip
        context = self.context

        def kernel(*args: Any, **attrs: Any) -> Any:
            try:
                return native(context, *args, **attrs)
            except Fallback:
                return host_round_trip(*args, **attrs)

        return kernel

    def _host(self, value: Any) -> Any:
        if isinstance(value, self.torch.Tensor):
            return self.to_host(value)
        if isinstance(value, tuple):
            return tuple(self._host(v) for v in value)
        return value

    def _device(self, value: Any) -> Any:
        if isinstance(value, tuple):
            return tuple(self._device(v) for v in value)
        if not isinstance(value, (np.ndarray, np.generic)):
            return value  # a shape or a scalar: no device
        return self._wrap_host(value).to(self.device)


class CUDA(TorchDevice):
    """NVIDIA GPU `device_id` through PyTorch; an error naming what is missing when there is none.

    `memory_limit` defaults to the GPU's free memory when the device is made.
    """

    kind = "cuda"

    def __init__(self, device_id: int = 0, memory_limit: int | str | None = AVAILABLE) -> None:
        if cuda_backend(device_id) is None:
            torch = _import_torch()
            why = (
                "PyTorch is not installed (pip install 'vdplace[torch]')"
                if torch is None
                else f"PyTorch sees {torch.cuda.device_count()} CUDA device(s)"
            )
            raise DeviceUnavailable(
                f"CUDA device {device_id} is not available: {why}; available: {', '.join(available_devices())}"
            )
        if memory_limit == AVAILABLE:
            memory_limit = int(_import_torch().cuda.mem_get_info(device_id)[0])
        super().__init__(f"cuda:{device_id}", name=f"cuda:{device_id}", memory_limit=memory_limit)
        self.device_id = device_id
