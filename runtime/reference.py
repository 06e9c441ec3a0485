"""A plain NumPy interpreter of a module, devices ignored: the oracle the VM is tested against.

It walks the IR directly (no compilation, no registers, no device checks),
so a bug in the compiler or the VM cannot hide in it.  ``to_vdevice`` and
``hint_on_device`` are identities here, as they are on the data.

Being a tree walk on Python's stack, it nests at most `MAX_CALL_DEPTH` calls
of module functions (the VM, whose callers wait on the heap, allows far
more); past that it raises `CallDepthError` naming the head of the chain.

`observe`, when given, sees every op call the run makes, just before its
kernel runs: ``observe(call, args, attrs)`` with the `Call` as written, the
argument values and the attributes with their symbolic dims resolved
(calibration times kernels on these values: `vdplace.calibration`).  The
device ops and ``match_cast`` run no kernel and are not shown.  It must not
write the arrays it is given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vdplace.ir.bind_constants import ConstantValues, bind_constants, missing_constants
from vdplace.ir.dtype import to_numpy
from vdplace.ir.expr import (
    Call,
    Constant,
    Expr,
    GlobalVar,
    If,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    StringImm,
    Tuple,
    TupleGetItem,
    Var,
)
from vdplace.ir.module import IRModule
from vdplace.ir.op import Op
from vdplace.ir.ops.match_cast import match_dims
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo

from . import shapes
from .callstack import call_depth_error
from .errors import InputError, MissingConstantError, VMError
from .float_errors import kernels_quiet

# Nested calls the reference interpreter allows: each takes a few Python frames per call and per
# expression level, so this stays far below Python's recursion limit.
MAX_CALL_DEPTH = 100

Observer = Callable[[Call, list[Any], dict[str, Any]], None]


def run_reference(
    mod: IRModule,
    entry: str = "main",
    *args: Any,
    params: ConstantValues | None = None,
    observe: Observer | None = None,
) -> Any:
    """Evaluate `entry` on NumPy `args`; tensors come back as NumPy arrays, tuples as tuples.

    `params` gives the values of the constants the text only references, as
    for `compile`; a constant without a value is a `MissingConstantError`.
    `observe` sees every op call (module docstring).
    """
    if params is not None:
        mod = bind_constants(mod, params)
    missing = missing_constants(mod)
    if missing:
        raise MissingConstantError([(repr(r), s.location() if s else None) for r, s in missing])
    if entry not in mod.functions:
        raise VMError(f"no function {entry!r} in the module; it has {', '.join(mod.functions) or 'none'}")
    entry_params = mod[entry].params
    if len(args) != len(entry_params):
        raise InputError(f"{entry} takes {len(entry_params)} argument(s), got {len(args)}")
    values = [_as_input(p.struct_info, a) for p, a in zip(entry_params, args, strict=True)]
    with kernels_quiet():
        return _Interpreter(mod, observe).call(entry, values, None)


def _as_input(sinfo: StructInfo, value: Any) -> Any:
    if isinstance(sinfo, TupleStructInfo):
        return tuple(_as_input(s, v) for s, v in zip(sinfo.fields, value, strict=False))
    if isinstance(sinfo, TensorStructInfo):
        if isinstance(value, np.ndarray) or not sinfo.dtype:
            return np.asarray(value)
        return np.asarray(value, dtype=to_numpy(sinfo.dtype))
    return value


class _Interpreter:
    def __init__(self, mod: IRModule, observe: Observer | None = None) -> None:
        self.mod = mod
        self.observe = observe
        self.chain: list[str] = []  # the functions being evaluated, entry first
        self.lines: list[int | None] = []  # where each of them makes the call it waits on

    def call(self, name: str, args: list[Any], line: int | None) -> Any:
        if self.chain:
            self.lines.append(line)
        if len(self.chain) > MAX_CALL_DEPTH:
            raise call_depth_error([*self.chain, name], self.lines, MAX_CALL_DEPTH)
        self.chain.append(name)
        try:
            return self._body(name, args)
        finally:
            self.chain.pop()
            if self.lines:
                self.lines.pop()

    def _body(self, name: str, args: list[Any]) -> Any:
        func = self.mod[name]
        if len(args) != len(func.params):
            raise InputError(f"{name} takes {len(func.params)} argument(s), got {len(args)}")
        env: dict[Var, Any] = dict(zip(func.params, args, strict=False))
        dims: dict[str, int] = {}
        for param, value in zip(func.params, args, strict=False):
            self.bind_dims(param.struct_info, value, dims)
        return self.seq(func.body, env, dims)

    def bind_dims(self, sinfo: StructInfo, value: Any, dims: dict[str, int]) -> None:
        if isinstance(sinfo, TupleStructInfo):
            for s, v in zip(sinfo.fields, value, strict=False):
                self.bind_dims(s, v, dims)
        elif isinstance(sinfo, TensorStructInfo) and sinfo.shape is not None:
            for axis, d in enumerate(sinfo.shape):
                if shapes.is_name(d) and d not in dims:
                    dims[d] = int(np.shape(value)[axis])

    def seq(self, seq: SeqExpr, env: dict[Var, Any], dims: dict[str, int]) -> Any:
        for block in seq.blocks:
            for binding in block.bindings:
                env[binding.var] = self.eval(binding.value, env, dims)
        return self.eval(seq.body, env, dims)

    def eval(self, expr: Expr, env: dict[Var, Any], dims: dict[str, int]) -> Any:
        if isinstance(expr, Var):
            return env[expr]
        if isinstance(expr, Constant):
            return np.asarray(expr.data)
        if isinstance(expr, Tuple):
            return tuple(self.eval(f, env, dims) for f in expr.fields)
        if isinstance(expr, TupleGetItem):
            return self.eval(expr.tuple_value, env, dims)[expr.index]
        if isinstance(expr, ShapeExpr):
            return tuple(shapes.evaluate(d, dims) for d in expr.values)
        if isinstance(expr, PrimValue) and isinstance(expr.value, str):
            return np.int64(shapes.evaluate(expr.value, dims))
        if isinstance(expr, PrimValue):
            return np.asarray(expr.value, dtype=expr.dtype or None)[()]
        if isinstance(expr, StringImm):
            return expr.value
        if isinstance(expr, If):
            branch = expr.true_branch if bool(np.asarray(self.eval(expr.cond, env, dims))) else expr.false_branch
            return self.seq(branch, env, dims)
        if isinstance(expr, Call):
            args = [self.eval(a, env, dims) for a in expr.args]
            if isinstance(expr.op, GlobalVar):
                return self.call(expr.op.name, args, None if expr.span is None else expr.span.line)
            return self.op(expr, args, dict(expr.attrs), dims)
        raise VMError(f"the reference interpreter cannot evaluate a {type(expr).__name__}")

    def op(self, call: Call, args: list[Any], attrs: dict[str, Any], dims: dict[str, int]) -> Any:
        op = call.op
        assert isinstance(op, Op), "a call of a module function is evaluated by `call`"
        if op.name in ("to_vdevice", "hint_on_device"):
            return args[0]
        if op.name == "match_cast":  # binds the annotation's new symbols, as the VM does
            value = args[0]
            match_dims(attrs["ty"], value if isinstance(value, tuple) else np.shape(value), dims, shapes.evaluate)
            return args[0]
        if op.kernel is None:
            raise VMError(f"R.{op.name} has no NumPy kernel")
        for name, value in shapes.symbolic_attrs(op, attrs).items():
            attrs[name] = shapes.resolve(value, dims)
        if self.observe is not None:
            self.observe(call, args, attrs)
        result = op.kernel(*args, **attrs)
        if isinstance(result, (list, tuple)):
            return tuple(np.asarray(r) if isinstance(r, np.generic) else r for r in result)
        return np.asarray(result) if isinstance(result, np.generic) else result
