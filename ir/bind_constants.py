"""`bind_constants`: give the constants a module references (``metadata[kind][i]``) their values.

TVM prints weights as references into a metadata section it leaves out of the
text; vdplace parses them as `Constant`s with a `ref` and no value (see
`ir.expr.Constant`).  Running such a module needs the values, which come
separately, keyed by the reference:

* ``"kind:index"``, e.g. ``"ir.GenericConst:3"`` for
  ``metadata["ir.GenericConst"][3]`` (the form an ``.npz`` file uses);
* a `MetadataRef`;
* a bare index (an int, or a string of digits), when the module's references
  are all of one kind.

Other keys (such as parameter names, when one ``.npz`` file holds a run's
inputs and its constants) are ignored.  A key in constant form that names no
constant of the module is an error, as is a value whose dtype vdplace does not
support.  A value of 2-byte raw items (NumPy's ``|V2``, as TVM's bfloat16
tensors come back from ``.numpy()`` and an ``.npz``) is bfloat16, kept in
float32 as vdplace keeps every bfloat16 value.  `missing_constants` lists the references that still have no value.

`constant_values` is the other way: the values a module's constants hold,
keyed ``"kind:index"``, so that a module printed (`ir.script`, which writes
the references, not the values), edited and parsed again gets them back:
``ir.parse(text, constants=ir.constant_values(mod))``.

The pass never mutates its input.  Each bound constant gets the struct info of
its value (keeping any vdevice it had); the calls, tuples and bindings that
use it are inferred again, and a binding's variable keeps what its annotation
says and gains what the value now tells (`normalize.merge_annotation`), so a
wrong shape or dtype is an `InferenceError` at the line that uses it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from .dtype import bfloat16_bits
from .errors import InferenceError
from .expr import Binding, Call, Constant, DataflowVar, Expr, If, SeqExpr, Tuple, TupleGetItem, Var
from .metadata import MetadataRef
from .module import IRModule
from .mutator import ExprMutator
from .normalize import call_struct_info, get_item_struct_info, join, merge_annotation, tuple_struct_info
from .op import Op
from .span import Span
from .struct_info import DTYPES, TensorStructInfo
from .visitor import ExprVisitor

ConstantValues = Mapping[Any, Any] | str | os.PathLike


def constant_refs(mod: IRModule) -> list[tuple[MetadataRef, Span | None, bool]]:
    """Every metadata constant of `mod` in walk order: (reference, span, has a value)."""
    found: list[tuple[MetadataRef, Span | None, bool]] = []

    class _Collect(ExprVisitor):
        def visit_constant(self, const: Constant) -> None:
            if const.ref is not None:
                found.append((const.ref, const.span, const.data is not None))

    _Collect().visit_module(mod)
    return found


def missing_constants(mod: IRModule) -> list[tuple[MetadataRef, Span | None]]:
    """The references of `mod` whose value is not known, each once, at its first use."""
    seen: set[MetadataRef] = set()
    out: list[tuple[MetadataRef, Span | None]] = []
    for ref, span, bound in constant_refs(mod):
        if not bound and ref not in seen:
            seen.add(ref)
            out.append((ref, span))
    return out


def constant_values(mod: IRModule) -> dict[str, np.ndarray]:
    """``{"kind:index": value}`` for every metadata constant of `mod` that has a value.

    The keys are those `bind_constants` and ``.npz`` files use
    (``np.savez(path, **constant_values(mod))`` makes a ``--params`` file).
    A bfloat16 constant comes back as TVM gives one, raw 2-byte items (NumPy's
    ``|V2``), so binding it again keeps its dtype.  Constants written in the
    text (``R.const(...)``) need no entry: the text holds their values.
    """
    out: dict[str, np.ndarray] = {}

    class _Collect(ExprVisitor):
        def visit_constant(self, const: Constant) -> None:
            if const.ref is None or const.data is None:
                return
            key = f"{const.ref.kind}:{const.ref.index}"
            if key not in out:
                sinfo = const.struct_info
                bf16 = isinstance(sinfo, TensorStructInfo) and sinfo.dtype == "bfloat16"
                out[key] = _bfloat16_items(const.data) if bf16 else np.asarray(const.data)

    _Collect().visit_module(mod)
    return out


def _bfloat16_items(values: np.ndarray) -> np.ndarray:
    """bfloat16 values held in float32 as raw 2-byte items (the upper half of each float32, exact)."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32) >> np.uint32(16)
    return bits.astype(np.uint16).view("V2")


def bind_constants(mod: IRModule, values: ConstantValues, *, strict: bool = True) -> IRModule:
    """A copy of `mod` whose metadata constants named in `values` hold those values.

    `values` is a mapping or the path of an ``.npz`` file; see the module
    docstring for the keys.  Raises `ValueError` for a key that names no
    constant of the module (unless `strict` is False: such keys are then
    ignored, as for the values of a module whose text was edited) or a value
    of an unsupported dtype, and `InferenceError` where a value does not fit
    the code that uses it.
    """
    refs = {ref for ref, _, _ in constant_refs(mod)}
    arrays = _by_ref(_load(values), refs, strict)
    if not arrays:
        return mod
    return _Binder(arrays, mod.vdevices).mutate_module(mod)


