"""Packed source positions (`ir.span`): a fast line's variable and call share one int instead of two `Span`s.

Whatever is stored, `span` reads the same as on the ordinary path; a line
too far right to pack, or a file past the table's size, gets `Span` objects;
rebuilding, placing, copying and pickling keep the spans.
"""

from __future__ import annotations

import copy
import pickle

import vdplace.ir.parser as parser_pkg
import vdplace.ir.span as span_mod
from vdplace import ir
from vdplace.ir import Span, TensorStructInfo
from vdplace.ir.module import iter_bindings
from vdplace.placement import place

HEADER = """@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32", vdevice="cuda:0:global"):
"""
T = 'R.Tensor((2, 3), dtype="float32")'


def module_text(*lines: str) -> str:
    return HEADER + "".join(f"        {line}\n" for line in lines)


TEXT = module_text(f"a: {T} = R.add(x, x)", "bb = R.multiply(a, x)", f"c: {T} = R.nn.relu(bb)", "return c")


def summary(mod: ir.IRModule) -> list[tuple[object, ...]]:
    return [(b.span, b.var.span, b.value.span) for b in iter_bindings(mod["main"])]


def slow_parse(text: str, filename: str | None, monkeypatch) -> ir.IRModule:
    with monkeypatch.context() as m:
        m.setattr(parser_pkg, "build_skeleton", lambda src: None)
        return ir.parse(text, filename)


def test_a_fast_line_stores_one_packed_position_that_reads_as_its_spans():
    bindings = list(iter_bindings(ir.parse(TEXT, "p.py")["main"]))
    for b in bindings:
        assert type(b.var._span) is int and b.var._span is b.value._span
    a, bb, _ = bindings
    assert a.var.span == Span("p.py", 7, 9, 7, 10)
    assert a.value.span == Span("p.py", 7, 48, 7, 59)
    assert bb.var.span == Span("p.py", 8, 9, 8, 11) and bb.value.span == Span("p.py", 8, 14, 8, 30)
    assert bb.span == Span("p.py", 8, 9, 8, 30)


def test_packed_spans_equal_the_ordinary_paths_in_a_dataflow_block_and_without_a_file_name(monkeypatch):
    text = HEADER + (
        "        with R.dataflow():\n"
        f"            a: {T} = R.add(x, x)\n"
        "            b = R.multiply(a, x)\n"
        "            R.output(b)\n"
        "        return b\n"
    )
    for filename in ("d.py", None):
        fast = ir.parse(text, filename)
        assert all(type(b.var._span) is int for b in iter_bindings(fast["main"]))
        assert summary(fast) == summary(slow_parse(text, filename, monkeypatch))


def test_a_line_too_long_to_pack_gets_span_objects(monkeypatch):
    name = "v" * (span_mod.MAX_PACKED_COL + 10)
    text = module_text(f"{name}: {T} = R.add(x, x)", "c = R.nn.relu(x)", "return c")
    fast = ir.parse(text, "long.py")
    first, second = iter_bindings(fast["main"])
    assert type(first.var._span) is Span and type(first.value._span) is Span
    assert first.var.span == Span("long.py", 7, 9, 7, 9 + len(name))
    assert type(second.var._span) is int  # a short line still packs
    assert summary(fast) == summary(slow_parse(text, "long.py", monkeypatch))


def test_files_past_the_tables_size_get_span_objects(monkeypatch):
    span_mod.packed_file("an earlier file.py")
    monkeypatch.setattr(span_mod, "_MAX_FILES", len(span_mod._files))
    mod = ir.parse(TEXT, "a file never seen before.py")
    assert all(type(b.var._span) is Span for b in iter_bindings(mod["main"]))
    assert summary(mod) == summary(slow_parse(TEXT, "a file never seen before.py", monkeypatch))
    known = ir.parse(TEXT, "an earlier file.py")  # a file in the table still packs
    assert all(type(b.var._span) is int for b in iter_bindings(known["main"]))


