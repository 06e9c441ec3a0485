"""The virtual machine: runs an `Executable` on runtime devices.

Like torch.fx's Interpreter, execution is a plain loop over a function's
instructions.  To keep that loop lean, each instruction is turned once, at
VM creation, into a *step*: a closure with its registers, runtime devices
and kernel (attributes bound) already resolved, that runs the instruction
on a frame's register list and returns the next pc (-1 after ``Ret``).

Every step that reads a tensor checks the array's device against the device
the instruction runs on and raises `DeviceMismatch` otherwise: data moves
between devices only by `DeviceCopy`.  Registers hold counted references to
device memory; a step releases the registers whose last use it is.
"""

from __future__ import annotations

import functools
import gc
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vdplace.ir.dtype import to_numpy
from vdplace.ir.op import SHAPE
from vdplace.ir.struct_info import PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo

from . import shapes
from .devices import CPU, Device, DeviceArray, TorchDevice
from .errors import DeviceMismatch, InputError, KernelError, VMError
from .executable import CompiledFunction, DeviceTree, Executable
from .instructions import (
    AllocTensor,
    Call,
    DeviceCopy,
    GetItem,
    Goto,
    If,
    Instruction,
    Invoke,
    LoadConst,
    MakeShape,
    MakeTuple,
    Move,
    Ret,
)
from .mapping import DeviceSpec, resolve_devices
from .profile import InstructionTime, Profile

# A step is a tuple whose first item runs it: ``pc = step[0](regs, step)``.  Op calls use
# shared module-level functions with their data in the tuple; the rest carry a closure.
Step = tuple
_DA = DeviceArray


def acquire(value: Any) -> None:
    """Count one more register reference to every device array inside `value`."""
    if value.__class__ is _DA:
        value.device.acquire(value)
    elif value.__class__ is tuple:
        for v in value:
            acquire(v)


def release(value: Any) -> None:
    if value.__class__ is _DA:
        value.device.release(value)
    elif value.__class__ is tuple:
        for v in value:
            release(v)


def _closure_step(regs: list, step: tuple) -> int:
    return step[1](regs)


def _drop(regs: list, drop: tuple[int, ...]) -> None:
    """Clear the registers in `drop`; a buffer whose last reference goes is freed on its device."""
    for r in drop:
        v = regs[r]
        regs[r] = None
        if v.__class__ is _DA:
            # Device.release, inlined: this runs after almost every op.
            refs = v.device._refs
            key = v.key
            count = refs.get(key)
            if count is None:
                continue
            if count > 1:
                refs[key] = count - 1
            else:
                del refs[key]
                stats = v.device.stats
                stats.live -= v.owner_bytes
                stats.freed += v.owner_bytes
        else:
            release(v)


def _call1_step(regs: list, step: tuple) -> int:
    """A one-argument op with a tensor result: the hot path, one shared function for every such step."""
    _, kernel, adopt, dev, a0, out, drop, nxt, generic = step
    a = regs[a0]
    if a.__class__ is not _DA or a.device is not dev:
        return generic(regs)
    regs[out] = adopt(kernel(a.data))
    if drop:
        _drop(regs, drop)
    return nxt


def _call2_step(regs: list, step: tuple) -> int:
    _, kernel, adopt, dev, a0, a1, out, drop, nxt, generic = step
    a = regs[a0]
    b = regs[a1]
    if a.__class__ is not _DA or a.device is not dev or b.__class__ is not _DA or b.device is not dev:
        return generic(regs)
    regs[out] = adopt(kernel(a.data, b.data))
    if drop:
        _drop(regs, drop)
    return nxt


