"""Structural equality of modules, functions and expressions, up to renaming of local variables.

Two programs are equal when they differ only in the names (and identities) of
their local variables, their spans, what the user happened to write as
annotations, and the module's name and source text.  What is compared:

* the module's vdevice list (by value: target, id, memory scope, in order),
  its attributes and other global infos, and the set of function names;
* per function: attributes, parameters (kind and struct info), the declared
  return struct info and the body;
* per binding: the variable kind (`Var` vs `DataflowVar`), the variable's full
  struct info (vdevice included) and the bound value;
* ops by name, attributes by value, constants by dtype, shape and data,
  shapes, prim values, tuples, If structure, dataflow vs plain blocks.

Variables are matched on definition (parameters, binding variables) and every
later use must follow that matching in both directions.  `Binding.annotation`
is ignored on purpose: a module built in Python with no annotations must equal
its own printed-and-reparsed form, where every binding is annotated.  Empty
blocks are skipped and adjacent plain blocks are merged before comparing,
because the printed text cannot tell ``[b1], [b2]`` from ``[b1, b2]``.

The walk uses an explicit stack, so 100k-binding functions and deeply nested
Ifs compare without touching Python's recursion limit.  It is its own walker,
not an `ir.visitor.ExprVisitor`: it goes through two trees in lockstep (the
visitor walks one), compares canonicalized block lists rather than the blocks
as written, and stops at the first difference with its location.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .expr import (
    Binding,
    BindingBlock,
    Call,
    Constant,
    DataflowBlock,
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
from .op import Op

Node = IRModule | Function | Expr


def structural_equal(a: Node, b: Node) -> bool:
    """Whether `a` and `b` (modules, functions or expressions) are equal up to variable renaming."""
    return _Comparer().compare(a, b) is None


def assert_structural_equal(a: Node, b: Node) -> None:
    """Raise `AssertionError` naming the first difference (function, binding, what differs)."""
    diff = _Comparer().compare(a, b)
    if diff is not None:
        raise AssertionError(f"not structurally equal: {diff}")


def structural_diff(a: Node, b: Node) -> str | None:
    """The first difference between `a` and `b` as one line, or None when they are equal."""
    return _Comparer().compare(a, b)


def _canonical_blocks(blocks: Sequence[BindingBlock]) -> list[tuple[bool, list[Binding]]]:
    """Drop empty blocks and merge adjacent plain blocks: what the text can distinguish."""
    out: list[tuple[bool, list[Binding]]] = []
    for block in blocks:
        if not block.bindings:
            continue
        dataflow = isinstance(block, DataflowBlock) or block.is_dataflow
        if not dataflow and out and not out[-1][0]:
            out[-1][1].extend(block.bindings)
        else:
            out.append((dataflow, list(block.bindings)))
    return out


def _norm_value(value: Any) -> Any:
    """An attribute value in a form where equal meanings compare equal (tuples == lists)."""
    if isinstance(value, (list, tuple)):
        return ("seq", tuple(_norm_value(v) for v in value))
    if isinstance(value, Mapping):
        return ("map", tuple(sorted((str(k), _norm_value(v)) for k, v in value.items())))
    if isinstance(value, np.ndarray):
        return ("array", str(value.dtype), value.shape, value.tobytes())
    if isinstance(value, bool | np.bool_):
        return ("bool", bool(value))
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value  # VDevice, Target, DeviceSpec and scalars compare by value


def _values_equal(a: Any, b: Any) -> bool:
    return _norm_value(a) == _norm_value(b)


class _Comparer:
    """One comparison: a var matching in both directions plus the current location for messages."""

    def __init__(self) -> None:
        self.a_to_b: dict[Var, Var] = {}
        self.b_to_a: dict[Var, Var] = {}
        # Location for messages: the function, then the binding being compared
        # (kept as objects and formatted only when a difference is reported).
        self.func_where = "expression"
        self._where = "expression"
        self._binding: tuple[Binding, Binding] | None = None

    @property
    def where(self) -> str:
        if self._binding is None:
            return self._where
        a, b = self._binding
        return f"{self.func_where}, binding {a.var.name!r} vs {b.var.name!r}"

    @where.setter
    def where(self, text: str) -> None:
        self._where = text
        self._binding = None

    # -- entry points -----------------------------------------------------------
    def compare(self, a: Node, b: Node) -> str | None:
        if isinstance(a, IRModule) or isinstance(b, IRModule):
            if not (isinstance(a, IRModule) and isinstance(b, IRModule)):
                return f"cannot compare {type(a).__name__} with {type(b).__name__}"
            return self.modules(a, b)
        if isinstance(a, Function) and isinstance(b, Function):
            self.func_where = self.where = "function"
            return self.function(a, b)
        if isinstance(a, Expr) and isinstance(b, Expr):
            return self.value(a, b)
        return f"cannot compare {type(a).__name__} with {type(b).__name__}"

    def modules(self, a: IRModule, b: IRModule) -> str | None:
        if a.vdevices != b.vdevices:
            return f"vdevice lists differ: {a.vdevices} vs {b.vdevices}"
        infos_a = {k: v for k, v in a.global_infos.items() if k != "vdevice" and v}
        infos_b = {k: v for k, v in b.global_infos.items() if k != "vdevice" and v}
        if not _values_equal(infos_a, infos_b):
            return f"global infos differ: {infos_a} vs {infos_b}"
        if not _values_equal(a.attrs, b.attrs):
            return f"module attrs differ: {a.attrs} vs {b.attrs}"
        missing = [n for n in a.functions if n not in b.functions]
        extra = [n for n in b.functions if n not in a.functions]
        if missing or extra:
            return f"function names differ: only in the first {missing}, only in the second {extra}"
        for name, fa in a.functions.items():
            self.a_to_b.clear()
            self.b_to_a.clear()
            self.func_where = self.where = f"function {name!r}"
            diff = self.function(fa, b.functions[name])
            if diff is not None:
                return diff
        return None

    def function(self, a: Function, b: Function) -> str | None:
        attrs_a, attrs_b = _func_attrs(a), _func_attrs(b)
        if not _values_equal(attrs_a, attrs_b):
            return f"{self.where}: attrs differ: {attrs_a} vs {attrs_b}"
        if len(a.params) != len(b.params):
            return f"{self.where}: {len(a.params)} vs {len(b.params)} parameters"
        for i, (pa, pb) in enumerate(zip(a.params, b.params, strict=True)):
            diff = self.var_def(pa, pb, f"parameter {i} ({pa.name!r} vs {pb.name!r})")
            if diff is not None:
                return diff
        if a.ret_struct_info != b.ret_struct_info:
            return f"{self.where}: return struct info differs: {repr(a.ret_struct_info)} vs {repr(b.ret_struct_info)}"
        return self.run([("seq", a.body, b.body)])

    # -- variables ----------------------------------------------------------------
    def var_def(self, a: Var, b: Var, what: str) -> str | None:
        if type(a) is not type(b):
            return f"{self.where}, {what}: {type(a).__name__} vs {type(b).__name__}"
        if a.struct_info is not b.struct_info and a.struct_info != b.struct_info:
            return f"{self.where}, {what}: struct info {repr(a.struct_info)} vs {repr(b.struct_info)}"
        if a in self.a_to_b or b in self.b_to_a:
            return f"{self.where}, {what}: variable defined twice"
        self.a_to_b[a] = b
        self.b_to_a[b] = a
        return None

    def var_use(self, a: Var, b: Var) -> str | None:
        mapped = self.a_to_b.get(a)
        if mapped is None:
            if b in self.b_to_a or a.struct_info != b.struct_info or type(a) is not type(b):
                return f"{self.where}: uses {a.name!r} where the other uses {b.name!r}"
            # A free variable (comparing bare expressions): match it on first use.
            self.a_to_b[a] = b
            self.b_to_a[b] = a
            return None
        if mapped is not b:
            return f"{self.where}: uses {a.name!r} where the other uses {b.name!r}"
        return None

    # -- the walk -------------------------------------------------------------------
    def run(self, stack: list[tuple]) -> str | None:
        """Process work items LIFO; an If suspends its block until both branches are done."""
        while stack:
            item = stack.pop()
            tag = item[0]
            if tag == "bindings":
                diff = self.bindings(item[1], item[2], item[3], stack)
            elif tag == "seq":
                diff = self.seq(item[1], item[2], stack)
            elif tag == "expr":
                diff = self.value(item[1], item[2])
            elif tag == "where":
                self.where = item[1]
                diff = None
            else:  # "define"
                diff = self.var_def(item[1], item[2], "variable")
            if diff is not None:
                return diff
        return None

    def seq(self, a: SeqExpr, b: SeqExpr, stack: list[tuple]) -> str | None:
        blocks_a = _canonical_blocks(a.blocks)
        blocks_b = _canonical_blocks(b.blocks)
        base = self.where
        if len(blocks_a) != len(blocks_b):
            return f"{base}: {len(blocks_a)} vs {len(blocks_b)} binding blocks"
        flat_a: list[Binding] = []
        flat_b: list[Binding] = []
        for i, ((df_a, ba), (df_b, bb)) in enumerate(zip(blocks_a, blocks_b, strict=True)):
            if df_a != df_b:
                kind = {True: "dataflow", False: "plain"}
                return f"{base}: block {i} is a {kind[df_a]} block vs a {kind[df_b]} block"
            if len(ba) != len(bb):
                names = [x.var.name for x in ba], [x.var.name for x in bb]
                return f"{base}: block {i} has {len(ba)} vs {len(bb)} bindings ({names[0]} vs {names[1]})"
            flat_a.extend(ba)
            flat_b.extend(bb)
        stack.append(("expr", a.body, b.body))
        stack.append(("where", f"{base}, result"))
        stack.append(("bindings", flat_a, flat_b, 0))
        return None

    def bindings(self, flat_a: list[Binding], flat_b: list[Binding], start: int, stack: list[tuple]) -> str | None:
        """Compare bindings in order from `start`; an If pushes its branches and the rest."""
        for i in range(start, len(flat_a)):
            ba, bb = flat_a[i], flat_b[i]
            va, vb = ba.value, bb.value
            self._binding = (ba, bb)
            if isinstance(va, If) or isinstance(vb, If):
                if type(va) is not type(vb) or not isinstance(va, If) or not isinstance(vb, If):
                    return f"{self.where}: {type(va).__name__} vs {type(vb).__name__}"
                stack.append(("bindings", flat_a, flat_b, i + 1))
                stack.append(("define", ba.var, bb.var))
                self.push_if(va, vb, stack)
                return None
            diff = self.value(va, vb)
            if diff is None:
                diff = self.var_def(ba.var, bb.var, "variable")
            if diff is not None:
                return diff
        return None

    def push_if(self, a: If, b: If, stack: list[tuple]) -> None:
        where = self.where
        # LIFO: the condition, then the true branch, then the false branch.
        stack.append(("where", where))
        stack.append(("seq", a.false_branch, b.false_branch))
        stack.append(("where", f"{where}, else branch"))
        stack.append(("seq", a.true_branch, b.true_branch))
        stack.append(("where", f"{where}, then branch"))
        stack.append(("expr", a.cond, b.cond))

    def value(self, a: Expr, b: Expr) -> str | None:
        """Compare two expressions in value position (shallow in normalized IR), without recursion.

        Past the type test, `x` and `y` are of one type: each ``isinstance(y, ...)`` below holds when the
        one on `x` does, and only tells the type checker so.
        """
        todo = [(a, b)]
        while todo:
            x, y = todo.pop()
            if isinstance(x, Var) and isinstance(y, Var):
                diff = self.var_use(x, y)
            elif type(x) is not type(y):
                diff = f"{self.where}: {type(x).__name__} vs {type(y).__name__}"
            elif isinstance(x, Call) and isinstance(y, Call):
                diff = self.call(x, y, todo)
            elif isinstance(x, Tuple) and isinstance(y, Tuple):
                if len(x.fields) != len(y.fields):
                    diff = f"{self.where}: tuples of {len(x.fields)} vs {len(y.fields)} fields"
                else:
                    todo.extend(zip(x.fields, y.fields, strict=True))
                    diff = None
            elif isinstance(x, TupleGetItem) and isinstance(y, TupleGetItem):
                if x.index != y.index:
                    diff = f"{self.where}: tuple index {x.index} vs {y.index}"
                else:
                    todo.append((x.tuple_value, y.tuple_value))
                    diff = None
            elif isinstance(x, (If, SeqExpr, Function)):
                # Not in value position in normalized IR; compare it as a nested walk.
                diff = self.nested(x, y)
            else:
                diff = self.leaf(x, y)
            if diff is not None:
                return diff
        return None

    def nested(self, a: Expr, b: Expr) -> str | None:
        """Compare an `If`, `SeqExpr` or `Function` `a` with `b` of the same type."""
        if isinstance(a, Function) and isinstance(b, Function):
            return self.function(a, b)
        stack: list[tuple] = []
        if isinstance(a, If) and isinstance(b, If):
            self.push_if(a, b, stack)
        else:
            stack.append(("seq", a, b))
        return self.run(stack)

    def leaf(self, a: Expr, b: Expr) -> str | None:
        """Compare a leaf `a` with `b` of the same type."""
        if isinstance(a, Constant) and isinstance(b, Constant):
            return self.constant(a, b)
        if isinstance(a, ShapeExpr) and isinstance(b, ShapeExpr):
            if a.values != b.values:
                return f"{self.where}: shape {list(a.values)} vs {list(b.values)}"
            return None
        if isinstance(a, PrimValue) and isinstance(b, PrimValue):
            if a.dtype != b.dtype or not _values_equal(a.value, b.value):
                return f"{self.where}: prim value {a.value!r} ({a.dtype}) vs {b.value!r} ({b.dtype})"
            return None
        if isinstance(a, StringImm) and isinstance(b, StringImm):
            if a.value != b.value:
                return f"{self.where}: string {a.value!r} vs {b.value!r}"
            return None
        if isinstance(a, GlobalVar) and isinstance(b, GlobalVar):
            if a.name != b.name:
                return f"{self.where}: function {a.name!r} vs {b.name!r}"
            return None
        return f"{self.where}: cannot compare expressions of type {type(a).__name__}"

    def call(self, a: Call, b: Call, todo: list[tuple[Expr, Expr]]) -> str | None:
        oa, ob = a.op, b.op
        if isinstance(oa, Op) and isinstance(ob, Op):
            if oa.name != ob.name:
                return f"{self.where}: op R.{oa.name} vs R.{ob.name}"
        elif isinstance(oa, GlobalVar) and isinstance(ob, GlobalVar):
            if oa.name != ob.name:
                return f"{self.where}: call of cls.{oa.name} vs cls.{ob.name}"
        else:
            return f"{self.where}: callee {_callee(oa)} vs {_callee(ob)}"
        if len(a.args) != len(b.args):
            return f"{self.where}: {_callee(oa)} with {len(a.args)} vs {len(b.args)} arguments"
        keys_a, keys_b = set(a.attrs), set(b.attrs)
        if keys_a != keys_b:
            return f"{self.where}: {_callee(oa)} attributes {sorted(keys_a)} vs {sorted(keys_b)}"
        for key in a.attrs:
            if not _values_equal(a.attrs[key], b.attrs[key]):
                return f"{self.where}: {_callee(oa)} attribute {key}={a.attrs[key]!r} vs {b.attrs[key]!r}"
        todo.extend(zip(a.args, b.args, strict=True))
        return None

    def constant(self, a: Constant, b: Constant) -> str | None:
        if a.ref != b.ref:
            return f"{self.where}: constant {_constant_name(a)} vs {_constant_name(b)}"
        if a.data is None or b.data is None:
            if (a.data is None) != (b.data is None):
                return f"{self.where}: constant {_constant_name(a)} with a value vs without one"
            return None
        da, db = np.asarray(a.data), np.asarray(b.data)
        dtype_a, dtype_b = _constant_dtype(a), _constant_dtype(b)
        if dtype_a != dtype_b:
            return f"{self.where}: constant dtype {dtype_a} vs {dtype_b}"
        if da.shape != db.shape:
            return f"{self.where}: constant shape {da.shape} vs {db.shape}"
        equal_nan = da.dtype.kind in "fc" and db.dtype.kind in "fc"
        if not np.array_equal(da, db, equal_nan=equal_nan):
            return f"{self.where}: constant values differ ({_clip(da)} vs {_clip(db)})"
        return None


def _func_attrs(func: Function) -> dict[str, Any]:
    """Function attributes; ``private=False`` is the default, so it equals no entry at all."""
    attrs = dict(func.attrs)
    if "private" in attrs and not attrs["private"]:
        del attrs["private"]
    return attrs


def _constant_name(c: Constant) -> str:
    return "an inline constant" if c.ref is None else repr(c.ref)


def _constant_dtype(c: Constant) -> str:
    dtype = getattr(c.struct_info, "dtype", "")
    return dtype or str(np.asarray(c.data).dtype)


def _callee(op: Any) -> str:
    if isinstance(op, Op):
        return f"R.{op.name}"
    if isinstance(op, GlobalVar):
        return f"cls.{op.name}"
    return repr(op)


def _clip(data: np.ndarray) -> str:
    text = np.array2string(data, threshold=8)
    return text if len(text) <= 60 else text[:57] + "..."
