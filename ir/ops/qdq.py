"""``R.quantize`` and ``R.dequantize``: TVM's QDQ ops, as its ONNX frontend emits QuantizeLinear/DequantizeLinear.

``R.quantize(data, scale, zero_point, axis=-1, out_dtype="int8")`` computes
``clip(round(data / scale) + zero_point, min, max)`` of `out_dtype`;
``R.dequantize(data, scale, zero_point, axis=-1, out_dtype="float32")``
computes ``(data - zero_point) * scale``.  TVM prints both with keywords
(``out_dtype="uint8", axis=1``); the parameters are in the order of TVM's
Python functions, so a positional call binds as it does in TVM.

`scale` and `zero_point` are each a scalar (rank 0), a 1-element vector (both
apply to every element) or a vector as long as `data`'s dimension `axis`
(per-axis: entry ``i`` applies to the slice ``i`` along `axis`).  The
lengths must match exactly (a symbolic length only the same symbolic dim),
as TVM's inference requires; a tensor of rank >= 2 is refused.  `axis` lies
in ``[-ndim, ndim)`` (``-1`` or ``0`` for rank-0 data).

Dtypes, as TVM 0.27 accepts them: `scale` float16/float32; `zero_point`
int8/uint8/int16/uint16/int32/uint32/float16.  quantize: `data`
float16/float32, `out_dtype` int8/uint8/int16/uint16 (TVM's float8 outputs
are refused: vdplace has no float8 dtype; uint16 from float16 data and scale
is refused too: TVM cannot build it).  dequantize: `data`
int8/uint8/int16/uint16/int32/float16/float32, `out_dtype` float32/float16.

Numerics, checked against TVM 0.27's legalization run on LLVM (and against
onnxruntime for ONNX models): quantize divides in the wider of the data's and
the scale's dtypes (float16 only when both are), rounds half to even, adds the
zero point converted to that dtype, clips to the range of `out_dtype`
converted to that dtype (NaN gives the upper bound) and truncates toward zero.
In float16 the int16 bound 32767 becomes 32768, which wraps to -32768 as in
TVM.  dequantize subtracts in int32 for integer data (wrapping; in uint32
for signed data with a uint32 zero point, exactly for unsigned data with one;
in float16 with a float16 zero point) or in float32 for float data, then
multiplies by the scale in float32; a float16 result is clipped to +-65504
first (NaN gives 65504).

Work: 4 FLOPs per element for quantize (divide, round, add, clip), 2 for
dequantize.  No torch kernels: a torch device runs them on the host.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, Param, elementwise_work, expect_tensor, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo
from .common import as_int

SCALE_DTYPES = ("float16", "float32")
ZERO_POINT_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "float16")
QUANTIZE_DATA = ("float16", "float32")
QUANTIZE_OUT = ("int8", "uint8", "int16", "uint16")
DEQUANTIZE_DATA = ("int8", "uint8", "int16", "uint16", "int32", "float16", "float32")
DEQUANTIZE_OUT = ("float32", "float16")
_FLOAT16_MAX = 65504.0


def _one_of(op: str, what: str, dtype: str, allowed: Sequence[str]) -> None:
    """`InferenceError` unless `dtype` (when known) is one of `allowed`."""
    if dtype and dtype not in allowed:
        raise InferenceError(f"R.{op}: {what} must be one of {', '.join(allowed)}; got {dtype}")


def _out_dtype(op: str, value: Any, allowed: Sequence[str]) -> str:
    """The `out_dtype` attribute, checked against the dtypes `op` produces."""
    if not isinstance(value, str) or value not in allowed:
        extra = "; vdplace has no float8 dtypes" if isinstance(value, str) and value.startswith("float8") else ""
        raise InferenceError(f"R.{op}: out_dtype must be one of {', '.join(allowed)}; got {value!r}{extra}")
    return value


def _axis(op: str, value: Any, ndim: int) -> int | None:
    """`axis` normalized to ``[0, ndim)``; None when the rank is unknown or 0 (no axis to index)."""
    axis = as_int(op, "axis", value)
    if ndim < 0:
        return None
    if ndim == 0:
        if axis not in (-1, 0):
            raise InferenceError(f"R.{op}: axis {axis} is out of range for rank-0 data (use -1 or 0)")
        return None
    if not -ndim <= axis < ndim:
        raise InferenceError(f"R.{op}: axis {axis} is out of range for data of rank {ndim} (use -{ndim}..{ndim - 1})")
    return axis % ndim


def _check_param(op: str, name: str, p: TensorStructInfo, data: TensorStructInfo, axis: int | None) -> None:
    """`scale` / `zero_point`: rank 0, length 1, or as long as the data along `axis`."""
    if p.ndim > 1:
        raise InferenceError(f"R.{op}: {name} must be a scalar or a 1-D tensor, got rank {p.ndim} (shape {p.shape})")
    if p.ndim == 0 and data.ndim == 0:
        return
    if p.shape is None or p.ndim == 0 or p.shape[0] == 1:
        return
    if data.ndim == 0:
        raise InferenceError(f"R.{op}: {name} of shape {p.shape} does not fit rank-0 data; it must have 1 entry")
    if data.shape is None or axis is None:
        return
    want: Dim = data.shape[axis]
    if p.shape[0] != want:
        raise InferenceError(
            f"R.{op}: {name} has {p.shape[0]} entries but data has {want} along axis {axis} "
            f"(shape {data.shape}); it must be a scalar, or have 1 or {want} entries"
        )


def _infer_qdq(
    op: str, data_dtypes: Sequence[str], out_dtypes: Sequence[str], args: Sequence[StructInfo], attrs: dict[str, Any]
) -> TensorStructInfo:
    """What the two ops share: the checks of the arguments, and a result of the data's shape in `out_dtype`."""
    data = expect_tensor(op, args, 0)
    scale = expect_tensor(op, args, 1)
    zero_point = expect_tensor(op, args, 2)
    out_dtype = _out_dtype(op, attrs["out_dtype"], out_dtypes)
    _one_of(op, "data's dtype", data.dtype, data_dtypes)
    _one_of(op, "scale's dtype", scale.dtype, SCALE_DTYPES)
    _one_of(op, "zero_point's dtype", zero_point.dtype, ZERO_POINT_DTYPES)
    axis = _axis(op, attrs["axis"], data.ndim)
    _check_param(op, "scale", scale, data, axis)
    _check_param(op, "zero_point", zero_point, data, axis)
    return TensorStructInfo(data.shape, out_dtype, data.ndim)


