"""Instruction execution: each instruction becomes a *step* once, when the VM is made.

A step is a tuple ``(run, ...)`` and executing it is ``pc = run(regs, step)``
on the frame's register list; it returns the next pc, -1 after ``Ret``, or
`CALL` after ``Invoke`` (the VM then runs the callee, `runtime.callstack`).
Everything an instruction needs that does not change between runs (its
registers, runtime devices, kernel, constant, successor) is resolved into
the step, so the interpreter loop does nothing but dispatch.

Every step releases the registers whose last use it is (`Instruction.drop`),
and every step that reads a tensor checks that it lies on the device the
instruction runs on, raising `DeviceMismatch` otherwise: data moves between
devices only by `DeviceCopy`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import shapes
from .call_steps import closure_step, guard_memory, make_call_step, result_name
from .callstack import CALL, PendingCall
from .devices import Device, DeviceArray
from .diagnostics import Diagnostics
from .frame import Frame, Step
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
    MakePrim,
    MakeShape,
    MakeTuple,
    Move,
    Ret,
)
from .registers import acquire, drop

_DA = DeviceArray
Pair = tuple[str, str]


def _dropper(dropped: Sequence[int]) -> Callable[[list], None] | None:
    """The function that clears `dropped` from a frame's registers; None when there is nothing to clear."""
    if not dropped:
        return None
    dropped = tuple(dropped)

    def free(regs: list) -> None:
        drop(regs, dropped)

    return free


