"""Activations: ``R.nn.log_softmax``, ``leakyrelu``, ``gelu_tanh``, ``softplus``, ``prelu``, ``selu``, ``dropout``.

Parameters, order and defaults follow TVM 0.27's ``relax.op.nn``.  All but
dropout are defined on floats only, as in TVM; half precision is computed in
float32 and rounded once.

* ``log_softmax(data, axis=-1)``: ``x - max - log(sum(exp(x - max)))``.
* ``leakyrelu(data, alpha=0.01)``: ``x`` where ``x > 0``, else ``alpha * x``.
* ``gelu_tanh(data)``: ``x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))``.
* ``softplus(data, beta=1.0, threshold=20.0)``: ``x`` where ``beta * x >
  threshold``, else ``log(1 + exp(beta * x)) / beta`` (computed without
  overflow; TVM's literal formula overflows to inf for a threshold above ~88).
* ``prelu(data, alpha, axis=1)``: ``x`` where ``x > 0``, else ``alpha[c] * x``
  with c the index along `axis`; alpha is 1-D with one entry per channel or a
  single entry (what TVM's kernel accepts; its inference does not check).
* ``selu(data)``: ``scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))`` with
  TVM's (and torch's) constants.
* ``dropout(data, rate=0.5)``: inference-time dropout, as TVM legalizes it:
  the tuple ``(data, mask)`` with `data` copied unchanged and an all-ones mask
  of data's shape and dtype.

TVM's ``nn.relu6`` is not an op (it builds ``R.clip(x, 0, 6)``), and ELU,
Hardswish, Hardsigmoid, Mish, CELU, ... reach TVMScript decomposed into
elementwise ops by the PyTorch frontend.

Torch kernels: log_softmax, leakyrelu, gelu_tanh, softplus, selu and dropout
(one torch call each, same formula).  Work: leakyrelu and prelu 2 FLOPs per
element, log_softmax, softplus and selu 4, gelu_tanh 8; dropout none (its
input read, its two results written).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, Fallback, Param, TorchContext, Work, data_bytes, elementwise_work, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from .common import as_int, expect_float, expect_ndim, normalize_axis, torch_float_only
from .norm import as_float, same_dtypes
from .special import float_work


def _float_unary_infer(op: str, *number_attrs: str):
    """A float-only op keeping its input's struct info; `number_attrs` name its numeric attributes."""

    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        data = expect_tensor(op, args, 0)
        expect_float(op, data)
        for name in number_attrs:
            as_float(op, name, attrs[name])
        return TensorStructInfo(data.shape, data.dtype, data.ndim)

    return infer


def _torch_float_call(fn):
    """A torch kernel ``fn(torch, x, **attrs)`` on float tensors; anything else falls back to NumPy."""

    def kernel(t: TorchContext, data: Any, **attrs: Any) -> Any:
        if not data.is_floating_point():
            raise Fallback
        return fn(t.torch, data, **attrs)

    return kernel


# -- log_softmax -------------------------------------------------------------------------------


def _infer_log_softmax(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "nn.log_softmax"
    data = expect_tensor(op, args, 0)
    expect_float(op, data)
    normalize_axis(op, as_int(op, "axis", attrs["axis"]), data.ndim)
    return TensorStructInfo(data.shape, data.dtype, data.ndim)


def _log_softmax(data: np.ndarray, axis: int) -> np.ndarray:
    x = float_work(data)
    shifted = x - np.max(x, axis=axis, keepdims=True, initial=-np.inf)  # initial: an empty axis
    return (shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))).astype(data.dtype, copy=False)


register_op(
    "nn.log_softmax",
    [Param("data"), Param("axis", ATTR, -1)],
    _infer_log_softmax,
    _log_softmax,
    torch_kernel=_torch_float_call(lambda torch, x, axis: torch.log_softmax(x, dim=axis)),
    work=elementwise_work(4),
    doc="log(softmax(x)) along `axis`, computed stably.",
)


# -- elementwise activations --------------------------------------------------------------------


