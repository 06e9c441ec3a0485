"""`vdplace calibrate`: time a module's op calls on this machine's devices and make a cost table of them.

Every op call of the module (`describe.describe_ops`) is keyed by `op_key`
(op, argument shapes and dtypes, attributes), so each distinct call is timed
once per device, however often the module makes it.  The devices are the
host's CPU (key ``"cpu"``: the NumPy kernels the runtime runs there) and,
when PyTorch is installed and sees a GPU, CUDA device 0 (key ``"cuda"``: the
torch kernels; torch is imported only then).  Device ops (``to_vdevice``,
``hint_on_device``) are copies, not kernels: they are not timed.  What cannot
be timed (`timers.Skip`: an unknown shape, a symbolic dim that is an
expression, inputs over the size limit, a kernel that fails on the made-up
inputs) is listed with its reason and left to the fallback.

The fallback roofline of the table is fitted to the measurements, per device:
peak FLOP/s and bandwidth are the best rates any timed call reached
(estimated FLOPs or bytes from the op registry over its time), the overhead
per kernel the fastest call; a device or rate with no measurement keeps
`roofline.DEFAULT_DEVICES`' value, and the links are `DEFAULT_LINKS`.  That
makes the fallback an upper-side estimate of this machine, on the scale of
the table's own times.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from vdplace.ir.module import IRModule
from vdplace.ir.sizes import Sizes

from .describe import describe_ops
from .model import CostModel, OpInfo
from .roofline import DEFAULT_DEVICES, Roof, Roofline
from .table import Table, op_key
from .timers import Skip, TorchTimer, make_inputs, time_numpy

Timer = Callable[[OpInfo, list[Any], int, float], float]
MAX_BYTES = 1 << 30  # inputs and result of one call


class Calibration:
    """What `calibrate` measured: the `model`, and per device the times and the calls it skipped, and why."""

    def __init__(self, model: CostModel, calls: int, distinct: int, seconds: float) -> None:
        self.model = model
        self.calls = calls  # op calls of the module (device ops included)
        self.distinct = distinct  # distinct keys timed or skipped per device
        self.seconds = seconds  # wall time of the whole calibration
        self.skipped: dict[str, dict[str, str]] = {}  # device -> op key -> reason

    @property
    def table(self) -> Table:
        assert isinstance(self.model.source, Table)
        return self.model.source

    def summary(self) -> str:
        """A few lines for the terminal: what was timed where, how long it took, what was skipped."""
        lines = []
        table = self.table
        for device, times in table.times.items():
            skipped = self.skipped.get(device, {})
            lines.append(
                f"{device}: {len(times)} of {self.distinct} distinct op calls timed"
                + (f", {len(skipped)} skipped" if skipped else "")
            )
            roof = table.fallback.devices.get(device) if table.fallback is not None else None
            if roof is not None:
                lines.append(
                    f"  fallback roofline: {roof.flops / 1e9:.3g} GFLOP/s, {roof.bandwidth / 1e9:.3g} GB/s, "
                    f"{roof.overhead * 1e6:.3g} us per kernel"
                )
            for key, reason in list(skipped.items())[:10]:
                lines.append(f"  skipped {key}: {reason}")
            if len(skipped) > 10:
                lines.append(f"  ... and {len(skipped) - 10} more (the JSON's about.skipped lists them all)")
        lines.append(f"{self.calls} op calls, {self.distinct} distinct, calibrated in {self.seconds:.2f} s")
        return "\n".join(lines) + "\n"


def calibrate(
    mod: IRModule,
    *,
    repeat: int = 5,
    budget: float = 0.2,
    devices: Sequence[str] | None = None,
    dims: Mapping[str, int] | None = None,
    max_bytes: int = MAX_BYTES,
    seed: int = 0,
) -> Calibration:
    """Time every distinct op call of `mod` on `devices` (default: `available_devices()`); see the module docstring.

    `repeat`: timed calls after the warm-up (the fastest counts); `budget`:
    seconds one distinct call may take on one device, warm-up included
    (a call slower than that is timed once).  `devices` may hold ``"cpu"``
    and ``"cuda"``; ``"cuda"`` without a GPU is a `ValueError`.  Symbolic
    dims take the sizes placement gives them (`ir.sizes.Sizes(mod, dims)`), in
    the inputs and in the work estimates the fallback is fitted to alike.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    start = time.perf_counter()
    sizes = Sizes(mod, dims)
    ops = describe_ops(mod, sizes)
    distinct: dict[str, OpInfo] = {}
    for op in ops:
        if op.registry is None or op.registry.device_rule != "explicit":
            distinct.setdefault(op_key(op), op)
    timers = {device: _timer(device) for device in (available_devices() if devices is None else devices)}
    times: dict[str, dict[str, float]] = {}
    skipped: dict[str, dict[str, str]] = {}
    for device, timer in timers.items():
        rng = np.random.default_rng(seed)
        times[device], skipped[device] = {}, {}
        for key, op in distinct.items():
            try:
                if op.registry is None:
                    raise Skip("the op registry does not know it")
                if not op.registry.supports(device):
                    raise Skip(f"the op does not run on {device}")
                args = make_inputs(op, rng, lambda name, f=op.function: sizes.size(name, f), max_bytes)
                times[device][key] = timer(op, args, repeat, budget)
            except Skip as why:
                skipped[device][key] = str(why)
    fallback = Roofline.with_defaults({d: _fit(d, times[d], distinct) for d in times})
    model = CostModel.from_table(Table(times, fallback))
    model.about = _about(mod, timers, repeat, sizes, skipped)
    result = Calibration(model, len(ops), len(distinct), time.perf_counter() - start)
    result.skipped = {d: s for d, s in skipped.items() if s}
    return result


