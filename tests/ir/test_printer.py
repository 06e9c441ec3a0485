"""`ir.script`: the printed TVMScript form, piece by piece, in the spelling of TVM's ``mod.script()``."""

from __future__ import annotations

import ast

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from tests.support.strategies import modules
from vdplace.ir import DeviceSpec, ModuleBuilder, Target, VDevice, script
from vdplace.ir.builder import tensor
from vdplace.ir.expr import (
    Binding,
    BindingBlock,
    Call,
    Constant,
    DataflowBlock,
    DataflowVar,
    Function,
    If,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    StringImm,
    Var,
)
from vdplace.ir.module import IRModule
from vdplace.ir.op import get_op
from vdplace.ir.printer import PrintError, format_struct_info, format_target, format_vdevice, literal
from vdplace.ir.struct_info import (
    ObjectStructInfo,
    PrimStructInfo,
    ShapeStructInfo,
    TensorStructInfo,
    TupleStructInfo,
)

LLVM = VDevice("llvm")
SM80 = VDevice({"kind": "cuda", "arch": "sm_80"})
CUDA1 = VDevice("cuda", 1)


def brief_example() -> IRModule:
    """Module attrs, a target dict, a dataflow block with device moves, a declared return: `BRIEF_TEXT`."""
    mb = ModuleBuilder([LLVM, SM80], attrs={"attr": 10})
    f = mb.function("foo", [("x", tensor((2, 3), "float32", LLVM)), ("n_in", tensor(("n", 4), "float32"))])
    x = f.params[0]
    with f.dataflow():
        lv0 = f.emit("add", x, x, name="lv0")
        lv1 = f.emit("to_vdevice", lv0, dst_vdevice=SM80, name="lv1")
        lv2 = f.emit("hint_on_device", lv1, device=DeviceSpec("cuda", 0), name="lv2")
        gv = f.emit("permute_dims", lv2, axes=(1, 0), name="gv", output=True)
    f.finish(gv, tensor((3, 2), "float32", SM80))
    return mb.get()


BRIEF_TEXT = """\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_attrs({"attr": 10})
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global"), I.vdevice({"arch": "sm_80", "kind": "cuda"}, 0, "global")]})

    @R.function
    def foo(x: R.Tensor((2, 3), dtype="float32", vdevice="llvm:0:global"), n_in: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor((3, 2), dtype="float32", vdevice="cuda:0:global"):
        with R.dataflow():
            lv0: R.Tensor((2, 3), dtype="float32", vdevice="llvm:0:global") = R.add(x, x)
            lv1: R.Tensor((2, 3), dtype="float32", vdevice="cuda:0:global") = R.to_vdevice(lv0, dst_vdevice="cuda:0:global")
            lv2: R.Tensor((2, 3), dtype="float32", vdevice="cuda:0:global") = R.hint_on_device(lv1, R.device(device_type=2, index=0), "global")
            gv: R.Tensor((3, 2), dtype="float32", vdevice="cuda:0:global") = R.permute_dims(lv2, axes=[1, 0])
            R.output(gv)
        return gv
"""  # noqa: E501


def test_brief_example_prints_exactly():
    assert script(brief_example()) == BRIEF_TEXT


def test_module_without_attrs_or_vdevices():
    mb = ModuleBuilder()
    f = mb.function("main", [("x", tensor((2,), "int32"))])
    f.finish(f.emit("negative", f.params[0], name="y"))
    assert script(mb.get()) == (
        "# from tvm.script import ir as I\n"
        "# from tvm.script import relax as R\n"
        "\n"
        "@I.ir_module\n"
        "class Module:\n"
        "    @R.function\n"
        '    def main(x: R.Tensor((2,), dtype="int32")) -> R.Tensor((2,), dtype="int32"):\n'
        '        y: R.Tensor((2,), dtype="int32") = R.negative(x)\n'
        "        return y\n"
    )


