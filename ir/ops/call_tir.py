"""``R.call_tir(cls.f, (x, y), out_ty=R.Tensor(...))``: run a TIR function (`vdplace.ir.tir`) on tensors.

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
from ..struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from ..tir import PrimFunc, run_prim_func
from ..tir.nodes import BinOp, Block, Cast, Expr, For, Intrin, Select, Seq, Stmt, Unary, operands


def _outputs(out_ty: StructInfo) -> list[TensorStructInfo]:
    fields = out_ty.fields if isinstance(out_ty, TupleStructInfo) else (out_ty,)
    return list(fields)  # type: ignore[arg-type]


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
            f"R.call_tir: TIR function {func.name!r} takes {len(func.params)} buffers, "
            f"the call gives {len(args)} arguments and {len(outs)} outputs"
        )
    for i, (sinfo, buffer) in enumerate(zip(args + outs, func.params, strict=True)):
        what = f"argument {i}" if i < len(args) else f"output {i - len(args)}"
        if not isinstance(sinfo, TensorStructInfo):
            raise InferenceError(f"R.call_tir: {what} must be a tensor, got {sinfo!r}")
        if i >= len(args) and sinfo.vdevice is not None:
            raise InferenceError("R.call_tir: out_ty names no vdevice; annotate the binding to place the result")
        shape_ok = sinfo.shape is None or tuple(sinfo.shape) == buffer.shape
        if i >= len(args):
            shape_ok = sinfo.shape is not None and tuple(sinfo.shape) == buffer.shape
        if not shape_ok or (sinfo.dtype and sinfo.dtype != buffer.dtype):
            raise InferenceError(
                f"R.call_tir: {what} is {sinfo!r}, but {func.name!r} takes buffer {buffer.name!r} "
                f"of shape {list(buffer.shape)} and dtype {buffer.dtype}"
            )
    return out_ty


def _kernel(args: Any, *, gvar: PrimFunc, out_ty: StructInfo) -> Any:
    inputs = list(args) if isinstance(args, (tuple, list)) else [args]
    arrays = [np.array(a, dtype=b.dtype, order="C") for a, b in zip(inputs, gvar.params, strict=False)]
    outs = [np.zeros(b.shape, b.dtype) for b in gvar.params[len(inputs) :]]
    run_prim_func(gvar, arrays + outs)
    return tuple(outs) if isinstance(out_ty, TupleStructInfo) else outs[0]


def _count(stmt: Stmt) -> float:
    """Arithmetic operations one run of `stmt` performs (loads and stores are bytes, not operations)."""
    t = type(stmt)
    if t is Seq:
        return sum(_count(s) for s in stmt.stmts)  # type: ignore[union-attr]
    if t is For:
        return float(np.prod(stmt.extents)) * _count(stmt.body)  # type: ignore[union-attr]
    if t is Block:
        return _count(stmt.body) + (_count(stmt.init) if stmt.init is not None else 0.0)  # type: ignore[union-attr]
    return float(max(1, _operations(stmt.value)))  # type: ignore[union-attr]


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
    _kernel,
    work=_work,
    doc="run a @T.prim_func on tensors, writing fresh outputs",
)
