"""``R.einsum(operands, subscripts)``: Einstein summation over a tuple of tensors.

As TVM prints it: ``R.einsum((a, b), subscripts="ij,jk->ik")``.  The
subscripts are NumPy's: one term of letters (a-z, A-Z) per operand, at most
one ``...`` per term standing for the axes no letter names (broadcast across
the operands, right-aligned), and an optional ``->`` output.  Without one the
output is the ellipsis axes, then the letters used exactly once in
alphabetical (ASCII) order.  A letter repeated in a term takes a diagonal; a
letter missing from the output is summed over.  The extents of one letter
broadcast (1 against n), as in NumPy and TVM.  Blanks are ignored.  An
explicit output that drops ``...`` while the ellipsis covers axes is an error
(NumPy's and TVM's too), and so is a letter repeated in the output (TVM
accepts ``"ij->ii"`` but NumPy cannot compute it).

All operands have one dtype, the result's; float16 is computed in float32 and
rounded once (TVM accumulates in float16).

Work: two FLOPs (a multiply and an add) per point of the iteration space,
the product of the extents of every letter.  A work estimate sees shapes but
not the subscripts, so that product is unknown here; the estimate uses the
largest tensor involved, a lower bound that is exact for elementwise
products, transposes, reductions and outer products and low by the summed
extent for contractions (K for a matmul).  No torch kernel.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import ATTR, TENSORS, Param, Work, data_bytes, elements, register_op
from ..struct_info import Dim, StructInfo, TensorStructInfo, TupleStructInfo
from .common import broadcast_shapes
from .gather import tensor_fields
from .special import work_dtype

_OP = "einsum"
_ELLIPSIS = "*"  # stands for "..." in a parsed term


def _term(text: str, subscripts: str) -> str:
    term = text.replace("...", _ELLIPSIS)
    for ch in term:
        if ch != _ELLIPSIS and ch not in string.ascii_letters:
            raise InferenceError(f"R.{_OP}: subscripts {subscripts!r} have an unexpected character {ch!r}")
    if term.count(_ELLIPSIS) > 1:
        raise InferenceError(f"R.{_OP}: subscripts {subscripts!r} have a term with more than one '...'")
    return term


def parse_subscripts(subscripts: Any, count: int) -> tuple[list[str], str]:
    """The input terms and the output term (an implicit output spelled out); '...' is written '*'."""
    if not isinstance(subscripts, str):
        raise InferenceError(f"R.{_OP}: subscripts must be a string such as 'ij,jk->ik', got {subscripts!r}")
    lhs, arrow, rhs = "".join(subscripts.split()).partition("->")
    terms = [_term(t, subscripts) for t in lhs.split(",")]
    if len(terms) != count:
        raise InferenceError(f"R.{_OP}: subscripts {subscripts!r} name {len(terms)} operands, got {count}")
    used = "".join(terms).replace(_ELLIPSIS, "")
    if not arrow:
        once = sorted(c for c in set(used) if used.count(c) == 1)
        lead = _ELLIPSIS if any(_ELLIPSIS in t for t in terms) else ""
        return terms, lead + "".join(once)
    out = _term(rhs, subscripts)
    for c in out.replace(_ELLIPSIS, ""):
        if c not in used:
            raise InferenceError(f"R.{_OP}: output label {c!r} of {subscripts!r} is in no input term")
        if out.count(c) > 1:
            raise InferenceError(f"R.{_OP}: output label {c!r} of {subscripts!r} repeats")
    return terms, out


def _ellipsis_rank(term: str, ndim: int, index: int) -> int:
    """How many axes the term's '...' covers (0 without one); the rank must fit the term."""
    letters = len(term.replace(_ELLIPSIS, ""))
    rank = ndim - letters
    if rank < 0 or (rank > 0 and _ELLIPSIS not in term):
        need = f"{letters} or more" if _ELLIPSIS in term else str(letters)
        raise InferenceError(
            f"R.{_OP}: operand {index} has rank {ndim}; its term {term.replace('*', '...')!r} needs {need}"
        )
    return rank


def _merge(label: str, a: Dim, b: Dim) -> Dim:
    """One letter's extent from two occurrences: equal, or one of them 1; symbolic ones kept."""
    if a == b or b == 1:
        return a
    if a == 1:
        return b
    if isinstance(a, int) and isinstance(b, int):
        raise InferenceError(f"R.{_OP}: label {label!r} has extents {a} and {b}")
    return a if isinstance(a, str) else b


