"""``R.match_cast(value, R.Tensor((2, n), "int64"))``: a tensor seen with the shape it turns out to have.

TVM's ONNX frontend prints it after an op whose result shape depends on the
data (``R.nonzero``, ``R.unique``): the annotation names a symbol (``n``,
declared ``n = T.int64()`` in the function) that the run binds from the
tensor's actual shape, and the ops after it use.  The result is the value
itself, on its device (device rule ``same``).

Inference checks what can be checked before the run (the dtype, the rank,
dims both sides give as ints); the run checks the rest and binds each bare
symbol not bound yet (`runtime.call_steps`; the reference interpreter
alike).  Only tensors: a shape value (``R.Shape([a, b])``, what
``vm.builtin.tensor_to_shape`` gives) is not read.  ``struct_info=`` (TVM
before 0.27) is read as ``ty=``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import InferenceError
from ..op import OUT_TY, TENSOR, Param, Work, register_op
from ..struct_info import StructInfo, TensorStructInfo


def _infer(sinfos: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    value, ty = sinfos[0], attrs["ty"]
    if not isinstance(value, TensorStructInfo):
        raise InferenceError(f"R.match_cast: the value must be a tensor, got {value!r}")
    if not isinstance(ty, TensorStructInfo):
        raise InferenceError(f"R.match_cast: only a tensor annotation is read, got {ty!r}")
    if ty.vdevice is not None:
        raise InferenceError("R.match_cast: the annotation names no vdevice; annotate the binding to place it")
    if value.dtype and ty.dtype and value.dtype != ty.dtype:
        raise InferenceError(f"R.match_cast: the value is {value.dtype}, the annotation {ty.dtype}")
    if value.ndim >= 0 and ty.ndim >= 0 and value.ndim != ty.ndim:
        raise InferenceError(f"R.match_cast: the value has rank {value.ndim}, the annotation {ty.ndim}")
    if value.shape is not None and ty.shape is not None:
        for axis, (a, b) in enumerate(zip(value.shape, ty.shape, strict=True)):
            if type(a) is int and type(b) is int and a != b:
                raise InferenceError(f"R.match_cast: axis {axis} has length {a}, the annotation {b}")
    return ty


def match_dims(ty: TensorStructInfo, shape: tuple[int, ...], env: dict[str, int], evaluate: Any) -> None:
    """Check `shape` against `ty`'s dims, binding each bare symbol not in `env` yet; ValueError on a mismatch.

    `evaluate(dim, env)` gives a symbolic dim's value (``runtime.shapes.evaluate``).
    """
    if ty.ndim >= 0 and len(shape) != ty.ndim:
        raise ValueError(f"R.match_cast: the value has rank {len(shape)}, the annotation {ty.ndim}")
    for axis, (dim, length) in enumerate(zip(ty.shape or (), shape, strict=False)):
        if type(dim) is str and dim.isidentifier() and dim not in env:
            env[dim] = int(length)
            continue
        want = dim if type(dim) is int else evaluate(dim, env)
        if want != length:
            raise ValueError(f"R.match_cast: axis {axis} has length {length}, the annotation says {dim} = {want}")


def _kernel(value: Any, *, ty: StructInfo) -> Any:
    return value  # the run binds and checks the dims where it runs the call (`runtime.call_steps`)


register_op(
    "match_cast",
    [Param("value", TENSOR), Param("ty", OUT_TY)],
    _infer,
    _kernel,
    work=lambda args, out: Work(0.0, 0.0, 0.0),
    doc="the value, seen with the shape it has at run time (binds the annotation's symbols)",
)
