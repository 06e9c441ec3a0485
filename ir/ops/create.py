"""Creation ops ``R.zeros``, ``R.ones``, ``R.full``, their ``*_like`` forms and ``R.shape_of``.

zeros/ones take no tensor argument, so the ``same`` rule leaves their device
to annotations and placement.  full's `fill_value` is a 0-d tensor
expression (``R.const(1.0, "float32")``), so the result shares its device.
shape_of returns a shape value: shapes carry no device.  ``R.size(x)`` (ONNX's
Size) is the element count of `x`, a 0-d int64 tensor on the device of `x`.  full has no torch
kernel (a torch device runs it on the host and uploads the result).
``R.zeros_like(x, dtype=None)``, ``R.ones_like(x, dtype=None)`` and
``R.full_like(x, fill_value, dtype=None)`` take the shape of `x` and, unless
`dtype` is given, its dtype (as in TVM, not the fill value's); they share the
device of `x` and read none of its data.  ``R.arange(start, end, step,
dtype=None)`` takes prim values (``R.prim_value(0)``), as TVM's frontends
print it; like zeros, it has no tensor argument to take a device from.
``R.hamming_window(window_size, periodic, alpha, beta, dtype)`` takes prim
values too and computes ``torch.hamming_window``: ``alpha - beta * cos(2 pi k
/ (N - 1))`` for k < window_size, with N = window_size + 1 when `periodic`
(else window_size), and ``[1]`` for a window of one; `dtype` is a float type.
``R.eye(n, m, k, dtype="float32")`` (prim values, as TVM prints ``torch.eye``)
is the n x m matrix with ones on diagonal k; ``R.eye_like(x, k, dtype=None)``
the same in the shape of the 2-D tensor `x`, on its device.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dtype import is_float, to_numpy, torch_dtype
from ..errors import InferenceError
from ..op import ATTR, SHAPE, Param, TorchContext, Work, data_bytes, elementwise_work, expect_tensor, register_op
from ..struct_info import Dim, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo
from .common import as_dtype, concrete_shape, expect_prim, no_work, optional_dtype, shape_arg
from .special import round_bfloat16


def _new_shape(op: str, args: Sequence[StructInfo], index: int, dtype: str) -> TensorStructInfo:
    """A new tensor of the shape argument `index` (only its rank when the shape's values are unknown)."""
    shape, ndim = shape_arg(op, "shape", args, index)
    if shape is None:
        return TensorStructInfo(None, dtype, ndim)
    if any(isinstance(d, int) and d < 0 for d in shape):
        raise InferenceError(f"R.{op}: shape {shape} has a negative dim")
    return TensorStructInfo(shape, dtype)


def _constant_infer(op: str):
    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        return _new_shape(op, args, 0, as_dtype(op, "dtype", attrs["dtype"]))

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
    fill = expect_tensor("full", args, 1)
    if fill.ndim > 0:
        raise InferenceError(f"R.full: fill_value must be a scalar (rank 0) tensor, got shape {fill.shape}")
    dtype = optional_dtype("full", "dtype", attrs["dtype"]) or fill.dtype
    return _new_shape("full", args, 0, dtype)


def _full(shape: Sequence[Dim], fill_value: np.ndarray, dtype: str | None) -> np.ndarray:
    given = optional_dtype("full", "dtype", dtype)
    np_dtype = to_numpy(given) if given else fill_value.dtype
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


def _infer_size(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    expect_tensor("size", args, 0)
    return TensorStructInfo((), "int64")


register_op(
    "size",
    [Param("expr")],
    _infer_size,
    lambda expr: np.asarray(expr.size, dtype=np.int64),
    torch_kernel=lambda t, expr: t.torch.tensor(expr.numel(), dtype=t.torch.int64, device=t.device),
    work=no_work,
    doc="The number of elements of a tensor, as a 0-d int64 tensor on the tensor's device (its data not read).",
)


def _infer_shape_to_tensor(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    _, ndim = shape_arg("shape_to_tensor", "expr", args, 0)
    return TensorStructInfo((ndim,) if ndim >= 0 else None, "int64", 1)


register_op(
    "shape_to_tensor",
    [Param("expr", SHAPE)],
    _infer_shape_to_tensor,
    lambda expr: np.asarray(expr, dtype=np.int64),
    work=_fill_work,
    doc="A shape value as a 1-D int64 tensor (what TVM's ONNX frontend makes of Shape feeding Gather).",
)


# -- zeros_like, ones_like, full_like ---------------------------------------------------


def _like_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """No arithmetic; the result written once (and a fill value read; the template is not)."""
    return Work(0.0, data_bytes(args[1:]), data_bytes((out,)))


def _like_infer(op: str):
    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        x = expect_tensor(op, args, 0)
        if op == "full_like":
            fill = expect_tensor(op, args, 1)
            if fill.ndim > 0:
                raise InferenceError(f"R.{op}: fill_value must be a scalar (rank 0) tensor, got shape {fill.shape}")
        dtype = optional_dtype(op, "dtype", attrs["dtype"]) or x.dtype
        return TensorStructInfo(x.shape, dtype, x.ndim)

    return infer


def _like_kernel(op: str, fill: int):
    def kernel(x: np.ndarray, dtype: str | None) -> np.ndarray:
        given = optional_dtype(op, "dtype", dtype)
        np_dtype = to_numpy(given) if given else x.dtype
        return np.full(x.shape, fill, dtype=np_dtype)

    return kernel


def _full_like(x: np.ndarray, fill_value: np.ndarray, dtype: str | None) -> np.ndarray:
    given = optional_dtype("full_like", "dtype", dtype)
    np_dtype = to_numpy(given) if given else x.dtype
    return np.full(x.shape, fill_value, dtype=np_dtype)


for _name, _fill in (("zeros_like", 0), ("ones_like", 1)):
    register_op(
        _name,
        [Param("x"), Param("dtype", ATTR, None)],
        _like_infer(_name),
        _like_kernel(_name, _fill),
        work=_like_work,
        doc=f"A new tensor of the shape of `x` filled with {_fill}, of `dtype` (that of `x` when None).",
    )

register_op(
    "full_like",
    [Param("x"), Param("fill_value"), Param("dtype", ATTR, None)],
    _like_infer("full_like"),
    _full_like,
    work=_like_work,
    doc="A new tensor of the shape of `x` filled with the 0-d tensor `fill_value`, of `dtype` (that of `x` when None).",
)


# -- arange --------------------------------------------------------------------------------


def _arange_dtype(args: Sequence[StructInfo], dtype: Any) -> str:
    """`dtype`, or as TVM's relax.op.arange picks it: int64 for integer bounds, else float32."""
    given = optional_dtype("arange", "dtype", dtype)
    if given:
        return given
    ints = all(isinstance(a, PrimStructInfo) and a.dtype.startswith(("int", "uint")) for a in args)
    return "int64" if ints else "float32"


def _arange_length(start: float, end: float, step: float) -> int:
    if step == 0:
        raise InferenceError("R.arange: step must not be 0")
    return max(math.ceil((end - start) / step), 0)


def _infer_arange(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    prims = [expect_prim("arange", name, args, i) for i, name in enumerate(("start", "end", "step"))]
    dtype = _arange_dtype(prims, attrs["dtype"])
    numbers = [p.value for p in prims if isinstance(p.value, (int, float)) and not isinstance(p.value, bool)]
    if len(numbers) != len(prims):
        return TensorStructInfo(None, dtype, 1)
    return TensorStructInfo((_arange_length(*numbers),), dtype)


def _arange(start: Any, end: Any, step: Any, dtype: str | None) -> np.ndarray:
    """start + i * step for i in [0, ceil((end - start) / step)), in the result dtype."""
    given = optional_dtype("arange", "dtype", dtype)
    ints = all(np.asarray(v).dtype.kind in "iu" for v in (start, end, step))
    np_dtype = np.dtype(to_numpy(given)) if given else np.dtype(np.int64 if ints else np.float32)
    if float(step) == 0:
        raise ValueError("R.arange: step must not be 0")
    n = _arange_length(float(start), float(end), float(step))
    if np_dtype.kind == "f":
        return (np.float64(start) + np.arange(n, dtype=np.float64) * np.float64(step)).astype(np_dtype)
    return (np.asarray(start, np_dtype) + np.arange(n, dtype=np_dtype) * np.asarray(step, np_dtype)).astype(np_dtype)


register_op(
    "arange",
    [Param("start"), Param("end"), Param("step"), Param("dtype", ATTR, None)],
    _infer_arange,
    _arange,
    work=_fill_work,
    doc="start, start + step, ... up to end (excluded); the bounds are prim values (R.prim_value).",
)


# -- hamming_window ----------------------------------------------------------------------


def _infer_hamming_window(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "hamming_window"
    size, periodic, alpha, beta = (
        expect_prim(op, name, args, i) for i, name in enumerate(("window_size", "periodic", "alpha", "beta"))
    )
    dtype = as_dtype(op, "dtype", attrs["dtype"])
    if not is_float(dtype):
        raise InferenceError(f"R.{op}: dtype must be a float type, got {dtype}")
    if size.dtype and not size.dtype.startswith(("int", "uint")):
        raise InferenceError(f"R.{op}: window_size must be an integer, got a {size.dtype} prim value")
    for name, prim in (("periodic", periodic), ("alpha", alpha), ("beta", beta)):
        if isinstance(prim.value, str):
            raise InferenceError(f"R.{op}: {name} must be a number, not the symbolic {prim.value!r}")
    n = size.value
    if isinstance(n, int) and n < 1:
        raise InferenceError(f"R.{op}: window_size must be at least 1, got {n}")
    if isinstance(n, (int, str)):
        return TensorStructInfo((n,), dtype)
    return TensorStructInfo(None, dtype, 1)


def _hamming_window(window_size: Any, periodic: Any, alpha: Any, beta: Any, dtype: str) -> np.ndarray:
    """alpha - beta * cos(2 pi k / (N - 1)) for k < window_size, N = window_size (+ 1 when periodic), as torch."""
    n = int(window_size)
    if n < 1:
        raise ValueError(f"R.hamming_window: window_size must be at least 1, got {n}")
    if n == 1:
        window = np.ones(1)
    else:
        span = n if bool(periodic) else n - 1
        window = float(alpha) - float(beta) * np.cos(2.0 * np.pi * np.arange(n, dtype=np.float64) / span)
    out = window.astype(to_numpy(dtype))
    return round_bfloat16(out) if dtype == "bfloat16" else out


def _torch_hamming_window(t: TorchContext, window_size: Any, periodic: Any, alpha: Any, beta: Any, dtype: str) -> Any:
    window = t.torch.hamming_window(
        int(window_size), bool(periodic), float(alpha), float(beta), dtype=t.torch.float64, device=t.device
    )
    return window.to(torch_dtype(t.torch, dtype))


register_op(
    "hamming_window",
    [Param("window_size"), Param("periodic"), Param("alpha"), Param("beta"), Param("dtype", ATTR)],
    _infer_hamming_window,
    _hamming_window,
    torch_kernel=_torch_hamming_window,
    work=elementwise_work(4),
    doc="A Hamming window of `window_size` entries (torch.hamming_window); the arguments are prim values.",
)


# -- eye -------------------------------------------------------------------------------------


def _eye_dim(name: str, prim: PrimStructInfo) -> Dim | None:
    """A size given as a prim value: its int (or symbolic dim), None when unknown."""
    value = prim.value
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    if isinstance(value, int) and value < 0:
        raise InferenceError(f"R.eye: {name} must not be negative, got {value}")
    return value


def _infer_eye(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    n, m = (_eye_dim(name, expect_prim("eye", name, args, i)) for i, name in enumerate(("n", "m")))
    expect_prim("eye", "k", args, 2)
    dtype = as_dtype("eye", "dtype", attrs["dtype"])
    if n is None or m is None:
        return TensorStructInfo(None, dtype, 2)
    return TensorStructInfo((n, m), dtype)


def _eye(n: Any, m: Any, k: Any, dtype: str) -> np.ndarray:
    """Ones where column - row == k, zeros elsewhere, n x m."""
    return np.eye(int(n), int(m), int(k), dtype=to_numpy(as_dtype("eye", "dtype", dtype)))


def _infer_eye_like(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    x = expect_tensor("eye_like", args, 0)
    expect_prim("eye_like", "k", args, 1)
    if x.ndim not in (-1, 2):
        raise InferenceError(f"R.eye_like: x must be a 2-D tensor, got rank {x.ndim}")
    dtype = optional_dtype("eye_like", "dtype", attrs["dtype"]) or x.dtype
    return TensorStructInfo(x.shape, dtype, 2)


def _eye_like(x: np.ndarray, k: Any, dtype: str | None) -> np.ndarray:
    given = optional_dtype("eye_like", "dtype", dtype)
    np_dtype = to_numpy(given) if given else x.dtype
    return np.eye(x.shape[0], x.shape[1], int(k), dtype=np_dtype)


register_op(
    "eye",
    [Param("n"), Param("m"), Param("k"), Param("dtype", ATTR, "float32")],
    _infer_eye,
    _eye,
    work=_fill_work,
    doc="An n x m matrix with ones on diagonal k (0 the main one, > 0 above it); the sizes are prim values.",
)

register_op(
    "eye_like",
    [Param("x"), Param("k"), Param("dtype", ATTR, None)],
    _infer_eye_like,
    _eye_like,
    work=_like_work,
    doc="A matrix of the shape of the 2-D `x` with ones on diagonal k; of `dtype` (that of `x` when None).",
)