def test_module_name_is_the_class_name():
    mod = brief_example().replace(name="Expect")
    assert "class Expect:" in script(mod)


def test_empty_module_is_valid_python():
    text = script(IRModule({}, [LLVM]))
    ast.parse(text)
    assert text.rstrip().endswith("pass")


@pytest.mark.parametrize(
    ("target", "text"),
    [
        (Target("llvm"), '"llvm"'),
        (Target.parse("cuda -arch=sm_80"), '{"arch": "sm_80", "kind": "cuda"}'),
        (Target.parse({"kind": "cuda", "keys": ["cuda", "gpu"], "arch": "sm_50"}), None),
    ],
)
def test_targets_print_as_kind_or_sorted_dict(target, text):
    printed = format_target(target)
    if text is not None:
        assert printed == text
    else:
        assert printed == '{"arch": "sm_50", "keys": ["cuda", "gpu"], "kind": "cuda"}'


def test_vdevice_always_prints_id_and_scope():
    assert format_vdevice(VDevice("cuda")) == 'I.vdevice("cuda", 0, "global")'
    assert format_vdevice(VDevice("metal", 2, "global.texture")) == 'I.vdevice("metal", 2, "global.texture")'


@pytest.mark.parametrize(
    ("sinfo", "text"),
    [
        (
            TensorStructInfo((2, 3), "float32", vdevice=CUDA1),
            'R.Tensor((2, 3), dtype="float32", vdevice="cuda:0:global")',
        ),
        (TensorStructInfo((5,), "int64"), 'R.Tensor((5,), dtype="int64")'),
        (TensorStructInfo((), "bool"), 'R.Tensor((), dtype="bool")'),
        (TensorStructInfo(("n", "n * 2"), "float16"), 'R.Tensor(("n", "n * 2"), dtype="float16")'),
        (TensorStructInfo(None, "float32", 2), 'R.Tensor(dtype="float32", ndim=2)'),
        (TensorStructInfo(None, "float32", -1), 'R.Tensor(dtype="float32")'),
        (TensorStructInfo(None, "", 2, LLVM), 'R.Tensor(ndim=2, vdevice="llvm:0:global")'),
        (
            TupleStructInfo([TensorStructInfo((2,), "float32"), ObjectStructInfo()]),
            'R.Tuple([R.Tensor((2,), dtype="float32"), R.Object])',
        ),
        (TupleStructInfo([]), "R.Tuple([])"),
        (ShapeStructInfo((2, 3)), "R.Shape([2, 3])"),
        (ShapeStructInfo(("n", 3)), 'R.Shape(["n", 3])'),
        (ShapeStructInfo(None, 2), "R.Shape(ndim=2)"),
        (PrimStructInfo("int64"), 'R.Prim("int64")'),
        (ObjectStructInfo(), "R.Object"),
    ],
)
def test_struct_info_forms(sinfo, text):
    assert format_struct_info(sinfo, [LLVM, CUDA1]) == text


def test_vdevice_names_count_entries_of_one_kind():
    vds = [VDevice("cuda", 1), LLVM, VDevice("cuda", 0), VDevice("cuda", 0, "shared")]
    fmt = [format_struct_info(TensorStructInfo((1,), "float32", vdevice=v), vds) for v in vds]
    assert [s.split("vdevice=")[1] for s in fmt] == [
        '"cuda:0:global")',
        '"llvm:0:global")',
        '"cuda:1:global")',
        '"cuda:2:shared")',
    ]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "None"),
        (True, "True"),
        (3, "3"),
        (-1.5, "-1.5"),
        (float("inf"), "1e999"),
        ("NCHW", '"NCHW"'),
        ('a"b', '"a\\"b"'),
        ((1, 0), "[1, 0]"),
        ([(1, 2), (3,)], "[[1, 2], [3]]"),
        ({"attr": 10}, '{"attr": 10}'),
        (np.int64(4), "4"),
    ],
)
def test_attribute_literals(value, text):
    assert literal(value) == text
    # The text reads back (without executing anything) to the same value, tuples as lists.
    assert ast.literal_eval(text) == _as_lists(value)


