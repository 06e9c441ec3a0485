"""VM instructions over registers; AllocTensor and DeviceCopy name the devices they use.

An instruction names registers by index (a function's parameters are
registers ``0..k-1``) and devices by index into the module's vdevice list.
Each instruction also carries `drop`: the registers whose last use it is, so
the VM releases buffers as soon as nothing reads them (liveness is computed at
compile time, `runtime.liveness`).  `origin` is the source binding an
instruction came from (variable name and span), for error messages.

Instructions are plain data: the VM turns each one into a pre-resolved step
once, when it is created (`runtime.vm`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from vdplace.ir.op import Op
from vdplace.ir.span import Span
from vdplace.ir.struct_info import StructInfo

# Renders a register as "r3:lv0" and a device index as "cuda:0:global".
RegName = Callable[[int], str]
DevName = Callable[[int | None], str]


class Origin:
    """Where an instruction came from: the bound variable and its source span."""

    __slots__ = ("function", "variable", "span")

    def __init__(self, function: str, variable: str, span: Span | None) -> None:
        self.function = function
        self.variable = variable
        self.span = span

    def describe(self) -> str:
        where = f" at {self.span.location()}" if self.span is not None else ""
        return f"{self.function}: binding {self.variable}{where}"


class Instruction:
    """Base class.  `kind` is the name shown in listings and profiles."""

    __slots__ = ("drop", "origin")
    kind = "?"

    def __init__(self) -> None:
        self.drop: tuple[int, ...] = ()
        self.origin: Origin | None = None

    def uses(self) -> tuple[int, ...]:
        """Registers read."""
        return ()

    def defs(self) -> tuple[int, ...]:
        """Registers written."""
        return ()

    def targets(self) -> tuple[int, ...]:
        """Instruction indices control may jump to (besides falling through)."""
        return ()

    @property
    def falls_through(self) -> bool:
        return True

    def body(self, reg: RegName, dev: DevName) -> str:
        raise NotImplementedError

    def format(self, reg: RegName, dev: DevName) -> str:
        text = self.body(reg, dev)
        if self.drop:
            text += "    ; free " + ", ".join(reg(r) for r in self.drop)
        return text


def _regs(reg: RegName, regs: Sequence[int]) -> str:
    return ", ".join(reg(r) for r in regs)


class AllocTensor(Instruction):
    """``dst = empty(shape, dtype) on device``; `shape` is static dims, or None to take `like`'s shape."""

    __slots__ = ("dst", "device", "shape", "like", "dtype")
    kind = "AllocTensor"

    def __init__(self, dst: int, device: int, shape: tuple[int, ...] | None, dtype: str, like: int | None = None):
        super().__init__()
        if shape is None and like is None:
            raise ValueError("AllocTensor needs a static shape or a register to take the shape from")
        self.dst = dst
        self.device = device
        self.shape = shape
        self.like = like
        self.dtype = dtype

    def uses(self) -> tuple[int, ...]:
        return () if self.like is None else (self.like,)

    def defs(self) -> tuple[int, ...]:
        return (self.dst,)

    def body(self, reg: RegName, dev: DevName) -> str:
        if self.shape is not None:
            shape = str(tuple(self.shape))
        else:
            assert self.like is not None, "__init__ checked that one of them is given"
            shape = f"shape_of({reg(self.like)})"
        return f"{reg(self.dst)} = AllocTensor({shape}, {self.dtype}) on {dev(self.device)}"


