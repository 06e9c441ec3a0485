"""`script(mod)`: an IRModule as TVMScript, in the style of TVM's ``mod.script()``.

The text is the module's canonical, reviewable form: the conformance runner
reads placement facts out of it, tests compare it, and `ir.parse` reads it back
to a structurally equal module.  So, like TVM's printer, it writes the full
struct info (vdevice included) of every parameter and binding, not only what
the user annotated.

Speed matters (a placed 100k-binding module is printed in tests and by the
CLI): lines are collected in one list and joined once, struct infos are
formatted once per distinct value, and nesting (If branches) is walked with an
explicit stack so long or deeply nested functions cannot overflow Python's
recursion limit.
"""

from __future__ import annotations

import json
import keyword
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .expr import (
    Binding,
    Call,
    Constant,
    DataflowVar,
    Expr,
    Function,
    GlobalVar,
    If,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    StringImm,
    Tuple,
    TupleGetItem,
    Var,
)
from .module import IRModule
from .op import ATTR, DEVICE, SHAPE, TENSOR, TENSORS, VDEVICE, Op
from .struct_info import (
    FuncStructInfo,
    ObjectStructInfo,
    PrimStructInfo,
    ShapeStructInfo,
    StructInfo,
    TensorStructInfo,
    TupleStructInfo,
)
from .vdevice import DEVICE_TYPE_TO_CODE, DeviceSpec, Target, VDevice, index_of, kind_ordinal

HEADER = ("# from tvm.script import ir as I", "# from tvm.script import relax as R", "")
INDENT = "    "

# Names a local variable must not take: they would shadow what the text refers to.
_RESERVED = frozenset({"R", "I", "T", "tvm", "cls", "metadata"}) | frozenset(keyword.kwlist)
_NOT_IDENT_CHAR = re.compile(r"[^A-Za-z0-9_]")
# Function attributes written in the decorator; the others go to R.func_attr.
_DECORATOR_ATTRS = ("private", "pure")


class PrintError(ValueError):
    """The module holds something the printed form cannot express."""


def script(mod: IRModule) -> str:
    """The module as TVMScript text that `ir.parse` reads back to an equal module."""
    return _ModulePrinter(mod).run()


def format_struct_info(sinfo: StructInfo, vdevices: Sequence[VDevice] = ()) -> str:
    """One struct info as the printer writes it (``R.Tensor((2, 3), dtype="float32")``)."""
    return _SInfoFormatter(vdevices).format(sinfo)


def format_target(target: Target) -> str:
    """A target as its kind string when it has no attributes, else as a sorted dict."""
    if not target.attrs:
        return literal(target.kind)
    return literal(target.as_dict())


def format_vdevice(vdevice: VDevice) -> str:
    """``I.vdevice(target, id, "scope")`` as a module's global infos list it."""
    return f"I.vdevice({format_target(vdevice.target)}, {vdevice.vdevice_id}, {literal(vdevice.memory_scope)})"