def _as_lists(value):
    if isinstance(value, (list, tuple)):
        return [_as_lists(v) for v in value]
    return value


def _single_binding_module(value_fn, vdevices=(LLVM,), params=None):
    mb = ModuleBuilder(list(vdevices))
    f = mb.function("main", params or [("x", tensor((2, 3), "float32"))])
    y = f.emit(value_fn(f), name="y")
    f.finish(y)
    return mb.get()


def _binding_line(text: str) -> str:
    return next(line.strip() for line in text.splitlines() if line.strip().startswith("y:"))


def test_op_attrs_print_as_keywords_in_parameter_order():
    text = script(_single_binding_module(lambda f: f.call("sum", f.params[0], axis=[1], keepdims=True)))
    assert _binding_line(text).endswith("= R.sum(x, axis=[1], keepdims=True)")


def test_default_attrs_are_printed_too():
    mod = _single_binding_module(lambda f: f.call("matmul", f.params[0], f.call("permute_dims", f.params[0])))
    assert "R.matmul(x, R.permute_dims(x, axes=None), out_dtype=None)" in script(mod)


def test_shape_attr_prints_as_r_shape():
    text = script(_single_binding_module(lambda f: f.call("reshape", f.params[0], shape=(3, 2))))
    assert _binding_line(text).endswith("= R.reshape(x, R.shape([3, 2]))")  # TVM's form: a shape argument


def test_attribute_before_a_tensor_parameter_is_positional():
    fill = Constant(np.array(1.0, "float32"), tensor((), "float32"))
    text = script(_single_binding_module(lambda f: f.call("full", fill, shape=(2, 3), dtype="float32")))
    assert _binding_line(text).endswith('= R.full(R.shape([2, 3]), R.const(1.0, "float32"), dtype="float32")')


def test_nn_op_names_keep_their_namespace():
    text = script(_single_binding_module(lambda f: f.call("nn.relu", f.params[0])))
    assert _binding_line(text).endswith("= R.nn.relu(x)")


def test_device_attr_prints_dlpack_code_and_index():
    vds = [LLVM, VDevice("cuda", 1), VDevice("metal")]
    for spec, code in ((DeviceSpec("cpu", 0), 1), (DeviceSpec("cuda", 1), 2), (DeviceSpec("metal", 0), 8)):
        text = script(_single_binding_module(lambda f, s=spec: f.call("hint_on_device", f.params[0], device=s), vds))
        assert f'R.hint_on_device(x, R.device(device_type={code}, index={spec.index}), "global")' in text


def test_vdevice_attr_prints_kind_ordinal_scope():
    vds = [VDevice("cuda", 0), LLVM, VDevice("cuda", 3, "global.texture")]
    text = script(_single_binding_module(lambda f: f.call("to_vdevice", f.params[0], dst_vdevice=vds[2]), vds))
    assert 'R.to_vdevice(x, dst_vdevice="cuda:1:global.texture")' in text


@pytest.mark.parametrize(
    ("data", "dtype", "text"),
    [
        (np.array(1.5, "float32"), "float32", 'R.const(1.5, "float32")'),
        (np.array(0.1, "float32"), "float32", 'R.const(0.1, "float32")'),
        (np.array([[1, 2], [3, 4]], "int32"), "int32", 'R.const([[1, 2], [3, 4]], "int32")'),
        (np.array([True, False]), "bool", 'R.const([True, False], "bool")'),
        (np.array(-np.inf, "float64"), "float64", 'R.const("-inf", "float64")'),
        (np.array(np.nan, "float32"), "float32", 'R.const("nan", "float32")'),
        (np.array([1.0, np.inf], "float32"), "float32", 'R.const([1.0, 1e999], "float32")'),
    ],
)
def test_constants(data, dtype, text):
    const = Constant(data, tensor(data.shape, dtype))
    assert _binding_line(script(_single_binding_module(lambda f: const))).endswith(f"= {text}")


