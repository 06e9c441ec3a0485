"""``R.match_cast(value, R.Tensor((2, n), "int64"))``: a tensor seen with the shape it turns out to have.

TVM's ONNX frontend prints it after an op whose result shape depends on the
data (``R.nonzero``, ``R.unique``): the annotation names a symbol (``n``,
declared ``n = T.int64()`` in the function) that the run binds from the
tensor's actual shape, and the ops after it use.  The result is the value
itself, on its device (device rule ``same``).  A shape value read from a
tensor (``R.call_packed("vm.builtin.tensor_to_shape", ...)``) is named the
same way: ``R.match_cast(lv, R.Shape([a, b]))``.

Inference checks what can be checked before the run (the dtype, the rank,
dims both sides give as ints); the run checks the rest and binds each bare
symbol not bound yet (`runtime.call_steps`; the reference interpreter
alike).  ``struct_info=`` (TVM before 0.27) is read as ``ty=``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import InferenceError
from ..op import OUT_TY, TENSOR, Param, Work, register_op
from ..struct_info import Dim, ShapeStructInfo, StructInfo, TensorStructInfo


def _infer(sinfos: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    value, ty = sinfos[0], attrs["ty"]
    if isinstance(value, ShapeStructInfo) and isinstance(ty, ShapeStructInfo):  # a shape's values named
        if value.ndim >= 0 and ty.ndim >= 0 and value.ndim != ty.ndim:
            raise InferenceError(f"R.match_cast: the shape has {value.ndim} dims, the annotation {ty.ndim}")
        _check_dims(value.values, ty.values)
        return ty
    if not isinstance(value, TensorStructInfo):
        raise InferenceError(f"R.match_cast: the value must be a tensor or a shape, got {value!r}")
    if not isinstance(ty, TensorStructInfo):
        raise InferenceError(f"R.match_cast: a tensor's annotation must be a tensor, got {ty!r}")
    if ty.vdevice is not None:
        raise InferenceError("R.match_cast: the annotation names no vdevice; annotate the binding to place it")
    if value.dtype and ty.dtype and value.dtype != ty.dtype:
        raise InferenceError(f"R.match_cast: the value is {value.dtype}, the annotation {ty.dtype}")
    if value.ndim >= 0 and ty.ndim >= 0 and value.ndim != ty.ndim:
        raise InferenceError(f"R.match_cast: the value has rank {value.ndim}, the annotation {ty.ndim}")
    _check_dims(value.shape, ty.shape)
    return ty


def _check_dims(have: Sequence[int | str] | None, want: Sequence[int | str] | None) -> None:
    if have is not None and want is not None:
        for axis, (a, b) in enumerate(zip(have, want, strict=True)):
            if type(a) is int and type(b) is int and a != b:
                raise InferenceError(f"R.match_cast: axis {axis} has length {a}, the annotation {b}")


def match_dims(
    ty: TensorStructInfo | ShapeStructInfo,
    lengths: Sequence[int],
    env: dict[str, int],
    evaluate: Callable[[Dim, dict[str, int]], int],
) -> None:
    """Check `lengths` (a tensor's shape, or a shape value's dims) against `ty`'s dims, binding each bare
    symbol not in `env` yet; ValueError on a mismatch.  `evaluate(dim, env)` gives a symbolic dim's value
    (``runtime.shapes.evaluate``)."""
    dims = ty.shape if isinstance(ty, TensorStructInfo) else ty.values
    ndim = ty.ndim
    if ndim >= 0 and len(lengths) != ndim:
        raise ValueError(f"R.match_cast: the value has {len(lengths)} dims, the annotation {ndim}")
    for axis, (dim, length) in enumerate(zip(dims or (), lengths, strict=False)):
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
    view_of=0,
)