def _load(values: ConstantValues) -> Mapping[Any, Any]:
    if isinstance(values, str | os.PathLike):
        with np.load(values, allow_pickle=False) as npz:
            return {key: npz[key] for key in npz.files}
    return values


def _by_ref(
    values: Mapping[Any, Any], refs: set[MetadataRef], strict: bool = True
) -> dict[MetadataRef, tuple[np.ndarray, str]]:
    """Each referenced constant's value and its dtype (bfloat16 for 2-byte raw items, kept as float32)."""
    kinds = {ref.kind for ref in refs}
    out: dict[MetadataRef, tuple[np.ndarray, str]] = {}
    for key, value in values.items():
        ref = _key_ref(key, kinds)
        if ref is None:
            continue
        if ref not in refs:
            if not strict:
                continue
            raise ValueError(f"the module has no constant {ref!r} (key {key!r})")
        array = np.asarray(value)
        widened = bfloat16_bits(array)
        if widened is not None:  # bfloat16 as TVM saves it; vdplace keeps bfloat16 values in float32
            out[ref] = (widened, "bfloat16")
            continue
        if str(array.dtype) not in DTYPES:
            raise ValueError(f"constant {ref!r}: unsupported dtype {array.dtype}")
        out[ref] = (array, str(array.dtype))
    return out


def _key_ref(key: Any, kinds: Iterable[str]) -> MetadataRef | None:
    """The reference a key names, or None for a key that is not in constant form."""
    if isinstance(key, MetadataRef):
        return key
    index: int | None = None
    if isinstance(key, int) and not isinstance(key, bool):
        index = key
    elif isinstance(key, str) and key.isdigit():
        index = int(key)
    elif isinstance(key, str) and ":" in key:
        kind, _, number = key.rpartition(":")
        if number.isdigit() and kind:
            return MetadataRef(kind, int(number))
        return None
    if index is None:
        return None
    kinds = sorted(kinds)
    if len(kinds) != 1:
        raise ValueError(
            f"constant key {key!r} is a bare index but the module references "
            f"{len(kinds)} kinds of constants ({', '.join(kinds) or 'none'}): write it as 'kind:{index}'"
        )
    return MetadataRef(kinds[0], index)


class _Binder(ExprMutator):
    """Swaps in the values and infers again whatever depends on them."""

    def __init__(self, arrays: Mapping[MetadataRef, tuple[np.ndarray, str]], vdevices: list) -> None:
        super().__init__()
        self.arrays = arrays
        self.vdevices = vdevices

    def visit_constant(self, const: Constant) -> Expr:
        if const.ref is None or const.ref not in self.arrays:
            return const
        array, dtype = self.arrays[const.ref]
        old = const.struct_info
        vdevice = old.vdevice if isinstance(old, TensorStructInfo) else None
        sinfo = TensorStructInfo(array.shape, dtype, vdevice=vdevice)
        return Constant(array, sinfo, const.span, const.ref)

    def visit_call(self, call: Call, args: tuple[Expr, ...]) -> Expr:
        if args is call.args:
            return call
        sinfo = call.struct_info
        if isinstance(call.op, Op):
            sinfo = call_struct_info(call.op, args, dict(call.attrs), self.vdevices, call.span)
        return Call(call.op, args, call.attrs, sinfo, call.span)

    def visit_tuple(self, tup: Tuple, fields: tuple[Expr, ...]) -> Expr:
        if fields is tup.fields:
            return tup
        return Tuple(fields, tuple_struct_info(fields), tup.span)

    def visit_tuple_get_item(self, item: TupleGetItem, tuple_value: Expr) -> Expr:
        if tuple_value is item.tuple_value:
            return item
        sinfo = get_item_struct_info(tuple_value, item.index, item.span)
        return TupleGetItem(tuple_value, item.index, sinfo, item.span)

    def visit_if(self, node: If, cond: Expr, true_branch: SeqExpr, false_branch: SeqExpr) -> Expr:
        if cond is node.cond and true_branch is node.true_branch and false_branch is node.false_branch:
            return node
        sinfo = join(true_branch.struct_info, false_branch.struct_info)
        return If(cond, true_branch, false_branch, sinfo, node.span)

    def visit_binding(self, binding: Binding, var: Var, value: Expr) -> Binding:
        if value is binding.value:
            return binding
        what = repr(var.name)
        try:
            sinfo = merge_annotation(var.struct_info, value.struct_info, binding.span, what)
        except InferenceError as err:
            raise InferenceError(f"{err.reason} (after binding the module's constants)", err.span) from None
        if sinfo != var.struct_info:
            var = (DataflowVar if isinstance(var, DataflowVar) else Var)(var.name, sinfo, var.span)
        return Binding(var, value, binding.annotation, binding.span)