class _Frame:
    """A compiled function with its steps, ready to run."""

    __slots__ = (
        "fn",
        "steps",
        "num_slots",
        "ret_slot",
        "env_slot",
        "entry_drop",
        "param_devices",
        "input_plans",
        "times",
        "counts",
        "failed_pc",
    )

    def __init__(self, fn: CompiledFunction) -> None:
        self.fn = fn
        self.steps: list[Step] = []
        self.ret_slot = fn.num_registers
        self.env_slot = fn.num_registers + 1
        self.num_slots = fn.num_registers + 2
        self.entry_drop = fn.entry_drop
        self.param_devices: list[Any] = []
        # Per parameter: (NumPy dtype, static shape, device) for a tensor of static shape, else None.
        self.input_plans: list[tuple[np.dtype, tuple[int, ...], Device] | None] = []
        self.times = [0.0] * len(fn.instructions)
        self.counts = [0] * len(fn.instructions)
        self.failed_pc = 0  # the step a profiled run was executing, for error messages


class VirtualMachine:
    """Runs an `Executable`; `devices` maps its vdevices to runtime devices.

    ``devices`` is a dict (a `VDevice` or a name such as ``"cuda:0"`` -> `Device`;
    vdevices it leaves out are mapped automatically), ``"cpu"`` (every vdevice on
    one CPU: a reference run) or None (automatic: CPU vdevices on the CPU, CUDA
    vdevices on CUDA when PyTorch sees a GPU).  A vdevice left without a device
    is an error listing what this machine has, unless ``simulate_missing`` gives
    it a `Simulated` device.
    """

    def __init__(
        self,
        executable: Executable,
        devices: DeviceSpec = None,
        simulate_missing: bool = False,
        profile: bool = False,
    ) -> None:
        self.executable = executable
        self.device_map: list[Device] = resolve_devices(executable.vdevices, devices, simulate_missing)
        self.devices: list[Device] = list(dict.fromkeys(self.device_map))
        self.profiling = profile
        self.profile: Profile | None = None
        self._copies: dict[tuple[str, str], list[int]] = {}
        self._transfers: dict[tuple[str, str], list[int]] = {}
        self._child_time = 0.0
        const_devices: dict[int, int] = {}
        for fn in executable.functions.values():
            for instr in fn.instructions:
                if isinstance(instr, LoadConst) and instr.device is not None:
                    const_devices[instr.index] = instr.device
        self._constants = [self._load_constant(v, const_devices.get(i)) for i, v in enumerate(executable.constants)]
        self._frames = {name: _Frame(fn) for name, fn in executable.functions.items()}
        for frame in self._frames.values():
            frame.param_devices = [self._runtime_tree(t) for t in frame.fn.param_devices]
            plans = zip(frame.fn.param_sinfo, frame.param_devices, strict=True)
            frame.input_plans = [self._input_plan(s, d) for s, d in plans]
            frame.steps = [self._make_step(frame, pc, instr) for pc, instr in enumerate(frame.fn.instructions)]

    # -- public ----------------------------------------------------------------
    def device_of(self, vdevice_index: int) -> Device:
        return self.device_map[vdevice_index]

    def run(self, entry: str = "main", *args: Any, profile: bool | None = None, return_numpy: bool = True) -> Any:
        """Run `entry` on `args` (NumPy arrays, or `DeviceArray`s); return NumPy arrays (tuples as tuples).

        Each input is first moved to the device of its parameter; the move is
        counted in the profile as an input transfer, not as a program copy.
        """
        if entry not in self._frames:
            raise VMError(f"no function {entry!r} in the executable; it has {', '.join(self._frames) or 'none'}")
        frame = self._frames[entry]
        fn = frame.fn
        if len(args) != len(fn.params):
            raise InputError(f"{entry} takes {len(fn.params)} argument(s) ({', '.join(fn.params)}), got {len(args)}")
        timed = self.profiling if profile is None else profile
        before = {d.name: d.stats.snapshot() for d in self.devices}
        for d in self.devices:
            d.reset_peak()
        self._copies, self._transfers = {}, {}
        fallbacks_before = self._fallback_counts()
        env: dict[str, int] = {}
        values: list[Any] = []
        transfers = self._transfers
        try:
            for i, arg in enumerate(args):
                plan = frame.input_plans[i]
                if plan is not None and arg.__class__ is np.ndarray and arg.shape == plan[1] and arg.dtype == plan[0]:
                    device = plan[2]  # the common case, checked without building messages
                    array = device.upload(arg)
                    if device.kind != "cpu":
                        self._count(transfers, ("host", device.name), array.nbytes)
                    values.append(array)
                    continue
                values.append(
                    self._input(fn.params[i], fn.param_sinfo[i], frame.param_devices[i], fn.param_devices[i], arg, env)
                )
        except BaseException:
            for v in values:
                release(v)
            raise
        if timed:
            for fr in self._frames.values():
                fr.times = [0.0] * len(fr.steps)
                fr.counts = [0] * len(fr.steps)
        self._child_time = 0.0
        self._timing = timed
        # The VM makes no reference cycles, but its per-op bookkeeping objects would
        # trigger CPython's cycle collector every few hundred ops: pause it for the run.
        collecting = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter()
            result = self._call(frame, values, timed)
            total = time.perf_counter() - start
        finally:
            if collecting:
                gc.enable()
        out = self._output(result) if return_numpy else result
        release(result)
        self.profile = self._make_profile(timed, total, before, fallbacks_before)
        return out

    # -- setup -----------------------------------------------------------------
    def _runtime_tree(self, tree: DeviceTree) -> Any:
        if isinstance(tree, tuple):
            return tuple(self._runtime_tree(t) for t in tree)
        return None if tree is None else self.device_map[tree]

    def _load_constant(self, value: Any, vdevice: int | None) -> Any:
        """A tensor constant is put on its device once, now, and held for the VM's lifetime."""
        if vdevice is None:
            return value
        array = np.array(value, copy=True)
        array.setflags(write=False)
        return self.device_map[vdevice].upload(array)

    def _dev_name(self, index: int | None) -> str:
        return self.executable.device_name(index)

    def _text(self, frame: _Frame, pc: int) -> str:
        instr = frame.fn.instructions[pc]
        return f"{frame.fn.name}:{pc} `{instr.body(frame.fn.reg_name, self._dev_name)}`"

    def _mismatch(self, frame: _Frame, pc: int, what: str, expected: Device, value: Any) -> DeviceMismatch:
        instr = frame.fn.instructions[pc]
        origin = f" ({instr.origin.describe()})" if instr.origin is not None else ""
        actual = value.device.name if value.__class__ is _DA else "the host (not a device array)"
        return DeviceMismatch(
            f"instruction {self._text(frame, pc)}{origin} runs on {expected.name} but {what} is on {actual}; "
            "the runtime never copies silently: the program needs an R.to_vdevice",
            instruction=self._text(frame, pc),
            expected=expected.name,
            actual=actual,
        )

    def _check_tree(self, frame: _Frame, pc: int, what: str, expected: Any, value: Any) -> None:
        """`value` (array or tuple) must lie on `expected` (device or tuple of devices)."""
        if expected is None:
            return
        if isinstance(expected, tuple):
            if value.__class__ is not tuple or len(value) != len(expected):
                raise VMError(f"instruction {self._text(frame, pc)}: {what} should be a tuple of {len(expected)}")
            for i, (e, v) in enumerate(zip(expected, value, strict=False)):
                self._check_tree(frame, pc, f"{what}[{i}]", e, v)
        elif value.__class__ is not _DA or value.device is not expected:
            raise self._mismatch(frame, pc, what, expected, value)

    # -- steps -----------------------------------------------------------------
    def _make_step(self, frame: _Frame, pc: int, instr: Instruction) -> Step:
        maker = {
            Call: self._step_call,
            AllocTensor: self._step_alloc,
            DeviceCopy: self._step_copy,
            Move: self._step_move,
            LoadConst: self._step_const,
            MakeShape: self._step_shape,
            MakeTuple: self._step_tuple,
            GetItem: self._step_getitem,
            If: self._step_if,
            Goto: self._step_goto,
            Invoke: self._step_invoke,
            Ret: self._step_ret,
        }[type(instr)]
        step = maker(frame, pc, instr)
        return step if isinstance(step, tuple) else (_closure_step, step)

    @staticmethod
    def _dropper(drop: Sequence[int]) -> Callable[[list], None] | None:
        if not drop:
            return None
        drop = tuple(drop)

        def free(regs: list) -> None:
            _drop(regs, drop)

        return free

    def _step_call(self, frame: _Frame, pc: int, instr: Call) -> Step:
        dev = None if instr.device is None else self.device_map[instr.device]
        op = instr.op
        symbolic = {p.name for p in op.attr_params if p.kind == SHAPE and shapes.has_symbols(instr.attrs.get(p.name))}
        if dev is None:
            if op.kernel is None:
                raise VMError(f"R.{op.name} has no kernel")
            kernel = op.kernel
        else:
            kernel = dev.kernel(op)
        static_attrs = {k: v for k, v in instr.attrs.items() if k not in symbolic}
        if static_attrs:
            kernel = functools.partial(kernel, **static_attrs)
        args, out, nxt = instr.args, instr.out, pc + 1
        free = self._dropper(instr.drop)
        env_slot = frame.env_slot
        tensor_result = instr.tensor_result

        def wrap(result: Any) -> Any:
            if dev is None:
                return result
            if tensor_result:
                return dev.adopt_result(result)
            if isinstance(result, (tuple, list)):
                return tuple(wrap_any(r) for r in result)
            return wrap_any(result)

        def wrap_any(r: Any) -> Any:
            if isinstance(r, (tuple, list)):
                return tuple(wrap_any(x) for x in r)
            if isinstance(r, np.ndarray) or (isinstance(dev, TorchDevice) and isinstance(r, dev.torch.Tensor)):
                return dev.adopt(r)
            return r

        def unwrap(v: Any) -> Any:
            if v.__class__ is _DA:
                return v.data
            if v.__class__ is tuple:
                return tuple(unwrap(x) for x in v)
            return v

        def check(v: Any, what: str) -> None:
            if dev is None:
                return
            if v.__class__ is _DA:
                if v.device is not dev:
                    raise self._mismatch(frame, pc, what, dev, v)
            elif v.__class__ is tuple:
                for i, x in enumerate(v):
                    check(x, f"{what}[{i}]")

        names = [frame.fn.reg_name(a) for a in args]

        def generic(regs: list) -> int:
            vals = [regs[a] for a in args]
            for v, name in zip(vals, names, strict=False):
                check(v, f"argument {name}")
            extra = {}
            if symbolic:
                env = regs[env_slot] or {}
                extra = {k: shapes.resolve(instr.attrs[k], env) for k in symbolic}
            regs[out] = wrap(kernel(*[unwrap(v) for v in vals], **extra))
            if free is not None:
                free(regs)
            return nxt

        if symbolic or not tensor_result or dev is None or len(args) not in (1, 2):
            return (_closure_step, generic)
        if len(args) == 1:
            return (_call1_step, kernel, dev.adopt_result, dev, args[0], out, instr.drop, nxt, generic)
        return (_call2_step, kernel, dev.adopt_result, dev, args[0], args[1], out, instr.drop, nxt, generic)

    def _step_alloc(self, frame: _Frame, pc: int, instr: AllocTensor) -> Step:
        dev = self.device_map[instr.device]
        dst, shape, like, dtype, nxt = instr.dst, instr.shape, instr.like, instr.dtype, pc + 1
        free = self._dropper(instr.drop)

        def step(regs: list) -> int:
            if like is None:
                regs[dst] = dev.adopt(dev.empty(shape, dtype))
            else:
                src = regs[like]
                regs[dst] = dev.adopt(dev.empty(tuple(src.data.shape), dtype or src.dtype))
            if free is not None:
                free(regs)
            return nxt

        return step

    def _step_copy(self, frame: _Frame, pc: int, instr: DeviceCopy) -> Step:
        src_dev, dst_dev = self.device_map[instr.src_device], self.device_map[instr.dst_device]
        src_r, dst_r, nxt = instr.src, instr.dst, pc + 1
        free = self._dropper(instr.drop)
        pair = (src_dev.name, dst_dev.name)
        what = f"the copy's source {frame.fn.reg_name(src_r)}"

        def step(regs: list) -> int:
            value = regs[src_r]
            if value.__class__ is not _DA or value.device is not src_dev:
                raise self._mismatch(frame, pc, what, src_dev, value)
            target = regs[dst_r]
            dst_dev.copy_into(target.data, value)
            counter = self._copies.get(pair)
            if counter is None:
                counter = self._copies[pair] = [0, 0]
            counter[0] += 1
            counter[1] += target.nbytes
            if free is not None:
                free(regs)
            return nxt

        return step

    def _step_move(self, frame: _Frame, pc: int, instr: Move) -> Step:
        dst, src, nxt = instr.dst, instr.src, pc + 1
        free = self._dropper(instr.drop)

        def step(regs: list) -> int:
            v = regs[src]
            acquire(v)
            regs[dst] = v
            if free is not None:
                free(regs)
            return nxt

        return step

    def _step_const(self, frame: _Frame, pc: int, instr: LoadConst) -> Step:
        value = self._constants[instr.index]
        dst, nxt = instr.dst, pc + 1
        free = self._dropper(instr.drop)

        def step(regs: list) -> int:
            acquire(value)
            regs[dst] = value
            if free is not None:
                free(regs)
            return nxt

        return step

    def _step_shape(self, frame: _Frame, pc: int, instr: MakeShape) -> Step:
        dst, dims, env_slot, nxt = instr.dst, instr.dims, frame.env_slot, pc + 1
        free = self._dropper(instr.drop)

        def step(regs: list) -> int:
            env = regs[env_slot] or {}
            regs[dst] = tuple(shapes.evaluate(d, env) for d in dims)
            if free is not None:
                free(regs)
            return nxt

        return step

    def _step_tuple(self, frame: _Frame, pc: int, instr: MakeTuple) -> Step:
        dst, fields, nxt = instr.dst, instr.fields, pc + 1
        free = self._dropper(instr.drop)

        def step(regs: list) -> int:
            value = tuple([regs[f] for f in fields])
            acquire(value)
            regs[dst] = value
            if free is not None:
                free(regs)
            return nxt

        return step

    def _step_getitem(self, frame: _Frame, pc: int, instr: GetItem) -> Step:
        dst, src, index, nxt = instr.dst, instr.src, instr.index, pc + 1
        free = self._dropper(instr.drop)

        def step(regs: list) -> int:
            value = regs[src][index]
            acquire(value)
            regs[dst] = value
            if free is not None:
                free(regs)
            return nxt

        return step

    def _step_if(self, frame: _Frame, pc: int, instr: If) -> Step:
        cond, target, nxt = instr.cond, instr.else_target, pc + 1
        free_then = self._dropper(instr.drop)
        free_else = self._dropper(instr.else_drop)

        def step(regs: list) -> int:
            c = regs[cond]
            flag = bool(c.device.to_host(c.data)) if c.__class__ is _DA else bool(c)
            if flag:
                if free_then is not None:
                    free_then(regs)
                return nxt
            if free_else is not None:
                free_else(regs)
            return target

        return step

    def _step_goto(self, frame: _Frame, pc: int, instr: Goto) -> Step:
        target = instr.target
        free = self._dropper(instr.drop)

        def step(regs: list) -> int:
            if free is not None:
                free(regs)
            return target

        return step

    def _step_invoke(self, frame: _Frame, pc: int, instr: Invoke) -> Step:
        callee_name, args, out, nxt = instr.function, instr.args, instr.out, pc + 1
        free = self._dropper(instr.drop)
        names = [frame.fn.reg_name(a) for a in args]

        def step(regs: list) -> int:
            callee = self._frames[callee_name]
            vals = [regs[a] for a in args]
            for value, expected, name in zip(vals, callee.param_devices, names, strict=False):
                self._check_tree(frame, pc, f"argument {name}", expected, value)
            for value in vals:
                acquire(value)
            regs[out] = self._call(callee, vals, self._timing)
            if free is not None:
                free(regs)
            return nxt

        return step

    def _step_ret(self, frame: _Frame, pc: int, instr: Ret) -> Step:
        value, ret_slot = instr.value, frame.ret_slot
        free = self._dropper(instr.drop)

        def step(regs: list) -> int:
            regs[ret_slot] = regs[value]
            regs[value] = None
            if free is not None:
                free(regs)
            return -1

        return step

    # -- execution ---------------------------------------------------------------
    _timing = False

    def _call(self, frame: _Frame, args: list, timed: bool) -> Any:
        """Run one frame on `args` (already counted as held by it); return its result."""
        regs: list = [None] * frame.num_slots
        regs[: len(args)] = args
        for r in frame.entry_drop:
            release(regs[r])
            regs[r] = None
        if frame.fn.symbols:
            regs[frame.env_slot] = self._bind_symbols(frame.fn, args)
        steps = frame.steps
        pc = 0
        try:
            if timed:
                self._run_timed(frame, steps, regs)
            else:
                while pc >= 0:
                    step = steps[pc]
                    pc = step[0](regs, step)
        except BaseException as err:
            for v in regs:
                release(v)
            if isinstance(err, Exception) and not isinstance(err, VMError):
                raise self._kernel_error(frame, frame.failed_pc if timed else pc, err) from err
            raise
        return regs[frame.ret_slot]

    def _kernel_error(self, frame: _Frame, pc: int, err: Exception) -> KernelError:
        """A kernel's own exception, named after the instruction that raised it."""
        text = self._text(frame, pc)
        instr = frame.fn.instructions[pc]
        origin = f" ({instr.origin.describe()})" if instr.origin is not None else ""
        return KernelError(f"instruction {text}{origin} failed: {type(err).__name__}: {err}", instruction=text)

    def _run_timed(self, frame: _Frame, steps: list[Step], regs: list) -> None:
        clock = time.perf_counter
        times, counts = frame.times, frame.counts
        base = self._child_time
        begin = clock()
        pc = 0
        frame.failed_pc = 0
        while pc >= 0:
            child = self._child_time
            t0 = clock()
            step = steps[pc]
            frame.failed_pc = pc
            nxt = step[0](regs, step)
            times[pc] += clock() - t0 - (self._child_time - child)
            counts[pc] += 1
            pc = nxt
        self._child_time = base + (clock() - begin)

    @staticmethod
    def _bind_symbols(fn: CompiledFunction, args: list) -> dict[str, int]:
        env: dict[str, int] = {}
        for s in fn.symbols:
            v = args[s.param]
            for i in s.path:
                v = v[i]
            env[s.name] = int(v.data.shape[s.axis])
        return env

    # -- inputs and outputs ------------------------------------------------------
    @staticmethod
    def _input_plan(sinfo: StructInfo, device: Any) -> tuple[np.dtype, tuple[int, ...], Device] | None:
        if isinstance(sinfo, TensorStructInfo) and sinfo.static_shape is not None and sinfo.dtype and device:
            return (to_numpy(sinfo.dtype), sinfo.static_shape, device)
        return None

    def _input(self, name: str, sinfo: StructInfo, device: Any, vindex: DeviceTree, value: Any, env: dict) -> Any:
        if isinstance(sinfo, TupleStructInfo):
            if not isinstance(value, (tuple, list)) or len(value) != len(sinfo.fields):
                raise InputError(f"input {name} must be a tuple of {len(sinfo.fields)} values")
            return tuple(
                self._input(f"{name}[{i}]", s, d, vi, v, env)
                for i, (s, d, vi, v) in enumerate(zip(sinfo.fields, device, vindex, value, strict=False))  # type: ignore[arg-type]
            )
        if isinstance(sinfo, ShapeStructInfo):
            return tuple(int(d) for d in value)
        if isinstance(sinfo, PrimStructInfo):
            return np.asarray(value, dtype=to_numpy(sinfo.dtype) if sinfo.dtype else None)[()]
        if not isinstance(sinfo, TensorStructInfo):
            return value
        if value.__class__ is _DA:
            self._check_input(name, sinfo, value.shape, value.dtype, env)
            if value.device is device:
                value.device.acquire(value)
                return value
            host = value.device.to_host(value.data)
            self._count(self._transfers, (value.device.name, "host"), host.nbytes)
        else:
            if isinstance(value, np.ndarray) or not sinfo.dtype:
                host = np.asarray(value)
            else:
                host = np.asarray(value, dtype=to_numpy(sinfo.dtype))
            self._check_input(name, sinfo, host.shape, str(host.dtype), env)
        array = device.upload(host)
        if not isinstance(device, CPU):
            self._count(self._transfers, ("host", device.name), array.nbytes)
        return array

    @staticmethod
    def _check_input(name: str, sinfo: TensorStructInfo, shape: tuple[int, ...], dtype: str, env: dict) -> None:
        want = str(to_numpy(sinfo.dtype)) if sinfo.dtype else None
        if want is not None and dtype != want:
            raise InputError(f"input {name} has dtype {dtype} but the parameter is {sinfo.dtype}")
        if sinfo.ndim >= 0 and len(shape) != sinfo.ndim:
            raise InputError(f"input {name} has shape {tuple(shape)} but the parameter has rank {sinfo.ndim}")
        for axis, dim in enumerate(sinfo.shape or ()):
            if isinstance(dim, int):
                ok = dim == shape[axis]
            elif shapes.is_name(dim):
                ok = env.setdefault(dim, shape[axis]) == shape[axis]
            else:
                continue
            if not ok:
                raise InputError(
                    f"input {name} has shape {tuple(shape)} but the parameter is {tuple(sinfo.shape or ())}"
                    + (f" with {dim} = {env[dim]}" if isinstance(dim, str) else "")
                )

    def _output(self, value: Any) -> Any:
        if value.__class__ is _DA:
            host = value.device.to_host(value.data)
            if not isinstance(value.device, CPU):
                self._count(self._transfers, (value.device.name, "host"), host.nbytes)
            return host
        if value.__class__ is tuple:
            return tuple(self._output(v) for v in value)
        return value

    @staticmethod
    def _count(table: dict, pair: tuple[str, str], nbytes: int) -> None:
        counter = table.setdefault(pair, [0, 0])
        counter[0] += 1
        counter[1] += nbytes

    # -- profile -----------------------------------------------------------------
    def _fallback_counts(self) -> dict[tuple[str, str], int]:
        out = {}
        for d in self.devices:
            for op, n in getattr(d, "fallbacks", {}).items():
                out[(d.name, op)] = n
        return out

    def _make_profile(self, timed: bool, total: float, before: dict, fallbacks_before: dict) -> Profile:
        rows: list[InstructionTime] = []
        for frame in self._frames.values() if timed else ():
            fn = frame.fn
            for pc, instr in enumerate(fn.instructions):
                if frame.counts[pc] == 0:
                    continue
                rows.append(
                    InstructionTime(
                        fn.name,
                        pc,
                        instr.kind,
                        self._instr_device(instr),
                        instr.body(fn.reg_name, self._dev_name),
                        frame.counts[pc],
                        frame.times[pc],
                    )
                )
        memory = {d.name: d.stats.since(before[d.name]) for d in self.devices}
        fallbacks = {k: n - fallbacks_before.get(k, 0) for k, n in self._fallback_counts().items()}
        fallbacks = {k: n for k, n in fallbacks.items() if n}
        return Profile(timed, total, rows, self._copies, self._transfers, memory, fallbacks)

    def _instr_device(self, instr: Instruction) -> str:
        index = getattr(instr, "device", None)
        if isinstance(instr, DeviceCopy):
            index = instr.dst_device
        return "vm" if index is None else self.device_map[index].name
