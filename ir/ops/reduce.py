"""Reductions ``R.sum``, ``R.mean``, ``R.max`` (``x, axis=None, keepdims=False``).

`axis` is None (reduce everything), an int or a list of ints.  The result
keeps the input's dtype, as in TVM: an integer mean truncates, an int8 sum
wraps.  Half-precision sums accumulate in float32.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, Param, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo
from .common import as_bool, as_ints, known_size, normalize_axes
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


def _input_elements(args: Sequence[StructInfo], out: StructInfo) -> float:
    """A reduction touches every input element once."""
    x = args[0]
    return known_size(x.shape if isinstance(x, TensorStructInfo) else None)


for _name, _fn, _accumulates in (("sum", np.sum, True), ("mean", np.mean, True), ("max", np.max, False)):
    register_op(
        _name,
        [Param("x"), Param("axis", ATTR, None), Param("keepdims", ATTR, False)],
        _reduce_infer(_name),
        _reduce_kernel(_name, _fn, _accumulates),
        cost=_input_elements,
        doc=f"Reduce with {_name} over `axis` (all axes when None).",
    )
