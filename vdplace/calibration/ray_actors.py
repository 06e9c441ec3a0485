"""Calibration on Ray actors: kernels timed inside actors like the run's, copies timed between them.

`RayDevices(vdevices, devices, address=None)` starts one `TimingActor` per
physical device of the module, planned as `runtime.ray.RayExecutor` plans
its actors (`runtime.ray.spec.plan_actors`: the same `ActorSpec` kinds and
Ray resources; one logical CPU each by default, and Ray gives such a worker
``OMP_NUM_THREADS=1`` unless the environment sets it).  Each actor's timer
(`timers`, keyed ``kind:ordinal`` for each vdevice the actor serves, e.g.
``llvm:0``, ``cuda:0``) runs the op there as the run's actor does: the NumPy
kernel on a ``cpu`` or ``sim`` actor, the torch kernel on a ``gpu`` one.

`links(repeat)` times copies between every ordered pair of actors as the
executor makes them: the sender's result goes into Ray's object store (a
small one through the driver, which owns it), the receiver fetches it and
writes it into its own buffer.  The sender stamps the wall clock when its
array is ready, the receiver when its copy is written: the copy's time is
the difference (the actors' clocks must agree: one node, or synchronized
clocks).  The receiver is already waiting when the sender finishes
(`SENDER_DELAY`), so the time is the copy's, not a task's start-up.

Each actor's two shares of a copy are timed inside it too, as a run's
actor makes them (`runtime.ray.commands`, `runtime.ray.driver`): the
*send*, from the start of ``ray.put`` of a fresh array, which ends the
actor's script (its reference is the script's export), to the start of the
actor's next call, submitted right after (the actor runs nothing else
meanwhile: the put, the script's return, the next script's start); and the
*receive*, ``ray.get`` of an array already in the object store and its
write into a buffer of the actor's own.  Each is fitted like a link (the
fastest of `repeat` calls at 8 B and 8 MiB: a latency and seconds per
byte, `Share`); the send of a strided view (made contiguous as the run's
send makes it: `runtime.ray.commands.sendable`) gets its own seconds per
byte, timed on the program's own strided views (`strided_layouts`: a
transpose's cost depends on the shape, 0.2 to 1.2 ns a byte here) or, in a
program without any, on a transposed probe.  `links` carries the sender's into every
link from the actor (`Link.send_latency`, `Link.send_per_byte`,
`Link.send_strided_per_byte`: `CostModel.send`, the time the `Time`
objective holds the sender's device); `receives` is recorded in the cost
file's ``about`` only (docs/cost.md says why: every value arrives
contiguous, a plain fetch inside the link's time).
"""

from __future__ import annotations

import functools
import itertools
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from vdplace.ir.vdevice import VDevice
from vdplace.placement.cost.links import measure_link
from vdplace.placement.cost.roofline import Link
from vdplace.placement.cost.timers import Skip

SENDER_DELAY = 0.02  # seconds the sender waits before making its array, so that the receiver waits for it
CALL_TIMEOUT = 600.0  # seconds one timing call may take (a kernel over budget runs once)