def test_nan_in_an_array_constant_is_refused_clearly():
    const = Constant(np.array([np.nan, 1.0], "float32"), tensor((2,), "float32"))
    with pytest.raises(PrintError, match="NaN"):
        script(_single_binding_module(lambda f: const))


def test_shape_prim_and_string_values():
    text = script(_single_binding_module(lambda f: ShapeExpr((2, "n"))))
    assert _binding_line(text).endswith("= R.shape([2, n])") and "        n = T.int64()\n" in text  # TVM's form
    assert _binding_line(script(_single_binding_module(lambda f: PrimValue(3, "int64")))).endswith("= R.prim_value(3)")
    assert _binding_line(script(_single_binding_module(lambda f: PrimValue(3, "int32")))).endswith(
        "= R.prim_value(T.int32(3))"
    )
    assert _binding_line(script(_single_binding_module(lambda f: StringImm("hi")))).endswith('= R.str("hi")')


def test_tuples_and_items():
    mb = ModuleBuilder()
    f = mb.function("main", [("x", tensor((2,), "float32"))])
    x = f.params[0]
    t = f.emit(f.tuple(x, x), name="t")
    one = f.emit(f.tuple(x), name="one")
    y = f.emit(f.get_item(t, 1), name="y")
    f.finish(f.tuple(y, f.get_item(one, 0)))
    text = script(mb.get())
    assert 't: R.Tuple([R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")]) = (x, x)' in text
    assert "= (x,)" in text
    assert 'y: R.Tensor((2,), dtype="float32") = t[1]' in text
    assert "return (y, one[0])" in text


def test_duplicate_and_reserved_names_get_suffixes():
    mb = ModuleBuilder()
    f = mb.function("main", [("lv0", tensor((2,), "float32")), ("R", tensor((2,), "float32"))])
    a = f.emit("add", *f.params, name="lv0")
    b = f.emit("add", a, a, name="lv0")
    c = f.emit("add", b, b, name="lv0_1")
    d = f.emit("add", c, c, name="cls")
    e = f.emit("add", d, d, name="1 bad-name")
    f.finish(e)
    text = script(mb.get())
    assert 'def main(lv0: R.Tensor((2,), dtype="float32"), R_1: R.Tensor((2,), dtype="float32"))' in text
    assert 'lv0_1: R.Tensor((2,), dtype="float32") = R.add(lv0, R_1)' in text
    assert 'lv0_2: R.Tensor((2,), dtype="float32") = R.add(lv0_1, lv0_1)' in text
    assert 'lv0_1_1: R.Tensor((2,), dtype="float32") = R.add(lv0_2, lv0_2)' in text
    assert 'cls_1: R.Tensor((2,), dtype="float32") = R.add(lv0_1_1, lv0_1_1)' in text
    assert 'v1_bad_name: R.Tensor((2,), dtype="float32") = R.add(cls_1, cls_1)' in text
    ast.parse(text)


def test_names_are_per_function():
    mb = ModuleBuilder()
    for name in ("a", "b"):
        f = mb.function(name, [("x", tensor((2,), "float32"))])
        f.finish(f.emit("abs", f.params[0], name="y"))
    text = script(mb.get())
    assert text.count("y: R.Tensor") == 2
    assert "y_1" not in text


def test_dataflow_output_lists_the_non_dataflow_vars_in_order():
    mb = ModuleBuilder()
    f = mb.function("main", [("x", tensor((2,), "float32"))])
    with f.dataflow():
        a = f.emit("abs", f.params[0], name="a", output=True)
        b = f.emit("exp", a, name="b")
        c = f.emit("add", a, b, name="c", output=True)
    f.finish(f.tuple(a, c))
    text = script(mb.get())
    assert "            R.output(a, c)\n        return (a, c)\n" in text


