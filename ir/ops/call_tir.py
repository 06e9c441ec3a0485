"""``R.call_tir(cls.f, (x, y), out_ty=R.Tensor(...))``: run a TIR function (`vdplace.ir.tir`) on tensors.

Its NumPy kernel is the runtime's TIR interpreter (`vdplace.runtime.tir`),
which gives it to the op (`op.provide_kernel`) when ``vdplace.runtime`` is
imported; registered here are its parameters, inference and work.

The call passes its tensor arguments and freshly allocated outputs (one per
struct info of ``out_ty``; a list of several gives a tuple result) to the
``@T.prim_func`` ``f`` of the module, which writes the outputs.  The
function is held in the call's ``gvar`` attribute, so placement, realization
and every pass see an ordinary call: arguments and results on one device
(TVM compiles the function for whichever device that is).

Inference checks what TVM leaves to run time: the function takes one buffer
per argument and output, each of the argument's (the output's) static
shape and dtype.  ``out_sinfo=`` (TVM before 0.27) is read as ``out_ty=``.
``out_ty`` carries no vdevice: the result's device is placement's to choose
(annotate the binding to pin it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import OUT_TY, PRIM_FUNC, TENSORS, Param, Work, data_bytes, register_op
from ..struct_info import PrimStructInfo, StructInfo, TensorStructInfo, TupleStructInfo
from ..tir import Buffer, PrimFunc
from ..tir.nodes import (
    Alloc,
    BinOp,
    Block,
    Cast,
    Expr,
    For,
    IfThenElse,
    Intrin,
    Scalar,
    Select,
    Seq,
    Stmt,
    Unary,
    While,
    operands,
)


def _outputs(out_ty: StructInfo) -> list[StructInfo]:
    """The output annotations, each to be checked as a tensor."""
    return list(out_ty.fields) if isinstance(out_ty, TupleStructInfo) else [out_ty]


def _arguments(args: StructInfo) -> list[StructInfo]:
    if isinstance(args, TupleStructInfo):
        return list(args.fields)
    if isinstance(args, TensorStructInfo):  # one tensor, as TVM's Python API takes it
        return [args]
    raise InferenceError(f"R.call_tir: args must be a tuple of tensors, got {args!r}")


def _infer(sinfos: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    func, out_ty = attrs["gvar"], attrs["out_ty"]
    if not isinstance(func, PrimFunc):
        raise InferenceError(f"R.call_tir: gvar must be a TIR function, got {func!r}")
    args, outs = _arguments(sinfos[0]), _outputs(out_ty)
    if len(func.params) != len(args) + len(outs):
        raise InferenceError(
            f"R.call_tir: TIR function {func.name!r} takes {len(func.params)} parameters, "
            f"the call gives {len(args)} arguments and {len(outs)} outputs"
        )
    for i, (sinfo, param) in enumerate(zip(args + outs, func.params, strict=True)):
        what = f"argument {i}" if i < len(args) else f"output {i - len(args)}"
        if isinstance(param, Scalar):
            if i >= len(args) or not isinstance(sinfo, PrimStructInfo) or not sinfo.dtype.startswith("int"):
                raise InferenceError(
                    f"R.call_tir: {what} must be an integer prim value for {param.name!r}, got {sinfo!r}"
                )
            continue
        if not isinstance(sinfo, TensorStructInfo):
            raise InferenceError(f"R.call_tir: {what} must be a tensor, got {sinfo!r}")
        if i >= len(args) and sinfo.vdevice is not None:
            raise InferenceError("R.call_tir: out_ty names no vdevice; annotate the binding to place the result")
        if not _fits(sinfo, param, output=i >= len(args)):
            dims = [d if type(d) is int else "?" for d in param.shape]
            raise InferenceError(
                f"R.call_tir: {what} is {sinfo!r}, but {func.name!r} takes buffer {param.name!r} "
                f"of shape {dims} and dtype {param.dtype}"
            )
    return out_ty


def _fits(sinfo: TensorStructInfo, buffer: Buffer, output: bool) -> bool:
    """Whether the tensor can be `buffer`: its dtype, its rank, and each dim both give as an int.

    A symbolic dim is checked when the call runs; an output's shape must be known.
    """
    if sinfo.dtype and sinfo.dtype != buffer.dtype:
        return False
    if sinfo.shape is None:
        return not output and sinfo.ndim in (-1, len(buffer.shape))
    if len(sinfo.shape) != len(buffer.shape):
        return False
    return all(
        type(a) is not int or type(b) is not int or a == b for a, b in zip(sinfo.shape, buffer.shape, strict=True)
    )


def _count(stmt: Stmt) -> float:
    """Arithmetic operations one run of `stmt` performs (loads and stores are bytes, not operations).

    What only the run decides counts as in `struct_info.nbytes`, as little as it can: a symbolic loop
    extent as 1, a ``while`` loop as one iteration; an ``if`` as its condition and its longer branch.
    """
    if isinstance(stmt, Seq):
        return sum((_count(s) for s in stmt.stmts), 0.0)
    if isinstance(stmt, For):
        trips = [e if type(e) is int else 1 for e in stmt.extents]
        return float(np.prod(trips)) * _count(stmt.body)
    if isinstance(stmt, Block):
        return _count(stmt.body) + (_count(stmt.init) if stmt.init is not None else 0.0)
    if isinstance(stmt, IfThenElse):
        otherwise = _count(stmt.otherwise) if stmt.otherwise is not None else 0.0
        return _operations(stmt.cond) + max(_count(stmt.then), otherwise)
    if isinstance(stmt, While):
        return _operations(stmt.cond) + _count(stmt.body)
    if isinstance(stmt, Alloc):
        return 0.0
    return float(max(1, _operations(stmt.value)))


def _operations(e: Expr) -> int:
    todo, count = [e], 0
    while todo:
        x = todo.pop()
        t = type(x)
        count += t is BinOp or t is Unary or t is Intrin or t is Select or t is Cast
        todo.extend(operands(x))
    return count


def _work(args: Sequence[StructInfo], out: StructInfo, attrs: dict[str, Any]) -> Work:
    return Work(_count(attrs["gvar"].body), data_bytes(args), data_bytes((out,)))


register_op(
    "call_tir",
    [Param("gvar", PRIM_FUNC), Param("args", TENSORS), Param("out_ty", OUT_TY)],
    _infer,
    None,  # the runtime's (see the module docstring)
    work=_work,
    doc="run a @T.prim_func on tensors, writing fresh outputs",
)
