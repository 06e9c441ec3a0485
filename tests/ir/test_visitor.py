"""`ir.visitor`: the order of visits, the mutator's sharing and rebuilding, and walks too deep to recurse."""

from __future__ import annotations

import gc
import weakref
from contextlib import contextmanager

import numpy as np
import pytest

from vdplace.ir import parse, script, structural_equal
from vdplace.ir.builder import tensor
from vdplace.ir.expr import (
    Binding,
    BindingBlock,
    Call,
    Constant,
    DataflowBlock,
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
from vdplace.ir.module import IRModule, iter_bindings
from vdplace.ir.op import get_op
from vdplace.ir.struct_info import PrimStructInfo, ShapeStructInfo, TupleStructInfo
from vdplace.ir.visitor import ExprMutator, ExprVisitor

ADD = get_op("add")
MULTIPLY = get_op("multiply")
T2 = tensor((2,), "float32")
BOOL = tensor((), "bool")


def _name(node: object) -> str:
    """A short label for an event: the variable or op name, else the node's type."""
    if isinstance(node, (Var, GlobalVar)):
        return node.name
    if isinstance(node, Binding):
        return node.var.name
    if isinstance(node, Call):
        return node.op.name
    return type(node).__name__


HOOKS = [
    name
    for name in dir(ExprVisitor)
    if name.startswith(("visit_", "enter_")) and name not in ("visit_module", "visit_dataflow_var")
]


def _recording(hook: str):
    def record(self: ExprVisitor, node: object) -> None:
        self.events.append((hook, _name(node)))  # type: ignore[attr-defined]

    return record


class _Recorder(ExprVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, str]] = []

    def visit_dataflow_var(self, var: DataflowVar) -> None:
        self.events.append(("visit_dataflow_var", var.name))


# Records every hook call as ``(hook, label)``.
Recorder = type("Recorder", (_Recorder,), {hook: _recording(hook) for hook in HOOKS})