class StepBuilder:
    """Makes the steps of one VM.

    `device_map` maps vdevice indices to runtime devices; `constants` is the
    constant pool as the VM loaded it; `copies` (device pair -> [copies, bytes])
    is the dict the VM's run record clears at the start of each run;
    an ``Invoke`` step appends its `PendingCall` to `pending` and returns
    `CALL`, and the VM's loop runs the callee (`runtime.callstack`).
    """

    def __init__(
        self,
        device_map: Sequence[Device],
        constants: Sequence[Any],
        copies: dict[Pair, list[int]],
        frames: dict[str, Frame],
        pending: list[PendingCall],
        diagnostics: Diagnostics,
    ) -> None:
        self.device_map = device_map
        self.constants = constants
        self.copies = copies
        self.frames = frames
        self.pending = pending
        self.diagnostics = diagnostics
        self._makers: dict[type, Callable[[Frame, int, Any], Callable[[list], int]]] = {
            AllocTensor: self._alloc,
            DeviceCopy: self._copy,
            Move: self._move,
            LoadConst: self._const,
            MakeShape: self._shape,
            MakePrim: self._prim,
            MakeTuple: self._tuple,
            GetItem: self._getitem,
            If: self._if,
            Goto: self._goto,
            Invoke: self._invoke,
            Ret: self._ret,
        }

    def build(self, frame: Frame, pc: int, instr: Instruction) -> Step:
        if isinstance(instr, Call):
            dev = None if instr.device is None else self.device_map[instr.device]
            return guard_memory(
                frame, pc, instr, dev, make_call_step(frame, pc, instr, dev, self.diagnostics), self.diagnostics
            )
        return (closure_step, self._makers[type(instr)](frame, pc, instr))

    def _alloc(self, frame: Frame, pc: int, instr: AllocTensor) -> Callable[[list], int]:
        dev = self.device_map[instr.device]
        dst, shape, like, dtype, nxt = instr.dst, instr.shape, instr.like, instr.dtype, pc + 1
        free = _dropper(instr.drop)
        name = result_name(frame, pc, self.diagnostics)

        if like is None:
            assert shape is not None, "an AllocTensor has a static shape or a register to take it from"
            static = shape

            def step(regs: list) -> int:
                dev.check_fits(name, static, dtype)
                regs[dst] = dev.adopt(dev.empty(static, dtype))
                if free is not None:
                    free(regs)
                return nxt

            return step
        source = like

        def step_like(regs: list) -> int:
            src = regs[source]
            dims, kind = tuple(src.data.shape), dtype or src.dtype
            dev.check_fits(name, dims, kind)
            regs[dst] = dev.adopt(dev.empty(dims, kind))
            if free is not None:
                free(regs)
            return nxt

        return step_like

    def _copy(self, frame: Frame, pc: int, instr: DeviceCopy) -> Callable[[list], int]:
        src_dev, dst_dev = self.device_map[instr.src_device], self.device_map[instr.dst_device]
        src_r, dst_r, nxt = instr.src, instr.dst, pc + 1
        free = _dropper(instr.drop)
        pair = (src_dev.name, dst_dev.name)
        what = f"the copy's source {frame.fn.reg_name(src_r)}"
        copies, diagnostics = self.copies, self.diagnostics

        def step(regs: list) -> int:
            value = regs[src_r]
            if value.__class__ is not _DA or value.device is not src_dev:
                raise diagnostics.mismatch(frame, pc, what, src_dev, value)
            target = regs[dst_r]
            dst_dev.copy_into(target.data, value)
            counter = copies.get(pair)
            if counter is None:
                counter = copies[pair] = [0, 0]
            counter[0] += 1
            counter[1] += target.nbytes
            if free is not None:
                free(regs)
            return nxt

        return step

    def _move(self, frame: Frame, pc: int, instr: Move) -> Callable[[list], int]:
        dst, src, nxt = instr.dst, instr.src, pc + 1
        free = _dropper(instr.drop)

        def step(regs: list) -> int:
            v = regs[src]
            acquire(v)
            regs[dst] = v
            if free is not None:
                free(regs)
            return nxt

        return step

    def _const(self, frame: Frame, pc: int, instr: LoadConst) -> Callable[[list], int]:
        value = self.constants[instr.index]
        dst, nxt = instr.dst, pc + 1
        free = _dropper(instr.drop)

        def step(regs: list) -> int:
            acquire(value)
            regs[dst] = value
            if free is not None:
                free(regs)
            return nxt

        return step

    def _shape(self, frame: Frame, pc: int, instr: MakeShape) -> Callable[[list], int]:
        dims = instr.dims
        return _from_dims(frame, pc, instr, lambda env: tuple(shapes.evaluate(d, env) for d in dims))

    def _prim(self, frame: Frame, pc: int, instr: MakePrim) -> Callable[[list], int]:
        expr = instr.expr
        return _from_dims(frame, pc, instr, lambda env: np.int64(shapes.evaluate(expr, env)))

    def _tuple(self, frame: Frame, pc: int, instr: MakeTuple) -> Callable[[list], int]:
        dst, fields, nxt = instr.dst, instr.fields, pc + 1
        free = _dropper(instr.drop)

        def step(regs: list) -> int:
            value = tuple([regs[f] for f in fields])
            acquire(value)
            regs[dst] = value
            if free is not None:
                free(regs)
            return nxt

        return step

    def _getitem(self, frame: Frame, pc: int, instr: GetItem) -> Callable[[list], int]:
        dst, src, index, nxt = instr.dst, instr.src, instr.index, pc + 1
        free = _dropper(instr.drop)

        def step(regs: list) -> int:
            value = regs[src][index]
            acquire(value)
            regs[dst] = value
            if free is not None:
                free(regs)
            return nxt

        return step

    def _if(self, frame: Frame, pc: int, instr: If) -> Callable[[list], int]:
        cond, target, nxt = instr.cond, instr.else_target, pc + 1
        free_then = _dropper(instr.drop)
        free_else = _dropper(instr.else_drop)

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

    def _goto(self, frame: Frame, pc: int, instr: Goto) -> Callable[[list], int]:
        target = instr.target
        free = _dropper(instr.drop)

        def step(regs: list) -> int:
            if free is not None:
                free(regs)
            return target

        return step

    def _invoke(self, frame: Frame, pc: int, instr: Invoke) -> Callable[[list], int]:
        callee_name, args, out, nxt = instr.function, instr.args, instr.out, pc + 1
        free = _dropper(instr.drop)
        names = [frame.fn.reg_name(a) for a in args]
        frames, pending, diagnostics = self.frames, self.pending, self.diagnostics

        def step(regs: list) -> int:
            callee = frames[callee_name]
            vals = [regs[a] for a in args]
            for value, expected, name in zip(vals, callee.param_devices, names, strict=False):
                diagnostics.check_tree(frame, pc, f"argument {name}", expected, value)
            for value in vals:
                acquire(value)
            pending.append(PendingCall(callee, vals, out, free, nxt))
            return CALL

        return step

    def _ret(self, frame: Frame, pc: int, instr: Ret) -> Callable[[list], int]:
        value, ret_slot = instr.value, frame.ret_slot
        free = _dropper(instr.drop)

        def step(regs: list) -> int:
            regs[ret_slot] = regs[value]
            regs[value] = None
            if free is not None:
                free(regs)
            return -1

        return step


def _from_dims(
    frame: Frame, pc: int, instr: MakeShape | MakePrim, make: Callable[[dict], Any]
) -> Callable[[list], int]:
    """The step that writes ``make(the frame's symbolic dims)`` into `instr`'s destination register."""
    dst, env_slot, nxt = instr.dst, frame.env_slot, pc + 1
    free = _dropper(instr.drop)

    def step(regs: list) -> int:
        regs[dst] = make(regs[env_slot] or {})
        if free is not None:
            free(regs)
        return nxt

    return step
