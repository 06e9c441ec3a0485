"""``R.slice_scatter(input_tensor, src, start, end, step, axis=0)``: write `src` into a strided slice.

The result is `input_tensor` with the positions start, start + step, ... below
`end` along `axis` replaced by the slices of `src`, in order.  `start`, `end`
and `step` are prim values (the frontend prints bare integers); `axis` is an
attribute.  As in TVM: step must be at least 1 and start at most end; `src` has
`input_tensor`'s dtype and its shape except along `axis`, where it has
ceil((end - start) / step) entries.  Positions are taken as written, not
wrapped: a negative start or an end past the axis simply selects fewer
positions of the input (TVM writes only the positions inside the axis; the
entries of `src` they would have taken are skipped).  Work: no arithmetic, the
result's bytes read and written.  No torch kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, Param, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo
from .common import as_int, copy_work, expect_prim, normalize_axis, same_dtype

_OP = "slice_scatter"


def _int_prims(args: Sequence[StructInfo]) -> list[int | None]:
    """start, end and step as ints, None where only the run knows them."""
    values: list[int | None] = []
    for i, name in ((2, "start"), (3, "end"), (4, "step")):
        prim = expect_prim(_OP, name, args, i)
        if prim.dtype and not prim.dtype.startswith(("int", "uint")):
            raise InferenceError(f"R.{_OP}: {name} must be an integer prim value, got dtype {prim.dtype}")
        values.append(prim.value if isinstance(prim.value, int) and not isinstance(prim.value, bool) else None)
    return values


def _check_src_shape(data: TensorStructInfo, src: TensorStructInfo, axis: int, count: int | None) -> None:
    if data.ndim >= 0 and src.ndim >= 0 and data.ndim != src.ndim:
        raise InferenceError(f"R.{_OP}: src has rank {src.ndim}, input_tensor rank {data.ndim}")
    if data.shape is None or src.shape is None:
        return
    for i, (d, s) in enumerate(zip(data.shape, src.shape, strict=True)):
        if i != axis and isinstance(d, int) and isinstance(s, int) and d != s:
            raise InferenceError(
                f"R.{_OP}: src shape {src.shape} differs from input_tensor shape {data.shape} at axis {i}"
            )
    if count is not None and isinstance(src.shape[axis], int) and src.shape[axis] != count:
        raise InferenceError(f"R.{_OP}: src has {src.shape[axis]} entries along axis {axis}, the slice selects {count}")


def _infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    data = expect_tensor(_OP, args, 0)
    src = expect_tensor(_OP, args, 1)
    dtype = same_dtype(_OP, data, src)
    start, end, step = _int_prims(args)
    if step is not None and step < 1:
        raise InferenceError(f"R.{_OP}: step must be at least 1, got {step}")
    if start is not None and end is not None and start > end:
        raise InferenceError(f"R.{_OP}: start {start} is greater than end {end}")
    axis = as_int(_OP, "axis", attrs["axis"])
    ndim = data.ndim if data.ndim >= 0 else src.ndim
    if ndim >= 0:
        axis = normalize_axis(_OP, axis, ndim)
        count = -(-(end - start) // step) if start is not None and end is not None and step is not None else None
        _check_src_shape(data, src, axis, count)
    return TensorStructInfo(data.shape, dtype, ndim)


def _slice_scatter(input_tensor: np.ndarray, src: np.ndarray, start: Any, end: Any, step: Any, axis: int) -> np.ndarray:
    start, end, step = int(start), int(end), int(step)
    if step < 1 or start > end:
        raise ValueError(f"R.{_OP}: needs step >= 1 and start <= end, got start {start}, end {end}, step {step}")
    ax = axis % input_tensor.ndim
    positions = np.arange(max(start, 0), min(end, input_tensor.shape[ax]))
    positions = positions[(positions - start) % step == 0]
    out = np.array(input_tensor)
    taken = np.take(src, (positions - start) // step, axis=ax)
    index = [slice(None)] * out.ndim
    index[ax] = positions
    out[tuple(index)] = taken
    return out


register_op(
    _OP,
    [Param("input_tensor"), Param("src"), Param("start"), Param("end"), Param("step"), Param("axis", ATTR, 0)],
    _infer,
    _slice_scatter,
    work=copy_work,
    doc="input_tensor with the slice start:end:step along axis replaced by src.",
)
