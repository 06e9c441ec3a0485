"""Timing one op call on this machine: inputs made from struct infos, the registered kernels, a time cap.

`make_inputs` builds the arguments of an `OpInfo` from its argument struct
infos: floats uniform in [0.5, 1.5) (no NaN from log or sqrt, no denormals),
integers 0 (a valid index into any non-empty axis), bools half true, shapes
and prim values as the module states them.  A symbolic dim that is a plain
name (``n``) takes ``size_of(n)`` (placement's size of it, `ir.sizes.Sizes`);
an expression (``n * 2``), an unknown shape or dtype, or inputs and result
over `max_bytes` raise `Skip` with the reason, as does a kernel that fails
on such inputs.

`time_numpy` runs the op's NumPy kernel, the kernel the runtime's CPU runs;
`TorchTimer` runs its torch kernel on a torch device (a CUDA GPU), through a
host copy where the op has none or it raises `Fallback`, as the runtime's
torch devices do, synchronizing after every call.  Both run the kernel once
(warm-up, and the whole measurement if it took `budget` seconds or more), then
up to `repeat` more times within `budget` seconds, and return the fastest call.
Both take the call's attributes as `attrs` (default: the op's as written; a
reference run gives them with their symbolic dims resolved).
`TorchTimer.copy_seconds` times one upload to the device or download from it,
as the runtime's torch devices copy.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from vdplace.ir.dtype import is_float, itemsize, to_numpy
from vdplace.ir.op import Fallback, TorchContext
from vdplace.ir.struct_info import PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo

from .model import OpInfo


class Skip(Exception):
    """An op call that cannot be timed; the message says why."""


def make_inputs(op: OpInfo, rng: np.random.Generator, size_of: Callable[[str], int], max_bytes: int) -> list[Any]:
    """The arguments of `op` (module docstring); `Skip` where they cannot be made."""
    total = _bytes(op.result, size_of) + sum(_bytes(a, size_of) for a in op.args)
    if total > max_bytes:
        raise Skip(f"its inputs and result take {total} bytes, over the {max_bytes}-byte limit")
    return [_value(sinfo, rng, size_of) for sinfo in op.args]


def _dim(d: int | str, size_of: Callable[[str], int]) -> int:
    if isinstance(d, int):
        return d
    if d.isidentifier():
        return size_of(d)
    raise Skip(f"symbolic dim {d!r} is an expression; only plain names take the symbolic size")


def _shape(sinfo: TensorStructInfo, size_of: Callable[[str], int]) -> tuple[int, ...]:
    if sinfo.shape is None:
        raise Skip("an argument's shape is unknown")
    if not sinfo.dtype:
        raise Skip("an argument's dtype is unknown")
    return tuple(_dim(d, size_of) for d in sinfo.shape)


def _bytes(sinfo: StructInfo, size_of: Callable[[str], int]) -> int:
    if isinstance(sinfo, TensorStructInfo) and sinfo.shape is not None:
        return itemsize(sinfo.dtype) * int(np.prod([_dim(d, size_of) for d in sinfo.shape], dtype=object))
    if isinstance(sinfo, TupleStructInfo):
        return sum(_bytes(f, size_of) for f in sinfo.fields)
    return 0


def _value(sinfo: StructInfo, rng: np.random.Generator, size_of: Callable[[str], int]) -> Any:
    if isinstance(sinfo, TensorStructInfo):
        shape, dtype = _shape(sinfo, size_of), sinfo.dtype
        try:
            np_dtype = to_numpy(dtype)
        except TypeError:
            raise Skip(f"NumPy has no dtype {dtype!r}") from None
        if is_float(dtype):
            return np.asarray(rng.uniform(0.5, 1.5, shape), np_dtype)
        if dtype == "bool":
            return np.asarray(rng.random(shape) < 0.5)
        return np.zeros(shape, np_dtype)
    if isinstance(sinfo, TupleStructInfo):
        return tuple(_value(f, rng, size_of) for f in sinfo.fields)
    if isinstance(sinfo, ShapeStructInfo):
        if sinfo.values is None:
            raise Skip("a shape argument's values are unknown")
        return tuple(_dim(d, size_of) for d in sinfo.values)
    if isinstance(sinfo, PrimStructInfo) and sinfo.value is not None:
        return np.asarray(sinfo.value, dtype=to_numpy(sinfo.dtype or "int64"))[()]
    raise Skip(f"cannot make an argument of type {sinfo!r}")


def best_time(call: Callable[[], Any], repeat: int, budget: float) -> float:
    """The fastest of the timed calls of `call` (module docstring); a failing call is a `Skip`."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            start = time.perf_counter()
            call()
            first = time.perf_counter() - start
            if first >= budget:
                return first
            best = first
            runs = min(repeat, max(1, int((budget - first) / max(first, 1e-9))))
            for _ in range(runs):
                start = time.perf_counter()
                call()
                best = min(best, time.perf_counter() - start)
        except Skip:
            raise
        except Exception as err:  # noqa: BLE001  (any kernel error means: this call cannot be timed)
            message = str(err).splitlines()[0] if str(err) else ""
            raise Skip(f"the kernel raised {type(err).__name__}: {message[:200]}") from None
    return best