def _result_shape(terms: Sequence[str], out: str, shapes: Sequence[tuple[Dim, ...]]) -> tuple[Dim, ...]:
    extents: dict[str, Dim] = {}
    ellipsis: tuple[Dim, ...] = ()
    for i, (term, shape) in enumerate(zip(terms, shapes, strict=True)):
        rank = _ellipsis_rank(term, len(shape), i)
        pos = term.find(_ELLIPSIS)
        dims = shape
        if pos >= 0:
            ellipsis = broadcast_shapes(_OP, ellipsis, shape[pos : pos + rank])
            dims = (*shape[:pos], *shape[pos + rank :])
        for c, d in zip(term.replace(_ELLIPSIS, ""), dims, strict=True):
            extents[c] = _merge(c, extents.get(c, 1), d)
    if ellipsis and _ELLIPSIS not in out:
        raise InferenceError(f"R.{_OP}: the output drops the {len(ellipsis)} axes '...' covers; write '...' in it")
    result: list[Dim] = []
    for c in out:
        result.extend(ellipsis if c == _ELLIPSIS else (extents[c],))
    return tuple(result)


def _result_ndim(terms: Sequence[str], out: str, operands: Sequence[TensorStructInfo]) -> int:
    """The result's rank when some shape is unknown (-1 when an ellipsis' rank is unknown too)."""
    ranks = [
        _ellipsis_rank(term, t.ndim, i) if t.ndim >= 0 else -1
        for i, (term, t) in enumerate(zip(terms, operands, strict=True))
    ]
    if _ELLIPSIS not in out:
        return len(out)
    covered = [r for r, term in zip(ranks, terms, strict=True) if _ELLIPSIS in term]
    return -1 if min(covered, default=0) < 0 else len(out) - 1 + max(covered, default=0)


def _infer_einsum(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    operands = tensor_fields(_OP, "operands", args[0])
    dtypes = sorted({t.dtype for t in operands if t.dtype})
    if len(dtypes) > 1:
        raise InferenceError(f"R.{_OP}: operands have different dtypes {', '.join(dtypes)}")
    dtype = dtypes[0] if dtypes else ""
    terms, out = parse_subscripts(attrs["subscripts"], len(operands))
    shapes = [t.shape for t in operands if t.shape is not None]
    if len(shapes) != len(operands):
        return TensorStructInfo(None, dtype, _result_ndim(terms, out, operands))
    return TensorStructInfo(_result_shape(terms, out, shapes), dtype)


def _einsum(operands: Sequence[np.ndarray], subscripts: str) -> np.ndarray:
    terms, out = parse_subscripts(subscripts, len(operands))
    spec = (",".join(terms) + "->" + out).replace(_ELLIPSIS, "...")
    dtype = operands[0].dtype
    values = [o.astype(work_dtype(dtype), copy=False) for o in operands]
    return np.asarray(np.einsum(spec, *values, optimize=len(values) > 2)).astype(dtype, copy=False)


def _einsum_work(args: Sequence[StructInfo], out: StructInfo, attrs: dict[str, Any]) -> Work:
    """2 FLOPs per point of the iteration space: the product of every index's extent.

    The '...' dims count once, as the largest of the operands' '...' parts.
    Where a shape is unknown: 2 FLOPs per element of the largest tensor.
    """
    operands = args[0].fields if isinstance(args[0], TupleStructInfo) else args
    fallback = Work(2.0 * max([elements(out), *(elements(t) for t in operands)]), data_bytes(args), data_bytes((out,)))
    shapes = [t.shape for t in operands if isinstance(t, TensorStructInfo) and t.shape is not None]
    if len(shapes) != len(operands) or "subscripts" not in attrs:
        return fallback
    terms, _ = parse_subscripts(attrs["subscripts"], len(operands))
    extents: dict[str, int] = {}
    ellipsis = 1
    for term, shape in zip(terms, shapes, strict=True):
        dims = [d if isinstance(d, int) else 1 for d in shape]
        if _ELLIPSIS in term:
            cut = term.index(_ELLIPSIS)
            width = len(dims) - (len(term) - 1)
            ellipsis = max(ellipsis, math.prod(dims[cut : cut + width]))
            dims = dims[:cut] + dims[cut + width :]
            term = term.replace(_ELLIPSIS, "")
        for letter, d in zip(term, dims, strict=False):
            extents[letter] = max(extents.get(letter, 1), d)
    return Work(2.0 * math.prod(extents.values()) * ellipsis, fallback.bytes_read, fallback.bytes_written)


register_op(
    _OP,
    [Param("operands", TENSORS), Param("subscripts", ATTR)],
    _infer_einsum,
    _einsum,
    work=_einsum_work,
    doc="Einstein summation over a tuple of tensors, NumPy's subscripts ('ij,jk->ik', '...' broadcasting).",
)
