"""``R.call_packed("vm.builtin.tensor_to_shape", s, ty_args=R.Shape(ndim=2))``: a shape read from a tensor.

TVM's ONNX frontend prints it where a shape is an input (Reshape or Expand
with a shape tensor), followed by ``R.match_cast(lv, R.Shape([a, b]))``
naming the dims, which the ops after it use.  Of TVM's packed functions only
this one is read (any other is an inference error naming it): the int64
values of a 1-d integer tensor, as a shape value.  Its device rule is
``host``: a shape lives with the host, the tensor is read where it is.
``sinfo_args=`` (TVM before 0.27) is read as ``ty_args=``.  It is pure here
(reading a shape has no effect), so it may sit in a dataflow block, where
TVM's frontend puts it; TVM 0.27's own parser calls every packed call impure
and refuses that printout.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, OUT_TY, VARIADIC, Param, Work, data_bytes, register_op
from ..struct_info import ShapeStructInfo, StructInfo, TensorStructInfo

_TENSOR_TO_SHAPE = "vm.builtin.tensor_to_shape"


def _infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    func, ty = attrs["func"], attrs["ty_args"]
    if func != _TENSOR_TO_SHAPE:
        raise InferenceError(f"R.call_packed: only {_TENSOR_TO_SHAPE!r} is read (a shape from a tensor), got {func!r}")
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


def _kernel(*args: Any, func: str, ty_args: StructInfo | None) -> tuple[int, ...]:
    return tuple(int(v) for v in np.asarray(args[0]).reshape(-1))


register_op(
    "call_packed",
    [Param("func", ATTR), Param("args", VARIADIC), Param("ty_args", OUT_TY, None)],
    _infer,
    _kernel,
    device_rule="host",
    work=lambda args, out: Work(0.0, data_bytes(args), 0.0),
    doc="vm.builtin.tensor_to_shape only: a 1-d integer tensor's values as a shape",
)