def test_private_functions_attrs_and_cls_line():
    mb = ModuleBuilder([LLVM])
    g = mb.function("helper", [("x", tensor((2,), "float32"))], private=True)
    g.finish(g.emit("abs", g.params[0], name="y"))
    f = mb.function("main", [("x", tensor((2,), "float32"))])
    f.finish(f.emit(f.call_function("helper", f.params[0]), name="y"))
    mod = mb.get()
    mod.functions["helper"] = Function(
        mod["helper"].params, mod["helper"].body, mod["helper"].ret_struct_info, {"private": True, "num_input": 1}
    )
    text = script(mod)
    assert "    @R.function(private=True)\n    def helper(" in text
    assert '        R.func_attr({"num_input": 1})\n' in text
    assert "    @R.function\n    def main(" in text
    # Only the caller gets `cls = Module`, as its first line.
    assert text.count("cls = Module") == 1
    assert '-> R.Tensor((2,), dtype="float32"):\n        cls = Module\n        y: ' in text
    assert "= cls.helper(x)" in text


def test_if_assigns_the_if_var_at_the_end_of_both_branches():
    mb = ModuleBuilder([LLVM])
    f = mb.function("main", [("c", tensor((), "bool")), ("x", tensor((2,), "float32", LLVM))])
    c, x = f.params
    t = f.branch()
    ty = t.emit("exp", x, name="y")
    e = f.branch()
    ey = e.emit("abs", x, name="y")
    r = f.emit_if(c, t.seq(ty), e.seq(ey), name="r")
    f.finish(r)
    text = script(mb.get())
    sinfo = 'R.Tensor((2,), dtype="float32", vdevice="llvm:0:global")'
    assert (
        f"        if c:\n"
        f"            y: {sinfo} = R.exp(x)\n"
        f"            r: {sinfo} = y\n"
        f"        else:\n"
        f"            y_1: {sinfo} = R.abs(x)\n"
        f"            r: {sinfo} = y_1\n"
        f"        return r\n"
    ) in text


def test_vdevice_outside_the_list_is_a_clear_error():
    mb = ModuleBuilder([LLVM])
    f = mb.function("main", [("x", tensor((2,), "float32", VDevice("cuda")))])
    f.finish(f.params[0])
    with pytest.raises(PrintError, match=r"function 'main', variable 'x'.*not in the module's vdevice list"):
        script(mb.get())


def test_use_of_an_undefined_variable_is_a_clear_error():
    x = Var("x", tensor((2,), "float32"))
    ghost = Var("ghost", tensor((2,), "float32"))
    y = Var("y", tensor((2,), "float32"))
    from vdplace.ir.op import get_op

    body = SeqExpr([BindingBlock([Binding(y, Call(get_op("add"), [x, ghost], {}, y.struct_info))])], y)
    mod = IRModule({"main": Function([x], body, y.struct_info)})
    with pytest.raises(PrintError, match="'ghost' is used but never defined"):
        script(mod)


def _nested_ifs(depth: int) -> IRModule:
    """depth nested Ifs, built bottom-up without the builder (which recurses through nothing)."""
    cond = Var("c", tensor((), "bool"))
    x = Var("x", tensor((2,), "float32"))
    inner: SeqExpr = SeqExpr([], x)
    for i in range(depth):
        v = Var(f"r{i}", x.struct_info)
        node = If(cond, inner, SeqExpr([], x), x.struct_info)
        inner = SeqExpr([BindingBlock([Binding(v, node)])], v)
    return IRModule({"main": Function([cond, x], inner, x.struct_info)})


def test_deeply_nested_ifs_do_not_hit_the_recursion_limit():
    text = script(_nested_ifs(3000))
    assert text.count("if c:") == 3000