def available_devices() -> list[str]:
    """``["cpu"]``, plus ``"cuda"`` when PyTorch is installed and sees a CUDA GPU (torch imported only to ask)."""
    return ["cpu", "cuda"] if _cuda_torch() is not None else ["cpu"]


def _cuda_torch() -> Any:
    """The torch module when it is installed and sees a CUDA GPU, else None."""
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        return None
    import torch

    return torch if torch.cuda.is_available() else None


def _timer(device: str) -> Timer:
    if device == "cpu":
        return time_numpy
    if device == "cuda":
        torch = _cuda_torch()
        if torch is None:
            raise ValueError("cannot calibrate cuda: PyTorch is not installed or sees no CUDA GPU")
        return TorchTimer(torch, torch.device("cuda", 0)).time
    raise ValueError(f"cannot calibrate device {device!r}: calibrate knows 'cpu' and 'cuda'")


def _fit(device: str, times: dict[str, float], ops: dict[str, OpInfo]) -> Roof:
    """The fallback roofline of `device` fitted to its measured `times` (module docstring)."""
    default = DEFAULT_DEVICES[device]
    flops = max((ops[k].work.flops / t for k, t in times.items() if t > 0 and ops[k].work.flops > 0), default=0.0)
    nbytes = max((ops[k].work.bytes / t for k, t in times.items() if t > 0 and ops[k].work.bytes > 0), default=0.0)
    overhead = min(times.values(), default=default.overhead)
    return Roof(flops or default.flops, nbytes or default.bandwidth, overhead)


def _about(
    mod: IRModule, timers: dict[str, Timer], repeat: int, sizes: Sizes, skipped: dict[str, dict[str, str]]
) -> dict[str, Any]:
    """The notes the table's JSON keeps: what was measured, on what, how."""
    machine = f"{platform.machine()} {platform.processor() or platform.system()}".strip()
    return {
        "made by": "vdplace calibrate",
        "module": mod.filename or mod.name,
        "devices": {d: f"{machine}, NumPy {np.__version__}" if d == "cpu" else "CUDA device 0, torch" for d in timers},
        "statistic": f"the fastest of up to {repeat} calls after a warm-up call",
        "dims": sizes.describe(),
        "skipped": [
            f"{device}: {key}: {reason}" for device, reasons in skipped.items() for key, reason in reasons.items()
        ],
    }
