"""Reductions ``R.sum``, ``R.mean``, ``R.max``, ``R.min``, ``R.prod`` (``x, axis=None, keepdims=False``).

Also ``R.argmax``/``R.argmin(x, axis=None, keepdims=False)`` (one axis; an
int64 result, the first extreme entry), ``R.variance``/``R.std(x, axis=None,
keepdims=False)`` (population statistics, computed in float precision, four
FLOPs per input element) and the scans ``R.cumsum``/``R.cumprod(data,
axis=None, dtype=None, exclusive=False)`` (the flattened tensor when `axis` is
None; `dtype` converts the input first; exclusive shifts the running result
by one, starting from 0 or 1).  These have no torch kernels.

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

from ..dtype import to_numpy
from ..errors import InferenceError
from ..op import ATTR, Fallback, Param, TorchContext, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo
from .common import as_bool, as_int, as_ints, normalize_axes, normalize_axis, optional_dtype, product_dim
from .special import float_work, work_dtype

# Reductions with no value over an empty axis, and what they look for.
_NEEDS_AN_ENTRY = {"max": "maximum", "min": "minimum", "argmax": "maximum", "argmin": "minimum"}


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
        if op in _NEEDS_AN_ENTRY and any(x.shape[a] == 0 for a in reduced):
            raise InferenceError(
                f"R.{op}: the {_NEEDS_AN_ENTRY[op]} over an empty axis of shape {x.shape} is undefined"
            )
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


def _statistic_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """Four FLOPs per input element (the mean, then the squared deviations summed)."""
    return Work(4.0 * elements(args[0]), data_bytes(args), data_bytes((out,)))


# name, NumPy function, accumulates (float16 sums in float32), torch function, torch needs floats
_REDUCTIONS: tuple[tuple[str, Callable[..., Any], bool, str, bool], ...] = (
    ("sum", np.sum, True, "sum", False),
    ("mean", np.mean, True, "mean", True),
    ("max", np.max, False, "amax", False),
    ("min", np.min, False, "amin", False),
    ("prod", np.prod, True, "prod", False),
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


# -- argmax, argmin ------------------------------------------------------------------------


def _arg_infer(op: str):
    """Like a reduction over one axis (or all), with an int64 result."""
    base = _reduce_infer(op)

    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        if attrs["axis"] is not None:
            as_int(op, "axis", attrs["axis"])  # one axis, not a list
        out = base(args, attrs)
        assert isinstance(out, TensorStructInfo)
        return TensorStructInfo(out.shape, "int64", out.ndim)

    return infer


def _arg_kernel(fn: Callable[..., Any]):
    def kernel(x: np.ndarray, axis: int | None, keepdims: bool) -> np.ndarray:
        if axis is None:
            out = np.asarray(fn(x.reshape(-1))).reshape((1,) * x.ndim if keepdims else ())
        else:
            out = fn(x, axis=axis % x.ndim, keepdims=keepdims)
        return np.asarray(out).astype(np.int64, copy=False)

    return kernel


for _name, _fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    register_op(
        _name,
        [Param("x"), Param("axis", ATTR, None), Param("keepdims", ATTR, False)],
        _arg_infer(_name),
        _arg_kernel(_fn),
        work=_reduce_work,
        doc=f"The int64 index of the first {_name[3:]}imum along `axis` (of the flattened tensor when None).",
    )


# -- variance, std --------------------------------------------------------------------------


def _statistic_kernel(op: str):
    """Population variance (divided by N, as TVM computes it) or its square root, in float precision."""

    def kernel(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
        axes = None if axis is None else tuple(a % max(x.ndim, 1) for a in as_ints(op, "axis", axis))
        out = np.var(float_work(x), axis=axes, keepdims=keepdims)
        if op == "std":
            out = np.sqrt(out)
        return np.asarray(out).astype(x.dtype, copy=False)

    return kernel


for _name in ("variance", "std"):
    register_op(
        _name,
        [Param("x"), Param("axis", ATTR, None), Param("keepdims", ATTR, False)],
        _reduce_infer(_name),
        _statistic_kernel(_name),
        work=_statistic_work,
        doc=f"The population {_name} over `axis` (all axes when None).",
    )


# -- cumsum, cumprod ------------------------------------------------------------------------


def _infer_scan(op: str):
    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        x = expect_tensor(op, args, 0)
        as_bool(op, "exclusive", attrs["exclusive"])
        dtype = optional_dtype(op, "dtype", attrs["dtype"]) or x.dtype
        if attrs["axis"] is None:  # TVM: the flattened tensor
            if x.shape is None:
                return TensorStructInfo(None, dtype, 1)
            return TensorStructInfo((product_dim(x.shape),), dtype)
        normalize_axis(op, as_int(op, "axis", attrs["axis"]), x.ndim)
        return TensorStructInfo(x.shape, dtype, x.ndim)

    return infer


def _scan_kernel(op: str, fn: Callable[..., Any], identity: int):
    """Inclusive scan in the result dtype (float16 in float32); exclusive shifts it by one, `identity` first."""

    def kernel(data: np.ndarray, axis: int | None, dtype: str | None, exclusive: bool) -> np.ndarray:
        given = optional_dtype(op, "dtype", dtype)
        out_dtype = to_numpy(given) if given else data.dtype
        x = data.reshape(-1) if axis is None else data
        ax = 0 if axis is None else axis % x.ndim
        out = fn(x.astype(out_dtype, copy=False), axis=ax, dtype=work_dtype(out_dtype))
        if exclusive and x.shape[ax]:
            lead = np.full_like(np.take(out, [0], axis=ax), identity)
            out = np.concatenate([lead, np.take(out, range(x.shape[ax] - 1), axis=ax)], axis=ax)
        return np.asarray(out).astype(out_dtype, copy=False)

    return kernel


for _name, _fn, _identity in (("cumsum", np.cumsum, 0), ("cumprod", np.cumprod, 1)):
    register_op(
        _name,
        [Param("data"), Param("axis", ATTR, None), Param("dtype", ATTR, None), Param("exclusive", ATTR, False)],
        _infer_scan(_name),
        _scan_kernel(_name, _fn, _identity),
        work=_reduce_work,
        doc=f"Running {_name[3:]} along `axis` (of the flattened tensor when None); exclusive omits each own entry.",
    )