def literal(value: Any) -> str:
    """A Python literal in TVM's spelling: double-quoted strings, tuples as lists."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return _float(float(value))
    if isinstance(value, np.bool_):
        return repr(bool(value))
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, VDevice):
        return format_vdevice(value)
    if isinstance(value, Target):
        return format_target(value)
    raise PrintError(f"cannot print attribute value {value!r} of type {type(value).__name__}")


def _float(x: float) -> str:
    # repr() round-trips every finite double exactly; 1e999 is the literal for inf.
    if math.isnan(x):
        raise PrintError("cannot print NaN: TVMScript has no literal for it")
    if math.isinf(x):
        return "1e999" if x > 0 else "-1e999"
    return repr(x)


def _dim(d: int | str) -> str:
    return str(d) if isinstance(d, int) else json.dumps(d)


def _dims_tuple(dims: Sequence[int | str]) -> str:
    if len(dims) == 1:
        return f"({_dim(dims[0])},)"
    return "(" + ", ".join(_dim(d) for d in dims) + ")"


def _dims_list(dims: Sequence[int | str]) -> str:
    return "[" + ", ".join(_dim(d) for d in dims) + "]"


class _SInfoFormatter:
    """Formats struct infos, caching each distinct value (most bindings share a few)."""

    def __init__(self, vdevices: Sequence[VDevice]) -> None:
        self.vdevices = list(vdevices)
        self._cache: dict[StructInfo, str] = {}
        self._by_id: dict[int, str] = {}
        self._alive: list[StructInfo] = []  # keeps the ids in _by_id from being reused
        self._names: dict[VDevice, str] = {}

    def vdevice_name(self, vdevice: VDevice) -> str:
        name = self._names.get(vdevice)
        if name is None:
            index = index_of(self.vdevices, vdevice)
            if index is None:
                raise PrintError(
                    f"{vdevice!r} is not in the module's vdevice list, so it has no name to print; "
                    "add it to the module's vdevices"
                )
            name = f"{vdevice.kind}:{kind_ordinal(self.vdevices, index)}:{vdevice.memory_scope}"
            self._names[vdevice] = name
        return name

    def format(self, sinfo: StructInfo) -> str:
        # First by identity (cheap; the module keeps every struct info alive while it
        # is printed), then by value (struct info hashing is Python-level).
        text = self._by_id.get(id(sinfo))
        if text is None:
            text = self._cache.get(sinfo)
            if text is None:
                text = self._format(sinfo)
                self._cache[sinfo] = text
            self._by_id[id(sinfo)] = text
            self._alive.append(sinfo)
        return text

    def _format(self, sinfo: StructInfo) -> str:
        if isinstance(sinfo, TensorStructInfo):
            parts = []
            if sinfo.shape is not None:
                parts.append(_dims_tuple(sinfo.shape))
            if sinfo.dtype:
                parts.append(f"dtype={json.dumps(sinfo.dtype)}")
            if sinfo.shape is None and sinfo.ndim >= 0:
                parts.append(f"ndim={sinfo.ndim}")
            if sinfo.vdevice is not None:
                parts.append(f"vdevice={json.dumps(self.vdevice_name(sinfo.vdevice))}")
            return "R.Tensor(" + ", ".join(parts) + ")"
        if isinstance(sinfo, TupleStructInfo):
            return "R.Tuple([" + ", ".join(self.format(f) for f in sinfo.fields) + "])"
        if isinstance(sinfo, ShapeStructInfo):
            if sinfo.values is not None:
                return f"R.Shape({_dims_list(sinfo.values)})"
            return f"R.Shape(ndim={sinfo.ndim})" if sinfo.ndim >= 0 else "R.Shape()"
        if isinstance(sinfo, PrimStructInfo):
            if sinfo.value is None:
                return f"R.Prim({json.dumps(sinfo.dtype)})"
            return f"R.Prim({json.dumps(sinfo.dtype)}, value={literal(sinfo.value)})"
        if isinstance(sinfo, ObjectStructInfo):
            return "R.Object"
        if isinstance(sinfo, FuncStructInfo):
            params = ", ".join(self.format(p) for p in sinfo.params)
            return f"R.Callable([{params}], {self.format(sinfo.ret)})"
        raise PrintError(f"cannot print struct info {sinfo!r}")


class _ModulePrinter:
    def __init__(self, mod: IRModule) -> None:
        self.mod = mod
        self.sinfo = _SInfoFormatter(mod.vdevices)
        name = mod.name if isinstance(mod.name, str) and mod.name.isidentifier() else "Module"
        self.class_name = "Module" if keyword.iskeyword(name) else name
        self.lines: list[str] = []
        self._plans: dict[str, list[tuple[str, str, bool]]] = {}

    def call_plan(self, op: Op) -> list[tuple[str, str, bool]]:
        """(name, kind, positional) per parameter of `op`, computed once per op.

        Tensor arguments are written positionally; an attribute is written
        positionally only when a tensor parameter follows it (``R.full(R.shape([2]),
        fill, dtype="float32")``), every other attribute as a keyword.
        """
        plan = self._plans.get(op.name)
        if plan is None:
            last_tensor = max((i for i, p in enumerate(op.params) if p.kind in (TENSOR, TENSORS)), default=-1)
            plan = [(p.name, p.kind, i < last_tensor) for i, p in enumerate(op.params)]
            self._plans[op.name] = plan
        return plan

    def run(self) -> str:
        out = self.lines
        out.extend(HEADER)
        out.append("@I.ir_module")
        out.append(f"class {self.class_name}:")
        mod = self.mod
        if mod.attrs:
            out.append(f"{INDENT}I.module_attrs({literal(dict(mod.attrs))})")
        infos = {k: v for k, v in mod.global_infos.items() if k != "vdevice" and v}
        if mod.vdevices or infos:
            entries = []
            if mod.vdevices:
                entries.append('"vdevice": [' + ", ".join(format_vdevice(v) for v in mod.vdevices) + "]")
            for key, values in infos.items():
                entries.append(f"{literal(key)}: {literal(list(values))}")
            out.append(f"{INDENT}I.module_global_infos({{{', '.join(entries)}}})")
        if not mod.functions:
            out.append(f"{INDENT}pass")
        for i, (gname, func) in enumerate(mod.functions.items()):
            if i or len(out) > len(HEADER) + 2:  # a blank line after the module's header lines
                out.append("")
            if not gname.isidentifier() or keyword.iskeyword(gname):
                raise PrintError(f"function name {gname!r} is not a Python identifier")
            _FunctionPrinter(self, gname, func).run()
        return "\n".join(out) + "\n"


class _FunctionPrinter:
    """Prints one function; owns the function's table of unique variable names."""

    def __init__(self, module: _ModulePrinter, gname: str, func: Function) -> None:
        self.module = module
        self.gname = gname
        self.func = func
        self.sinfo = module.sinfo
        self.names: dict[Var, str] = {}
        self.taken: set[str] = set(_RESERVED)
        self.suffixes: dict[str, int] = {}
        self.taken.add(module.class_name)
        self.where = f"function {gname!r}"
        self.uses_cls = False

    # -- names ----------------------------------------------------------------
    def define(self, var: Var) -> str:
        base = var.name
        if base not in self.taken and base.isidentifier():
            self.taken.add(base)
            self.names[var] = base
            return base
        if not base.isidentifier():
            base = _NOT_IDENT_CHAR.sub("_", base) or "v"
            if base[0].isdigit():
                base = "v" + base
        name = base
        if name in self.taken:
            # TVM's scheme: lv0, lv0_1, lv0_2...; remember the next suffix per stem so
            # a function with thousands of equal names stays linear.
            k = self.suffixes.get(base, 1)
            name = f"{base}_{k}"
            while name in self.taken:
                k += 1
                name = f"{base}_{k}"
            self.suffixes[base] = k + 1
        self.taken.add(name)
        self.names[var] = name
        return name

    def use(self, var: Var) -> str:
        name = self.names.get(var)
        if name is None:
            raise PrintError(f"{self.where}: variable {var.name!r} is used but never defined")
        return name

    # -- the function -----------------------------------------------------------
    def run(self) -> None:
        func = self.func
        out = self.module.lines
        deco_kwargs = [f"{k}={literal(func.attrs[k])}" for k in _DECORATOR_ATTRS if k in func.attrs]
        # @R.function(private=False) is the default; print the bare decorator for it.
        if deco_kwargs == ["private=False"]:
            deco_kwargs = []
        out.append(f"{INDENT}@R.function({', '.join(deco_kwargs)})" if deco_kwargs else f"{INDENT}@R.function")
        params = []
        for p in func.params:
            params.append(f"{self.define(p)}: {self.fmt_sinfo(p.struct_info, p)}")
        ret = self.fmt_sinfo(func.ret_struct_info, None)
        out.append(f"{INDENT}def {self.gname}({', '.join(params)}) -> {ret}:")
        body_indent = INDENT * 2
        other_attrs = {k: v for k, v in func.attrs.items() if k not in _DECORATOR_ATTRS}
        if other_attrs:
            out.append(f"{body_indent}R.func_attr({literal(other_attrs)})")
        cls_at = len(out)
        self.uses_cls = False
        self.print_seq(func.body, body_indent, result=None)
        if self.uses_cls:
            out.insert(cls_at, f"{body_indent}cls = {self.module.class_name}")

    def fmt_sinfo(self, sinfo: StructInfo, var: Var | None) -> str:
        try:
            return self.sinfo.format(sinfo)
        except PrintError as err:
            what = f"variable {var.name!r}" if var is not None else "the return struct info"
            raise PrintError(f"{self.where}, {what}: {err}") from None

    def print_seq(self, seq: SeqExpr, indent: str, result: Var | None) -> None:
        """Print a SeqExpr: its blocks, then ``return body`` or ``result: sinfo = body``.

        Walks with an explicit stack: an If pushes its branches (and the
        ``else:`` line between them) instead of recursing.
        """
        out = self.module.lines
        # Work items: ("seq", seq, indent, result) | ("line", text) | ("bindings", block, start, indent)
        stack: list[tuple] = [("seq", seq, indent, result)]
        while stack:
            item = stack.pop()
            tag = item[0]
            if tag == "line":
                out.append(item[1])
            elif tag == "seq":
                _, s, ind, res = item
                stack.append(("tail", s.body, ind, res))
                for block in reversed(s.blocks):
                    stack.append(("block", block, ind))
            elif tag == "tail":
                _, body, ind, res = item
                value = self.expr(body)
                if res is None:
                    out.append(f"{ind}return {value}")
                else:
                    out.append(f"{ind}{self.names[res]}: {self.fmt_sinfo(res.struct_info, res)} = {value}")
            elif tag == "block":
                _, block, ind = item
                if block.is_dataflow:
                    out.append(f"{ind}with R.dataflow():")
                    inner = ind + INDENT
                    stack.append(("output", block, inner))
                    stack.append(("bindings", block, 0, inner))
                else:
                    stack.append(("bindings", block, 0, ind))
            elif tag == "output":
                _, block, ind = item
                outputs = ", ".join(self.names[b.var] for b in block.bindings if not isinstance(b.var, DataflowVar))
                out.append(f"{ind}R.output({outputs})")
            else:  # "bindings": print from `start` until an If, which suspends the block
                _, block, start, ind = item
                bindings = block.bindings
                for i in range(start, len(bindings)):
                    binding = bindings[i]
                    if isinstance(binding.value, If):
                        stack.append(("bindings", block, i + 1, ind))
                        self.push_if(stack, binding, ind)
                        break
                    out.append(self.binding(binding, ind))

    def push_if(self, stack: list[tuple], binding: Binding, indent: str) -> None:
        node: If = binding.value  # type: ignore[assignment]
        var = binding.var
        cond = self.expr(node.cond)
        # The If's variable is written at the end of both branches under one name.
        self.define(var)
        inner = indent + INDENT
        self.module.lines.append(f"{indent}if {cond}:")
        stack.append(("seq", node.false_branch, inner, var))
        stack.append(("line", f"{indent}else:"))
        stack.append(("seq", node.true_branch, inner, var))

    def binding(self, binding: Binding, indent: str) -> str:
        value = self.expr(binding.value)
        var = binding.var
        name = self.define(var)
        return f"{indent}{name}: {self.fmt_sinfo(var.struct_info, var)} = {value}"

    # -- expressions ------------------------------------------------------------
    def expr(self, e: Expr) -> str:
        """An expression in value position (normalized IR keeps these shallow)."""
        if isinstance(e, Var):
            return self.use(e)
        if isinstance(e, Call):
            return self.call(e)
        if isinstance(e, Tuple):
            if not e.fields:
                return "R.tuple()"
            if len(e.fields) == 1:
                return f"({self.expr(e.fields[0])},)"
            return "(" + ", ".join(self.expr(f) for f in e.fields) + ")"
        if isinstance(e, TupleGetItem):
            inner = self.expr(e.tuple_value)
            return f"{inner}[{e.index}]"
        if isinstance(e, Constant):
            return self.constant(e)
        if isinstance(e, ShapeExpr):
            return f"R.shape({_dims_list(e.values)})"
        if isinstance(e, PrimValue):
            return self.prim_value(e)
        if isinstance(e, StringImm):
            return f"R.str({json.dumps(e.value)})"
        if isinstance(e, GlobalVar):
            self.uses_cls = True
            return f"cls.{e.name}"
        raise PrintError(f"{self.where}: cannot print a {type(e).__name__} in value position")

    def call(self, call: Call) -> str:
        op = call.op
        if isinstance(op, GlobalVar):
            self.uses_cls = True
            return f"cls.{op.name}(" + ", ".join(self.expr(a) for a in call.args) + ")"
        if not isinstance(op, Op):
            raise PrintError(f"{self.where}: a call's callee must be an op or a module function, got {op!r}")
        attrs = call.attrs
        args = call.args
        parts: list[str] = []
        next_arg = 0
        known = 0
        for name, kind, positional in self.module.call_plan(op):
            if kind in (TENSOR, TENSORS):
                if next_arg < len(args):
                    parts.append(self.expr(args[next_arg]))
                    next_arg += 1
            elif name in attrs:
                known += 1
                text = self.attr(op, kind, name, attrs[name])
                parts.append(text if positional else f"{name}={text}")
        # Arguments or attributes the op does not declare (malformed IR): print them anyway.
        parts.extend(self.expr(a) for a in args[next_arg:])
        if known < len(attrs):
            declared = {p.name for p in op.params}
            parts.extend(f"{k}={self.attr(op, ATTR, k, v)}" for k, v in attrs.items() if k not in declared)
        return f"R.{op.name}(" + ", ".join(parts) + ")"

    def attr(self, op: Op, kind: str, name: str, value: Any) -> str:
        if kind == ATTR:
            try:
                return literal(value)
            except PrintError as err:
                raise PrintError(f"{self.where}: R.{op.name} attribute {name!r}: {err}") from None
        if kind == SHAPE:
            if value is None:
                return "None"
            return f"R.shape({_dims_list(value)})"
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
                return json.dumps(self.sinfo.vdevice_name(value))
            except PrintError as err:
                raise PrintError(f"{self.where}: R.{op.name} attribute {name!r}: {err}") from None
        raise PrintError(f"{self.where}: R.{op.name}: unknown parameter kind {kind!r}")

    def constant(self, c: Constant) -> str:
        data = np.asarray(c.data)
        if data.dtype.kind == "f" and np.isnan(data).any():
            raise PrintError(f"{self.where}: cannot print a constant holding NaN")
        return f"R.const({_array_literal(data)}, {json.dumps(_constant_dtype(c))})"

    def prim_value(self, p: PrimValue) -> str:
        value = p.value
        default = "bool" if isinstance(value, bool) else "int64" if isinstance(value, int) else "float64"
        if p.dtype == default:
            return f"R.prim_value({literal(value)})"
        return f"R.prim_value(T.{p.dtype}({literal(value)}))"