class TimingActor:
    """A Ray actor that times kernels and copies on one device (`kind`: ``cpu``, ``sim`` or ``gpu``)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.torch_timer: Any = None
        if kind == "gpu":
            import torch

            from vdplace.placement.cost.timers import TorchTimer

            self.torch_timer = TorchTimer(torch, torch.device("cuda", 0))

    def describe(self) -> str:
        """The process: its kind, node, pid and BLAS threads, for the cost file's ``about.devices``."""
        import ray

        node = ray.get_runtime_context().get_node_id()[:12]
        threads = os.environ.get("OMP_NUM_THREADS", "unset")
        return f"Ray actor ({self.kind}) on node {node}, pid {os.getpid()}, OMP_NUM_THREADS={threads}"

    def time_op(
        self, name: str, args: list[Any], attrs: dict[str, Any], repeat: int, budget: float
    ) -> tuple[bool, float | str]:
        """(True, seconds) of one call of op `name` here, or (False, why it cannot be timed)."""
        from vdplace.ir import get_op
        from vdplace.ir.struct_info import ObjectStructInfo
        from vdplace.placement.cost.model import OpInfo
        from vdplace.placement.cost.timers import time_numpy

        op = OpInfo("main", name, name, [], ObjectStructInfo(), attrs, None, get_op(name))  # the inputs are made
        try:
            if self.torch_timer is not None:
                return True, self.torch_timer.time(op, args, repeat, budget, attrs=attrs)
            return True, time_numpy(op, args, repeat, budget, attrs=attrs)
        except Skip as why:
            return False, str(why)

    def node(self) -> str:
        """The Ray node this actor runs on."""
        import ray

        return str(ray.get_runtime_context().get_node_id())

    def run_calls(self, calls: list[Call], passes: int, start_at: float) -> list[tuple[float, float]]:
        """Each call's NumPy kernel once per pass, `passes` times in a row, from the wall clock `start_at` on
        (``time.time()``; so that two actors start together); each pass's wall ``(start, end)``."""
        from vdplace.ir import get_op

        kernels = []
        for name, args, attrs in calls:
            kernel = get_op(name).kernel
            if kernel is None:
                raise ValueError(f"the op {name} has no NumPy kernel to run")  # `contention.program_calls` skips it
            kernels.append((kernel, args, attrs))
        wait = start_at - time.time()
        if wait > 0:
            time.sleep(wait)
        out = []
        for _ in range(passes):
            start = time.time()
            for kernel, args, attrs in kernels:
                kernel(*args, **attrs)
            out.append((start, time.time()))
        return out

    def produce(self, nbytes: int, delay: float) -> tuple[float, np.ndarray]:
        """After `delay` seconds, an array of `nbytes` and the wall clock when it was ready."""
        time.sleep(delay)
        array = np.ones(nbytes, np.uint8)
        return time.time(), array

    def send(self, nbytes: int, layout: Layout | None = None) -> list[Any]:
        """A send as a run's actor makes one (`runtime.ray.commands.sendable`, then the put): a fresh array of
        `nbytes` put into Ray's object store, its reference the script's export, the script ended; [the clock
        when the send started, the reference].  `layout`: the array is that strided view instead
        (`strided_view`), made contiguous as the run's send makes it."""
        import ray

        from vdplace.runtime.ray.commands import sendable

        array = np.ones(nbytes, np.uint8) if layout is None else strided_view(layout)
        start = time.perf_counter()
        return [start, ray.put(sendable(array))]

    def stamp(self) -> float:
        """This actor's clock when it starts this call (after the calls submitted before it)."""
        return time.perf_counter()

    def fetch_time(self, refs: list[Any]) -> float:
        """Seconds this actor is busy fetching an array already in the object store and writing it into a
        buffer of its own (a receive, its data there)."""
        import ray

        start = time.perf_counter()
        array = ray.get(refs[0])
        np.copyto(np.empty_like(array), array)
        return time.perf_counter() - start

    def hold(self, nbytes: int) -> list[Any]:
        """A fresh array of `nbytes` put into the object store, for another actor's `fetch_time`."""
        import ray

        return [ray.put(np.ones(nbytes, np.uint8))]

    def consume(self, refs: list[Any]) -> float:
        """Seconds from the sender's stamp to this actor's copy of the array being written."""
        import ray

        sent, array = ray.get(refs[0])
        np.copyto(np.empty_like(array), array)
        return time.time() - sent


Layout = tuple[tuple[int, ...], str, tuple[int, ...]]  # a strided view: its operand's shape, dtype, the axes
Call = tuple[str, list[Any], dict[str, Any]]  # an op call: the op's name, its arguments, its attributes


def strided_view(layout: Layout) -> np.ndarray:
    """A fresh array of `layout`'s shape and dtype, transposed by its axes: a strided view, as the program's
    ``permute_dims`` makes one of a contiguous value."""
    shape, dtype, axes = layout
    return np.ones(shape, dtype).transpose(axes)


