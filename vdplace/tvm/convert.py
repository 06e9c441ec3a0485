"""`from_tvm` and `to_tvm`: a TVM module to a vdplace one and back, constants included.

The structure goes through text (TVM's printer, vdplace's parser; vdplace's
printer, TVM's parser); the constants never do: `from_tvm` reads their values
from the module's objects (`metadata.constant_arrays`) and binds them
(`ir.bind_constants`), and `to_tvm` hands them to TVM's parser as its
``metadata`` table.  TVM's parser rejects the ``R.const("-inf", ...)`` its own
printer writes, so `to_tvm` gives it an ``R.const`` that reads those strings;
and it drops the vdevice a binding's annotation gives a constant, so `to_tvm`
hands it those constants with their vdevice (`placed_constants`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vdplace.ir import IRModule, bind_constants, parse, script
from vdplace.ir.expr import Binding, Call, Constant, Expr, Function, Var
from vdplace.ir.metadata import MetadataRef
from vdplace.ir.op import Op
from vdplace.ir.struct_info import TensorStructInfo
from vdplace.ir.visitor import ExprMutator, ExprVisitor

from .metadata import PARAMS_KIND, constant_arrays, param_tensors
from .placed_constants import KIND as PLACED_KIND
from .placed_constants import BoundConstants, Table

_NON_FINITE = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def from_tvm(mod: Any, filename: str = "<tvm module>") -> IRModule:
    """The vdplace module of TVM module `mod`, every ``metadata`` constant bound to its value.

    An op or construct vdplace does not know is a `vdplace.ir.ParseError`
    naming it and its line in TVM's printout of `mod` (``mod.script()``).
    """
    text = mod.script()
    return bind_constants(parse(text, filename=filename), constant_arrays(mod, text))


def param_values(mod: Any) -> list[np.ndarray]:
    """The weights of a ``keep_params_as_input=True`` module (``R.func_attr`` "params"), in order."""
    return [t.numpy() for t in param_tensors(mod, mod.script())]


def _constants(mod: IRModule) -> dict[str, list]:
    """The bound metadata constants of `mod` by kind, each list in index order."""
    found: dict[tuple[str, int], np.ndarray] = {}

    class _Collect(ExprVisitor):
        def visit_constant(self, const: Constant) -> None:
            if const.ref is not None:
                if const.data is None:
                    raise ValueError(f"constant {const.ref!r} has no value: bind it first (ir.bind_constants)")
                found[(const.ref.kind, const.ref.index)] = const.data

    _Collect().visit_module(mod)
    by_kind: dict[str, list] = {}
    for (kind, index), value in sorted(found.items()):
        entries = by_kind.setdefault(kind, [])
        if index != len(entries):
            raise ValueError(f"metadata[{kind!r}] has no constant {len(entries)}: indices must run 0, 1, 2, ...")
        entries.append(value)
    return by_kind


def to_tvm(mod: IRModule, params: Sequence[Any] | Mapping[str, Any] | None = None) -> Any:
    """The TVM module of vdplace module `mod`, its constants restored.

    `params` are the weights ``R.func_attr({"params": [...]})`` refers to
    (``metadata["ffi.Tensor"][i]``): a list in that order, as `param_values`
    or TVM's own module gives them, or a dict by parameter name, as
    `from_torch` gives them (see `weights_in_order`); needed only when `mod`
    has such references.  A constant bound to a variable with a vdevice keeps
    that vdevice in TVM (`placed_constants`).
    """
    import tvm
    from tvm import relax
    from tvm.script.parser.core.entry import _default_globals

    metadata: dict[str, Any] = {
        kind: [relax.const(v, str(v.dtype)) for v in values] for kind, values in _constants(mod).items()
    }
    if params is not None:
        weights = weights_in_order(mod, params)
        metadata[PARAMS_KIND] = [p if isinstance(p, tvm.runtime.Tensor) else tvm.runtime.tensor(p) for p in weights]
    names = _default_globals()
    names["R"] = _NonFiniteConst(names["R"])
    placed = BoundConstants(mod.vdevices)
    text = script(placed.mutate_module(_HintResultsAsTheirInputs().mutate_module(mod)))
    if placed.entries:
        metadata[PLACED_KIND] = Table(placed.entries)
    return tvm.script.from_source(text, extra_vars={**names, "metadata": metadata})


def weights_in_order(mod: IRModule, params: Sequence[Any] | Mapping[str, Any]) -> list[Any]:
    """`params` as the list ``metadata["ffi.Tensor"]`` indexes: a list is checked, a dict put in order.

    A dict is read by parameter name: each function's ``R.func_attr``
    ``"params"`` entry ``j`` is the value of its parameter ``num_input + j``
    (TVM's frontends name the weights this way).  A name the module does not
    have, a weight the dict lacks, or a list of the wrong length is a
    `ValueError` naming them.
    """
    if isinstance(params, Mapping):
        names = _weight_names(mod)
        unknown = sorted(str(k) for k in set(params) - set(names.values()))
        missing = [name for name in names.values() if name not in params]
        if unknown or missing:
            parts = []
            if missing:
                parts.append(f"no value for weight(s) {', '.join(missing)}")
            if unknown:
                parts.append(f"{', '.join(unknown)} name(s) no weight of the module")
            known = ", ".join(names.values()) or "none"
            raise ValueError(f"to_tvm params: {'; '.join(parts)} (its weights: {known})")
        return [params[names[i]] for i in range(len(names))]
    if isinstance(params, (str, bytes)) or not isinstance(params, Sequence):
        raise TypeError(f"to_tvm params must be a list or a dict by parameter name, got {type(params).__name__}")
    count = len({ref.index for _, refs in _weight_refs(mod) for ref in refs})
    if count and len(params) != count:
        raise ValueError(f"to_tvm params: the module has {count} weight(s) but {len(params)} were given")
    return list(params)


def _weight_refs(mod: IRModule) -> list[tuple[str, list[MetadataRef]]]:
    """Each function's name and the ``metadata["ffi.Tensor"]`` references of its ``R.func_attr`` "params"."""
    out = []
    for fname, func in mod.functions.items():
        refs = func.attrs.get("params") if isinstance(func, Function) else None
        if isinstance(refs, list):
            out.append((fname, [r for r in refs if isinstance(r, MetadataRef) and r.kind == PARAMS_KIND]))
    return out


def _weight_names(mod: IRModule) -> dict[int, str]:
    """``metadata["ffi.Tensor"]`` index -> the name of the parameter it is the value of, for every function."""
    names: dict[int, str] = {}
    for fname, refs in _weight_refs(mod):
        func = mod[fname]
        start = func.attrs.get("num_input", len(func.params) - len(refs))
        weights = func.params[start:] if isinstance(start, int) else ()
        if len(weights) != len(refs) or len(refs) != len(func.attrs["params"]):
            raise ValueError(
                f'to_tvm params: cannot tell which parameters of {fname} its R.func_attr "params" are: '
                "pass them as a list"
            )
        for ref, param in zip(refs, weights, strict=True):
            names[ref.index] = param.name
    if sorted(names) != list(range(len(names))):
        raise ValueError('to_tvm params: the module\'s metadata["ffi.Tensor"] indices do not run 0, 1, 2, ...')
    return names


class _HintResultsAsTheirInputs(ExprMutator):
    """Each ``hint_on_device`` result loses the vdevice vdplace infers for it.

    TVM infers a hint's result as its input's struct info (the hint takes
    effect only in RealizeVDevice), so the vdevice vdplace's inference gives
    the result would contradict TVM's own inference of it and fail TVM's
    well-formed check.  A placed module has no hints left: it is unchanged.
    """

    def visit_binding(self, binding: Binding, var: Var, value: Expr) -> Binding | Sequence[Binding]:
        sinfo = var.struct_info
        if (
            type(value) is Call
            and isinstance(value.op, Op)
            and value.op.name == "hint_on_device"
            and isinstance(sinfo, TensorStructInfo)
            and sinfo.vdevice is not None
        ):
            var = type(var)(var.name, sinfo.with_vdevice(None), var.span)
            return Binding(var, value, None, binding.span)
        return super().visit_binding(binding, var, value)


class _NonFiniteConst:
    """TVM's ``R`` namespace whose ``R.const`` also reads ``"inf"``, ``"-inf"`` and ``"nan"``."""

    def __init__(self, namespace: Any) -> None:
        self._r = namespace

    def __getattr__(self, name: str) -> Any:
        return getattr(self._r, name)

    def const(self, value: Any, dtype: Any = None) -> Any:
        if isinstance(value, str):
            value = _NON_FINITE.get(value.lower(), value)
        return self._r.const(value, dtype)