def _scalar_formatter(data: np.ndarray):
    """How one element is written: the shortest text that reads back to the same value."""
    kind = data.dtype.kind
    if kind == "b":
        return lambda x: "True" if x else "False"
    if kind in "iu":
        return lambda x: str(int(x))
    if kind == "f":
        # str() of a NumPy float is the shortest string that round-trips in its own
        # precision (0.1 for float32, not 0.10000000149011612).
        return lambda x: _float(float(x)) if not np.isfinite(x) else str(x)
    raise PrintError(f"cannot print a constant of NumPy dtype {data.dtype}")


def _array_literal(data: np.ndarray) -> str:
    """A scalar, or nested lists for an array, grouped innermost axis first."""
    fmt = _scalar_formatter(data)
    if data.ndim == 0:
        return fmt(data[()])
    if data.size == 0:
        # Only the axes before the first empty one can be written.
        text = "[]"
        for axis_len in reversed(data.shape[: data.shape.index(0)]):
            text = "[" + ", ".join([text] * axis_len) + "]"
        return text
    items = [fmt(x) for x in data.ravel()]
    for axis_len in reversed(data.shape):
        items = ["[" + ", ".join(items[i : i + axis_len]) + "]" for i in range(0, len(items), axis_len)]
    return items[0]


def _constant_dtype(c: Constant) -> str:
    sinfo = c.struct_info
    if isinstance(sinfo, TensorStructInfo) and sinfo.dtype:
        return sinfo.dtype
    return str(np.asarray(c.data).dtype)


__all__ = ["PrintError", "script", "format_struct_info", "format_target", "format_vdevice", "literal"]