def test_a_deeply_nested_value_does_not_hit_the_recursion_limit():
    x = Var("x", tensor((2,), "float32"))
    value = x
    for _ in range(3000):
        value = Call(get_op("nn.relu"), [value], {}, x.struct_info)
    y = Var("y", x.struct_info)
    mod = IRModule({"main": Function([x], SeqExpr([BindingBlock([Binding(y, value)])], y), x.struct_info)})
    text = script(mod)
    assert text.count("R.nn.relu(") == 3000 and "= " + "R.nn.relu(" * 3000 + "x" + ")" * 3000 in text


def test_long_dataflow_function_prints_every_binding():
    mb = ModuleBuilder([LLVM])
    f = mb.function("main", [("x", tensor((4,), "float32", LLVM))])
    v = f.params[0]
    with f.dataflow():
        for i in range(5000):
            v = f.emit("add", v, v, name="lv", output=i == 4999)
    f.finish(v)
    text = script(mb.get())
    assert text.count("= R.add(") == 5000
    assert "lv_4999: " in text and "R.output(lv_4999)" in text


def test_dataflow_block_binding_kinds_come_from_the_vars():
    x = Var("x", tensor((2,), "float32"))
    a = DataflowVar("a", x.struct_info)
    b = Var("b", x.struct_info)
    block = DataflowBlock([Binding(a, x), Binding(b, a)])
    text = script(IRModule({"main": Function([x], SeqExpr([block], b), x.struct_info)}))
    assert "R.output(b)" in text


def test_printing_does_not_change_the_module():
    mod = brief_example()
    first = script(mod)
    assert script(mod) == first


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_random_modules_print_as_python(mod):
    text = script(mod)
    tree = ast.parse(text)
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert [n.name for n in cls.body if isinstance(n, ast.FunctionDef)] == list(mod.functions)
    # Every parameter and every binding carries its struct info.
    for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef)):
        assert all(a.annotation is not None for a in fn.args.args)
        # The plain assignments are ``cls = Module`` and a symbol's declaration, ``n = T.int64()``.
        assigns = [n for n in ast.walk(fn) if isinstance(n, ast.Assign)]
        assert all(
            (isinstance(a.value, ast.Name) and a.value.id == "Module") or ast.unparse(a.value) == "T.int64()"
            for a in assigns
        )


@pytest.mark.parametrize("chunk", [1, 3, 65536])
def test_write_script_streams_the_same_text_as_script(chunk):
    import io

    from vdplace.ir import write_script
    from vdplace.ir.builder import ModuleBuilder, tensor

    mb = ModuleBuilder([VDevice("llvm"), VDevice("cuda")])
    helper = mb.function("helper", [("h", tensor((2,)))])
    helper.finish(helper.emit("exp", helper.params[0], name="e"))
    f = mb.function("main", [("x", tensor((2,)))])
    x = f.params[0]
    for i in range(50):
        x = f.emit("add", x, x, name=f"v{i}")
    y = f.emit(f.call_function("helper", x), name="y")
    f.finish(y)
    mod = mb.get()
    out = io.StringIO()
    write_script(mod, out, chunk=chunk)
    assert out.getvalue() == script(mod)
    assert "cls = Module" in out.getvalue().split("def main", 1)[1].splitlines()[1]


def test_writing_a_module_frees_each_functions_printer_and_sink_though_the_collector_is_paused():
    import gc
    import io

    from vdplace.ir import parse, write_script
    from vdplace.ir.printer.function import FunctionPrinter
    from vdplace.ir.printer.sink import SpillingSink

    functions = "".join(
        f'    @R.function\n    def f{i}(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):\n'
        "        y = R.add(x, x)\n        return y\n\n"
        for i in range(3)
    )
    mod = parse("@I.ir_module\nclass Module:\n" + functions)
    gc.collect()
    gc.disable()
    try:
        out = io.StringIO()
        write_script(mod, out, chunk=1)  # every body spills to its temporary file
        left = [o for o in gc.get_objects() if isinstance(o, (FunctionPrinter, SpillingSink))]
    finally:
        gc.enable()
    assert not left
    assert out.getvalue() == script(mod)
