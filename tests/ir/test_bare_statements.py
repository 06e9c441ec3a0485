# ruff: noqa: E501  (the TVMScript texts keep the lines TVM printed)
"""Bare call statements (``R.assert_op(...)``, ``R.print(...)``): bindings of a void value, as TVM reads and prints them.

TVM's parser reads a bare call whose result is void (``R.Tuple()``) as a
binding of a fresh variable ``_``, and its printer writes such a binding back
as the bare call.  The repro is what TVM's PyTorch frontend prints for
``F.one_hot`` (torch's ``_assert_async`` becomes ``R.assert_op``).
"""

from __future__ import annotations

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.ir import InferenceError, ModuleBuilder, ParseError, VDevice, parse, script, structural_equal
from vdplace.ir import parser as parser_pkg
from vdplace.ir.builder import tensor
from vdplace.ir.expr import StringImm, Var
from vdplace.ir.struct_info import TupleStructInfo

ASSERT_LINE = '        R.assert_op(gv3, R.str("one_hot: Class values must be non-negative."), format=R.str("{}"))'
ONE_HOT = f"""
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(a_0: R.Tensor((1, 3), dtype="int64")) -> R.Tuple(R.Tensor((1, 3, 5), dtype="float32")):
        R.func_attr({{"num_input": 1, "params": []}})
        gv: R.Tensor((1, 3), dtype="bool") = R.greater_equal(a_0, R.const(0, "int64"))
        gv1: R.Tensor((1, 3), dtype="int8") = R.astype(gv, dtype="int8")
        gv2: R.Tensor((), dtype="int8") = R.min(gv1, axis=None, keepdims=False)
        gv3: R.Tensor((), dtype="bool") = R.astype(gv2, dtype="bool")
{ASSERT_LINE}
        gv14: R.Tensor((1, 3, 1), dtype="int64") = R.expand_dims(a_0, axis=[-1])
        gv15: R.Tensor((5,), dtype="int64") = R.arange(0, 5, 1, dtype="int64")
        gv16: R.Tensor((1, 3, 5), dtype="bool") = R.equal(gv14, gv15)
        gv18: R.Tensor((1, 3, 5), dtype="float32") = R.astype(gv16, dtype="float32")
        return (gv18,)
"""

VOID = TupleStructInfo([])


def one_hot(a: np.ndarray) -> np.ndarray:
    return (a[..., None] == np.arange(5)).astype(np.float32)


def _module(body: str, params: str = 'x: R.Tensor((3,), dtype="float32"), c: R.Tensor((), dtype="bool")') -> str:
    lines = "".join(f"        {line}\n" for line in body.strip().splitlines())
    return f"@I.ir_module\nclass Module:\n    @R.function(pure=False)\n    def main({params}):\n{lines}"


@pytest.mark.parametrize("fast_path", [True, False])
def test_a_bare_assert_is_a_binding_of_a_void_variable(fast_path, monkeypatch):
    if not fast_path:
        monkeypatch.setattr(parser_pkg, "build_skeleton", lambda src: None)
    binding = next(b for b in ir.iter_bindings(parse(ONE_HOT)["main"]) if b.var.name == "_")
    assert type(binding.var) is Var and binding.var.struct_info == VOID and binding.annotation is None
    call = binding.value
    assert call.op.name == "assert_op" and call.struct_info == VOID
    assert [a.name if isinstance(a, Var) else a.value for a in call.args] == [
        "gv3",
        "one_hot: Class values must be non-negative.",
    ]
    assert isinstance(call.args[1], StringImm) and call.attrs == {"format": "{}"}
    assert (binding.span.line, binding.span.col) == (14, 9)


def test_a_bare_statement_prints_back_bare_and_round_trips():
    mod = parse(ONE_HOT)
    text = script(mod)
    assert ASSERT_LINE in text.splitlines()
    assert script(parse(text)) == text
    assert structural_equal(parse(text), mod)
    placed = placement.place(mod, default="host").module
    placed_text = script(placed)
    assert ASSERT_LINE in placed_text.splitlines()
    assert script(parse(placed_text)) == placed_text


