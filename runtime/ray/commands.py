"""An actor's commands: what the driver asks of a frame, and what the actor counts while doing it.

A script is a list of commands; each first runs the frame's own steps up to
the instruction it names (`advance`), then does that instruction's part:

- ``("begin", -1, profile)``: start a measured window (the first command of a run);
- ``("start", fid, function, args, env)``: a frame for the entry; `args`
  holds `IMPORT` where the next import is one of this actor's inputs;
- ``("send", fid, pc)``: a copy's source: put the array in Ray's object
  store, C-contiguous (`sendable`: a strided view, such as a transposed
  weight, is made contiguous here, so that the receiver's fetch is a plain
  copy), export the reference (the data goes actor to actor, never through
  the driver);
- ``("recv", fid, pc, index, src)``: a copy's destination: the next import is
  the exports of actor `src`'s script, waited for only once this actor's
  steps before the copy have run; fetch entry `index` into the buffer;
- ``("read", fid, pc)``: export an If's condition (None if another actor holds it);
- ``("branch", fid, pc, taken)``: take the If's branch the driver read;
- ``("enter", fid, pc, gid)`` / ``("leave", gid, pc, fid, call_pc)``: a call's frame;
- ``("ret", fid, pc, want)``: end the frame; export its result (arrays as
  NumPy, other actors' leaves `ELSEWHERE`) when `want`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ..devices import CPU, Device, DeviceArray, NumpyDevice
from ..diagnostics import Diagnostics
from ..errors import DeviceMemoryError, VMError
from ..float_errors import kernels_quiet
from ..frame import Frame
from ..instructions import Ret
from ..memory_report import locate
from ..registers import acquire, drop, named, release
from .actor_steps import ELSEWHERE, Pending, ScheduleError, copy_of
from .counters import ActorCounters
from .errors import Failure


def sendable(data: Any) -> Any:
    """`data` as a send puts it into Ray's object store: a NumPy array that is not C-contiguous (a transposed
    view) copied to a C-contiguous one, here on the sender, so that the receiver's fetch and write is a plain
    copy (a Fortran-ordered array arrives as one, and its write into the receiver's C-ordered buffer was a
    transpose, docs/schedule.md); anything else as it is.  The sender's share of a strided view's copy is
    calibrated with this transpose in it (`vdplace.calibration.ray_actors`)."""
    if isinstance(data, np.ndarray) and not data.flags.c_contiguous:
        return np.ascontiguousarray(data)
    return data


class Imported:
    """Marks an argument leaf that arrives as the script's next import."""

    __slots__ = ()


IMPORT = Imported()


class ActorFrame:
    """One call of a function on this actor: its registers, the next instruction, and the weights it holds.

    `resident`: an entry frame's weights (its parameters after ``num_input``)
    as (name, value), held until the frame ends, as on the local VM.
    """

    __slots__ = ("proto", "regs", "pc", "resident")

    def __init__(self, proto: Frame, regs: list, resident: tuple = ()) -> None:
        self.proto = proto
        self.regs = regs
        self.pc = 0
        self.resident = resident
        for _, value in resident:
            acquire(value)

    def release_resident(self) -> None:
        for _, value in self.resident:
            release(value)
        self.resident = ()


