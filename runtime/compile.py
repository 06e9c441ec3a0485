"""Compile a placed module to VM instructions.

`compile` requires every tensor site (parameter, binding, return) to carry a
vdevice; the first one that does not is reported by function, variable and
line.  Lowering, binding by binding:

- an op call becomes `Call` on the device of its result (an op with no tensor
  result, such as shape_of, runs on the device of its tensor input, else on
  the host);
- ``to_vdevice`` / ``hint_on_device`` become `AllocTensor` + `DeviceCopy`
  when the physical device changes, else a `Move`;
- aliases become `Move`; calls of module functions `Invoke`; `If` becomes a
  conditional branch and a `Goto`;
- tuples are *scalar-replaced*: a tuple is its fields' registers, not a
  register of its own.  ``t = (a, b)`` emits nothing and ``t[0]`` reads
  ``a``'s register; a tuple that an op, a call, a branch or the return reads
  whole is built (`MakeTuple`) just before that reader, into a register that
  dies with it; a tuple that an op, a call, a branch or a parameter makes is
  taken apart (`GetItem`) as soon as it is made.  So every tensor lives in
  registers of its own and is freed after its last reader, directly or
  through a tuple: a tuple never keeps a field alive that nothing reads
  again (the memory the time objective's schedule predicts,
  docs/schedule.md "Memory by liveness").

Devices are checked statically while lowering: an op whose tensor argument
is on another physical device than the op, or a value that flows (alias,
call, branch, return) onto a site of another device, raises `DeviceMismatch`
naming the instruction, the binding and both devices.  The VM checks the same
again at run time, on the runtime devices.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from vdplace.ir.bind_constants import ConstantValues, bind_constants, missing_constants
from vdplace.ir.expr import (
    Call as IRCall,
)
from vdplace.ir.expr import (
    Constant,
    Expr,
    Function,
    GlobalVar,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    StringImm,
    Tuple,
    TupleGetItem,
    Var,
)
from vdplace.ir.expr import (
    If as IRIf,
)
from vdplace.ir.fill_vdevice import HOST_VDEVICE, fill_vdevice
from vdplace.ir.module import IRModule, iter_bindings
from vdplace.ir.op import Op
from vdplace.ir.span import Span
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo, tensor_leaves
from vdplace.ir.vdevice import VDevice, vdevice_name
from vdplace.ir.views import view_result

from . import shapes
from .batch import declared_num_input
from .errors import CompileError, DeviceMismatch, MissingConstantError, UnplacedError
from .executable import CompiledFunction, DeviceTree, Executable, SymbolBinding
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
    Origin,
    Ret,
)
from .liveness import assign_drops

_COPY_OPS = ("to_vdevice", "hint_on_device")
_I = TypeVar("_I", bound=Instruction)
# Where a value is at compile time: a register, or a tuple of where its fields are (scalar replacement).
Slot = int | tuple["Slot", ...]


def compile(mod: IRModule, params: ConstantValues | None = None) -> Executable:  # noqa: A001  (the API's name)
    """Lower a fully placed module to an `Executable`; raises `UnplacedError` / `DeviceMismatch`.

    A module that declares no vdevice at all (what TVM's frontends print) runs
    on the host: every tensor is put on `HOST_VDEVICE` first.  `params` gives
    the values of the constants the text only references (``metadata[kind][i]``:
    a dict or an ``.npz`` path, see `ir.bind_constants`); any still without a
    value is a `MissingConstantError` naming each one.
    """
    if params is not None:
        mod = bind_constants(mod, params)
    missing = missing_constants(mod)
    if missing:
        raise MissingConstantError([(repr(ref), _location(span)) for ref, span in missing])
    if not mod.vdevices:
        mod = fill_vdevice(mod, HOST_VDEVICE)
    check_placed(mod)
    constants: list[Any] = []
    pooled: dict[tuple[int, int | None], int] = {}
    functions = {
        name: _FunctionCompiler(mod, name, func, constants, pooled).run() for name, func in mod.functions.items()
    }
    return Executable(functions, mod.vdevices, constants)


def _location(span: Span | None) -> str | None:
    return span.location() if span is not None else None


def _unplaced(sinfo: StructInfo) -> bool:
    return any(leaf.vdevice is None for _, leaf in tensor_leaves(sinfo))


def check_placed(mod: IRModule) -> None:
    """Raise `UnplacedError` for the first tensor site without a vdevice, in program order."""
    for name, func in mod.functions.items():
        for param in func.params:
            if _unplaced(param.struct_info):
                raise UnplacedError(name, f"parameter {param.name}", _location(param.span or func.span))
        for binding in iter_bindings(func):
            if _unplaced(binding.var.struct_info):
                span = binding.span or binding.var.span or binding.value.span
                raise UnplacedError(name, binding.var.name, _location(span))
        if _unplaced(func.ret_struct_info):
            raise UnplacedError(name, "the return value", _location(func.ret_span or func.span))


class _FunctionCompiler:
    """Lowers one function; registers are allocated in program order."""

    def __init__(
        self,
        mod: IRModule,
        name: str,
        func: Function,
        constants: list[Any],
        pooled: dict[tuple[int, int | None], int],
    ) -> None:
        self.mod = mod
        self.name = name
        self.func = func
        self.constants = constants
        # (id of a tensor `Constant`, its vdevice) -> its index in `constants`: one constant read at several
        # places (`bench.step.weights_as_constants` substitutes one per weight) is loaded, and held, once.
        self.pooled = pooled
        self.vdevices: list[VDevice] = mod.vdevices
        self.index = {v: i for i, v in enumerate(self.vdevices)}
        self.code: list[Instruction] = []
        self.names: list[str] = []
        self.var_reg: dict[Var, Slot] = {}
        # Registers holding a strided view (True): `vdplace.ir.views` decides from them which calls are views,
        # as the schedule's task graph does.
        self.strided: dict[int, bool] = {}
        self.origin = Origin(name, "<entry>", func.span)

    # -- helpers ---------------------------------------------------------------
    def keep_layout(self, dst: int, src: int) -> None:
        """`dst` holds what `src` holds: the same layout (`strided`)."""
        if src in self.strided:
            self.strided[dst] = self.strided[src]

    def new_reg(self, name: str = "") -> int:
        self.names.append(name)
        return len(self.names) - 1

    def emit(self, instr: _I) -> _I:
        instr.origin = self.origin
        self.code.append(instr)
        return instr

    def dev(self, vdevice: VDevice) -> int:
        return self.index[vdevice]

    def dev_name(self, index: int | None) -> str:
        return "host" if index is None else vdevice_name(self.vdevices, self.vdevices[index])

    def device_tree(self, sinfo: StructInfo) -> DeviceTree:
        if isinstance(sinfo, TensorStructInfo):
            return None if sinfo.vdevice is None else self.dev(sinfo.vdevice)
        if isinstance(sinfo, TupleStructInfo):
            return tuple(self.device_tree(f) for f in sinfo.fields)
        return None

    def result_device(self, sinfo: StructInfo) -> int | None:
        """The one vdevice of every tensor leaf of `sinfo` (None when it holds no tensor)."""
        found: VDevice | None = None
        for _, leaf in tensor_leaves(sinfo):
            if found is None:
                found = leaf.vdevice
            elif leaf.vdevice is not None and leaf.vdevice.physical != found.physical:
                raise CompileError(
                    f"{self.where()}: the result of one op is on two devices "
                    f"({self.dev_name(self.dev(found))} and {self.dev_name(self.dev(leaf.vdevice))})"
                )
        return None if found is None else self.dev(found)

    def where(self) -> str:
        loc = _location(self.origin.span)
        return f"{loc}: {self.name}: {self.origin.variable}" if loc else f"{self.name}: {self.origin.variable}"

    def mismatch(self, what: str, expected: int | None, actual: int | None, instr_text: str) -> DeviceMismatch:
        exp, act = self.dev_name(expected), self.dev_name(actual)
        return DeviceMismatch(
            f"{self.where()}: {what} is on {act} but `{instr_text}` needs it on {exp}; "
            f'the runtime never copies silently: insert R.to_vdevice(..., "{exp}")',
            instruction=instr_text,
            expected=exp,
            actual=act,
        )

    def check_flow(self, what: str, src: StructInfo, dst: StructInfo, instr_text: str) -> None:
        """Every tensor leaf of `src` must be on the physical device of the same leaf of `dst`."""
        dst_leaves = dict(tensor_leaves(dst))
        for path, leaf in tensor_leaves(src):
            target = dst_leaves.get(path)
            if leaf.vdevice is None or target is None or target.vdevice is None:
                continue
            if leaf.vdevice.physical != target.vdevice.physical:
                field = "".join(f"[{i}]" for i in path)
                raise self.mismatch(what + field, self.dev(target.vdevice), self.dev(leaf.vdevice), instr_text)

    def text(self, instr: Instruction) -> str:
        def reg(r: int) -> str:
            return f"r{r}:{self.names[r]}" if self.names[r] else f"r{r}"

        return instr.body(reg, self.dev_name)

    # -- driver ----------------------------------------------------------------
    def run(self) -> CompiledFunction:
        func = self.func
        symbols: list[SymbolBinding] = []
        bound: set[str] = set()
        for i, param in enumerate(func.params):
            self.var_reg[param] = self.explode(self.new_reg(param.name), param.struct_info, param.name)
            for path, leaf in tensor_leaves(param.struct_info):
                for axis, dim in enumerate(leaf.shape or ()):
                    if shapes.is_name(dim) and dim not in bound:
                        bound.add(dim)
                        symbols.append(SymbolBinding(i, path, axis, dim))
        result = self.seq(func.body)
        self.origin = Origin(self.name, "the return value", func.ret_span or func.span)
        ret = Ret(result)
        self.check_flow("the returned value", func.body.struct_info, func.ret_struct_info, self.text(ret))
        self.emit(ret)
        entry_drop = assign_drops(self.code, len(func.params))
        return CompiledFunction(
            self.name,
            [p.name for p in func.params],
            [p.struct_info for p in func.params],
            [self.device_tree(p.struct_info) for p in func.params],
            func.ret_struct_info,
            self.device_tree(func.ret_struct_info),
            self.names,
            self.code,
            entry_drop,
            symbols,
            declared_num_input(func.attrs, len(func.params), self.name),
        )

    def seq(self, seq: SeqExpr) -> int:
        for block in seq.blocks:
            for binding in block.bindings:
                var = binding.var
                self.origin = Origin(self.name, var.name, binding.span or var.span or binding.value.span)
                self.var_reg[var] = self.bind(var, binding.value)
        return self.operand(seq.body, None)

    def operand(self, expr: Expr, device: int | None) -> int:
        """A register holding `expr`: a variable's own, or a fresh one it is computed (a tuple built) into."""
        return self.materialize(self.slot(expr, device), expr.name if isinstance(expr, Var) else "")

    def slot(self, expr: Expr, device: int | None) -> Slot:
        """Where `expr` is: a variable's slot, a tuple's fields' slots, or a fresh register it is computed into."""
        if isinstance(expr, Var):
            if expr not in self.var_reg:
                raise CompileError(f"{self.where()}: {expr.name} is used before it is defined")
            return self.var_reg[expr]
        if isinstance(expr, Tuple):
            return tuple(self.slot(f, None) for f in expr.fields)
        if isinstance(expr, TupleGetItem):
            fields = self.slot(expr.tuple_value, None)
            assert isinstance(fields, tuple), "every tuple is scalar-replaced (`explode`)"
            return fields[expr.index]
        dst = self.new_reg()
        self.value(dst, expr, device)
        return self.explode(dst, expr.struct_info, "")

    def materialize(self, slot: Slot, name: str) -> int:
        """A register holding the value at `slot`: its own, or a tuple built (`MakeTuple`) from its fields."""
        if isinstance(slot, int):
            return slot
        fields = [self.materialize(f, "") for f in slot]
        dst = self.new_reg(name)
        self.emit(MakeTuple(dst, fields))
        return dst

    def explode(self, reg: int, sinfo: StructInfo, name: str) -> Slot:
        """The slot of the value register `reg` holds: itself, or for a tuple its fields taken apart (`GetItem`)
        now, so that no register holds a tuple past the instruction that made it."""
        if not isinstance(sinfo, TupleStructInfo):
            return reg
        fields = []
        for k, field in enumerate(sinfo.fields):
            label = f"{name}[{k}]" if name else ""
            dst = self.new_reg(label)
            self.emit(GetItem(dst, reg, k))
            fields.append(self.explode(dst, field, label))
        return tuple(fields)

    def slot_text(self, slot: Slot) -> str:
        """`slot` written with its registers' names (for errors that name a tuple that has no instruction)."""
        if isinstance(slot, int):
            return f"r{slot}:{self.names[slot]}" if self.names[slot] else f"r{slot}"
        return "(" + ", ".join(self.slot_text(f) for f in slot) + ")"

    # -- bindings --------------------------------------------------------------
    def bind(self, var: Var, value: Expr) -> Slot:
        if isinstance(value, Var):
            src = self.slot(value, None)
            if isinstance(src, tuple):  # an alias of a tuple: the same fields
                self.check_flow(value.name, value.struct_info, var.struct_info, f"{var.name} = {self.slot_text(src)}")
                return src
            dst = self.new_reg(var.name)
            self.keep_layout(dst, src)
            move = Move(dst, src)
            self.check_flow(value.name, value.struct_info, var.struct_info, self.text(move))
            self.emit(move)
            return dst
        if isinstance(value, IRCall) and isinstance(value.op, Op) and value.op.name in _COPY_OPS:
            return self.copy(var, value)
        if isinstance(value, IRIf):
            return self.explode(self.branch(var, value), var.struct_info, var.name)
        if isinstance(value, Tuple | TupleGetItem):
            slot = self.slot(value, None)
            what = "a tuple field" if isinstance(value, Tuple) else f"field {value.index}"
            self.check_flow(what, value.struct_info, var.struct_info, f"{var.name} = {self.slot_text(slot)}")
            return slot
        dst = self.new_reg(var.name)
        # Only a constant takes its device from the variable; a tuple's fields may lie on several devices.
        device = self.result_device(var.struct_info) if isinstance(value, Constant) else None
        self.value(dst, value, device, var.struct_info)
        return self.explode(dst, var.struct_info, var.name)

    def value(self, dst: int, expr: Expr, device: int | None, sinfo: StructInfo | None = None) -> None:
        """Emit the instructions that compute `expr` (not a variable, tuple or tuple item) into register `dst`."""
        sinfo = expr.struct_info if sinfo is None else sinfo
        if isinstance(expr, IRCall):
            if isinstance(expr.op, GlobalVar):
                self.invoke(dst, expr, sinfo)
            elif expr.op.name in _COPY_OPS:
                raise CompileError(f"{self.where()}: R.{expr.op.name} must be bound to a variable of its own")
            else:
                self.call(dst, expr, expr.op, sinfo)
        elif isinstance(expr, Constant):
            own = self.result_device(expr.struct_info)
            where = own if own is not None else device
            if where is None and isinstance(sinfo, TensorStructInfo):
                raise UnplacedError(self.name, f"a constant in {self.origin.variable}", _location(expr.span))
            key = (id(expr), where)
            if key not in self.pooled:
                self.pooled[key] = self.constant(np.asarray(expr.data))
            self.emit(LoadConst(dst, self.pooled[key], where))
        elif isinstance(expr, ShapeExpr):
            if all(isinstance(d, int) for d in expr.values):
                self.emit(LoadConst(dst, self.constant(tuple(expr.values)), None))
            else:
                self.emit(MakeShape(dst, expr.values))
        elif isinstance(expr, PrimValue) and isinstance(expr.value, str):
            self.emit(MakePrim(dst, expr.value))
        elif isinstance(expr, PrimValue):
            self.emit(LoadConst(dst, self.constant(np.asarray(expr.value, dtype=expr.dtype or None)[()]), None))
        elif isinstance(expr, StringImm):
            self.emit(LoadConst(dst, self.constant(expr.value), None))
        elif isinstance(expr, IRIf):
            raise CompileError(f"{self.where()}: an If must be bound to a variable of its own")
        else:
            raise CompileError(f"{self.where()}: the runtime cannot execute a {type(expr).__name__} here")

    def constant(self, value: Any) -> int:
        self.constants.append(value)
        return len(self.constants) - 1

    def call(self, dst: int, expr: IRCall, op: Op, sinfo: StructInfo) -> None:
        """`expr`, a call of `op` (its callee), into register `dst`."""
        device = self.result_device(sinfo)
        if device is None:  # no tensor result (shape_of, ...): run where the tensor input lives
            device = self.result_device(TupleStructInfo([a.struct_info for a in expr.args]))
        args = [self.operand(a, device) for a in expr.args]
        attrs = dict(expr.attrs)
        arg_sinfo = [a.struct_info for a in expr.args]
        view = None
        if op.view_of is not None and op.view_of < len(args):
            view = view_result(op, arg_sinfo, attrs, self.strided.get(args[op.view_of]) is not True)
            if view is False:
                self.strided[dst] = True
        tensor_result = isinstance(sinfo, TensorStructInfo)
        instr = Call(op, device, args, dst, attrs, tensor_result, arg_sinfo, sinfo, view is not None)
        text = self.text(instr)
        if device is not None and op.device_rule == "same":
            for arg in expr.args:
                for path, leaf in tensor_leaves(arg.struct_info):
                    if leaf.vdevice is not None and leaf.vdevice.physical != self.vdevices[device].physical:
                        name = arg.name if isinstance(arg, Var) else "a constant"
                        field = "".join(f"[{i}]" for i in path)
                        raise self.mismatch(f"argument {name}{field}", device, self.dev(leaf.vdevice), text)
        self.emit(instr)

    def invoke(self, dst: int, expr: IRCall, sinfo: StructInfo) -> None:
        callee_name = expr.op.name
        if callee_name not in self.mod.functions:
            raise CompileError(f"{self.where()}: call to undefined function {callee_name!r}")
        callee = self.mod.functions[callee_name]
        args = []
        for arg, param in zip(expr.args, callee.params, strict=False):
            args.append(self.operand(arg, self.result_device(param.struct_info)))
        if len(args) != len(callee.params) or len(expr.args) != len(callee.params):
            raise CompileError(f"{self.where()}: {callee_name} takes {len(callee.params)} argument(s)")
        instr = Invoke(callee_name, args, dst)
        text = self.text(instr)
        for arg, param in zip(expr.args, callee.params, strict=True):
            what = f"argument {arg.name}" if isinstance(arg, Var) else f"the argument for {param.name}"
            self.check_flow(what + f" of {callee_name}", arg.struct_info, param.struct_info, text)
        self.check_flow(f"the result of {callee_name}", callee.ret_struct_info, sinfo, text)
        self.emit(instr)

    def copy(self, var: Var, value: IRCall) -> int:
        """``to_vdevice`` / ``hint_on_device``: a copy between physical devices, else a move."""
        (data,) = value.args
        src = self.operand(data, None)
        dst = self.new_reg(var.name)
        self.keep_layout(dst, src)  # a value keeps its layout through copies, as the task graph's roots do
        src_sinfo, dst_sinfo = data.struct_info, var.struct_info
        if not isinstance(src_sinfo, TensorStructInfo) or not isinstance(dst_sinfo, TensorStructInfo):
            raise CompileError(f"{self.where()}: R.{value.op.name} needs a tensor, got {src_sinfo!r}")
        src_vdevice, dst_vdevice = src_sinfo.vdevice, dst_sinfo.vdevice
        assert src_vdevice is not None and dst_vdevice is not None, "every binding was checked placed before"
        src_dev, dst_dev = self.dev(src_vdevice), self.dev(dst_vdevice)
        if self.vdevices[src_dev].physical == self.vdevices[dst_dev].physical:
            self.emit(Move(dst, src))
            return dst
        shape = dst_sinfo.static_shape
        dtype = dst_sinfo.dtype
        if shape is None or not dtype:
            self.emit(AllocTensor(dst, dst_dev, None, dtype, like=src))
        else:
            self.emit(AllocTensor(dst, dst_dev, shape, dtype))
        self.emit(DeviceCopy(src, dst, src_dev, dst_dev))
        return dst

    def branch(self, var: Var, value: IRIf) -> int:
        cond = self.operand(value.cond, None)
        dst = self.new_reg(var.name)
        origin = self.origin
        jump = self.emit(If(cond))
        for seq, label in ((value.true_branch, "then"), (value.false_branch, "else")):
            if label == "else":
                jump.else_target = len(self.code)
            result = self.seq(seq)
            self.origin = origin
            move = Move(dst, result)
            self.check_flow(f"the {label} branch's result", seq.struct_info, var.struct_info, self.text(move))
            self.emit(move)
            if label == "then":
                goto = self.emit(Goto())
        goto.target = len(self.code)
        return dst