def test_the_assert_runs_and_fails_with_its_message():
    mod = parse(ONE_HOT)
    vm = runtime.VirtualMachine(runtime.compile(placement.place(mod, default="host").module))
    good = np.array([[1, 0, 4]], np.int64)
    np.testing.assert_array_equal(vm.run("main", good)[0], one_hot(good))
    np.testing.assert_array_equal(runtime.run_reference(mod, "main", good)[0], one_hot(good))
    bad = np.array([[1, -2, 4]], np.int64)
    with pytest.raises(
        runtime.KernelError, match=r"Call assert_op\(.*AssertionError: one_hot: Class values must be non-negative\.$"
    ) as err:
        vm.run("main", bad)
    assert str(err.value).endswith("failed: AssertionError: one_hot: Class values must be non-negative.")
    assert "binding _ at <string>:14:9" in str(err.value)  # the statement's line
    with pytest.raises(AssertionError, match="one_hot: Class values must be non-negative."):
        runtime.run_reference(mod, "main", bad)


def test_the_bare_variable_is_not_in_scope():
    """A variable the function names ``_`` stays visible after a bare statement, as in TVM."""
    text = _module(
        """
_: R.Tensor((3,), dtype="float32") = R.add(x, x)
R.assert_op(c, _, format="{}")
R.print(_, x, format=R.str("{} / {}"))
y: R.Tensor((3,), dtype="float32") = R.multiply(_, x)
return y
"""
    )
    mod = parse(text)
    bindings = list(ir.iter_bindings(mod["main"]))
    assert bindings[3].value.args[0] is bindings[0].var
    assert bindings[2].value.args[0] is bindings[0].var
    printed = script(mod)
    assert script(parse(printed)) == printed
    x = np.float32([1, 2, 3])
    vm = runtime.VirtualMachine(runtime.compile(placement.place(mod, default="host").module))
    np.testing.assert_array_equal(vm.run("main", x, np.array(True)), 2 * x * x)
    with pytest.raises(runtime.KernelError, match=r"AssertionError: \[2\. 4\. 6\.\]$"):
        vm.run("main", x, np.array(False))


@pytest.mark.parametrize(
    "body, message",
    [
        (
            "R.add(x, x)\nreturn x",
            r"a call to R.add returns R.Tensor\(\(3,\).*not void: a value must be bound to a name",
        ),
        ("x\nreturn x", "unsupported statement: the name 'x' .*a value must be bound to a name"),
        (
            "R.assert_op(x)\nreturn x",
            r"R.assert_op: condition must be a bool scalar \(a 0-d bool tensor or a bool prim value\), got R.Tensor\(\(3,\)",
        ),
        ("R.assert_op(c, format=3)\nreturn x", "R.assert_op argument 'format' must be a string"),
        ("R.assert_op(c, x, format_args=x)\nreturn x", "R.assert_op got multiple values for argument 'format_args'"),
        ("R.assert_op(format='no condition')\nreturn x", "R.assert_op is missing its argument 'condition'"),
        ("R.print(x, frmat='{}')\nreturn x", "R.print got an unknown keyword argument 'frmat'"),
    ],
)
def test_bare_statement_errors(body, message):
    with pytest.raises(ParseError, match=message):
        parse(_module(body))


def test_assert_op_takes_its_format_arguments_every_way_tvm_writes_them():
    forms = [
        "R.assert_op(c, x, c, format=R.str('{} and {}'))",
        "R.assert_op(c, format_args=[x, c], format='{} and {}')",
        "R.assert_op(c, format_args=(x, c), format='{} and {}')",
    ]
    mods = [parse(_module(f"{form}\nreturn x")) for form in forms]
    assert all(structural_equal(m, mods[0]) for m in mods)
    line = 'R.assert_op(c, x, c, format=R.str("{} and {}"))'
    assert f"        {line}" in script(mods[0]).splitlines()
    vm = runtime.VirtualMachine(runtime.compile(placement.place(mods[0], default="host").module))
    with pytest.raises(runtime.KernelError, match=r"AssertionError: \[1\. 2\. 3\.\] and False$"):
        vm.run("main", np.float32([1, 2, 3]), np.array(False))


