"""`vdplace calibrate`: time a module's op calls on the devices a run uses and make a cost table of them.

Every op call of the module (`describe.describe_ops`) is keyed by `op_key`
(op, argument shapes and dtypes, attributes), so each distinct call is timed
once per device, however often the module makes it.

Devices.  Built in (`devices`): the host's CPU (key ``"cpu"``: the NumPy
kernels the runtime runs there) and, when PyTorch is installed and sees a
GPU, CUDA device 0 (key ``"cuda"``: the torch kernels; torch is imported only
then), whose copies to and from the host are timed too (the ``cpu``/``cuda``
links).  Given (`timers`): any other device key with the `Timer` that runs
kernels there, and the `links` the caller measured between them
(`vdplace.calibration` does this for Ray actors).  Device ops (``to_vdevice``,
``hint_on_device``) are copies, not kernels: they are not timed.

Values.  A kernel's time can depend on the values it is given (NumPy's
``power`` of negative numbers takes about 40 times as long as of positive
ones), so `values` maps an op key to the arguments the program passes that
call, with their attributes: what a reference run computes
(`vdplace.calibration.program_values`).  A key with no values (a call the run
did not reach, or no `values` at all) is timed on made-up inputs
(`timers.make_inputs`: floats in [0.5, 1.5)) and listed in
`Calibration.made_up` when `values` were given.  What cannot be timed
(`timers.Skip`: an unknown shape, a symbolic dim that is an expression,
inputs over the size limit, a kernel that fails on the inputs) is listed with
its reason and left to the fallback.

The fallback roofline of the table is fitted to the measurements, per device:
peak FLOP/s and bandwidth are the best rates any timed call reached
(estimated FLOPs or bytes from the op registry over its time), the overhead
per kernel the fastest call.  A rate taken from a call that lasted under
`SMALL_OP_FACTOR` times that fastest call is overhead more than work, so the
fitted rate is only a lower bound of the device's: `Calibration.warnings`
says so ("too small to fit a roofline").  A rate no call measured keeps
`roofline.DEFAULT_DEVICES`' value.  The file marks every number: each device
entry's and link's ``origin`` is ``"measured"`` or ``"default"``; the
default devices not calibrated here (``cuda`` on a machine with no GPU) and
the default links are written marked ``"default"``, and the summary names
them.
"""

from __future__ import annotations

import functools
import platform
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from vdplace.ir.module import IRModule
from vdplace.ir.sizes import Sizes

from .describe import describe_ops
from .links import measure_link
from .model import CostModel, OpInfo
from .roofline import ANY, DEFAULT_DEVICES, DEFAULT_LINKS, DEFAULT_SOURCES, ROOF_FIELDS, Link, Origin, Roof, Roofline
from .table import Table, op_key
from .timers import Skip, TorchTimer, make_inputs, time_numpy

# Seconds of one call of an op on `args`: timer(op, args, repeat, budget, attrs=None); `Skip` where it cannot.
Timer = Callable[..., float]
# op key -> (the arguments the program passes that call, its attributes with symbolic dims resolved)
Values = Mapping[str, tuple[Sequence[Any], Mapping[str, Any]]]
MAX_BYTES = 1 << 30  # inputs and result of one call
SMALL_OP_FACTOR = 10  # a rate from a call shorter than this many fastest calls is a lower bound
MADE_UP = "made up from the struct infos: floats in [0.5, 1.5), integers 0, bools half true"


class Calibration:
    """What `calibrate` measured: the `model`, and per device the times and the calls it skipped, and why."""

    def __init__(self, model: CostModel, calls: int, distinct: int, seconds: float) -> None:
        self.model = model
        self.calls = calls  # op calls of the module (device ops included)
        self.distinct = distinct  # distinct keys timed or skipped per device
        self.seconds = seconds  # wall time of the whole calibration
        self.skipped: dict[str, dict[str, str]] = {}  # device -> op key -> reason
        self.values = False  # whether the program's values were given
        self.made_up: list[str] = []  # op keys timed on made-up inputs although values were given
        self.warnings: list[str] = []  # rates fitted from calls too small to fit a roofline
        self.defaults: list[str] = []  # device keys and links written as declared defaults, not measured

    @property
    def table(self) -> Table:
        assert isinstance(self.model.source, Table)
        return self.model.source

    def summary(self) -> str:
        """A few lines for the terminal: what was timed where, on what, what is a default, what was skipped."""
        lines = []
        table = self.table
        fallback = table.fallback
        for device, times in table.times.items():
            skipped = self.skipped.get(device, {})
            lines.append(
                f"{device}: {len(times)} of {self.distinct} distinct op calls timed"
                + (f", {len(skipped)} skipped" if skipped else "")
            )
            roof = fallback.devices.get(device) if fallback is not None else None
            if roof is not None:
                origin = fallback.origins.get(device) if fallback is not None else None
                lines.append(
                    f"  fallback roofline: {roof.flops / 1e9:.3g} GFLOP/s, {roof.bandwidth / 1e9:.3g} GB/s, "
                    f"{roof.overhead * 1e6:.3g} us per kernel ({_origin_text(origin)})"
                )
            for key, reason in list(skipped.items())[:10]:
                lines.append(f"  skipped {key}: {reason}")
            if len(skipped) > 10:
                lines.append(f"  ... and {len(skipped) - 10} more (the JSON's about.skipped lists them all)")
        if fallback is not None:
            for (src, dst), link in fallback.links.items():
                if fallback.link_origins.get((src, dst)) == "measured":
                    lines.append(
                        f"link {src} -> {dst}: {link.latency * 1e6:.3g} us + {link.bandwidth / 1e9:.3g} GB/s (measured)"
                    )
        for (a, b), factor in self.model.contention.items():
            lines.append(f"contention {a} & {b}: an op {factor:.3g}x slower while both work (measured)")
        lines.extend(f"warning: {text}" for text in self.warnings)
        lines.extend(f"note: {text}" for text in self.defaults)
        if self.values:
            reached = self.distinct - len(self.made_up)
            lines.append(
                f"values: {reached} of {self.distinct} distinct op calls timed on the program's values"
                + (f", {len(self.made_up)} on made-up inputs (the run did not reach them)" if self.made_up else "")
            )
        else:
            lines.append(f"values: {MADE_UP}")
        lines.append(f"{self.calls} op calls, {self.distinct} distinct, calibrated in {self.seconds:.2f} s")
        return "\n".join(lines) + "\n"