class CommandRunner:
    """Runs scripts on `device`; `names` are the device names of all actors (by actor index)."""

    def __init__(
        self,
        device: Device,
        names: list[str],
        protos: dict[str, Frame],
        diagnostics: Diagnostics,
        label: str,
        constants: Sequence[Any] = (),
    ) -> None:
        self.device = device
        self.constants = constants
        self.names = names
        self.protos = protos
        self.diagnostics = diagnostics
        self.label = label
        self.frames: dict[int, ActorFrame] = {}
        self.counters = ActorCounters(device)
        self.timed = False
        self._host = CPU("host", memory_limit=None)
        self._handlers = {
            "begin": lambda command, feed, exports: self.begin(command[2]),
            "start": self._start,
            "send": self._send,
            "recv": self._recv,
            "read": self._read,
            "branch": self._branch,
            "enter": self._enter,
            "leave": self._leave,
            "ret": self._ret,
        }

    # -- the window ----------------------------------------------------------------
    def begin(self, profile: bool) -> None:
        self.timed = profile
        self.counters.begin()
        for proto in self.protos.values():
            proto.reset_profile()

    def report(self) -> dict[str, Any]:
        return self.counters.report(self.protos if self.timed else {})

    def reset(self) -> int:
        n = len(self.frames)
        for fid in list(self.frames):
            self._discard(fid)
        return n

    # -- scripts -------------------------------------------------------------------
    def script(self, commands: list[tuple], imports: Iterable[Any]) -> list[Any]:
        """Run `commands`; their exports.  `imports` is taken in order, one by each command that imports;
        what waiting for them takes (an ``imports.waited`` of seconds, as `actor.Imports` keeps) is not busy time."""
        exports: list[Any] = []
        feed = iter(imports)
        start, wall = time.perf_counter(), time.time()
        try:
            with kernels_quiet():
                for command in commands:
                    self._handlers[command[0]](command, feed, exports)
        except Failure:
            raise
        except Exception as err:  # outside any instruction (an input over the memory limit): still one Failure
            kind = type(err).__name__ if isinstance(err, VMError) else "KernelError"
            raise Failure(self._payload(kind, f"on vdevice {self.label}: {err}", "")) from None
        finally:
            waited = getattr(imports, "waited", 0.0)
            self.counters.script(wall, time.perf_counter() - start - waited, commands)
        return exports

    def _frame(self, fid: int) -> ActorFrame:
        frame = self.frames.get(fid)
        if frame is None:
            raise Failure(self._payload("abandoned", f"frame {fid} was given up after an earlier failure", ""))
        return frame

    def _payload(self, kind: str, message: str, instruction: str) -> dict[str, str]:
        return {"kind": kind, "message": message, "vdevice": self.label, "instruction": instruction}

    def _holders(self) -> list[tuple[str, Any]]:
        """What holds device memory here, by name: every frame's registers and weights, then the constants."""
        holders: list[tuple[str, Any]] = []
        for frame in self.frames.values():
            holders += named(frame.proto.fn, frame.regs)
            holders += frame.resident
        return holders + [(f"constant {i}", v) for i, v in enumerate(self.constants)]

    def _fail(self, fid: int, frame: ActorFrame, err: Exception) -> Failure:
        """`err`, raised at the frame's pc, as a `Failure` naming the vdevice and the instruction; the frame goes."""
        pc = frame.pc
        text = self.diagnostics.text(frame.proto, pc)
        if isinstance(err, DeviceMemoryError) and not err.where and err.live is not None:
            origin = frame.proto.fn.instructions[pc].origin
            where = f"instruction {text}" + (f" ({origin.describe()})" if origin is not None else "")
            err = locate(err, where, self._holders())
        if isinstance(err, VMError):
            kind, message = type(err).__name__, str(err)
        elif isinstance(err, ScheduleError):
            kind, message = "ScheduleError", f"executor schedule error at {err}"
        else:
            kind, message = "KernelError", str(self.diagnostics.kernel_error(frame.proto, pc, err))
        self._discard(fid)
        return Failure(self._payload(kind, f"on vdevice {self.label}: {message}", text))

    def _discard(self, fid: int) -> None:
        frame = self.frames.pop(fid, None)
        if frame is not None:
            for v in frame.regs:
                release(v)
            frame.release_resident()

    def _advance(self, fid: int, until: int) -> ActorFrame:
        """Run frame `fid`'s steps from its pc up to (not including) `until`."""
        frame = self._frame(fid)
        regs, steps, pc = frame.regs, frame.proto.steps, frame.pc
        try:
            if self.timed:
                times, counts, clock = frame.proto.times, frame.proto.counts, time.perf_counter
                while pc != until:
                    frame.pc = pc
                    t0 = clock()
                    step = steps[pc]
                    nxt = step[0](regs, step)
                    times[pc] += clock() - t0
                    counts[pc] += 1
                    pc = nxt
            else:
                while pc != until:
                    frame.pc = pc
                    step = steps[pc]
                    pc = step[0](regs, step)
        except Exception as err:
            raise self._fail(fid, frame, err) from None
        frame.pc = pc
        return frame

    def _guarded(self, fid: int, frame: ActorFrame, work: Callable[[], Any]) -> Any:
        """Run `work()` at the frame's pc, turning its errors into a `Failure` naming the instruction."""
        try:
            return work()
        except Failure:
            raise
        except Exception as err:
            raise self._fail(fid, frame, err) from None

    # -- commands ------------------------------------------------------------------
    def _start(self, command: tuple, feed: Iterator, exports: list) -> None:
        _, fid, function, args, env = command
        proto = self.protos[function]
        regs: list = [None] * proto.num_slots
        for i, arg in enumerate(args):
            regs[i] = self._argument(proto.fn.params[i], arg, feed)
        fn = proto.fn
        weights = range(len(args) if fn.num_input is None else fn.num_input, len(args))
        resident = tuple((f"{fn.name}:{fn.params[i]} (weight)", regs[i]) for i in weights)
        frame = ActorFrame(proto, regs, resident)  # the weights held before unread parameters are dropped
        for r in proto.entry_drop:
            release(regs[r])
            regs[r] = None
        regs[proto.env_slot] = env or None
        self.frames[fid] = frame

    def _argument(self, name: str, arg: Any, feed: Iterator) -> Any:
        if arg.__class__ is tuple:
            return tuple(self._argument(f"{name}[{i}]", a, feed) for i, a in enumerate(arg))
        if arg.__class__ is not Imported:
            return arg
        array = np.asarray(next(feed))
        self.device.check_fits(f"input {name}", array.shape, str(array.dtype))
        self.counters.received_input(array.nbytes)
        try:
            return self.device.upload(array)
        except DeviceMemoryError as err:
            if err.where or err.live is None:
                raise
            raise locate(err, f"input {name}", self._holders()) from None

    def _send(self, command: tuple, feed: Iterator, exports: list) -> None:
        import ray

        _, fid, pc = command
        frame = self._advance(fid, pc)
        instr = copy_of(frame.proto, pc)

        def put() -> None:
            value = frame.regs[instr.src]
            if value.__class__ is not DeviceArray or value.device is not self.device:
                raise self.diagnostics.mismatch(frame.proto, pc, "the copy's source", self.device, value)
            data = value.data if isinstance(self.device, NumpyDevice) else self.device.to_host(value.data)
            t0 = time.perf_counter()
            exports.append(ray.put(sendable(data)))
            self.counters.sent(value.nbytes, time.perf_counter() - t0)

        self._guarded(fid, frame, put)
        drop(frame.regs, instr.drop)
        frame.pc = pc + 1

    def _recv(self, command: tuple, feed: Iterator, exports: list) -> None:
        import ray

        _, fid, pc, index, src_actor = command
        frame = self._advance(fid, pc)  # this actor's own work first: the sender may still be running
        sender_exports = next(feed)
        instr = copy_of(frame.proto, pc)

        def receive() -> None:
            t0 = time.perf_counter()
            array = ray.get(sender_exports[index])
            target = frame.regs[instr.dst]
            if target.__class__ is Pending:
                dtype = target.dtype or str(array.dtype)
                self.device.check_fits(f"the copy into {frame.proto.fn.reg_name(instr.dst)}", array.shape, dtype)
                target = frame.regs[instr.dst] = self.device.adopt(self.device.empty(tuple(array.shape), dtype))
            source = DeviceArray(array, self._host, id(array), array.nbytes)
            self.device.copy_into(target.data, source)
            pair = (self.names[src_actor], self.device.name)
            self.counters.received(pair, target.nbytes, time.perf_counter() - t0, f"{frame.proto.fn.name}:{pc}")

        self._guarded(fid, frame, receive)
        drop(frame.regs, instr.drop)
        frame.pc = pc + 1

    def _read(self, command: tuple, feed: Iterator, exports: list) -> None:
        _, fid, pc = command
        frame = self._advance(fid, pc)
        value = frame.regs[frame.proto.fn.instructions[pc].cond]
        if value.__class__ is DeviceArray:
            exports.append(bool(self._guarded(fid, frame, lambda: value.device.to_host(value.data))))
        else:
            exports.append(None if value is ELSEWHERE else bool(value))

    def _branch(self, command: tuple, feed: Iterator, exports: list) -> None:
        _, fid, pc, taken = command
        frame = self._advance(fid, pc)
        instr = frame.proto.fn.instructions[pc]
        drop(frame.regs, instr.drop if taken else instr.else_drop)
        frame.pc = pc + 1 if taken else instr.else_target

    def _enter(self, command: tuple, feed: Iterator, exports: list) -> None:
        _, fid, pc, gid = command
        frame = self._advance(fid, pc)
        instr = frame.proto.fn.instructions[pc]
        callee = self.protos[instr.function]
        regs: list = [None] * callee.num_slots
        for i, a in enumerate(instr.args):
            value = frame.regs[a]
            acquire(value)
            regs[i] = value
        for r in callee.entry_drop:
            release(regs[r])
            regs[r] = None
        self.frames[gid] = ActorFrame(callee, regs)

    def _leave(self, command: tuple, feed: Iterator, exports: list) -> None:
        _, gid, ret_pc, fid, call_pc = command
        result = self._finish(gid, ret_pc)
        caller = self._frame(fid)
        invoke = caller.proto.fn.instructions[call_pc]
        caller.regs[invoke.out] = result
        drop(caller.regs, invoke.drop)
        caller.pc = call_pc + 1

    def _ret(self, command: tuple, feed: Iterator, exports: list) -> None:
        _, fid, pc, want = command
        result = self._finish(fid, pc)
        if want:
            exports.append(self._to_host(result))
        release(result)

    def _finish(self, fid: int, pc: int) -> Any:
        """Run frame `fid` up to its Ret at `pc`, drop what it still holds but the result; end the frame."""
        frame = self._advance(fid, pc)
        ret = frame.proto.fn.instructions[pc]
        assert isinstance(ret, Ret), "the driver finishes a frame at its Ret"
        result = frame.regs[ret.value]
        frame.regs[ret.value] = None
        drop(frame.regs, ret.drop)
        frame.release_resident()
        self.frames.pop(fid)
        return result

    def _to_host(self, value: Any) -> Any:
        if value.__class__ is DeviceArray:
            host = value.device.to_host(value.data)
            self.counters.returned(host.nbytes)
            return host
        if value.__class__ is tuple:
            return tuple(self._to_host(v) for v in value)
        return value