class Call(Instruction):
    """``out = op(args, **attrs)`` run on `device` (None: a host computation on shapes or scalars).

    `tensor_result` says the op returns one tensor (the VM's fast path); other
    results (tuples of tensors, shapes) are wrapped by their runtime type.
    `arg_sinfo` / `out_sinfo` are the struct infos of the arguments and the
    result, from which the profile estimates the call's work (`Op.work`); an
    instruction without them (`out_sinfo` None) has no estimate.  `view`: the
    result is a view of an operand (`vdplace.ir.views`), sharing its memory;
    otherwise it is a new tensor (`Device.adopt_result`).
    """

    __slots__ = ("op", "device", "args", "out", "attrs", "tensor_result", "arg_sinfo", "out_sinfo", "view")
    kind = "Call"

    def __init__(
        self,
        op: Op,
        device: int | None,
        args: Sequence[int],
        out: int,
        attrs: dict[str, Any],
        tensor_result: bool = True,
        arg_sinfo: Sequence[StructInfo] = (),
        out_sinfo: StructInfo | None = None,
        view: bool = False,
    ):
        super().__init__()
        self.view = view
        self.op = op
        self.device = device
        self.args = tuple(args)
        self.out = out
        self.attrs = dict(attrs)
        self.tensor_result = tensor_result
        self.arg_sinfo = tuple(arg_sinfo)
        self.out_sinfo = out_sinfo

    def uses(self) -> tuple[int, ...]:
        return self.args

    def defs(self) -> tuple[int, ...]:
        return (self.out,)

    def body(self, reg: RegName, dev: DevName) -> str:
        parts = [_regs(reg, self.args)] if self.args else []
        parts += [f"{k}={v!r}" for k, v in self.attrs.items()]
        where = f" on {dev(self.device)}" if self.device is not None else " on host"
        return f"{reg(self.out)} = Call {self.op.name}({', '.join(parts)}){where}"


class DeviceCopy(Instruction):
    """Copy `src` (on `src_device`) into the buffer in `dst` (on `dst_device`), allocated by AllocTensor."""

    __slots__ = ("src", "dst", "src_device", "dst_device")
    kind = "DeviceCopy"

    def __init__(self, src: int, dst: int, src_device: int, dst_device: int) -> None:
        super().__init__()
        self.src = src
        self.dst = dst
        self.src_device = src_device
        self.dst_device = dst_device

    def uses(self) -> tuple[int, ...]:
        return (self.src, self.dst)

    def defs(self) -> tuple[int, ...]:
        return (self.dst,)

    def body(self, reg: RegName, dev: DevName) -> str:
        return f"DeviceCopy {reg(self.src)} ({dev(self.src_device)}) -> {reg(self.dst)} ({dev(self.dst_device)})"


class Move(Instruction):
    """``dst = src``: an alias, or a move between vdevices of one physical device; no data moves."""

    __slots__ = ("dst", "src")
    kind = "Move"

    def __init__(self, dst: int, src: int) -> None:
        super().__init__()
        self.dst = dst
        self.src = src

    def uses(self) -> tuple[int, ...]:
        return (self.src,)

    def defs(self) -> tuple[int, ...]:
        return (self.dst,)

    def body(self, reg: RegName, dev: DevName) -> str:
        return f"{reg(self.dst)} = Move {reg(self.src)}"


class LoadConst(Instruction):
    """``dst = constants[index]``; the VM puts each tensor constant on `device` once, at creation."""

    __slots__ = ("dst", "index", "device")
    kind = "LoadConst"

    def __init__(self, dst: int, index: int, device: int | None) -> None:
        super().__init__()
        self.dst = dst
        self.index = index
        self.device = device

    def defs(self) -> tuple[int, ...]:
        return (self.dst,)

    def body(self, reg: RegName, dev: DevName) -> str:
        where = f" on {dev(self.device)}" if self.device is not None else ""
        return f"{reg(self.dst)} = LoadConst c{self.index}{where}"


class MakePrim(Instruction):
    """``dst = int64(expr)`` for a symbolic prim value, evaluated from the frame's shape variables."""

    __slots__ = ("dst", "expr")
    kind = "MakePrim"

    def __init__(self, dst: int, expr: str) -> None:
        super().__init__()
        self.dst = dst
        self.expr = expr

    def defs(self) -> tuple[int, ...]:
        return (self.dst,)

    def body(self, reg: RegName, dev: DevName) -> str:
        return f"{reg(self.dst)} = MakePrim({self.expr})"