def test_rebuilt_variables_and_calls_keep_the_packed_position():
    b = next(iter_bindings(ir.parse(TEXT, "p.py")["main"]))
    sinfo = TensorStructInfo((2, 3), "float32")
    var = b.var.rebuilt(sinfo)
    call = b.value.rebuilt([var, var], sinfo)
    assert type(var) is type(b.var) and var.name == b.var.name and var.struct_info is sinfo
    assert var._span is b.var._span and var.span == b.var.span
    assert call.op is b.value.op and call.args == (var, var) and call.attrs is b.value.attrs
    assert call._span is b.value._span and call.span == b.value.span


def test_placing_keeps_the_packed_positions_of_the_input():
    mod = ir.parse(TEXT, "p.py")
    placed = place(mod).module
    for old, new in zip(iter_bindings(mod["main"]), iter_bindings(placed["main"]), strict=True):
        assert new.var is not old.var  # the placed variables are new: their struct info names a vdevice
        assert new.var._span is old.var._span and new.value._span is old.value._span
        assert (new.span, new.var.span, new.value.span) == (old.span, old.var.span, old.value.span)


def test_a_copied_or_pickled_node_carries_its_span_not_its_packed_position():
    b = next(iter_bindings(ir.parse(TEXT, "p.py")["main"]))
    for var in (copy.copy(b.var), copy.deepcopy(b.var), pickle.loads(pickle.dumps(b.var))):
        assert type(var) is type(b.var) and var.name == "a" and var.struct_info == b.var.struct_info
        assert type(var._span) is Span and var.span == b.var.span
    call = copy.copy(b.value)
    assert call.op is b.value.op and call.args == b.value.args and call.attrs is b.value.attrs
    assert type(call._span) is Span and call.span == b.value.span


CALLS = (
    HEADER.replace(
        "    @R.function\n    def main",
        "    @R.function\n    def helper(a: " + T + ") -> " + T + ":\n"
        "        return a\n\n    @R.function\n    def main",
        1,
    )
    + "        cls = Module\n"
    + "        y = cls.helper(x)\n"
    + f"        z: {T} = cls.helper(y)\n"
    + "        return z\n"
)


def test_a_function_call_line_packs_its_position_and_reads_as_the_ordinary_path(monkeypatch):
    fast = ir.parse(CALLS, "calls.py")
    y, z = iter_bindings(fast["main"])
    for b in (y, z):
        assert type(b.var._span) is int and b.var._span is b.value._span
    assert y.var.span == Span("calls.py", 12, 9, 12, 10) and y.value.span == Span("calls.py", 12, 13, 12, 26)
    assert y.span == Span("calls.py", 12, 9, 12, 26) and y.value.op.span == Span("calls.py", 12, 13, 12, 23)
    slow = slow_parse(CALLS, "calls.py", monkeypatch)
    assert summary(fast) == summary(slow)
    assert [b.value.op.span for b in iter_bindings(fast["main"])] == [
        b.value.op.span for b in iter_bindings(slow["main"])
    ]


def test_a_call_whose_arguments_do_not_fit_its_callee_is_located_as_on_the_ordinary_path(monkeypatch):
    for bad in ("cls.helper(x, x)", "cls.helper(w)"):
        text = CALLS.replace("cls.helper(y)", bad).replace("(x: " + T, "(x: " + T + ', w: R.Tensor((5,), "float32")', 1)
        errors = []
        for parse in (lambda t: ir.parse(t, "calls.py"), lambda t: slow_parse(t, "calls.py", monkeypatch)):
            try:
                parse(text)
            except ir.ParseError as err:
                errors.append(str(err))
        assert len(errors) == 2 and errors[0] == errors[1] and "calls.py:13:" in errors[0]


def test_a_function_pickles_and_copies_with_its_signature():
    helper = ir.parse(CALLS, "calls.py")["helper"]
    assert helper.struct_info.params == (helper.params[0].struct_info,)  # built when read
    for other in (copy.copy(helper), pickle.loads(pickle.dumps(helper))):
        assert ir.structural_equal(other, helper) and other.struct_info == helper.struct_info
