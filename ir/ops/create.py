"""Creation ops ``R.zeros``, ``R.ones``, ``R.full`` and the shape query ``R.shape_of``.

zeros/ones take no tensor argument, so the ``same`` rule leaves their device
to annotations and placement.  full's `fill_value` is a 0-d tensor
expression (``R.const(1.0, "float32")``), so the result shares its device.
shape_of returns a shape value: shapes carry no device.  full has no torch
kernel (a torch device runs it on the host and uploads the result).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dtype import to_numpy, torch_dtype
from ..errors import InferenceError
from ..op import ATTR, SHAPE, Param, TorchContext, Work, data_bytes, expect_tensor, register_op
from ..struct_info import Dim, ShapeStructInfo, StructInfo, TensorStructInfo
from .common import as_dtype, as_shape, concrete_shape, no_work, optional_dtype


def _new_shape(op: str, value: Any) -> tuple[Dim, ...]:
    shape = as_shape(op, "shape", value)
    if any(isinstance(d, int) and d < 0 for d in shape):
        raise InferenceError(f"R.{op}: shape {shape} has a negative dim")
    return shape


def _constant_infer(op: str):
    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        return TensorStructInfo(_new_shape(op, attrs["shape"]), as_dtype(op, "dtype", attrs["dtype"]))

    return infer


def _constant_kernel(op: str, fill: int):
    def kernel(shape: Sequence[Dim], dtype: str) -> np.ndarray:
        return np.full(concrete_shape(op, shape), fill, dtype=to_numpy(dtype))

    return kernel


def _torch_constant_kernel(fill: int):
    def kernel(t: TorchContext, shape: Sequence[Dim], dtype: str) -> Any:
        return t.torch.full(tuple(int(d) for d in shape), fill, dtype=torch_dtype(t.torch, dtype), device=t.device)

    return kernel


def _fill_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """No arithmetic; the result written once (and a fill value read)."""
    return Work(0.0, data_bytes(args), data_bytes((out,)))


for _name, _fill in (("zeros", 0), ("ones", 1)):
    register_op(
        _name,
        [Param("shape", SHAPE), Param("dtype", ATTR)],
        _constant_infer(_name),
        _constant_kernel(_name, _fill),
        torch_kernel=_torch_constant_kernel(_fill),
        work=_fill_work,
        doc=f"A new tensor of `shape` filled with {_fill}.",
    )


def _infer_full(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    fill = expect_tensor("full", args, 0)
    if fill.ndim > 0:
        raise InferenceError(f"R.full: fill_value must be a scalar (rank 0) tensor, got shape {fill.shape}")
    dtype = optional_dtype("full", "dtype", attrs["dtype"]) or fill.dtype
    return TensorStructInfo(_new_shape("full", attrs["shape"]), dtype)


def _full(fill_value: np.ndarray, shape: Sequence[Dim], dtype: str | None) -> np.ndarray:
    np_dtype = to_numpy(dtype) if optional_dtype("full", "dtype", dtype) else fill_value.dtype
    return np.full(concrete_shape("full", shape), fill_value, dtype=np_dtype)


register_op(
    "full",
    [Param("shape", SHAPE), Param("fill_value"), Param("dtype", ATTR, None)],
    _infer_full,
    _full,
    work=_fill_work,
    doc="A new tensor of `shape` filled with the 0-d tensor `fill_value` (converted to `dtype`).",
)


def _infer_shape_of(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    x = expect_tensor("shape_of", args, 0)
    return ShapeStructInfo(x.shape, x.ndim)


register_op(
    "shape_of",
    [Param("expr")],
    _infer_shape_of,
    lambda expr: tuple(int(d) for d in expr.shape),
    torch_kernel=lambda t, expr: tuple(int(d) for d in expr.shape),
    work=no_work,
    doc="The shape of a tensor, as a shape value.",
)