def _leakyrelu(data: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(data > 0, data, data * data.dtype.type(alpha))


def _gelu_tanh(data: np.ndarray) -> np.ndarray:
    x = float_work(data)
    with np.errstate(over="ignore"):  # x^3 of a huge x: tanh(+-inf) is exact
        inner = np.sqrt(2.0 / np.pi) * x * (1.0 + 0.044715 * x * x)
    return (0.5 * x * (1.0 + np.tanh(inner))).astype(data.dtype, copy=False)


def _softplus(data: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    x = float_work(data)
    bx = x * beta
    smooth = (np.maximum(bx, 0) + np.log1p(np.exp(-np.abs(bx)))) / beta  # log(1 + exp(bx)) / beta
    return np.where(bx > threshold, x, smooth).astype(data.dtype, copy=False)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _selu(data: np.ndarray) -> np.ndarray:
    x = float_work(data)
    negative = np.minimum(0.0, _SELU_ALPHA * np.expm1(np.minimum(x, 0.0)))
    return (_SELU_SCALE * (np.maximum(x, 0.0) + negative)).astype(data.dtype, copy=False)


_infer_softplus_attrs = _float_unary_infer("nn.softplus", "beta", "threshold")


def _infer_softplus(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    out = _infer_softplus_attrs(args, attrs)
    if attrs["beta"] == 0:
        raise InferenceError("R.nn.softplus: beta must not be 0")
    return out


register_op(
    "nn.leakyrelu",
    [Param("data"), Param("alpha", ATTR, 0.01)],
    _float_unary_infer("nn.leakyrelu", "alpha"),
    _leakyrelu,
    torch_kernel=_torch_float_call(lambda torch, x, alpha: torch.nn.functional.leaky_relu(x, alpha)),
    work=elementwise_work(2),
    doc="x where x > 0, else alpha * x.",
)
register_op(
    "nn.gelu_tanh",
    [Param("data")],
    _float_unary_infer("nn.gelu_tanh"),
    _gelu_tanh,
    torch_kernel=torch_float_only(lambda torch: lambda x: torch.nn.functional.gelu(x, approximate="tanh")),
    work=elementwise_work(8),
    doc="GELU's tanh approximation: x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).",
)
register_op(
    "nn.softplus",
    [Param("data"), Param("beta", ATTR, 1.0), Param("threshold", ATTR, 20.0)],
    _infer_softplus,
    _softplus,
    torch_kernel=_torch_float_call(
        lambda torch, x, beta, threshold: torch.nn.functional.softplus(x, beta=beta, threshold=threshold)
    ),
    work=elementwise_work(4),
    doc="log(1 + exp(beta * x)) / beta, and x where beta * x > threshold.",
)
register_op(
    "nn.selu",
    [Param("data")],
    _float_unary_infer("nn.selu"),
    _selu,
    torch_kernel=torch_float_only(lambda torch: torch.selu),
    work=elementwise_work(4),
    doc="scale * (max(0, x) + min(0, alpha * (exp(x) - 1))), the self-normalizing ELU.",
)


# -- prelu -------------------------------------------------------------------------------------------


def _infer_prelu(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    op = "nn.prelu"
    data = expect_tensor(op, args, 0)
    alpha = expect_tensor(op, args, 1)
    expect_float(op, data)
    dtype = same_dtypes(op, [data, alpha], ("data", "alpha"))
    axis = normalize_axis(op, as_int(op, "axis", attrs["axis"]), data.ndim)
    expect_ndim(op, "alpha", alpha, 1)
    size = alpha.shape[0] if alpha.shape is not None else None
    channels = data.shape[axis] if data.shape is not None else None
    if isinstance(size, int) and isinstance(channels, int) and size not in (1, channels):
        raise InferenceError(
            f"R.{op}: alpha has {size} entries but data has {channels} channels on axis {axis} (1 entry also works)"
        )
    return TensorStructInfo(data.shape, dtype, data.ndim)


def _prelu(data: np.ndarray, alpha: np.ndarray, axis: int) -> np.ndarray:
    shape = [1] * data.ndim
    shape[axis % data.ndim] = alpha.shape[0]
    return np.where(data > 0, data, data * alpha.reshape(shape)).astype(data.dtype, copy=False)


register_op(
    "nn.prelu",
    [Param("data"), Param("alpha"), Param("axis", ATTR, 1)],
    _infer_prelu,
    _prelu,
    work=elementwise_work(2),
    doc="x where x > 0, else alpha[c] * x with c the index along `axis`.",
)


# -- dropout --------------------------------------------------------------------------------------------


def _infer_dropout(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    data = expect_tensor("nn.dropout", args, 0)
    rate = as_float("nn.dropout", "rate", attrs["rate"])
    if not 0.0 <= rate <= 1.0:
        raise InferenceError(f"R.nn.dropout: rate must be in [0, 1], got {rate}")
    out = TensorStructInfo(data.shape, data.dtype, data.ndim)
    return TupleStructInfo([out, out])


def _dropout(data: np.ndarray, rate: float) -> tuple[np.ndarray, np.ndarray]:
    return data.copy(), np.ones_like(data)


def _dropout_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """No arithmetic: the input read, the copy and the mask written."""
    return Work(0.0, data_bytes(args), data_bytes((out,)))


register_op(
    "nn.dropout",
    [Param("data"), Param("rate", ATTR, 0.5)],
    _infer_dropout,
    _dropout,
    torch_kernel=lambda t, data, rate: (data.clone(), t.torch.ones_like(data)),
    work=_dropout_work,
    doc="Inference-time dropout: (data unchanged, an all-ones mask).",
)