def time_numpy(op: OpInfo, args: list[Any], repeat: int, budget: float, attrs: dict[str, Any] | None = None) -> float:
    """Seconds of one call of `op`'s NumPy kernel on `args` (`attrs`: default the op's)."""
    kernel = None if op.registry is None else op.registry.kernel
    if kernel is None:
        raise Skip("the op has no NumPy kernel")
    given = dict(op.attrs if attrs is None else attrs)
    return best_time(lambda: kernel(*args, **given), repeat, budget)


class TorchTimer:
    """Times op calls on `device` (a ``torch.device``), through `torch` (the module, imported by the caller)."""

    def __init__(self, torch: Any, device: Any) -> None:
        self.torch = torch
        self.device = device
        self.context = TorchContext(torch, device)

    def time(
        self, op: OpInfo, args: list[Any], repeat: int, budget: float, attrs: dict[str, Any] | None = None
    ) -> float:
        """Seconds of one call of `op` on the device, the inputs already there, synchronized after the call."""
        registry = op.registry
        if registry is None or (registry.torch_kernel is None and registry.kernel is None):
            raise Skip("the op has neither a torch nor a NumPy kernel")
        on_device = [self._to_device(a) for a in args]
        given = dict(op.attrs if attrs is None else attrs)

        def call() -> None:
            self._call(registry, on_device, given)
            self._sync()

        return best_time(call, repeat, budget)

    def copy_seconds(self, nbytes: int, upload: bool) -> float:
        """Seconds of one copy of `nbytes` to the device (`upload`) or back to the host, synchronized."""
        host = np.zeros(max(nbytes, 1), np.uint8)
        on_device = self._to_device(host)

        def call() -> None:
            if upload:
                self._to_device(host)
            else:
                self._to_host(on_device)
            self._sync()

        return best_time(call, 1, 1.0)

    def _sync(self) -> None:
        if self.device.type == "cuda":
            self.torch.cuda.synchronize(self.device)

    def _call(self, registry: Any, args: list[Any], attrs: dict[str, Any]) -> Any:
        if registry.torch_kernel is not None:
            try:
                return registry.torch_kernel(self.context, *args, **attrs)
            except Fallback:
                pass
        if registry.kernel is None:
            raise Skip("the torch kernel cannot take these inputs and the op has no NumPy kernel")
        result = registry.kernel(*[self._to_host(a) for a in args], **attrs)
        return self._to_device(result)

    def _to_device(self, value: Any) -> Any:
        if isinstance(value, tuple):
            return tuple(self._to_device(v) for v in value)
        if isinstance(value, (np.ndarray, np.generic)):
            return self.torch.from_numpy(np.ascontiguousarray(value)).to(self.device)
        return value

    def _to_host(self, value: Any) -> Any:
        if isinstance(value, tuple):
            return tuple(self._to_host(v) for v in value)
        if isinstance(value, self.torch.Tensor):
            return value.cpu().numpy()
        return value