@contextmanager
def no_gc():
    """Build a big module without the cyclic collector rescanning it at every allocation burst."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _sample() -> IRModule:
    """One function using every node kind: params, a dataflow block, a plain block with an If, leaves."""
    x, c = Var("x", T2), Var("c", BOOL)
    a = DataflowVar("a", T2)
    b = Var("b", T2)
    dataflow = DataflowBlock([Binding(a, Call(ADD, [x, x], {}, T2)), Binding(b, Call(MULTIPLY, [a, x], {}, T2))])
    t, item = Var("t", TupleStructInfo([T2, T2])), Var("i", T2)
    in_true = Var("u", T2)
    branch_true = SeqExpr([BindingBlock([Binding(in_true, Call(ADD, [b, item], {}, T2))])], in_true)
    branch_false = SeqExpr([], b)
    r = Var("r", T2)
    const = Constant(np.zeros(2, "float32"), T2)
    k, s, p, g = Var("k", T2), Var("s", ShapeStructInfo([2])), Var("p", PrimStructInfo("int64")), Var("g")
    plain = BindingBlock(
        [
            Binding(t, Tuple([b, TupleGetItem(Tuple([x, b]), 1)], TupleStructInfo([T2, T2]))),
            Binding(item, TupleGetItem(t, 0, T2)),
            Binding(r, If(c, branch_true, branch_false, T2)),
            Binding(k, const),
            Binding(s, ShapeExpr([2])),
            Binding(p, PrimValue(1, "int64")),
            Binding(g, Tuple([StringImm("hi"), GlobalVar("main")])),
        ]
    )
    func = Function([x, c], SeqExpr([dataflow, plain], r), T2)
    return IRModule({"main": func})


EXPECTED = [
    ("enter_function", "Function"),
    ("visit_var_def", "x"),
    ("visit_var_def", "c"),
    ("enter_seq_expr", "SeqExpr"),
    ("enter_block", "DataflowBlock"),
    ("enter_binding", "a"),
    ("visit_var", "x"),
    ("visit_var", "x"),
    ("visit_call", "add"),
    ("visit_var_def", "a"),
    ("visit_binding", "a"),
    ("enter_binding", "b"),
    ("visit_dataflow_var", "a"),
    ("visit_var", "x"),
    ("visit_call", "multiply"),
    ("visit_var_def", "b"),
    ("visit_binding", "b"),
    ("visit_block", "DataflowBlock"),
    ("enter_block", "BindingBlock"),
    ("enter_binding", "t"),
    ("visit_var", "b"),
    ("visit_var", "x"),
    ("visit_var", "b"),
    ("visit_tuple", "Tuple"),
    ("visit_tuple_get_item", "TupleGetItem"),
    ("visit_tuple", "Tuple"),
    ("visit_var_def", "t"),
    ("visit_binding", "t"),
    ("enter_binding", "i"),
    ("visit_var", "t"),
    ("visit_tuple_get_item", "TupleGetItem"),
    ("visit_var_def", "i"),
    ("visit_binding", "i"),
    ("enter_binding", "r"),
    ("enter_if", "If"),
    ("visit_var", "c"),
    ("enter_seq_expr", "SeqExpr"),
    ("enter_block", "BindingBlock"),
    ("enter_binding", "u"),
    ("visit_var", "b"),
    ("visit_var", "i"),
    ("visit_call", "add"),
    ("visit_var_def", "u"),
    ("visit_binding", "u"),
    ("visit_block", "BindingBlock"),
    ("visit_var", "u"),
    ("visit_seq_expr", "SeqExpr"),
    ("enter_seq_expr", "SeqExpr"),
    ("visit_var", "b"),
    ("visit_seq_expr", "SeqExpr"),
    ("visit_if", "If"),
    ("visit_var_def", "r"),
    ("visit_binding", "r"),
    ("enter_binding", "k"),
    ("visit_constant", "Constant"),
    ("visit_var_def", "k"),
    ("visit_binding", "k"),
    ("enter_binding", "s"),
    ("visit_shape_expr", "ShapeExpr"),
    ("visit_var_def", "s"),
    ("visit_binding", "s"),
    ("enter_binding", "p"),
    ("visit_prim_value", "PrimValue"),
    ("visit_var_def", "p"),
    ("visit_binding", "p"),
    ("enter_binding", "g"),
    ("visit_string_imm", "StringImm"),
    ("visit_global_var", "main"),
    ("visit_tuple", "Tuple"),
    ("visit_var_def", "g"),
    ("visit_binding", "g"),
    ("visit_block", "BindingBlock"),
    ("visit_var", "r"),
    ("visit_seq_expr", "SeqExpr"),
    ("visit_function", "Function"),
]


# -- ExprVisitor -------------------------------------------------------------------------------------------


def test_visitor_sees_every_node_in_the_documented_order():
    rec = Recorder()
    rec.visit_module(_sample())
    assert rec.events == EXPECTED


def test_a_released_visitor_is_freed_without_the_collector_and_walks_again_when_asked():
    rec = Recorder()
    rec.release()
    rec.visit_module(_sample())  # the hooks are taken again: same events
    assert rec.events == EXPECTED
    with no_gc():
        used = Recorder()
        used.walk(_sample()["main"])
        used.release()
        alive = weakref.ref(used)
        del used
        assert alive() is None  # freed by reference counting


def test_a_dataflow_var_use_reaches_visit_var_unless_overridden():
    class Uses(ExprVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.uses: list[str] = []

        def visit_var(self, var: Var) -> None:
            self.uses.append(var.name)

    uses = Uses()
    uses.visit_module(_sample())
    assert uses.uses == ["x", "x", "a", "x", "b", "x", "b", "t", "c", "b", "i", "u", "b", "r"]

    class DataflowOnly(Uses):
        def visit_dataflow_var(self, var: DataflowVar) -> None:
            self.uses.append("df:" + var.name)

    only = DataflowOnly()
    only.visit_module(_sample())
    assert only.uses[2] == "df:a"


def test_global_name_is_set_while_a_function_is_walked():
    class Names(ExprVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str | None] = []

        def enter_function(self, func: Function) -> None:
            self.seen.append(self.global_name)

    mod = _sample()
    mod = mod.replace(functions={"main": mod["main"], "other": mod["main"]})
    names = Names()
    names.visit_module(mod)
    assert names.seen == ["main", "other"] and names.global_name is None


def test_walk_accepts_any_node_and_rejects_other_objects():
    rec = Recorder()
    rec.walk(Binding(Var("y", T2), Call(ADD, [Var("x", T2), Var("x", T2)], {}, T2)))
    assert rec.events == [
        ("enter_binding", "y"),
        ("visit_var", "x"),
        ("visit_var", "x"),
        ("visit_call", "add"),
        ("visit_var_def", "y"),
        ("visit_binding", "y"),
    ]
    with pytest.raises(TypeError, match="not an IR node"):
        ExprVisitor().walk(Tuple([3]))  # type: ignore[list-item]


def test_a_subclass_of_a_node_type_uses_its_base_hook():
    class MyVar(Var):
        __slots__ = ()

    rec = Recorder()
    rec.walk(Call(ADD, [MyVar("m", T2), Var("x", T2)], {}, T2))
    assert rec.events == [("visit_var", "m"), ("visit_var", "x"), ("visit_call", "add")]


# -- ExprMutator --------------------------------------------------------------------------------------------


def test_identity_mutator_returns_the_very_same_objects():
    mod = _sample()
    assert ExprMutator().mutate_module(mod) is mod
    func = mod["main"]
    assert ExprMutator().mutate(func) is func
    assert ExprMutator().mutate(func.body.blocks[1]) is func.body.blocks[1]


def test_identity_mutator_on_parsed_modules():
    for text in (script(_sample()), _sample_text()):
        mod = parse(text)
        assert ExprMutator().mutate_module(mod) is mod


def _sample_text() -> str:
    return script(_sample())


class AddToMultiply(ExprMutator):
    def visit_call(self, call: Call, args: tuple[Expr, ...]) -> Expr:
        if call.op is ADD:
            return Call(MULTIPLY, args, call.attrs, call.struct_info, call.span)
        return super().visit_call(call, args)


def test_mutator_rebuilds_only_the_path_to_a_change_and_leaves_the_input_alone():
    mod = _sample()
    before = script(mod)
    out = AddToMultiply().mutate_module(mod)
    assert script(mod) == before  # the input is untouched
    assert out is not mod
    after = script(out)
    assert after == before.replace("R.add(", "R.multiply(")
    old, new = mod["main"].body, out["main"].body
    # The plain block changed only inside the If: the bindings around it are shared.
    old_plain, new_plain = old.blocks[1].bindings, new.blocks[1].bindings
    assert [a is b for a, b in zip(old_plain, new_plain, strict=True)] == [True, True, False, True, True, True, True]
    old_if, new_if = old_plain[2].value, new_plain[2].value
    assert new_if.false_branch is old_if.false_branch and new_if.cond is old_if.cond
    # The dataflow block's second binding only uses a changed variable's old object: it is shared too.
    assert new.blocks[0].bindings[1] is old.blocks[0].bindings[1]


class Rename(ExprMutator):
    """Every defined variable replaced by a fresh one named ``<name>_new``."""

    def visit_var_def(self, var: Var) -> Var:
        return type(var)(var.name + "_new", var.struct_info, var.span)


def test_replaced_definitions_are_mapped_in_every_later_use():
    mod = _sample()
    out = Rename().mutate_module(mod)
    assert structural_equal(out, mod)
    old_ids = {id(b.var) for b in iter_bindings(mod["main"])} | {id(p) for p in mod["main"].params}
    used: list[Var] = []

    class Uses(ExprVisitor):
        def visit_var(self, var: Var) -> None:
            used.append(var)

    Uses().visit_module(out)
    assert used and all(v.name.endswith("_new") and id(v) not in old_ids for v in used)
    assert parse(script(out)) is not None


def test_visit_binding_can_splice_in_several_bindings_or_drop_one():
    class Splice(ExprMutator):
        """Before each add, bind a copy of its first argument; drop bindings of constants."""

        def visit_binding(self, binding: Binding, var: Var, value: Expr):
            if isinstance(value, Constant):
                return []
            if isinstance(value, Call) and value.op is ADD:
                copy = Var(var.name + "_arg", value.args[0].struct_info)
                new_var = Var(var.name, var.struct_info)
                call = Call(ADD, [copy, *value.args[1:]], {}, value.struct_info)
                return [Binding(copy, value.args[0]), Binding(new_var, call)]
            return super().visit_binding(binding, var, value)

    mod = _sample()
    out = Splice().mutate_module(mod)
    names = [b.var.name for b in iter_bindings(out["main"])]
    assert names == ["a_arg", "a", "b", "t", "i", "r", "u_arg", "u", "s", "p", "g"]
    # `a` was replaced: its use in `b` now refers to the new variable.
    a_new = out["main"].body.blocks[0].bindings[1].var
    assert out["main"].body.blocks[0].bindings[2].value.args[0] is a_new


def test_a_replaced_parameter_is_mapped_in_the_body():
    mod = _sample()

    class RenameParams(ExprMutator):
        def enter_function(self, func: Function) -> None:
            self.params = set(func.params)

        def visit_var_def(self, var: Var) -> Var:
            return Var(var.name + "2", var.struct_info) if var in self.params else var

    out = RenameParams().mutate_module(mod)
    x2 = out["main"].params[0]
    assert x2.name == "x2" and out["main"].body.blocks[0].bindings[0].value.args == (x2, x2)
    assert structural_equal(out, mod)


# -- depth and size -----------------------------------------------------------------------------------------


def test_a_million_binding_chain_walks_without_recursion():
    x = Var("x", T2)
    with no_gc():
        variables = [Var("v", T2) for _ in range(1_000_000)]
        bindings = list(map(Binding, variables, [x, *variables[:-1]]))
    mod = IRModule({"main": Function([x], SeqExpr([BindingBlock(bindings)], variables[-1]), T2)})

    class Count(ExprVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.bindings = self.uses = 0

        def visit_binding(self, binding: Binding) -> None:
            self.bindings += 1

        def visit_var(self, var: Var) -> None:
            self.uses += 1

    count = Count()
    count.visit_module(mod)
    assert (count.bindings, count.uses) == (1_000_000, 1_000_001)
    assert ExprMutator().mutate_module(mod) is mod


def _nested_tuple(leaf: Expr, depth: int) -> Expr:
    node = leaf
    for _ in range(depth):
        node = Tuple([node])
    return node


def _nested_calls(leaf: Expr, depth: int) -> Expr:
    node = leaf
    for _ in range(depth):
        node = Call(ADD, [node, leaf], {}, T2)
    return node


@pytest.mark.parametrize("build", [_nested_tuple, _nested_calls])
def test_an_expression_nested_100k_deep_walks_and_mutates_without_recursion(build):
    depth = 100_000
    x, y = Var("x", T2), Var("y", T2)
    with no_gc():
        expr = build(x, depth)

    class Depth(ExprVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.composites = 0

        def visit_tuple(self, tup: Tuple) -> None:
            self.composites += 1

        def visit_call(self, call: Call) -> None:
            self.composites += 1

    d = Depth()
    d.walk(expr)
    assert d.composites == depth
    assert ExprMutator().mutate(expr) is expr

    class XToY(ExprMutator):
        def visit_var(self, var: Var) -> Expr:
            return y if var is x else var

    out = XToY().mutate(expr)
    assert out is not expr
    node, levels = out, 0
    while not isinstance(node, Var):
        children = node.fields if isinstance(node, Tuple) else node.args
        assert all(c is y for c in children[1:])
        node, levels = children[0], levels + 1
    assert node is y and levels == depth


def test_ifs_nested_10k_deep_walk_and_iterate_without_recursion():
    depth = 10_000
    cond, x = Var("c", BOOL), Var("x", T2)
    inner = SeqExpr([], x)
    for i in range(depth):
        v = Var(f"r{i}", T2)
        inner = SeqExpr([BindingBlock([Binding(v, If(cond, inner, SeqExpr([], x), T2))])], v)
    func = Function([cond, x], inner, T2)
    rec = Recorder()
    rec.walk(func)
    assert sum(1 for hook, _ in rec.events if hook == "visit_if") == depth
    assert ExprMutator().mutate(func) is func
    assert len(list(iter_bindings(func))) == depth