def calibrate(
    mod: IRModule,
    *,
    repeat: int = 5,
    budget: float = 0.2,
    devices: Sequence[str] | None = None,
    timers: Mapping[str, Timer] | None = None,
    links: Mapping[tuple[str, str], Link] | None = None,
    values: Values | None = None,
    dims: Mapping[str, int] | None = None,
    max_bytes: int = MAX_BYTES,
    seed: int = 0,
) -> Calibration:
    """Time every distinct op call of `mod` on the devices (module docstring); the `Calibration`.

    `repeat`: timed calls after the warm-up (the fastest counts); `budget`:
    seconds one distinct call may take on one device, warm-up included
    (a call slower than that is timed once).  `devices` may hold ``"cpu"``
    and ``"cuda"`` (default: `available_devices()`, or none when `timers`
    are given); ``"cuda"`` without a GPU is a `ValueError`.  `timers` maps
    other device keys (``"llvm:0"``, ``"cuda:0"``) to their `Timer`; a timer
    may have a ``description`` for the file.  `links`: copy paths measured
    by the caller, by ``(source key, destination key)``.  `values`: the
    program's arguments per op key.  Symbolic
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
    builtin = (available_devices() if not timers else []) if devices is None else list(devices)
    every: dict[str, Timer] = {device: _timer(device) for device in builtin}
    every.update(timers or {})
    measured = dict(links or {})
    if "cuda" in builtin:
        measured.update(_cuda_links(repeat))
    times: dict[str, dict[str, float]] = {}
    skipped: dict[str, dict[str, str]] = {}
    made_up: set[str] = set()
    for device, timer in every.items():
        rng = np.random.default_rng(seed)
        times[device], skipped[device] = {}, {}
        for key, op in distinct.items():
            try:
                if op.registry is None:
                    raise Skip("the op registry does not know it")
                if not op.registry.supports(device):
                    raise Skip(f"the op does not run on {device}")
                if values is not None and key in values:
                    args, attrs = values[key]
                    _check_size(args, max_bytes)
                    times[device][key] = timer(op, list(args), repeat, budget, attrs=dict(attrs))
                else:
                    made_up.add(key)
                    args = make_inputs(op, rng, functools.partial(sizes.size, func=op.function), max_bytes)
                    times[device][key] = timer(op, args, repeat, budget)
            except Skip as why:
                skipped[device][key] = str(why)
    fallback, warnings = _fallback(times, distinct, measured)
    model = CostModel.from_table(Table(times, fallback))
    result = Calibration(model, len(ops), len(distinct), time.perf_counter() - start)
    result.skipped = {d: s for d, s in skipped.items() if s}
    result.values = values is not None
    result.made_up = sorted(made_up) if values is not None else []
    result.warnings = warnings
    result.defaults = _defaults_note(fallback, set(times))
    model.about = _about(mod, every, repeat, sizes, result)
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
    raise ValueError(
        f"cannot calibrate device {device!r}: calibrate times 'cpu' and 'cuda' itself; "
        "other devices need their timers (vdplace.calibration.calibrate_program(..., ray_actors=...) for Ray)"
    )


def _cuda_links(repeat: int) -> dict[tuple[str, str], Link]:
    """The host-to-GPU and GPU-to-host links, measured with torch's copies (as the runtime's CUDA device copies)."""
    torch = _cuda_torch()
    torch_timer = TorchTimer(torch, torch.device("cuda", 0))
    return {
        ("cpu", "cuda"): measure_link(lambda n: torch_timer.copy_seconds(n, upload=True), repeat),
        ("cuda", "cpu"): measure_link(lambda n: torch_timer.copy_seconds(n, upload=False), repeat),
    }


def _check_size(args: Sequence[Any], max_bytes: int) -> None:
    total = sum(int(getattr(a, "nbytes", 0)) for a in args)
    if total > max_bytes:
        raise Skip(f"its inputs take {total} bytes, over the {max_bytes}-byte limit")


def _fallback(
    times: dict[str, dict[str, float]], ops: dict[str, OpInfo], links: Mapping[tuple[str, str], Link]
) -> tuple[Roofline, list[str]]:
    """The fallback roofline (fitted per timed device, the defaults for the rest, every entry's origin)."""
    warnings: list[str] = []
    devices: dict[str, dict[str, Any]] = {k: {**r._asdict(), "origin": "default"} for k, r in DEFAULT_DEVICES.items()}
    for device, measured in times.items():
        roof, origin = _fit(device, measured, ops, warnings)
        devices[device] = {**roof._asdict(), "origin": origin}
    paths: dict[tuple[str, str], dict[str, Any]] = {
        pair: {**link._asdict(), "origin": "default"} for pair, link in DEFAULT_LINKS.items()
    }
    for pair, link in links.items():
        paths[pair] = {**link._asdict(), "origin": "measured"}
    return Roofline(devices, paths), warnings


def _fit(device: str, times: dict[str, float], ops: dict[str, OpInfo], warnings: list[str]) -> tuple[Roof, Origin]:
    """The fallback roofline of `device` fitted to its measured `times`, and the origin of each number."""
    default = Roofline.with_defaults().device(device) or DEFAULT_DEVICES["cpu"]
    if not times:
        return default, "default"
    overhead = min(times.values())
    found: dict[str, float] = {}
    small: list[str] = []
    for field, unit in (("flops", "GFLOP/s"), ("bandwidth", "GB/s")):
        rates = [(_work(ops[k], field) / t, k, t) for k, t in times.items() if t > 0 and _work(ops[k], field) > 0]
        if not rates:
            continue
        rate, key, seconds = max(rates)
        found[field] = rate
        if seconds < SMALL_OP_FACTOR * overhead:
            small.append(f"{field} {rate / 1e9:.3g} {unit} from {key}, a call of {seconds * 1e6:.3g} us")
    if small:
        warnings.append(
            f"{device}: ops too small to fit a roofline: {'; '.join(small)}: under {SMALL_OP_FACTOR}x the fastest "
            f"call ({overhead * 1e6:.3g} us), overhead more than work, so these fitted rates are lower bounds"
        )
    roof = Roof(found.get("flops", default.flops), found.get("bandwidth", default.bandwidth), overhead)
    origins = {field: "measured" if field in found or field == "overhead" else "default" for field in ROOF_FIELDS}
    same = set(origins.values())
    return roof, (same.pop() if len(same) == 1 else origins)


def _work(op: OpInfo, field: str) -> float:
    return op.work.flops if field == "flops" else op.work.bytes


def _defaults_note(fallback: Roofline, timed: set[str]) -> list[str]:
    """One line per default device and link the file holds as a declared default (not measured here)."""
    notes = []
    for key in DEFAULT_DEVICES:
        if key not in timed:
            why = " (no GPU that PyTorch sees on this machine)" if key == "cuda" and _cuda_torch() is None else ""
            notes.append(
                f"{key}: not measured here{why}; the file's {key} roofline is vdplace's declared default "
                f'({DEFAULT_SOURCES[key]}), marked "origin": "default"'
            )
    if any(fallback.link_origins.get(pair) == "default" for pair in fallback.links):
        notes.append(
            f"links: the default link ({DEFAULT_SOURCES[ANY]}) stands for every copy path not measured here, "
            'marked "origin": "default"'
        )
    return notes


def _origin_text(origin: Origin | None) -> str:
    if origin is None or isinstance(origin, str):
        return origin or "given"
    return ", ".join(f"{field} {what}" for field, what in origin.items())


def _about(mod: IRModule, timers: dict[str, Timer], repeat: int, sizes: Sizes, result: Calibration) -> dict:
    """The notes the table's JSON keeps: what was measured, on what, how, and what was not."""
    machine = f"{platform.machine()} {platform.processor() or platform.system()}".strip()
    described = {
        "cpu": f"{machine}, NumPy {np.__version__}",
        "cuda": "CUDA device 0, torch",
    }
    about: dict[str, Any] = {
        "made by": "vdplace calibrate",
        "module": mod.filename or mod.name,
        "devices": {d: getattr(t, "description", None) or described.get(d, d) for d, t in timers.items()},
        "statistic": f"the fastest of up to {repeat} calls after a warm-up call",
        "values": "the program's: each call's arguments as a reference run computes them" if result.values else MADE_UP,
        "dims": sizes.describe(),
        "skipped": [
            f"{device}: {key}: {reason}"
            for device, reasons in result.skipped.items()
            for key, reason in reasons.items()
        ],
    }
    if result.values:
        about["made up"] = list(result.made_up)
    about["warnings"] = list(result.warnings)
    about["defaults"] = list(result.defaults)
    return about