@pytest.mark.parametrize(
    "args, fmt, message",
    [((), "", "Assertion Failed"), ((np.int64(3), "text"), "", "3, text"), ((np.int64(3),), "n={}!", "n=3!")],
)
def test_the_assert_message_is_rendered_as_tvm_renders_it(args, fmt, message):
    kernel = ir.get_op("assert_op").kernel
    assert kernel(np.array(True), *args, format=fmt) == ()
    with pytest.raises(AssertionError, match=f"^{message}$"):
        kernel(np.array(False), *args, format=fmt)
    with pytest.raises(ValueError, match="condition must be a bool scalar, got int32 of shape"):
        kernel(np.int32([1, 2]), format=fmt)


def test_print_writes_its_values_and_returns_void(capsys):
    text = _module(
        """
R.print(x, c, format=R.str("x={} c={}"))
R.print(x, c)
R.print(format="done")
return x
"""
    )
    mod = parse(text)
    assert all(b.var.struct_info == VOID for b in ir.iter_bindings(mod["main"]))
    printed = script(mod)
    assert '        R.print(x, c, format=R.str(""))' in printed.splitlines()
    assert script(parse(printed)) == printed
    vm = runtime.VirtualMachine(runtime.compile(placement.place(mod, default="host").module))
    vm.run("main", np.float32([1, 2, 3]), np.array(True))
    assert capsys.readouterr().out == "x=[1. 2. 3.] c=True\n[1. 2. 3.] True\ndone\n"


@pytest.mark.parametrize("fast_path", [True, False])
def test_an_impure_call_in_a_dataflow_block_or_a_pure_function_is_refused_as_tvm_refuses_it(fast_path, monkeypatch):
    if not fast_path:
        monkeypatch.setattr(parser_pkg, "build_skeleton", lambda src: None)
    in_dataflow = _module(
        """
with R.dataflow():
    y = R.add(x, x)
    R.print(y, format="y={}")
    R.output(y)
return y
"""
    )
    with pytest.raises(ParseError, match=r"^m.py:7:13: R.print is impure: it cannot be called inside a dataflow block"):
        parse(in_dataflow, filename="m.py")
    bound = in_dataflow.replace('    R.print(y, format="y={}")', '    z: R.Tuple = R.print(y, format="y={}")')
    with pytest.raises(ParseError, match=r"^m.py:7:13: R.print is impure"):
        parse(bound, filename="m.py")
    pure = _module('R.assert_op(c, format="{}")\nreturn x').replace("@R.function(pure=False)", "@R.function")
    with pytest.raises(ParseError, match=r"^m.py:5:9: R.assert_op is impure: function 'main' must be declared"):
        parse(pure, filename="m.py")
    forced = pure.replace("        R.assert_op", '        R.func_attr({"relax.force_pure": True})\n        R.assert_op')
    assert parse(forced)["main"].attrs == {"relax.force_pure": True}


def test_a_named_void_binding_prints_bare_unless_it_is_used():
    cpu = VDevice("llvm")
    mb = ModuleBuilder([cpu])
    f = mb.function("main", [("x", tensor((2,), "float32"))], pure=False)
    x = f.params[0]
    f.emit("print", x, name="unused", format="{}")
    used = f.emit("print", x, x, name="shown", format="{} {}")
    f.finish(f.tuple(x, used))
    mod = mb.get()
    lines = script(mod).splitlines()
    assert '        R.print(x, format=R.str("{}"))' in lines
    assert '        shown: R.Tuple([]) = R.print(x, x, format=R.str("{} {}"))' in lines
    assert structural_equal(parse(script(mod)), mod)


def test_builder_calls_of_variadic_ops():
    cpu = VDevice("llvm")
    f = ModuleBuilder([cpu]).function("main", [("c", tensor((), "bool")), ("x", tensor((2,), "float32"))])
    c, x = f.params
    assert f.call("assert_op", c, x, x, format="{} {}").args == (c, x, x)
    assert f.call("print").attrs == {"format": ""}
    with pytest.raises(InferenceError, match=r"R.assert_op takes at least 1 argument\(s\), got 0"):
        f.call("assert_op")
    with pytest.raises(InferenceError, match=r"R.add takes 2 argument\(s\), got 3"):
        f.call("add", x, x, x)


