"""Expressions in value position as text: a post-order `ExprVisitor` over a stack of texts.

Each expression hook pushes the text of its node on `texts`; a node with
children pops theirs first (the walker visits children before parents, left
to right, so they are the last ``len(children)`` entries).  After a binding's
value is walked, its text is the top entry.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..expr import Call, Constant, Expr, GlobalVar, PrimValue, ShapeExpr, StringImm, Tuple, TupleGetItem, Var
from ..op import ATTR, DEVICE, INDICES, OUT_TY, PRIM_FUNC, SHAPE, STRING, TENSOR, TENSORS, VARIADIC, VDEVICE, Op
from ..struct_info import StructInfo, TupleStructInfo
from ..tir import PrimFunc, PrimFuncNames
from ..vdevice import DEVICE_TYPE_TO_CODE, DeviceSpec, VDevice
from ..visitor import ExprVisitor
from .literals import (
    PrintError,
    array_literal,
    constant_dtype,
    dim_symbols,
    dims_list,
    dims_tuple,
    literal,
    nonfinite_name,
    string_literal,
)
from .sinfo import SInfoFormatter

# (name, kind, positional) per parameter of an op; see `call_plan`.
CallPlan = list[tuple[str, str, bool]]
_LAYOUTS = 1024  # call layouts a printer keeps (`ValuePrinter.layouts`); past it, it starts again


def call_plan(op: Op, plans: dict[str, CallPlan]) -> CallPlan:
    """How a call of `op` is written, computed once per op name and kept in `plans`.

    Tensor arguments are written positionally; an attribute is written
    positionally only when a tensor parameter follows it (``R.full(R.shape([2]),
    fill, dtype="float32")``), every other attribute as a keyword; except that
    ``R.hint_on_device(x, R.device(2, 0), "global")`` is all positional, as TVM
    prints it (its Python API names the device ``dst_vdevice``, not ``device``).
    """
    plan = plans.get(op.name)
    if plan is None:
        last_tensor = max((i for i, p in enumerate(op.params) if p.kind in (TENSOR, TENSORS, VARIADIC)), default=-1)
        every = any(p.kind == DEVICE for p in op.params)
        plan = [(p.name, p.kind, every or i < last_tensor) for i, p in enumerate(op.params)]
        plans[op.name] = plan
    return plan


class ValuePrinter(ExprVisitor):
    """Expression hooks of the function printer: texts of values, pushed on `texts`.

    `taken` maps each printed name to the variable defined under it (None
    for a name no variable may take), `renamed` each variable printed under
    another name than its own to that name; the subclass fills both as
    variables are defined (one table entry per variable: a function of a
    million bindings keeps one dict of names, not a set and a dict).
    `name_of(var)` is a defined variable's printed name; `where` prefixes error messages;
    `uses_cls` turns True once a ``cls.`` reference is written;
    `symbols` collects the dims a symbolic prim value names (the function
    declares them, ``n = T.int64()``).
    """

    def __init__(
        self, sinfo: SInfoFormatter, plans: dict[str, CallPlan], where: str, tir: PrimFuncNames | None = None
    ) -> None:
        super().__init__()
        self.sinfo = sinfo
        self.tir = tir if tir is not None else PrimFuncNames(set())
        self.plans = plans
        self.where = where
        self.taken: dict[str, Var | None] = {}
        self.renamed: dict[Var, str] = {}
        self.texts: list[str] = []
        self.uses_cls = False
        self.symbols: set[str] = set()
        # id(attrs) -> (attrs, op, argument count, layout): see `call_layout`.
        self.layouts: dict[int, tuple[Mapping[str, Any], Op, int, tuple[int | str, ...]]] = {}

    # -- leaves -------------------------------------------------------------------
    def name_of(self, var: Var) -> str:
        """The name `var` was defined under; PrintError when it was not defined."""
        name = var.name
        if self.taken.get(name) is var:
            return name
        try:
            return self.renamed[var]
        except KeyError:
            raise PrintError(f"{self.where}: variable {var.name!r} is used but never defined") from None

    def visit_var(self, var: Var) -> None:
        name = var.name
        self.texts.append(name if self.taken.get(name) is var else self.name_of(var))

    def visit_global_var(self, gvar: GlobalVar) -> None:
        self.uses_cls = True
        self.texts.append(f"cls.{gvar.name}")

    def visit_constant(self, const: Constant) -> None:
        if const.ref is not None:
            self.texts.append(repr(const.ref))
            return
        data = np.asarray(const.data)
        dtype = string_literal(constant_dtype(const))
        if data.dtype.kind == "f" and not np.isfinite(data).all():
            if data.ndim == 0:  # TVM's spelling for a non-finite scalar: R.const("-inf", "float32")
                self.texts.append(f"R.const({string_literal(nonfinite_name(float(data)))}, {dtype})")
                return
            if np.isnan(data).any():
                raise PrintError(f"{self.where}: cannot print an array constant holding NaN")
        self.texts.append(f"R.const({array_literal(data)}, {dtype})")

    def visit_shape_expr(self, shape: ShapeExpr) -> None:
        values = shape.values
        if any(type(d) is str for d in values):  # symbolic dims, written as expressions of declared symbols
            self.symbols |= dim_symbols(values)
            self.texts.append(f"R.shape({dims_list(values, bare=True)})")
            return
        self.texts.append(f"R.shape({dims_list(values)})")

    def body_sinfo(self, sinfo: StructInfo) -> str:
        """`sinfo` as the function body writes it (symbolic dims bare, their symbols declared)."""
        text = self.sinfo.format(sinfo)
        names = self.sinfo.symbols.get(text) if self.sinfo.symbols else None
        if names:
            self.symbols |= names
        return text

    def visit_prim_value(self, value: PrimValue) -> None:
        v = value.value
        if isinstance(v, str):  # a symbolic dim or arithmetic of dims: R.prim_value(n * 3)
            self.symbols.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", v))
            self.texts.append(f"R.prim_value({v})")
            return
        if isinstance(v, float) and not math.isfinite(v):  # TVM's spelling: T.float64("inf")
            self.texts.append(f"R.prim_value(T.{value.dtype}({string_literal(nonfinite_name(v))}))")
            return
        default = "bool" if isinstance(v, bool) else "int64" if isinstance(v, int) else "float64"
        if value.dtype == default:
            self.texts.append(f"R.prim_value({literal(v)})")
        else:
            self.texts.append(f"R.prim_value(T.{value.dtype}({literal(v)}))")

    def visit_string_imm(self, string: StringImm) -> None:
        self.texts.append(f"R.str({string_literal(string.value)})")

    # -- composites -----------------------------------------------------------------
    def visit_tuple(self, tup: Tuple) -> None:
        n = len(tup.fields)
        fields = self.texts[-n:] if n else []
        del self.texts[len(self.texts) - n :]
        if not fields:
            self.texts.append("R.tuple()")
        elif len(fields) == 1:
            self.texts.append(f"({fields[0]},)")
        else:
            self.texts.append("(" + ", ".join(fields) + ")")

    def visit_tuple_get_item(self, item: TupleGetItem) -> None:
        self.texts.append(f"{self.texts.pop()}[{item.index}]")

    def visit_call(self, call: Call) -> None:
        texts = self.texts
        n = len(call.args)
        args = texts[-n:] if n else []
        del texts[len(texts) - n :]
        op = call.op
        if isinstance(op, GlobalVar):
            self.uses_cls = True
            self.texts.append(f"cls.{op.name}(" + ", ".join(args) + ")")
            return
        if not isinstance(op, Op):
            raise PrintError(f"{self.where}: a call's callee must be an op or a module function, got {op!r}")
        if op.name == "match_cast" and n == 1:  # TVM wants its annotation to be its binding's, vdevice and all
            texts.append(f"R.match_cast({args[0]}, {self.body_sinfo(call.struct_info)})")
            return
        attrs = call.attrs
        if not attrs:  # every argument in order, as the plan would lay them out: the usual call
            texts.append(f"R.{op.name}(" + ", ".join(args) + ")")
            return
        entry = self.layouts.get(id(attrs))
        if entry is None or entry[0] is not attrs or entry[1] is not op or entry[2] != n:
            if len(self.layouts) >= _LAYOUTS:
                self.layouts.clear()
            entry = self.layouts[id(attrs)] = (attrs, op, n, self.call_layout(op, attrs, n))
        parts = [args[x] if isinstance(x, int) else x for x in entry[3]]
        texts.append(f"R.{op.name}(" + ", ".join(parts) + ")")

    def call_layout(self, op: Op, attrs: Mapping[str, Any], n: int) -> tuple[int | str, ...]:
        """A call's parts in order for `n` arguments: an argument's index, or an attribute's text.

        Nodes are immutable, so a parsed module's calls that share one attributes
        dict (one per distinct attribute text) share one layout (`layouts`).
        """
        parts: list[int | str] = []
        next_arg = 0
        known = 0
        plan = self.plans.get(op.name) or call_plan(op, self.plans)
        for i, (name, kind, positional) in enumerate(plan):
            if kind in (TENSOR, TENSORS, SHAPE):
                if next_arg < n:
                    parts.append(next_arg)
                    next_arg += 1
            elif kind == VARIADIC:  # the arguments the expression parameters after it leave over
                after = sum(1 for _, k, _ in plan[i + 1 :] if k in (TENSOR, TENSORS, SHAPE))
                stop = max(n - after, next_arg)
                parts.extend(range(next_arg, stop))
                next_arg = stop
            elif name in attrs:
                known += 1
                text = self.attr(op, kind, name, attrs[name])
                parts.append(text if positional else f"{name}={text}")
        # Arguments or attributes the op does not declare (malformed IR): print them anyway.
        parts.extend(range(next_arg, n))
        if known < len(attrs):
            declared = {p.name for p in op.params}
            parts.extend(f"{k}={self.attr(op, ATTR, k, v)}" for k, v in attrs.items() if k not in declared)
        return tuple(parts)

    def attr(self, op: Op, kind: str, name: str, value: Any) -> str:
        """One attribute value of a call of `op`, by the kind of its parameter."""
        if kind == ATTR:
            try:
                return literal(value)
            except PrintError as err:
                raise PrintError(f"{self.where}: R.{op.name} attribute {name!r}: {err}") from None
        if kind == INDICES and isinstance(value, tuple) and any(type(v) is str for v in value):
            self.symbols |= dim_symbols(value)  # a symbolic position: an expression of declared symbols
            return dims_tuple(value, bare=True)
        if kind == INDICES:
            return self.attr(op, ATTR, name, value)
        if kind == STRING:
            if not isinstance(value, str):
                raise PrintError(f"{self.where}: R.{op.name} attribute {name!r} must be a string, got {value!r}")
            return f"R.str({string_literal(value)})"
        if kind == PRIM_FUNC:
            if not isinstance(value, PrimFunc):
                raise PrintError(f"{self.where}: R.{op.name} attribute {name!r} must be a TIR PrimFunc, got {value!r}")
            self.uses_cls = True
            return f"cls.{self.tir.name(value)}"
        if kind == OUT_TY:
            if value is None:
                return "None"
            if isinstance(value, TupleStructInfo) and len(value.fields) > 1:  # a list of outputs, as TVM writes it
                return "[" + ", ".join(self.body_sinfo(f) for f in value.fields) + "]"
            if isinstance(value, TupleStructInfo):  # a list of one is that one: R.Tuple() and 1-tuples stay tuples
                return "[" + self.body_sinfo(value) + "]"
            return self.body_sinfo(value)
        if kind == DEVICE:
            if not isinstance(value, DeviceSpec):
                raise PrintError(f"{self.where}: R.{op.name} attribute {name!r} must be a DeviceSpec, got {value!r}")
            code = DEVICE_TYPE_TO_CODE.get(value.device_type)
            if code is None:
                raise PrintError(f"{self.where}: device type {value.device_type!r} has no DLPack code to print")
            return f"R.device(device_type={code}, index={value.index})"
        if kind == VDEVICE:
            if not isinstance(value, VDevice):
                raise PrintError(f"{self.where}: R.{op.name} attribute {name!r} must be a VDevice, got {value!r}")
            try:
                return string_literal(self.sinfo.vdevice_name(value))
            except PrintError as err:
                raise PrintError(f"{self.where}: R.{op.name} attribute {name!r}: {err}") from None
        raise PrintError(f"{self.where}: R.{op.name}: unknown parameter kind {kind!r}")

    def not_a_value(self, node: Expr) -> PrintError:
        """The error for a container (If, SeqExpr, Function) where only a value can be printed."""
        return PrintError(f"{self.where}: cannot print a {type(node).__name__} in value position")