def probe_layout(nbytes: int) -> Layout:
    """The strided probe of about `nbytes` where a program has no strided view of its own: a float32
    matrix (rows a power of two, about square; whole floats, at least one) transposed."""
    n = max(1, nbytes // 4)
    rows = 1
    while rows * 2 * rows * 2 <= n and n % (rows * 2) == 0:
        rows *= 2
    return (rows, n // rows), "float32", (1, 0)


def strided_layouts(mod: Any) -> list[Layout]:
    """The distinct strided views the ops of `mod` make of a contiguous operand (`vdplace.ir.views`: a
    ``permute_dims`` that moves axes of length other than 1), with static shapes: the values a run may send
    strided, whose sends calibration times (`RayDevices.sends`)."""
    from vdplace.ir.op import Op
    from vdplace.ir.struct_info import TensorStructInfo
    from vdplace.ir.views import view_result

    from .values import op_calls

    found: dict[Layout, None] = {}
    for call in op_calls(mod):
        op = call.op
        if not isinstance(op, Op) or op.name != "permute_dims" or op.view_of is None:
            continue
        args = [a.struct_info for a in call.args]
        x = args[op.view_of]
        attrs = dict(call.attrs)
        if view_result(op, args, attrs, True) is not False or not isinstance(x, TensorStructInfo):
            continue
        shape = x.shape
        if shape is None or not all(isinstance(d, int) for d in shape) or x.dtype is None:
            continue
        n = len(shape)
        axes = attrs.get("axes")
        perm = tuple(reversed(range(n))) if axes is None else tuple(int(a) % n for a in axes)
        found[tuple(int(d) for d in shape), str(x.dtype), perm] = None
    return list(found)


class Share(NamedTuple):
    """One actor's share of a copy: seconds per copy and per byte (`measure_share`); `strided_per_byte`:
    per byte of a strided view's (the sender's share, which makes it contiguous; 0 where not measured)."""

    latency: float
    per_byte: float
    strided_per_byte: float = 0.0

    def as_about(self) -> dict[str, float]:
        out = {"latency seconds": self.latency, "seconds per byte": self.per_byte}
        if self.strided_per_byte:
            out["strided seconds per byte"] = self.strided_per_byte
        return out


def measure_share(busy: Callable[[int], float], repeat: int) -> Share:
    """The `Share` fitted to ``busy(nbytes)`` (seconds an actor is busy with a copy of that many bytes) at
    `links.SMALL_COPY` and `links.LARGE_COPY` bytes, the fastest of `repeat` each, as a link is fitted."""
    link = measure_link(busy, repeat)
    return Share(link.latency, 1.0 / link.bandwidth)


def with_sends(links: Mapping[tuple[str, str], Link], sends: Mapping[str, Share]) -> dict[tuple[str, str], Link]:
    """`links` with each link's sender's share (`Link.send_latency`, `send_per_byte`, `send_strided_per_byte`)
    that of its source."""
    out: dict[tuple[str, str], Link] = {}
    for (src, dst), link in links.items():
        share = sends.get(src)
        if share is not None:
            link = link._replace(
                send_latency=share.latency, send_per_byte=share.per_byte, send_strided_per_byte=share.strided_per_byte
            )
        out[src, dst] = link
    return out


def copy_shares_about(sends: Mapping[str, Share], receives: Mapping[str, Share]) -> dict[str, Any]:
    """The cost file's ``about["ray copy shares"]``: what each actor's share of a copy measured, and what
    the model does with it."""
    return {
        "send": {key: share.as_about() for key, share in sends.items()},
        "receive": {key: share.as_about() for key, share in receives.items()},
        "how": "on each actor's clock, the fastest of repeated calls at 8 B and 8 MiB: send = from the start of "
        "ray.put of a fresh array, exported by the call it ends, to the start of the actor's next call (strided: "
        "of the program's own strided views, else a transposed float32 probe, made contiguous first as a run's "
        "send makes it); "
        "receive = ray.get of an array already in the object store and its write into a new buffer",
        "modelled": "send: held on the sender's device from the copy's start (the links' send_latency, "
        "send_per_byte and send_strided_per_byte, CostModel.send); receive: a plain fetch (the sender sends "
        "every value C-contiguous), part of the link's time only (docs/cost.md)",
    }


class ActorTimer:
    """The `Timer` of one actor: each call timed there (`placement.cost.calibrate`'s protocol)."""

    def __init__(self, actor: Any, description: str) -> None:
        self.actor = actor
        self.description = description

    def __call__(self, op: Any, args: list[Any], repeat: int, budget: float, attrs: Any = None) -> float:
        import ray

        given = dict(op.attrs if attrs is None else attrs)
        try:
            ref = self.actor.time_op.remote(op.op, list(args), given, repeat, budget)
        except Exception as err:  # noqa: BLE001  (arguments Ray cannot serialize: this call cannot be timed)
            raise Skip(f"cannot send its arguments to the actor: {type(err).__name__}: {err}") from None
        ok, result = ray.get(ref, timeout=CALL_TIMEOUT)
        if not ok:
            raise Skip(str(result))
        return float(result)


class RayDevices:
    """One `TimingActor` per physical device of `vdevices` (module docstring); a context manager."""

    def __init__(
        self,
        vdevices: Sequence[VDevice],
        devices: Mapping[str, Any] | None = None,
        *,
        address: str | None = None,
        start_timeout: float = 120.0,
    ) -> None:
        """`devices`: vdevice name -> `ActorSpec` or kind, as `RayExecutor` takes them; `address`: a cluster."""
        if not vdevices:
            raise ValueError(
                "calibrating on Ray needs the module's vdevices (one actor per physical device): "
                "declare them in the module, or add them (--vdevice cuda:0)"
            )
        import ray

        from vdplace.runtime.errors import DeviceUnavailable
        from vdplace.runtime.ray.cluster import connect
        from vdplace.runtime.ray.spec import check_gpus, plan_actors

        self.plans, _ = plan_actors(vdevices, devices)
        connect(address, int(sum(p.spec.num_cpus for p in self.plans) + 0.999), None, min(start_timeout, 10))
        if address is None:  # a local cluster: what it has now is all it will ever have
            check_gpus(self.plans, ray.cluster_resources().get("GPU", 0))
        remote: Any = ray.remote(TimingActor)
        self.actors: list[Any] = [remote.options(**p.spec.ray_options()).remote(p.spec.kind) for p in self.plans]
        try:
            described = ray.get([a.describe.remote() for a in self.actors], timeout=start_timeout)
        except Exception as err:  # noqa: BLE001  (no node can hold an actor, or its device failed to start)
            self.close()
            raise DeviceUnavailable(f"the calibration actors did not start: {type(err).__name__}: {err}") from None
        self.keys = [list(dict.fromkeys(":".join(n.split(":", 2)[:2]) for n in p.names)) for p in self.plans]
        self.timers: dict[str, ActorTimer] = {}
        for actor, keys, text in zip(self.actors, self.keys, described, strict=True):
            for key in keys:
                self.timers[key] = ActorTimer(actor, text)

    def links(self, repeat: int = 5) -> dict[tuple[str, str], Link]:
        """The copy path between every ordered pair of actors, measured (module docstring), by device keys."""
        found: dict[tuple[str, str], Link] = {}
        for a, b in itertools.permutations(range(len(self.actors)), 2):
            link = measure_link(functools.partial(self._copy, a, b), repeat)
            for src in self.keys[a]:
                for dst in self.keys[b]:
                    found[src, dst] = link
        return found

    def sends(self, repeat: int = 5, layouts: Sequence[Layout] = ()) -> dict[str, Share]:
        """The sender's share of a copy, per actor (by each of its device keys): from the start of its send
        (`TimingActor.send`) to the start of the call submitted right after it (`TimingActor.stamp`), fitted.
        Its `strided_per_byte`: from sends of the strided views `layouts` (a program's own,
        `strided_layouts`), the fastest of `repeat` each, their time past the share's latency over their
        bytes; without any, from the strided probe (`probe_layout`) fitted like the share."""
        import ray

        found: dict[str, Share] = {}
        for actor, keys in zip(self.actors, self.keys, strict=True):

            def put(nbytes: int, actor: Any = actor, layout: Layout | None = None) -> float:
                sent, after = actor.send.remote(nbytes, layout), actor.stamp.remote()
                start = ray.get(sent, timeout=CALL_TIMEOUT)[0]
                return float(ray.get(after, timeout=CALL_TIMEOUT)) - start

            share = measure_share(put, repeat)
            if layouts:
                sizes = [int(np.prod(shape)) * np.dtype(dtype).itemsize for shape, dtype, _ in layouts]
                times = [min(put(n, layout=lay) for _ in range(repeat)) for n, lay in zip(sizes, layouts, strict=True)]
                strided = sum(max(0.0, t - share.latency) for t in times) / max(1, sum(sizes))
            else:
                strided = measure_share(lambda n: put(n, layout=probe_layout(n)), repeat).per_byte
            found.update(dict.fromkeys(keys, share._replace(strided_per_byte=strided)))
        return found

    def receives(self, repeat: int = 5) -> dict[str, Share]:
        """The receiver's share of a copy, per actor: `TimingActor.fetch_time` of another actor's array, fitted
        (an actor alone has nobody to receive from: none)."""
        import ray

        found: dict[str, Share] = {}
        if len(self.actors) < 2:
            return found
        for b, keys in enumerate(self.keys):
            sender, receiver = self.actors[b - 1], self.actors[b]

            def fetch(nbytes: int, sender: Any = sender, receiver: Any = receiver) -> float:
                refs = ray.get(sender.hold.remote(nbytes), timeout=CALL_TIMEOUT)
                return float(ray.get(receiver.fetch_time.remote(refs), timeout=CALL_TIMEOUT))

            found.update(dict.fromkeys(keys, measure_share(fetch, repeat)))
        return found

    def _copy(self, a: int, b: int, nbytes: int) -> float:
        import ray

        sent = self.actors[a].produce.remote(nbytes, SENDER_DELAY)
        return float(ray.get(self.actors[b].consume.remote([sent]), timeout=CALL_TIMEOUT))

    def close(self) -> None:
        """Kill the actors (Ray itself stays connected)."""
        import ray

        for actor in self.actors:
            ray.kill(actor)
        self.actors = []

    def __enter__(self) -> RayDevices:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
