"""Reductions ``R.sum``, ``R.mean``, ``R.max`` (``x, axis=None, keepdims=False``).

`axis` is None (reduce everything), an int or a list of ints.  The result
keeps the input's dtype, as in TVM: an integer mean truncates, an int8 sum
wraps.  Half-precision sums accumulate in float32.  The torch kernels fall
back to NumPy for an integer mean (torch has none) and for ``axis=()``
(NumPy reduces nothing there, torch everything).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, Fallback, Param, TorchContext, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo
from .common import as_bool, as_ints, normalize_axes
from .special import work_dtype


def _axes(op: str, axis: Any, ndim: int) -> tuple[int, ...] | None:
    """The reduced axes, normalized; None means all of them."""
    if axis is None:
        return None
    return normalize_axes(op, as_ints(op, "axis", axis), ndim)


def _reduce_infer(op: str):
    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        x = expect_tensor(op, args, 0)
        keepdims = as_bool(op, "keepdims", attrs["keepdims"])
        axes = _axes(op, attrs["axis"], x.ndim)
        if x.ndim < 0:
            if axes is None and not keepdims:
                return TensorStructInfo((), x.dtype)
            return TensorStructInfo(None, x.dtype, -1)
        reduced = set(range(x.ndim) if axes is None else axes)
        if x.shape is None:
            return TensorStructInfo(None, x.dtype, x.ndim if keepdims else x.ndim - len(reduced))
        if op == "max" and any(x.shape[a] == 0 for a in reduced):
            raise InferenceError(f"R.{op}: the maximum over an empty axis of shape {x.shape} is undefined")
        if keepdims:
            shape = tuple(1 if i in reduced else d for i, d in enumerate(x.shape))
        else:
            shape = tuple(d for i, d in enumerate(x.shape) if i not in reduced)
        return TensorStructInfo(shape, x.dtype)

    return infer


def _reduce_kernel(op: str, fn: Callable[..., Any], accumulates: bool):
    def kernel(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
        axes = None if axis is None else tuple(a % max(x.ndim, 1) for a in as_ints(op, "axis", axis))
        extra = {"dtype": work_dtype(x.dtype)} if accumulates and x.dtype.kind == "f" else {}
        return np.asarray(fn(x, axis=axes, keepdims=keepdims, **extra)).astype(x.dtype, copy=False)

    return kernel


def _torch_axes(axis: Any, ndim: int) -> tuple[int, ...] | None:
    if axis is None:
        return None
    axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    if not axes:
        raise Fallback  # NumPy reduces nothing over axis=(); torch would reduce everything
    return tuple(int(a) % max(ndim, 1) for a in axes)


def _torch_reduce(name: str, floats_only: bool):
    """``torch.<name>`` over the axes, keepdims restored, the input's dtype kept."""

    def kernel(t: TorchContext, x: Any, axis: Any, keepdims: bool) -> Any:
        if floats_only and not x.is_floating_point():
            raise Fallback
        fn = getattr(t.torch, name)
        axes = _torch_axes(axis, x.dim())
        out = fn(x) if axes is None else fn(x, dim=axes)
        if keepdims:
            if axes is None:
                out = out.reshape((1,) * x.dim())
            else:
                for a in sorted(axes):
                    out = out.unsqueeze(a)
        return out.to(x.dtype)

    return kernel


def _reduce_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """One FLOP per input element; the input read once, the result written once."""
    return Work(elements(args[0]), data_bytes(args), data_bytes((out,)))


# name, NumPy function, accumulates (float16 sums in float32), torch function, torch needs floats
_REDUCTIONS = (
    ("sum", np.sum, True, "sum", False),
    ("mean", np.mean, True, "mean", True),
    ("max", np.max, False, "amax", False),
)

for _name, _fn, _accumulates, _torch_name, _torch_floats in _REDUCTIONS:
    register_op(
        _name,
        [Param("x"), Param("axis", ATTR, None), Param("keepdims", ATTR, False)],
        _reduce_infer(_name),
        _reduce_kernel(_name, _fn, _accumulates),
        torch_kernel=_torch_reduce(_torch_name, _torch_floats),
        work=_reduce_work,
        doc=f"Reduce with {_name} over `axis` (all axes when None).",
    )
