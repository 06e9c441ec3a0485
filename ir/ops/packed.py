"""``R.call_packed(func, *args, ty_args=...)``: the few TVM packed functions frontends and LegalizeOps print.

Of TVM's packed functions only these are read (any other is an inference
error naming it):

* ``vm.builtin.tensor_to_shape`` (TVM's ONNX frontend, where a shape is an
  input: Reshape or Expand with a shape tensor, followed by
  ``R.match_cast(lv, R.Shape([a, b]))`` naming the dims): the int64 values of
  a 1-d integer tensor, as a shape value.
* ``relax.run.assert_op`` and ``relax.run.print`` (what LegalizeOps makes of
  ``R.assert_op`` and ``R.print``): ``(condition, format, *values)`` and
  ``(format, *values)``, the format an ``R.str``; they run as those ops do and
  give ``R.Tuple()``.

The device rule is ``host``: a shape lives with the host, and every argument
is read where it is.  ``sinfo_args=`` (TVM before 0.27) is read as
``ty_args=``.  The op is pure here (reading a shape has no effect), so a
shape may be read in a dataflow block, where TVM's frontend puts it; TVM
0.27's own parser calls every packed call impure and refuses that printout.
An assert or print is impure, as TVM has it: a bare statement in a
``pure=False`` function (as LegalizeOps writes it), never in a dataflow block
(`parser.purity`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, OUT_TY, VARIADIC, Param, Work, data_bytes, register_op
from ..struct_info import ObjectStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo
from .effects import VOID, check_condition, run_assert, run_print

_TENSOR_TO_SHAPE = "vm.builtin.tensor_to_shape"
_ASSERT = "relax.run.assert_op"
_PRINT = "relax.run.print"
# Packed functions run for their effect: impure calls, where TVM allows them (`parser.purity`).
EFFECTS = frozenset({_ASSERT, _PRINT})


def _infer_tensor_to_shape(args: Sequence[StructInfo], ty: StructInfo | None) -> StructInfo:
    if len(args) != 1 or not isinstance(args[0], TensorStructInfo) or args[0].ndim not in (-1, 1):
        raise InferenceError(f"R.call_packed: {_TENSOR_TO_SHAPE} takes one 1-d tensor, got {list(args)!r}")
    if args[0].dtype and not args[0].dtype.startswith(("int", "uint")):
        raise InferenceError(f"R.call_packed: {_TENSOR_TO_SHAPE} takes an integer tensor, got {args[0].dtype}")
    length = args[0].shape[0] if args[0].shape is not None and type(args[0].shape[0]) is int else -1
    if ty is None:
        return ShapeStructInfo(None, length)
    if not isinstance(ty, ShapeStructInfo) or (length >= 0 and ty.ndim >= 0 and ty.ndim != length):
        raise InferenceError(f"R.call_packed: {_TENSOR_TO_SHAPE} gives a shape of {length} dims, ty_args says {ty!r}")
    return ty


def _void_result(func: str, ty: StructInfo | None) -> StructInfo:
    if ty is not None and ty != VOID:
        raise InferenceError(f"R.call_packed: {func} gives R.Tuple(), ty_args says {ty!r}")
    return VOID


def _format_arg(func: str, arg: StructInfo) -> None:
    if not isinstance(arg, ObjectStructInfo):
        raise InferenceError(f'R.call_packed: {func} takes its format as an R.str("..."), got {arg!r}')


def _infer_assert(args: Sequence[StructInfo], ty: StructInfo | None) -> StructInfo:
    if len(args) < 2:
        raise InferenceError(f"R.call_packed: {_ASSERT} takes a condition and a format, got {len(args)} arguments")
    check_condition(args[0], f"R.call_packed: {_ASSERT}")
    _format_arg(_ASSERT, args[1])
    return _void_result(_ASSERT, ty)


def _infer_print(args: Sequence[StructInfo], ty: StructInfo | None) -> StructInfo:
    if not args:
        raise InferenceError(f"R.call_packed: {_PRINT} takes a format first, got no arguments")
    _format_arg(_PRINT, args[0])
    return _void_result(_PRINT, ty)


_INFER: dict[str, Callable[[Sequence[StructInfo], StructInfo | None], StructInfo]] = {
    _TENSOR_TO_SHAPE: _infer_tensor_to_shape,
    _ASSERT: _infer_assert,
    _PRINT: _infer_print,
}


def _infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    func = attrs["func"]
    infer = _INFER.get(func)
    if infer is None:
        known = ", ".join(repr(f) for f in _INFER)
        raise InferenceError(f"R.call_packed: only the packed functions {known} are read, got {func!r}")
    return infer(args, attrs["ty_args"])


def _kernel(*args: Any, func: str, ty_args: StructInfo | None) -> Any:
    if func == _ASSERT:
        return run_assert(args[0], *args[2:], format=str(args[1]))
    if func == _PRINT:
        return run_print(*args[1:], format=str(args[0]))
    return tuple(int(v) for v in np.asarray(args[0]).reshape(-1))


register_op(
    "call_packed",
    [Param("func", ATTR), Param("args", VARIADIC), Param("ty_args", OUT_TY, None)],
    _infer,
    _kernel,
    device_rule="host",
    work=lambda args, out: Work(0.0, data_bytes(args), 0.0),
    doc="vm.builtin.tensor_to_shape, relax.run.assert_op and relax.run.print",
)