class MakeShape(Instruction):
    """``dst = shape(dims)`` where some dims are symbolic, evaluated from the frame's shape variables."""

    __slots__ = ("dst", "dims")
    kind = "MakeShape"

    def __init__(self, dst: int, dims: Sequence[int | str]) -> None:
        super().__init__()
        self.dst = dst
        self.dims = tuple(dims)

    def defs(self) -> tuple[int, ...]:
        return (self.dst,)

    def body(self, reg: RegName, dev: DevName) -> str:
        return f"{reg(self.dst)} = MakeShape{self.dims}"


class MakeTuple(Instruction):
    __slots__ = ("dst", "fields")
    kind = "MakeTuple"

    def __init__(self, dst: int, fields: Sequence[int]) -> None:
        super().__init__()
        self.dst = dst
        self.fields = tuple(fields)

    def uses(self) -> tuple[int, ...]:
        return self.fields

    def defs(self) -> tuple[int, ...]:
        return (self.dst,)

    def body(self, reg: RegName, dev: DevName) -> str:
        return f"{reg(self.dst)} = MakeTuple({_regs(reg, self.fields)})"


class GetItem(Instruction):
    __slots__ = ("dst", "src", "index")
    kind = "GetItem"

    def __init__(self, dst: int, src: int, index: int) -> None:
        super().__init__()
        self.dst = dst
        self.src = src
        self.index = index

    def uses(self) -> tuple[int, ...]:
        return (self.src,)

    def defs(self) -> tuple[int, ...]:
        return (self.dst,)

    def body(self, reg: RegName, dev: DevName) -> str:
        return f"{reg(self.dst)} = GetItem {reg(self.src)}[{self.index}]"


class If(Instruction):
    """Fall through when `cond` is true, else jump to `else_target`; `else_drop` frees on the jump."""

    __slots__ = ("cond", "else_target", "else_drop")
    kind = "If"

    def __init__(self, cond: int, else_target: int = -1) -> None:
        super().__init__()
        self.cond = cond
        self.else_target = else_target
        self.else_drop: tuple[int, ...] = ()

    def uses(self) -> tuple[int, ...]:
        return (self.cond,)

    def targets(self) -> tuple[int, ...]:
        return (self.else_target,)

    def body(self, reg: RegName, dev: DevName) -> str:
        return f"If {reg(self.cond)} else goto {self.else_target}"

    def format(self, reg: RegName, dev: DevName) -> str:
        text = super().format(reg, dev)
        if self.else_drop:
            text += "    ; on else free " + ", ".join(reg(r) for r in self.else_drop)
        return text


class Goto(Instruction):
    __slots__ = ("target",)
    kind = "Goto"

    def __init__(self, target: int = -1) -> None:
        super().__init__()
        self.target = target

    def targets(self) -> tuple[int, ...]:
        return (self.target,)

    @property
    def falls_through(self) -> bool:
        return False

    def body(self, reg: RegName, dev: DevName) -> str:
        return f"Goto {self.target}"


class Invoke(Instruction):
    """``out = function(args)``: a call of another function of the executable."""

    __slots__ = ("function", "args", "out")
    kind = "Invoke"

    def __init__(self, function: str, args: Sequence[int], out: int) -> None:
        super().__init__()
        self.function = function
        self.args = tuple(args)
        self.out = out

    def uses(self) -> tuple[int, ...]:
        return self.args

    def defs(self) -> tuple[int, ...]:
        return (self.out,)

    def body(self, reg: RegName, dev: DevName) -> str:
        return f"{reg(self.out)} = Invoke {self.function}({_regs(reg, self.args)})"


class Ret(Instruction):
    __slots__ = ("value",)
    kind = "Ret"

    def __init__(self, value: int) -> None:
        super().__init__()
        self.value = value

    def uses(self) -> tuple[int, ...]:
        return (self.value,)

    @property
    def falls_through(self) -> bool:
        return False

    def body(self, reg: RegName, dev: DevName) -> str:
        return f"Ret {reg(self.value)}"
