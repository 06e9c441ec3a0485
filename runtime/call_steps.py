"""Steps for `Call` instructions: an op's kernel run on its device's arrays.

The kernel is resolved once, when the step is made: the device's kernel for
the op (`Device.kernel`), with the attributes bound.  Shapes are arguments
(a shape register, made by ``MakeShape`` with the frame's symbolic dims
evaluated), never attributes.

One-argument and two-argument calls with one tensor result, the common case,
run through `call1_step` / `call2_step`: module-level functions whose data
(kernel, registers, successor) sits in the step tuple.  When their arguments
are anything but device arrays on the call's device they hand over to the
generic step, which checks every argument (raising `DeviceMismatch`) and
wraps any kind of result.

`guard_memory` puts the device's limit on one tensor (`Device.tensor_limit`)
in front of a call step: each tensor of the result whose shape is known
(static, or symbolic dims the frame binds) is checked before the kernel
runs; a result of static shape that fits costs nothing at run time.  (The
budget of live bytes is the device's own, when it is to hold the result.)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from vdplace.ir.ops.match_cast import match_dims
from vdplace.ir.struct_info import tensor_leaves

from . import shapes
from .devices import Device, DeviceArray
from .diagnostics import Diagnostics
from .errors import DeviceMemoryError, VMError
from .frame import Frame, Step
from .instructions import Call
from .registers import acquire, drop

_DA = DeviceArray


def call1_step(regs: list, step: tuple) -> int:
    """A one-argument op with a tensor result: one shared function for every such step."""
    _, kernel, adopt, dev, a0, out, dropped, nxt, generic = step
    a = regs[a0]
    if a.__class__ is not _DA or a.device is not dev:
        return generic(regs)
    regs[out] = adopt(kernel(a.data))
    if dropped:
        drop(regs, dropped)
    return nxt


def call2_step(regs: list, step: tuple) -> int:
    """A two-argument op with a tensor result."""
    _, kernel, adopt, dev, a0, a1, out, dropped, nxt, generic = step
    a = regs[a0]
    b = regs[a1]
    if a.__class__ is not _DA or a.device is not dev or b.__class__ is not _DA or b.device is not dev:
        return generic(regs)
    regs[out] = adopt(kernel(a.data, b.data))
    if dropped:
        drop(regs, dropped)
    return nxt


def closure_step(regs: list, step: tuple) -> int:
    """A step whose work is a closure ``step[1](regs) -> next pc``."""
    return step[1](regs)


def _kernel(instr: Call, dev: Device | None, late: dict[str, Any]) -> Callable[..., Any]:
    """The op's kernel on `dev` (the NumPy kernel for a host call) with its attributes bound, but those in
    `late` (symbolic, given per run)."""
    op = instr.op
    if dev is not None:
        kernel = dev.kernel(op)
    elif op.kernel is None:
        raise VMError(f"R.{op.name} has no kernel")
    else:
        kernel = op.kernel
    attrs = {k: v for k, v in instr.attrs.items() if k not in late} if late else instr.attrs
    return functools.partial(kernel, **attrs) if attrs else kernel


def _unwrap(v: Any) -> Any:
    """A register's value as the kernel takes it: native arrays, tuples of them, host values."""
    if v.__class__ is _DA:
        return v.data
    if v.__class__ is tuple:
        return tuple(_unwrap(x) for x in v)
    return v


def _result_wrapper(dev: Device | None, tensor_result: bool, view: bool = False) -> Callable[[Any], Any]:
    """How a kernel's result becomes a register value: device arrays adopted by `dev` (new tensors, or the
    view it is: `Call.view`), tuples as tuples."""
    if dev is None:
        return lambda result: result
    adopt = dev.adopt_view if view else dev.adopt_result
    if tensor_result:
        return adopt

    def wrap(r: Any) -> Any:
        if isinstance(r, (tuple, list)):
            return tuple(wrap(x) for x in r)
        return adopt(r) if dev.is_array(r) else r

    return wrap


