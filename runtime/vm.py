"""The virtual machine: runs an `Executable` on runtime devices.

Like torch.fx's Interpreter, execution is a plain loop over a function's
instructions.  To keep that loop lean, each instruction is turned once, at
VM creation, into a *step* (`runtime.steps`): everything it needs is resolved
then, and the loop only calls ``pc = step[0](regs, step)`` until ``Ret``
returns -1.  ``Invoke`` returns `CALL` instead: the loop suspends the caller
on a heap stack and runs the callee (`runtime.callstack`), so a chain of
thousands of calls needs no Python recursion.

The jobs around the loop live in their own modules: arguments in and results
out (`runtime.arguments`), register reference counting (`runtime.registers`),
what a run counts and its profile (`runtime.accounting`), errors naming the
instruction (`runtime.diagnostics`).  Invariants: data moves between devices
only by `DeviceCopy` (every step checks the devices of what it reads), and
every device array a register holds is counted on its device until released.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from vdplace.ir.collector import collector_paused

from .accounting import RunRecord
from .arguments import input_plan, load_arguments, to_host
from .callstack import CALL, DEFAULT_MAX_CALL_DEPTH, CallerFrame, PendingCall, depth_error
from .devices import Device, upload_constant
from .diagnostics import Diagnostics
from .errors import DeviceMemoryError, InputError, VMError
from .executable import CompiledFunction, DeviceTree, Executable
from .float_errors import kernels_quiet
from .frame import Frame
from .instructions import LoadConst
from .mapping import DeviceSpec, resolve_devices, set_memory_limits
from .memory_report import locate
from .profile import Profile
from .registers import acquire, named, release
from .steps import StepBuilder


class VirtualMachine:
    """Runs an `Executable`; `devices` maps its vdevices to runtime devices.

    ``devices`` is a dict (a `VDevice` or a name such as ``"cuda:0"`` -> `Device`;
    vdevices it leaves out are mapped automatically), ``"cpu"`` (every vdevice on
    one CPU: a reference run) or None (automatic: CPU vdevices on the CPU, CUDA
    vdevices on CUDA when PyTorch sees a GPU).  A vdevice left without a device
    is an error listing what this machine has, unless ``simulate_missing`` gives
    it a `Simulated` device.  ``memory`` (vdevice name -> bytes) sets the
    memory limit of those vdevices' devices: the bytes live there at once
    (`runtime.memory`; ``vdplace run --memory cuda:0=2GiB``).  A run nests at most ``max_call_depth`` calls of
    module functions (`CallDepthError` past it; the depth costs no Python stack).
    """

    def __init__(
        self,
        executable: Executable,
        devices: DeviceSpec = None,
        simulate_missing: bool = False,
        profile: bool = False,
        max_call_depth: int = DEFAULT_MAX_CALL_DEPTH,
        memory: Mapping[str, int] | None = None,
    ) -> None:
        if isinstance(max_call_depth, bool) or not isinstance(max_call_depth, int) or max_call_depth < 0:
            raise ValueError(f"max_call_depth must be a non-negative int, got {max_call_depth!r}")
        self.executable = executable
        self.device_map: list[Device] = resolve_devices(executable.vdevices, devices, simulate_missing)
        set_memory_limits(executable.vdevices, self.device_map, memory or {})
        self.devices: list[Device] = list(dict.fromkeys(self.device_map))
        self.profiling = profile
        self.max_call_depth = max_call_depth
        self.profile: Profile | None = None
        self._record = RunRecord(self.devices, self.device_map)
        self._diagnostics = Diagnostics(executable.device_name)
        self._pending: list[PendingCall] = []
        self._constants = self._load_constants()
        self._resident: list[tuple[str, Any]] = []  # the current run's weights, held for the whole run
        self._frames = {name: Frame(fn) for name, fn in executable.functions.items()}
        builder = StepBuilder(
            self.device_map, self._constants, self._record.copies, self._frames, self._pending, self._diagnostics
        )
        for frame in self._frames.values():
            frame.param_devices = [self._runtime_tree(t) for t in frame.fn.param_devices]
            plans = zip(frame.fn.param_sinfo, frame.param_devices, strict=True)
            frame.input_plans = [input_plan(s, d) for s, d in plans]
            frame.steps = [builder.build(frame, pc, instr) for pc, instr in enumerate(frame.fn.instructions)]

    # -- public ----------------------------------------------------------------
    def device_of(self, vdevice_index: int) -> Device:
        return self.device_map[vdevice_index]

    def run(self, entry: str = "main", *args: Any, profile: bool | None = None, return_numpy: bool = True) -> Any:
        """Run `entry` on `args` (NumPy arrays, or `DeviceArray`s); return NumPy arrays (tuples as tuples).

        Each input is first moved to the device of its parameter; the move is
        counted in the profile as an input transfer, not as a program copy.
        """
        frame = self._entry(entry, len(args))
        timed = self.profiling if profile is None else profile
        self._record.begin()
        values = load_arguments(frame, args, self._record.transfers)
        # Weights (the parameters after num_input) stay on their devices for the whole run, as loaded weights do.
        fn = frame.fn
        weights = range(len(fn.params) if fn.num_input is None else fn.num_input, len(fn.params))
        self._resident = [(f"{fn.name}:{fn.params[i]} (weight)", values[i]) for i in weights]
        for _, value in self._resident:
            acquire(value)
        if timed:
            for fr in self._frames.values():
                fr.reset_profile()
        # The VM makes no reference cycles, but its per-op bookkeeping objects would
        # trigger CPython's cycle collector every few hundred ops: pause it for the run.
        try:
            with collector_paused(promote=False), kernels_quiet():
                start = time.perf_counter()
                result = self._call(frame, values, timed)
                total = time.perf_counter() - start
        finally:
            for _, value in self._resident:
                release(value)
            self._resident = []
        out = to_host(result, self._record.transfers) if return_numpy else result
        release(result)
        self.profile = self._record.profile(timed, total, self._frames.values(), self.executable.device_name)
        return out

    # -- setup -----------------------------------------------------------------
    def _entry(self, entry: str, num_args: int) -> Frame:
        if entry not in self._frames:
            raise VMError(f"no function {entry!r} in the executable; it has {', '.join(self._frames) or 'none'}")
        fn = self._frames[entry].fn
        if num_args != len(fn.params):
            raise InputError(f"{entry} takes {len(fn.params)} argument(s) ({', '.join(fn.params)}), got {num_args}")
        return self._frames[entry]

    def _runtime_tree(self, tree: DeviceTree) -> Any:
        if isinstance(tree, tuple):
            return tuple(self._runtime_tree(t) for t in tree)
        return None if tree is None else self.device_map[tree]

    def _load_constants(self) -> list[Any]:
        """The constant pool; a tensor constant is put on its device once, now, and held for the VM's lifetime."""
        devices: dict[int, int] = {}
        for fn in self.executable.functions.values():
            for instr in fn.instructions:
                if isinstance(instr, LoadConst) and instr.device is not None:
                    devices[instr.index] = instr.device
        constants: list[Any] = []
        for index, value in enumerate(self.executable.constants):
            if index in devices:
                value = upload_constant(self.device_map[devices[index]], index, value)
            constants.append(value)
        return constants

    # -- execution ---------------------------------------------------------------
    def _call(self, frame: Frame, args: list, timed: bool) -> Any:
        """Run `frame` on `args` (already counted as held by it) and every call it makes; return its result.

        Callers wait on a heap stack (`runtime.callstack`), not on Python's:
        call depth is bounded by `max_call_depth` alone.  On an error every
        register of every frame on the stack is released.
        """
        stack: list[CallerFrame] = []
        regs = _enter(frame, args)
        pc = 0
        try:
            while True:
                if timed:
                    pc = self._run_timed(frame, regs, pc)
                else:
                    steps = frame.steps
                    while pc >= 0:
                        step = steps[pc]
                        pc = step[0](regs, step)
                if pc == CALL:
                    call = self._pending.pop()
                    pc = call.resume - 1  # the Invoke, should entering the callee fail
                    if len(stack) >= self.max_call_depth:
                        for v in call.args:
                            release(v)
                        raise depth_error([*stack, CallerFrame(frame, regs, call)], self.max_call_depth)
                    callee_regs = _enter(call.callee, call.args)
                    stack.append(CallerFrame(frame, regs, call))
                    frame, regs, pc = call.callee, callee_regs, 0
                    continue
                result = regs[frame.ret_slot]
                if not stack:
                    return result
                frame, regs, call = stack.pop()
                regs[call.out] = result
                if call.free is not None:
                    call.free(regs)
                pc = call.resume
        except BaseException as err:
            at = frame.failed_pc if timed else pc
            located = self._out_of_memory(err, frame, at, stack, regs)  # before the registers are released
            self._unwind(stack, regs)
            if located is not None:
                raise located from None
            if isinstance(err, Exception) and not isinstance(err, VMError):
                raise self._diagnostics.kernel_error(frame, at, err) from err
            raise

    def _out_of_memory(
        self, err: BaseException, frame: Frame, pc: int, stack: list[CallerFrame], regs: list
    ) -> DeviceMemoryError | None:
        """A device's refusal of a new buffer (`runtime.memory.over_budget`) at `frame`'s `pc`, located: the
        instruction, its line and the largest tensors live on the device (registers of every frame on the
        stack, the run's weights, the constants); None for any other error."""
        if not isinstance(err, DeviceMemoryError) or err.where or err.live is None:
            return None
        origin = frame.fn.instructions[pc].origin
        where = f"instruction {self._diagnostics.text(frame, pc)}" + (f" ({origin.describe()})" if origin else "")
        holders = [held for c in stack for held in named(c.frame.fn, c.regs)] + named(frame.fn, regs)
        holders += self._resident
        holders += [(f"constant {i}", v) for i, v in enumerate(self._constants)]
        return locate(err, where, holders)

    @staticmethod
    def _unwind(stack: list[CallerFrame], regs: list) -> None:
        """Release what the failed frame's registers and its waiting callers' hold."""
        for v in regs:
            release(v)
        for caller in stack:
            for v in caller.regs:
                release(v)

    @staticmethod
    def _run_timed(frame: Frame, regs: list, pc: int) -> int:
        """The loop of `_call` from `pc`, timing each step and counting its work.

        Returns -1 after ``Ret`` or `CALL` after ``Invoke``; an Invoke's time is
        its own (the callee's steps are timed under their own kinds).
        """
        clock = time.perf_counter
        steps, times, counts, symbolic_work = frame.steps, frame.times, frame.counts, frame.symbolic_work
        env = regs[frame.env_slot]
        while pc >= 0:
            t0 = clock()
            step = steps[pc]
            frame.failed_pc = pc
            nxt = step[0](regs, step)
            times[pc] += clock() - t0
            counts[pc] += 1
            work = symbolic_work[pc]
            if work is not None:
                work.add(env)
            pc = nxt
        return pc


def _enter(frame: Frame, args: list) -> list:
    """A fresh register list for `frame` holding `args`, unread parameters released, symbolic dims bound."""
    regs: list = [None] * frame.num_slots
    regs[: len(args)] = args
    for r in frame.entry_drop:
        release(regs[r])
        regs[r] = None
    if frame.fn.symbols:
        regs[frame.env_slot] = _bind_symbols(frame.fn, args)
    return regs


def _bind_symbols(fn: CompiledFunction, args: list) -> dict[str, int]:
    """The symbolic dims of `fn`'s parameters, read from the shapes of `args`."""
    env: dict[str, int] = {}
    for s in fn.symbols:
        v = args[s.param]
        for i in s.path:
            v = v[i]
        env[s.name] = int(v.data.shape[s.axis])
    return env