def _infer_quantize(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    out = _infer_qdq("quantize", QUANTIZE_DATA, QUANTIZE_OUT, args, attrs)
    data, scale = expect_tensor("quantize", args, 0), expect_tensor("quantize", args, 1)
    if out.dtype == "uint16" and data.dtype == "float16" and scale.dtype == "float16":
        raise InferenceError(
            "R.quantize: uint16 from float16 data and a float16 scale is not supported "
            "(its bound 65535 has no float16 value; TVM cannot build it); use a float32 scale"
        )
    return out


def _infer_dequantize(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    return _infer_qdq("dequantize", DEQUANTIZE_DATA, DEQUANTIZE_OUT, args, attrs)


# -- kernels ---------------------------------------------------------------------


def _along_axis(op: str, name: str, param: np.ndarray, data: np.ndarray, axis: int) -> np.ndarray:
    """`param` shaped to broadcast against `data`: 0-d when it has one entry, else laid along `axis`."""
    p = np.asarray(param)
    if p.ndim > 1:
        raise ValueError(f"R.{op}: {name} must be a scalar or a 1-D tensor, got shape {p.shape}")
    if p.size == 1:
        return p.reshape(())
    if data.ndim == 0 or p.shape[0] != data.shape[axis % data.ndim]:
        raise ValueError(f"R.{op}: {name} has {p.size} entries but data has shape {data.shape} (axis {axis})")
    shape = [1] * data.ndim
    shape[axis % data.ndim] = p.shape[0]
    return p.reshape(shape)


def _quantize(
    data: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, axis: Any = -1, out_dtype: Any = "int8"
) -> np.ndarray:
    """clip(round_half_even(data / scale) + zero_point) in `out_dtype`, computed as TVM's legalization does."""
    out = _out_dtype("quantize", out_dtype, QUANTIZE_OUT)
    axis = as_int("quantize", "axis", axis)
    data, scale = np.asarray(data), np.asarray(scale)
    work = np.result_type(data.dtype, scale.dtype)
    s = _along_axis("quantize", "scale", scale, data, axis).astype(work)
    z = _along_axis("quantize", "zero_point", zero_point, data, axis).astype(work)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = np.rint(data.astype(work) / s) + z
    info = np.iinfo(out)
    lo, hi = work.type(info.min), work.type(info.max)
    q = np.where(np.isnan(q), hi, np.clip(q, lo, hi))
    # Truncate toward zero; a float16 bound rounded past the range (32768 for int16) wraps, as in TVM.
    return np.asarray(np.trunc(q).astype(np.int64).astype(out))


def _subtract_zero_point(data: np.ndarray, z: np.ndarray) -> np.ndarray:
    """data - zero_point as TVM computes it: in float32 for float data, in float16 with a float16 zero point,
    else in int32 (wrapping; uint32 for signed data with a uint32 zero point, exact for unsigned data with one)."""
    if data.dtype.kind == "f":
        return data.astype(np.float32) - z.astype(np.float32)
    if z.dtype.kind == "f":
        with np.errstate(over="ignore"):
            return data.astype(z.dtype) - z
    diff = data.astype(np.int64) - z.astype(np.int64)
    if z.dtype == np.uint32:  # signed data: uint32 arithmetic (wraps); unsigned data: exact, as TVM's build gives
        return diff if data.dtype.kind == "u" else diff.astype(np.uint32)
    return diff.astype(np.int32)  # wraps like 32-bit arithmetic


def _dequantize(
    data: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, axis: Any = -1, out_dtype: Any = "float32"
) -> np.ndarray:
    """(data - zero_point) * scale in float32, clipped to +-65504 and cast for a float16 result."""
    out = _out_dtype("dequantize", out_dtype, DEQUANTIZE_OUT)
    axis = as_int("dequantize", "axis", axis)
    data = np.asarray(data)
    s = _along_axis("dequantize", "scale", scale, data, axis).astype(np.float32)
    z = _along_axis("dequantize", "zero_point", zero_point, data, axis)
    with np.errstate(over="ignore", invalid="ignore"):
        result = _subtract_zero_point(data, z).astype(np.float32) * s
    if out == "float16":
        clipped = np.clip(result, -_FLOAT16_MAX, _FLOAT16_MAX)
        result = np.where(np.isnan(result), np.float32(_FLOAT16_MAX), clipped).astype(np.float16)
    return np.asarray(result.astype(out, copy=False))


def _params(out_dtype: str) -> list[Param]:
    return [
        Param("data"),
        Param("scale"),
        Param("zero_point"),
        Param("axis", ATTR, -1),
        Param("out_dtype", ATTR, out_dtype),
    ]


register_op(
    "quantize",
    _params("int8"),
    _infer_quantize,
    _quantize,
    work=elementwise_work(4),
    doc="clip(round(data / scale) + zero_point) in out_dtype; scale/zero_point per tensor or along axis.",
)

register_op(
    "dequantize",
    _params("float32"),
    _infer_dequantize,
    _dequantize,
    work=elementwise_work(2),
    doc="(data - zero_point) * scale in out_dtype; scale/zero_point per tensor or along axis.",
)
