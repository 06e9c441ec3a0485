"""Shared helpers for the op library: attribute checks, broadcasting, symbolic dims, work and torch kernels.

Inference helpers raise `InferenceError` with a one-line reason that names the
op (``R.matmul: ...``); the normalizer adds the call's span.  Kernels reuse the
same attribute readers, so an attribute is interpreted one way everywhere.

Symbolic dims are strings holding an expression (``"n"``, ``"n * 4"``).  The
small algebra here (products of factors, sums, adding a constant) is enough
for reshape, concat, split and conv2d to keep shapes symbolic instead of
forgetting them; anything it cannot express falls back to an unknown shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..dtype import is_float
from ..errors import InferenceError
from ..op import NO_WORK, Fallback, TorchContext, Work, data_bytes, expect_tensor
from ..struct_info import DTYPES, Dim, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo

# -- attributes ---------------------------------------------------------------


def as_int(op: str, name: str, value: Any) -> int:
    """An integer attribute (NumPy integers accepted; bools and floats are not)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    raise InferenceError(f"R.{op}: {name} must be an integer, got {value!r}")


def as_ints(op: str, name: str, value: Any) -> tuple[int, ...]:
    """An attribute holding one integer or a list/tuple of integers."""
    if isinstance(value, (list, tuple)):
        return tuple(as_int(op, name, v) for v in value)
    return (as_int(op, name, value),)


