"""``R.nn.attention`` and ``R.nn.attention_bias``: scaled dot-product attention in TVM's BSNH layout.

TVM's Python API is ``R.nn.attention(query, key, value, bias=None, scale=None,
causal_mask=None, window_size=None)``; with a bias it builds (and prints) the
op ``R.nn.attention_bias(query, key, value, bias, ...)``.  Both are registered
here with those parameters.  ``nn.attention``'s `bias` is an attribute that
must stay None (a bias tensor belongs to ``R.nn.attention_bias``), so the
positions and names of the other arguments are TVM's.

Shapes: query ``(B, Sq, N, D)``, key ``(B, Skv, Nk, D)``, value ``(B, Skv,
Nv, Dv)``, result ``(B, Sq, N, Dv)`` in query's dtype; N must be a multiple of
Nk and of Nv (TVM's checks), and the bias is 4-D ``(B or 1, N or 1, Sq or 1,
Skv)``.  Per batch and head, in float (float32 for half precision):

    s = q @ k^T * scale            (scale None: 1 / sqrt(D))
    s = s + bias                   (attention_bias)
    p = softmax(s) over the keys, keeping only key j <= i + offset for query i
        when causal_mask is "TopLeft" (offset 0) or "BottomRight"
        (offset |Sq - Skv|, TVM's definition, so no row is ever fully masked)
    out = p @ v

Grouped heads (N > Nk or N > Nv): query head h uses key head h // (N / Nk)
and value head h // (N / Nv), as torch's ``enable_gqa`` does.  (TVM's
legalization assumes equal head counts and reads out of bounds otherwise.)
`window_size` (sliding-window attention) is accepted by inference, as in TVM,
but cannot run: TVM's legalization rejects it too.  Unlike TVM's inference,
the four tensors must share one float dtype.

Work: 2·B·N·Sq·Skv·(D + Dv) FLOPs for the two products plus 5 per score
(scale and softmax); every argument read once, the result written once.
No torch kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dtype import is_float
from ..errors import InferenceError
from ..op import ATTR, Param, Work, data_bytes, expect_tensor, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo
from .common import as_int, expect_ndim
from .norm import as_float, same_dtypes
from .special import float_work

CAUSAL_MASKS = ("TopLeft", "BottomRight")
_ROLES = ("query", "key", "value", "bias")


def _check_attrs(op: str, attrs: dict[str, Any]) -> None:
    if attrs.get("bias") is not None:
        raise InferenceError(
            f"R.{op}: bias must be None here; an attention with a bias tensor is "
            "R.nn.attention_bias(query, key, value, bias, ...), as TVM prints it"
        )
    if attrs["scale"] is not None:
        as_float(op, "scale", attrs["scale"])
    if attrs["causal_mask"] not in (None, *CAUSAL_MASKS):
        raise InferenceError(
            f"R.{op}: causal_mask must be None, 'TopLeft' or 'BottomRight'; got {attrs['causal_mask']!r}"
        )
    if attrs["window_size"] is not None:
        as_int(op, "window_size", attrs["window_size"])


def _differ(a: Dim, b: Dim) -> bool:
    return isinstance(a, int) and isinstance(b, int) and a != b


def _check_shapes(op: str, q: Sequence[Dim], k: Sequence[Dim], v: Sequence[Dim]) -> None:
    for what, got, want in (
        ("key's batch size", k[0], q[0]),
        ("value's batch size", v[0], q[0]),
        ("value's sequence length", v[1], k[1]),
        ("key's head dim", k[3], q[3]),
    ):
        if _differ(got, want):
            raise InferenceError(f"R.{op}: {what} is {got} but must be {want} (query {tuple(q)}, key {tuple(k)})")
    for role, heads in (("key", k[2]), ("value", v[2])):
        if isinstance(q[2], int) and isinstance(heads, int) and (heads == 0 or q[2] % heads):
            raise InferenceError(f"R.{op}: query's {q[2]} heads are not a multiple of {role}'s {heads} heads")


def _check_bias(op: str, q: Sequence[Dim], k: Sequence[Dim], bias: Sequence[Dim]) -> None:
    for i, (what, want) in enumerate((("batch size", q[0]), ("heads", q[2]), ("query length", q[1]))):
        if _differ(bias[i], want) and bias[i] != 1:
            raise InferenceError(f"R.{op}: bias {bias} must have {want} or 1 for the {what}")
    if _differ(bias[3], k[1]):
        raise InferenceError(f"R.{op}: bias {bias} must have the key length {k[1]} last")


def _infer_attention(op: str, with_bias: bool):
    def infer(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
        tensors = [expect_tensor(op, args, i) for i in range(4 if with_bias else 3)]
        dtype = same_dtypes(op, tensors, _ROLES[: len(tensors)])
        if dtype and not is_float(dtype):
            raise InferenceError(f"R.{op}: expects float tensors, got dtype {dtype}")
        _check_attrs(op, attrs)
        for role, t in zip(_ROLES, tensors, strict=False):
            expect_ndim(op, role, t, 4)
        q, k, v = (t.shape for t in tensors[:3])
        if q is None or k is None or v is None:
            return TensorStructInfo(None, dtype, 4)
        _check_shapes(op, q, k, v)
        if with_bias and tensors[3].shape is not None:
            _check_bias(op, q, k, tensors[3].shape)
        return TensorStructInfo((q[0], q[1], q[2], v[3]), dtype)

    return infer


def _heads(x: np.ndarray, heads: int) -> np.ndarray:
    """(B, S, n, d) -> (B, heads, S, d), each of the n heads serving heads / n query heads in turn."""
    return np.repeat(np.transpose(float_work(x), (0, 2, 1, 3)), heads // x.shape[2], axis=1)


def _scores_to_probs(s: np.ndarray, causal_mask: str | None) -> np.ndarray:
    if causal_mask is not None:
        sq, skv = s.shape[-2:]
        offset = 0 if causal_mask == "TopLeft" else abs(sq - skv)
        keep = np.tril(np.ones((sq, skv), dtype=bool), offset)
        s = np.where(keep, s, -np.inf)
    e = np.exp(s - np.max(s, axis=-1, keepdims=True, initial=-np.inf))
    return e / np.sum(e, axis=-1, keepdims=True)


def _attention(
    query: np.ndarray,
    key: np.ndarray,
    value: np.ndarray,
    bias: np.ndarray | None = None,
    scale: float | None = None,
    causal_mask: str | None = None,
    window_size: int | None = None,
) -> np.ndarray:
    if window_size is not None:
        raise ValueError("R.nn.attention: sliding-window attention (window_size) is not supported, as in TVM")
    heads = query.shape[2]
    q, k, v = _heads(query, heads), _heads(key, heads), _heads(value, heads)
    s = q @ np.swapaxes(k, -1, -2)
    s = s * scale if scale is not None else s / np.sqrt(query.shape[3])
    if bias is not None:
        s = s + float_work(bias)
    out = _scores_to_probs(s, causal_mask) @ v
    return np.transpose(out, (0, 2, 1, 3)).astype(query.dtype, copy=False)


def _dim(sinfo: StructInfo, axis: int) -> int:
    """A static dim of a tensor argument; 1 when it is symbolic or unknown (as `elements` counts it)."""
    if isinstance(sinfo, TensorStructInfo) and sinfo.shape is not None:
        dim = sinfo.shape[axis]
        if isinstance(dim, int):
            return dim
    return 1


def _attention_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    query, key, value = args[:3]
    scores = _dim(query, 0) * _dim(query, 1) * _dim(query, 2) * _dim(key, 1)  # B * Sq * N * Skv
    flops = scores * (2.0 * (_dim(query, 3) + _dim(value, 3)) + 5.0)
    return Work(flops, data_bytes(args), data_bytes((out,)))


_ATTRS = [Param("scale", ATTR, None), Param("causal_mask", ATTR, None), Param("window_size", ATTR, None)]
register_op(
    "nn.attention",
    [Param("query"), Param("key"), Param("value"), Param("bias", ATTR, None), *_ATTRS],
    _infer_attention("nn.attention", with_bias=False),
    _attention,
    work=_attention_work,
    doc="softmax(q k^T * scale [causal mask]) v per batch and head, BSNH layout.",
)
register_op(
    "nn.attention_bias",
    [Param("query"), Param("key"), Param("value"), Param("bias"), *_ATTRS],
    _infer_attention("nn.attention_bias", with_bias=True),
    _attention,
    work=_attention_work,
    doc="softmax(q k^T * scale + bias [causal mask]) v per batch and head, BSNH layout.",
)