def make_call_step(frame: Frame, pc: int, instr: Call, dev: Device | None, diagnostics: Diagnostics) -> Step:
    """The step that runs `instr` (at `pc` of `frame`) on `dev` (None: on the host)."""
    if instr.op.name == "match_cast":
        return _match_cast_step(frame, pc, instr)
    late = shapes.symbolic_attrs(instr.op, instr.attrs)  # positions naming symbolic dims: resolved per run
    kernel = _kernel(instr, dev, late)
    env_slot = frame.env_slot
    wrap = _result_wrapper(dev, instr.tensor_result, instr.view)
    args, out, dropped, nxt = instr.args, instr.out, instr.drop, pc + 1
    names = [frame.fn.reg_name(a) for a in args]

    def check(v: Any, what: str, on: Device) -> None:
        if v.__class__ is _DA:
            if v.device is not on:
                raise diagnostics.mismatch(frame, pc, what, on, v)
        elif v.__class__ is tuple:
            for i, x in enumerate(v):
                check(x, f"{what}[{i}]", on)

    def generic(regs: list) -> int:
        vals = [regs[a] for a in args]
        if dev is not None:
            for v, name in zip(vals, names, strict=False):
                check(v, f"argument {name}", dev)
        values = [_unwrap(v) for v in vals]
        if late:
            env = regs[env_slot] or {}
            regs[out] = wrap(kernel(*values, **{k: shapes.resolve(v, env) for k, v in late.items()}))
        else:
            regs[out] = wrap(kernel(*values))
        if dropped:
            drop(regs, dropped)
        return nxt

    if late or not instr.tensor_result or dev is None or len(args) not in (1, 2):
        return (closure_step, generic)
    if len(args) == 1:
        return (call1_step, kernel, wrap, dev, args[0], out, dropped, nxt, generic)
    return (call2_step, kernel, wrap, dev, args[0], args[1], out, dropped, nxt, generic)


def _match_cast_step(frame: Frame, pc: int, instr: Call) -> Step:
    """``R.match_cast``: the value itself, once its shape fits the annotation; binds the annotation's new symbols
    in the frame's dims (which the instructions after it read)."""
    ty, env_slot = instr.attrs["ty"], frame.env_slot
    (arg,), out, dropped, nxt = instr.args, instr.out, instr.drop, pc + 1

    def step(regs: list) -> int:
        value = regs[arg]
        env = regs[env_slot]
        if env is None:
            env = regs[env_slot] = {}
        lengths = value if value.__class__ is tuple else tuple(_unwrap(value).shape)  # a shape value, or a tensor
        match_dims(ty, lengths, env, shapes.evaluate)
        acquire(value)
        regs[out] = value
        if dropped:
            drop(regs, dropped)
        return nxt

    return (closure_step, step)


def result_name(frame: Frame, pc: int, diagnostics: Diagnostics) -> str:
    """How memory errors name what instruction `pc` makes: the instruction, its binding and line."""
    origin = frame.fn.instructions[pc].origin
    return f"the result of instruction {diagnostics.text(frame, pc)}" + (
        f" ({origin.describe()})" if origin is not None else ""
    )


def guard_memory(frame: Frame, pc: int, instr: Call, dev: Device | None, step: Step, diagnostics: Diagnostics) -> Step:
    """`step`, preceded by a check of each result tensor of known shape against `dev`'s memory limit."""
    if dev is None or dev.tensor_limit is None or instr.out_sinfo is None:
        return step
    name = result_name(frame, pc, diagnostics)
    late: list[tuple[str, tuple, str]] = []  # leaves with symbolic dims, checked when the step runs
    for path, leaf in tensor_leaves(instr.out_sinfo):
        if leaf.shape is None:
            continue
        what = name + "".join(f", field [{i}]" for i in path)
        if leaf.static_shape is None:
            late.append((what, leaf.shape, leaf.dtype))
            continue
        try:
            dev.check_fits(what, leaf.static_shape, leaf.dtype)
        except DeviceMemoryError:
            late = [(what, leaf.static_shape, leaf.dtype)]  # it can never run: fail each time it is reached
            break
    if not late:
        return step
    env_slot = frame.env_slot

    def guarded(regs: list) -> int:
        env = regs[env_slot] or {}
        for what, dims, dtype in late:
            try:
                shape = tuple(shapes.evaluate(d, env) for d in dims)
            except VMError:
                continue  # a dim no input binds: the kernel's own result will tell
            dev.check_fits(what, shape, dtype)
        return step[0](regs, step)

    return (closure_step, guarded)
