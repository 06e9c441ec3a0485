"""``R.nn.nll_loss(predictions, targets, weights, reduction="mean", ignore_index=-100)``.

The negative log-likelihood loss of ``torch.nn.functional.nll_loss``, as TVM
defines and prints it: `weights` is optional and positional (TVM prints it
only when given), so it is a `VARIADIC` parameter holding none or one tensor.

Shapes: `predictions` is (C,), (N, C) or (N, C, d1, ..., dk); `targets` the
same without the class axis ((), (N,) or (N, d1, ..., dk)), of an integer
dtype; `weights` (C,) in the predictions' dtype.  Per element,
``loss = -weights[t] * predictions[n, t, ...]`` with t the target, and 0
where t == ignore_index.  `reduction` "none" gives the losses in the
targets' shape; "sum" their sum; "mean" their sum divided by the sum of the
weights of the targets not ignored (NaN when every target is ignored, as in
torch).  A target outside [0, C) other than ignore_index is a kernel error.
Work: two FLOPs per target.  No torch kernel: a torch device runs it on the host.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, VARIADIC, Param, Work, data_bytes, elements, expect_tensor, register_op
from ..struct_info import StructInfo, TensorStructInfo
from .common import as_int, expect_float, same_dtype

REDUCTIONS = ("mean", "sum", "none")


def _check_shapes(p: TensorStructInfo, t: TensorStructInfo) -> None:
    if p.ndim == 0:
        raise InferenceError("R.nn.nll_loss: predictions must have rank >= 1, got a scalar")
    if p.ndim > 0 and t.ndim >= 0 and t.ndim != p.ndim - 1:
        raise InferenceError(
            f"R.nn.nll_loss: targets of rank {t.ndim} do not match predictions of rank {p.ndim} "
            "(targets are predictions' shape without the class axis 1)"
        )
    if p.shape is not None and t.shape is not None and p.ndim >= 2:
        want = (p.shape[0], *p.shape[2:])
        for a, b in zip(want, t.shape, strict=True):
            if isinstance(a, int) and isinstance(b, int) and a != b:
                raise InferenceError(
                    f"R.nn.nll_loss: targets {t.shape} do not match predictions {p.shape} without axis 1"
                )


def _infer_nll_loss(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    if len(args) not in (2, 3):
        raise InferenceError(f"R.nn.nll_loss: takes predictions, targets and optional weights, got {len(args)} tensors")
    p = expect_tensor("nn.nll_loss", args, 0)
    t = expect_tensor("nn.nll_loss", args, 1)
    expect_float("nn.nll_loss", p)
    if t.dtype and not t.dtype.startswith(("int", "uint")):
        raise InferenceError(f"R.nn.nll_loss: targets must be an integer tensor, got dtype {t.dtype}")
    _check_shapes(p, t)
    if len(args) == 3:
        w = expect_tensor("nn.nll_loss", args, 2)
        same_dtype("nn.nll_loss", p, w)
        if w.ndim not in (-1, 1):
            raise InferenceError(f"R.nn.nll_loss: weights must be a 1-D tensor (one per class), got rank {w.ndim}")
    if attrs["reduction"] not in REDUCTIONS:
        raise InferenceError(f"R.nn.nll_loss: reduction must be one of {REDUCTIONS}, got {attrs['reduction']!r}")
    as_int("nn.nll_loss", "ignore_index", attrs["ignore_index"])
    if attrs["reduction"] != "none":
        return TensorStructInfo((), p.dtype)
    return TensorStructInfo(t.shape, p.dtype, t.ndim)


def _nll_loss(
    predictions: np.ndarray, targets: np.ndarray, *weights: np.ndarray, reduction: str, ignore_index: int
) -> np.ndarray:
    p = predictions if predictions.ndim > 1 else predictions[np.newaxis]
    t = targets.reshape(p.shape[:1] + p.shape[2:]).astype(np.int64)
    classes = p.shape[1]
    w = weights[0] if weights else np.ones(classes, predictions.dtype)
    kept = t != ignore_index
    if np.any(kept & ((t < 0) | (t >= classes))):
        bad = t[kept & ((t < 0) | (t >= classes))].flat[0]
        raise ValueError(f"R.nn.nll_loss: target {bad} is out of range for {classes} classes")
    safe = np.where(kept, t, 0)
    picked = np.take_along_axis(p, safe[:, np.newaxis], axis=1)[:, 0]
    acc: type[np.floating] = np.float64 if predictions.dtype == np.float64 else np.float32
    weight = np.where(kept, w[safe], 0).astype(acc)
    losses = -weight * picked.astype(acc)
    if reduction == "none":
        return losses.reshape(targets.shape).astype(predictions.dtype)
    if reduction == "sum":
        return np.asarray(losses.sum(), dtype=predictions.dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(losses.sum() / weight.sum(), dtype=predictions.dtype)


def _nll_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    return Work(2.0 * elements(args[1]), data_bytes(args[1:]) + data_bytes((out,)), data_bytes((out,)))


register_op(
    "nn.nll_loss",
    [
        Param("predictions"),
        Param("targets"),
        Param("weights", VARIADIC),
        Param("reduction", ATTR, "mean"),
        Param("ignore_index", ATTR, -100),
    ],
    _infer_nll_loss,
    _nll_loss,
    work=_nll_work,
    doc="Negative log-likelihood of `targets` under log-probabilities `predictions` (torch's nll_loss).",
)