LEGALIZED = """
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(y: T.Buffer((T.int64(2),), "float32"), y_1: T.Buffer((T.int64(2),), "float32"), T_add: T.Buffer((T.int64(2),), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0 in range(T.int64(2)):
            with T.sblock("T_add"):
                v_ax0 = T.axis.spatial(T.int64(2), ax0)
                T.reads(y[v_ax0], y_1[v_ax0])
                T.writes(T_add[v_ax0])
                T_add[v_ax0] = y[v_ax0] + y_1[v_ax0]

    @R.function(pure=False)
    def main(x: R.Tensor((), dtype="bool"), y: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        cls = Module
        R.call_packed("relax.run.assert_op", x, R.str("bad {}"), y, ty_args=(R.Tuple,))
        R.call_packed("relax.run.print", R.str("y={}"), y, ty_args=(R.Tuple,))
        z = R.call_tir(cls.add, (y, y), out_ty=R.Tensor((2,), dtype="float32"))
        return z
"""


def test_what_legalize_ops_makes_of_assert_and_print_runs_and_prints_back(capsys):
    """TVM 0.27's LegalizeOps of ``R.assert_op(x, [y], format="bad {}")`` and ``R.print(y, format="y={}")``, as it printed it."""
    mod = parse(LEGALIZED)
    placed = placement.place(mod, default="host").module
    printed = script(placed)
    assert (
        '        R.call_packed("relax.run.assert_op", x, R.str("bad {}"), y, ty_args=[R.Tuple([])])'
        in printed.splitlines()
    )
    assert structural_equal(parse(printed), placed)
    vm = runtime.VirtualMachine(runtime.compile(placed))
    y = np.float32([1, 2])
    np.testing.assert_array_equal(vm.run("main", np.array(True), y), y + y)
    assert capsys.readouterr().out == "y=[1. 2.]\n"
    with pytest.raises(runtime.KernelError, match=r"AssertionError: bad \[1\. 2\.\]$"):
        vm.run("main", np.array(False), y)
    with pytest.raises(AssertionError, match=r"^bad \[1\. 2\.\]$"):
        runtime.run_reference(mod, "main", np.array(False), y)


@pytest.mark.parametrize(
    "call, message",
    [
        ('R.call_packed("relax.run.assert_op", x, ty_args=(R.Tuple,))', "takes a condition and a format"),
        ('R.call_packed("relax.run.assert_op", x, c, ty_args=(R.Tuple,))', "condition must be a bool scalar"),
        ('R.call_packed("relax.run.assert_op", c, x, ty_args=(R.Tuple,))', r'format as an R.str\("..."\)'),
        ('R.call_packed("relax.run.print", ty_args=(R.Tuple,))', "takes a format first"),
        ('R.call_packed("relax.run.print", R.str("{}"), x, ty_args=(R.Tensor((3,), "float32"),))', "gives R.Tuple()"),
        (
            'R.call_packed("relax.run.unknown", x, ty_args=(R.Tuple,))',
            "only the packed functions .* got 'relax.run.unknown'",
        ),
    ],
)
def test_a_packed_assert_or_print_that_is_not_as_tvm_writes_it_is_refused(call, message):
    with pytest.raises(InferenceError, match=message):
        parse(_module(f"{call}\nreturn x"))


def test_a_packed_assert_or_print_is_impure_as_tvm_has_it():
    call = 'R.call_packed("relax.run.print", R.str("{}"), x, ty_args=(R.Tuple,))'
    in_pure = _module(f"{call}\nreturn x").replace("@R.function(pure=False)", "@R.function")
    with pytest.raises(ParseError, match=r'R.call_packed\("relax.run.print"\) is impure: function .main. must be'):
        parse(in_pure)
    in_dataflow = _module(f"with R.dataflow():\n    z = {call}\n    R.output(z)\nreturn x")
    with pytest.raises(ParseError, match="cannot be called inside a dataflow block"):
        parse(in_dataflow)
    shape = 'R.call_packed("vm.builtin.tensor_to_shape", s, ty_args=(R.Shape(ndim=2),))'
    reads_a_shape = _module(
        f"with R.dataflow():\n    z = {shape}\n    R.output(z)\nreturn z", 's: R.Tensor((2,), "int64")'
    )
    assert parse(reads_a_shape.replace("@R.function(pure=False)", "@R.function"))