def as_bool(op: str, name: str, value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InferenceError(f"R.{op}: {name} must be True or False, got {value!r}")


def as_dtype(op: str, name: str, value: Any) -> str:
    if not isinstance(value, str) or value not in DTYPES:
        raise InferenceError(f"R.{op}: {name} must be one of {', '.join(sorted(DTYPES))}; got {value!r}")
    return value


def optional_dtype(op: str, name: str, value: Any) -> str | None:
    """A dtype attribute that may be unset: None, "" and TVM's printed "void" mean unset."""
    if value is None or value in ("", "void"):
        return None
    return as_dtype(op, name, value)


def shape_arg(op: str, name: str, args: Sequence[StructInfo], index: int) -> tuple[tuple[Dim, ...] | None, int]:
    """A SHAPE argument's (dims, ndim): dims None when only the rank (ndim, -1 if unknown) is known."""
    sinfo = args[index]
    if not isinstance(sinfo, ShapeStructInfo):
        raise InferenceError(f"R.{op}: {name} must be a shape (R.shape([...]) or R.shape_of(x)), got {sinfo!r}")
    if sinfo.values is None:
        return None, sinfo.ndim
    dims = as_shape(op, name, sinfo.values)
    return dims, len(dims)


def as_shape(op: str, name: str, value: Any) -> tuple[Dim, ...]:
    """A SHAPE attribute: a tuple of dims, each an int or a symbolic str."""
    if not isinstance(value, (list, tuple)):
        raise InferenceError(f"R.{op}: {name} must be a shape (a tuple of dims), got {value!r}")
    dims: list[Dim] = []
    for d in value:
        if isinstance(d, str):
            if not d.strip():
                raise InferenceError(f"R.{op}: {name} has an empty symbolic dim")
            dims.append(d)
        else:
            dims.append(as_int(op, name, d))
    return tuple(dims)


# -- tensors, prim values and dtypes -------------------------------------------


def expect_prim(op: str, name: str, args: Sequence[StructInfo], index: int) -> PrimStructInfo:
    """A prim-value argument (``R.prim_value(1)``), as TVM passes k, clip bounds and arange's range."""
    sinfo = args[index]
    if not isinstance(sinfo, PrimStructInfo):
        raise InferenceError(
            f"R.{op}: {name} must be a prim value such as R.prim_value(1), not a tensor; got {sinfo!r}"
        )
    return sinfo


def joined_tensors(op: str, tup: StructInfo) -> tuple[list[TensorStructInfo], str]:
    """The tensors of `op`'s tuple argument and their one dtype ("" when none is known), or an error."""
    if not isinstance(tup, TupleStructInfo):
        raise InferenceError(f"R.{op}: tensors must be a tuple of tensors, got {tup!r}")
    if not tup.fields:
        raise InferenceError(f"R.{op}: needs at least one tensor, got an empty tuple")
    fields: list[TensorStructInfo] = []
    for i, f in enumerate(tup.fields):
        if not isinstance(f, TensorStructInfo):
            raise InferenceError(f"R.{op}: field {i} of tensors must be a tensor, got {f!r}")
        fields.append(f)
    dtypes = sorted({f.dtype for f in fields if f.dtype})
    if len(dtypes) > 1:
        raise InferenceError(f"R.{op}: tensors have different dtypes {', '.join(dtypes)}")
    return fields, dtypes[0] if dtypes else ""


def same_dtype(op: str, a: TensorStructInfo, b: TensorStructInfo) -> str:
    if a.dtype and b.dtype and a.dtype != b.dtype:
        raise InferenceError(f"R.{op}: dtypes {a.dtype} and {b.dtype} differ")
    return a.dtype or b.dtype


def expect_float(op: str, t: TensorStructInfo) -> None:
    """Ops defined on real numbers only (exp, softmax, ...) reject integer and bool tensors."""
    if t.dtype and not is_float(t.dtype):
        raise InferenceError(f"R.{op}: expects a float tensor, got dtype {t.dtype}")


def expect_ndim(op: str, what: str, t: TensorStructInfo, ndim: int) -> None:
    if t.ndim >= 0 and t.ndim != ndim:
        raise InferenceError(f"R.{op}: {what} must have rank {ndim}, got rank {t.ndim} (shape {t.shape})")


# -- axes ---------------------------------------------------------------------


def normalize_axis(op: str, axis: int, ndim: int) -> int:
    """`axis` in ``[0, ndim)``; negative axes count from the end.  Unknown rank: unchanged."""
    if ndim < 0:
        return axis
    if not -ndim <= axis < ndim:
        raise InferenceError(f"R.{op}: axis {axis} is out of range for a tensor of rank {ndim}")
    return axis % ndim


def normalize_axes(op: str, axes: Sequence[int], ndim: int) -> tuple[int, ...]:
    """Several axes, normalized; a repeated axis is an error."""
    out = tuple(normalize_axis(op, a, ndim) for a in axes)
    if ndim >= 0 and len(set(out)) != len(out):
        raise InferenceError(f"R.{op}: axes {tuple(axes)} repeat an axis")
    return out


# -- shapes -------------------------------------------------------------------


def broadcast_shapes(op: str, a: Sequence[Dim], b: Sequence[Dim]) -> tuple[Dim, ...]:
    """NumPy broadcasting; symbolic dims must be equal or meet a 1."""
    out: list[Dim] = []
    for i in range(max(len(a), len(b))):
        da = a[len(a) - 1 - i] if i < len(a) else 1
        db = b[len(b) - 1 - i] if i < len(b) else 1
        if da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        elif isinstance(da, str) or isinstance(db, str):
            # Unknown at compile time: keep the symbolic one, checked at run time.
            out.append(da if isinstance(da, str) else db)
        else:
            raise InferenceError(f"R.{op}: shapes {tuple(a)} and {tuple(b)} do not broadcast")
    return tuple(reversed(out))


def concrete_shape(op: str, shape: Sequence[Dim]) -> tuple[int, ...]:
    """A shape a kernel can allocate; a symbolic dim the runtime did not bind is an error."""
    if any(isinstance(d, str) for d in shape):
        raise ValueError(f"R.{op}: shape {tuple(shape)} has unbound symbolic dims")
    return tuple(int(d) for d in shape)


# -- symbolic dims -------------------------------------------------------------

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _factors(d: Dim) -> tuple[int, list[str]]:
    """A dim as coefficient x symbolic factors: ``"n * 4"`` -> (4, ["n"])."""
    if isinstance(d, int):
        return d, []
    coef, syms = 1, []
    parts = [p.strip() for p in d.split("*")]
    if "**" in d or not all(p.isdigit() or _IDENT.match(p) for p in parts):
        return 1, [d.strip()]  # opaque: an expression kept whole
    for p in parts:
        if p.isdigit():
            coef *= int(p)
        else:
            syms.append(p)
    return coef, syms


def _render_product(coef: int, syms: Sequence[str]) -> Dim:
    if not syms or coef == 0:
        return coef
    terms = [s if _IDENT.match(s) else f"({s})" for s in syms]
    if coef != 1:
        terms.append(str(coef))
    return " * ".join(terms)


def dim_product(dims: Sequence[Dim]) -> tuple[int, list[str]]:
    """The product of `dims` as (integer coefficient, symbolic factors)."""
    coef, syms = 1, []
    for d in dims:
        c, s = _factors(d)
        coef *= c
        syms.extend(s)
    return coef, syms


def product_dim(dims: Sequence[Dim]) -> Dim:
    """The product of `dims` as one dim (an int when all are ints)."""
    return _render_product(*dim_product(dims))


def quotient_dim(num: Sequence[Dim], den: Sequence[Dim]) -> Dim | None:
    """prod(num) / prod(den) when it is exact in this algebra, else None."""
    c_num, s_num = dim_product(num)
    c_den, s_den = dim_product(den)
    if c_den == 0 or c_num % c_den:
        return None
    rest = list(s_num)
    for s in s_den:
        if s not in rest:
            return None
        rest.remove(s)
    return _render_product(c_num // c_den, rest)


def dim_add(d: Dim, k: int) -> Dim:
    """``d + k``: an int, or a symbolic expression such as ``"n - 2"``."""
    if isinstance(d, int):
        return d + k
    if k == 0:
        return d
    return f"{d} + {k}" if k > 0 else f"{d} - {-k}"


def dim_sum(dims: Sequence[Dim]) -> Dim:
    """The sum of `dims`: ints folded together, symbolic terms kept (``"n + m + 4"``)."""
    total = sum(d for d in dims if isinstance(d, int))
    terms = [d for d in dims if isinstance(d, str)]
    if not terms:
        return total
    return dim_add(" + ".join(terms), total)


# -- inference builders --------------------------------------------------------


def expect_not_bool(op: str, dtype: str) -> None:
    if dtype == "bool":
        instead = ", or use R.logical_xor (as torch advises)" if op == "subtract" else ""
        raise InferenceError(
            f"R.{op}: arithmetic on bool tensors is not supported; convert with R.astype first{instead}"
        )


def binary_infer(op: str, result_dtype: str | None = None, allow_bool: bool = True):
    """Inference for an elementwise binary op (result dtype fixed or the operands')."""

    def infer(args: Sequence[StructInfo], attrs: dict) -> StructInfo:
        a = expect_tensor(op, args, 0)
        b = expect_tensor(op, args, 1)
        dtype = same_dtype(op, a, b)
        if not allow_bool:
            expect_not_bool(op, dtype)
        if a.shape is not None and b.shape is not None:
            shape: tuple[Dim, ...] | None = broadcast_shapes(op, a.shape, b.shape)
            return TensorStructInfo(shape, result_dtype or dtype)
        ndim = max(a.ndim, b.ndim) if a.ndim >= 0 and b.ndim >= 0 else -1
        return TensorStructInfo(None, result_dtype or dtype, ndim)

    return infer


def unary_infer(op: str, result_dtype: str | None = None, float_only: bool = False, allow_bool: bool = True):
    """Inference for an op whose result has its input's shape (and dtype, unless fixed)."""

    def infer(args: Sequence[StructInfo], attrs: dict) -> StructInfo:
        a = expect_tensor(op, args, 0)
        if float_only:
            expect_float(op, a)
        if not allow_bool:
            expect_not_bool(op, a.dtype)
        return TensorStructInfo(a.shape, result_dtype or a.dtype, a.ndim)

    return infer


def dtype_checked(op: str, infer: Callable[..., StructInfo], accept: Callable[[str], bool], expects: str):
    """`infer`, first refusing a tensor argument whose dtype `accept` rejects ("R.<op>: expects <expects>, ...")."""

    def checked(args: Sequence[StructInfo], attrs: dict) -> StructInfo:
        for i in range(len(args)):
            t = expect_tensor(op, args, i)
            if t.dtype and not accept(t.dtype):
                raise InferenceError(f"R.{op}: expects {expects}, got dtype {t.dtype}")
        return infer(args, attrs)

    return checked


def no_float(op: str, infer: Callable[..., StructInfo]) -> Callable[..., StructInfo]:
    """`infer`, first refusing float operands (logic and bit operations take bool or integer tensors)."""
    return dtype_checked(op, infer, lambda dtype: not is_float(dtype), "a bool or integer tensor")


def keep_dtype(fn: Callable[..., Any]) -> Callable[..., np.ndarray]:
    """A NumPy kernel applying `fn` and returning its operands' dtype (NumPy may widen or turn bool)."""

    def kernel(*xs: np.ndarray) -> np.ndarray:
        return np.asarray(fn(*xs)).astype(np.result_type(*xs), copy=False)

    return kernel


# -- work and torch kernels ------------------------------------------------------


def no_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """The work of an op that computes nothing and touches no data (a view, a shape query)."""
    return NO_WORK


def copy_work(args: Sequence[StructInfo], out: StructInfo) -> Work:
    """No arithmetic; the result's bytes read from the arguments and written (a copy, a gather, a slice)."""
    size = data_bytes((out,))
    return Work(0.0, size, size)


def torch_float_only(fn: Callable[[Any], Callable[[Any], Any]]) -> Callable[..., Any]:
    """A torch kernel applying ``fn(torch)`` to a float tensor; other dtypes fall back to the NumPy kernel.

    For ops TVM defines on floats only, whose NumPy kernels still accept integers.
    """

    def kernel(t: TorchContext, x: Any) -> Any:
        if not x.is_floating_point():
            raise Fallback
        return fn(t.torch)(x)

    return kernel
