"""`ir.parse` and `ir.parse_vdevice`: every construct of the TVMScript subset, in both styles.

The texts of TVM's own RealizeVDevice/UpdateVDevice tests, in the tests' style and
in TVM's printed form, live in tests/data/parser/.
"""

from __future__ import annotations

import gc
from pathlib import Path

import numpy as np
import pytest

import vdplace.ir.parser as parser_pkg
from vdplace import ir
from vdplace.ir import (
    Binding,
    Call,
    Constant,
    DataflowBlock,
    DataflowVar,
    GlobalVar,
    If,
    ObjectStructInfo,
    PrimStructInfo,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    ShapeStructInfo,
    Span,
    StringImm,
    TensorStructInfo,
    Tuple,
    TupleGetItem,
    TupleStructInfo,
    Var,
    VDevice,
)
from vdplace.ir.expr import JOINED_SPAN
from vdplace.ir.module import iter_bindings
from vdplace.ir.op import ATTR, DEVICE, SHAPE, TENSORS, VDEVICE, Param, get_op, register_op
from vdplace.ir.struct_info import FuncStructInfo
from vdplace.ir.vdevice import DeviceSpec, Target

DATA = Path(__file__).parents[1] / "data" / "parser"
CASES = sorted(DATA.glob("*.tvmscript"))

HEADER = """import tvm
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0), I.vdevice("cuda", 1)]})
"""
LLVM, CUDA0, CUDA1 = VDevice("llvm"), VDevice("cuda", 0), VDevice("cuda", 1)


def module(body: str, filename: str = "test.py") -> ir.IRModule:
    """A module with three vdevices (llvm, cuda 0, cuda 1) and the given class body."""
    return ir.parse(HEADER + body, filename)


def function(body: str, params: str = 'x: R.Tensor((2, 3), "float32")', ret: str = "") -> ir.Function:
    """The function `f` with `params` and the body (indented 8 spaces)."""
    text = f"    @R.function\n    def f({params}){ret}:\n" + "".join(f"        {line}\n" for line in body.splitlines())
    return module(text)["f"]


def bindings(func: ir.Function) -> dict[str, Binding]:
    """Bindings by variable name (the last one wins for re-bound names)."""
    return {b.var.name: b for b in iter_bindings(func)}


def no_fast_path(monkeypatch) -> None:
    monkeypatch.setattr(parser_pkg, "build_skeleton", lambda src: None)


# -- the conformance texts -------------------------------------------------------


def test_every_conformance_text_is_present():
    assert len(CASES) == 30


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_conformance_texts_parse_and_round_trip(path):
    text = path.read_text()
    mod = ir.parse(text, str(path))
    assert mod.source == text and mod.filename == str(path)
    assert mod.vdevices and mod.functions
    assert mod.attrs in ({"attr": 10}, {})
    again = ir.parse(ir.script(mod))
    assert ir.structural_equal(mod, again)


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_conformance_texts_parse_the_same_without_the_fast_path(path, monkeypatch):
    text = path.read_text()
    fast = ir.parse(text)
    no_fast_path(monkeypatch)
    slow = ir.parse(text)
    assert ir.structural_equal(fast, slow)
    assert [b.span for b in iter_bindings(fast["foo" if "foo" in fast else "main"])] == [
        b.span for b in iter_bindings(slow["foo" if "foo" in slow else "main"])
    ]


def test_tvm_test_style_multi_device():
    mod = ir.parse((DATA / "tvm_realize_multi_device.input.tvmscript").read_text())
    assert mod.name == "Input"
    assert mod.vdevices == [
        VDevice("llvm"),
        VDevice("cuda", 0),
        VDevice("metal", 0, "global"),
        VDevice(Target.parse("cuda -arch=sm_80"), 0),
    ]
    foo = mod["foo"]
    assert [p.name for p in foo.params] == ["x", "y", "z"]
    assert foo.ret_struct_info == TensorStructInfo((2, 3), "float32", vdevice=VDevice("cuda", 0))
    b = bindings(foo)
    assert b["lv0"].annotation == TensorStructInfo((2, 3), "float32", vdevice=LLVM)
    assert isinstance(b["lv0"].var, DataflowVar) and type(b["gv"].var) is Var
    # R.to_vdevice(lv0, "cuda"): the destination is resolved against the module's list.
    assert b["lv1"].value.attrs == {"dst_vdevice": VDevice("cuda", 0)}
    assert b["lv1"].annotation is None
    assert b["lv1"].var.struct_info.vdevice == VDevice("cuda", 0)
    # lv2 = R.add(z, z): nothing known about z, so nothing inferred.
    assert b["lv2"].var.struct_info == TensorStructInfo((2, 3), "float32")


def test_printed_style_with_target_dicts_and_device_codes():
    mod = ir.parse((DATA / "printed_tvm_realize_insert_to_vdevice.input.tvmscript").read_text())
    assert mod.vdevices[1].target.kind == "cuda"
    assert dict(mod.vdevices[1].target.attrs)["arch"] == "sm_50"
    b = bindings(mod["foo"])
    hint = b["lv2"].value
    assert hint.op.name == "hint_on_device"
    assert hint.attrs == {"device": DeviceSpec("cuda", 0), "memory_scope": "global"}
    assert b["lv2"].var.struct_info.vdevice == mod.vdevices[1]


def test_rebinding_a_name_shadows_it():
    foo = ir.parse((DATA / "tvm_vm_multi_cpu.input.tvmscript").read_text())["foo"]
    first, second, third = list(iter_bindings(foo))[:3]
    assert first.var.name == second.var.name == "lv0" and first.var is not second.var
    assert second.value.args == (first.var,)
    assert third.value.args == (second.var,)
    assert second.var.struct_info.vdevice == VDevice("llvm", 0)
    assert third.value.attrs == {"dst_vdevice": VDevice("llvm", 1)}


# -- vdevices ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('I.vdevice("cuda", 0)', VDevice("cuda", 0)),
        ('I.vdevice("llvm")', VDevice("llvm")),
        ('I.vdevice({"kind": "cuda", "arch": "sm_80"}, 0, "global")', VDevice(Target.parse("cuda -arch=sm_80"))),
        ('I.vdevice("cuda -arch=sm_80")', VDevice(Target.parse({"kind": "cuda", "arch": "sm_80"}))),
        ('  I.vdevice("metal", 1, "global")\n', VDevice("metal", 1)),
        ('I.vdevice(target="cuda", vdevice_id=2, memory_scope="shared")', VDevice("cuda", 2, "shared")),
        (
            'I.vdevice({"keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024}, 1, "global")',
            VDevice(Target("cuda", {"keys": ["cuda", "gpu"], "max_num_threads": 1024}), 1),
        ),
    ],
)
def test_parse_vdevice(text, expected):
    assert ir.parse_vdevice(text) == expected


VDEVICE_ORDER = """
@I.ir_module
class M:
    I.module_global_infos(
        {"vdevice": [I.vdevice("cuda", 1), I.vdevice("cuda", 0), I.vdevice("cuda", 2), I.vdevice("llvm")]}
    )

    @R.function
    def f(x: R.Tensor((2,), "float32", "cuda:1"), y: R.Tensor((2,), "float32", "vdevice:2")):
        a = R.hint_on_device(x, tvm.cuda(1))
        b = R.hint_on_device(x, tvm.cuda(0))
        c = R.to_vdevice(x, "cuda:2")
        d = R.hint_on_device(x, tvm.cpu())
        return (a, b, c, d)
"""


def test_kind_index_is_the_ith_entry_of_that_kind_and_device_id_is_the_hardware_id():
    f = ir.parse(VDEVICE_ORDER)["f"]
    x, y = f.params
    # "cuda:1" is the second cuda entry of the list: device id 0.
    assert x.struct_info.vdevice == VDevice("cuda", 0)
    assert y.struct_info.vdevice == VDevice("cuda", 2)
    b = bindings(f)
    # tvm.cuda(1) names hardware device 1: the first entry of the list.
    assert b["a"].var.struct_info.vdevice == VDevice("cuda", 1)
    assert b["b"].var.struct_info.vdevice == VDevice("cuda", 0)
    assert b["c"].var.struct_info.vdevice == VDevice("cuda", 2)
    assert b["d"].var.struct_info.vdevice == VDevice("llvm")


# -- struct infos ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        ('R.Tensor((2, 3), "float32")', TensorStructInfo((2, 3), "float32")),
        ('R.Tensor((2, 3), "float32", "cuda:0")', TensorStructInfo((2, 3), "float32", vdevice=CUDA0)),
        ('R.Tensor((2, 3), "float32", "cuda")', TensorStructInfo((2, 3), "float32", vdevice=CUDA0)),
        ('R.Tensor((2, 3), "float32", "cuda:1")', TensorStructInfo((2, 3), "float32", vdevice=CUDA1)),
        (
            'R.Tensor((2, 3), dtype="float32", vdevice="cuda:0:global")',
            TensorStructInfo((2, 3), "float32", vdevice=CUDA0),
        ),
        ('R.Tensor((2, 3), "float32", "vdevice:0")', TensorStructInfo((2, 3), "float32", vdevice=LLVM)),
        ('R.Tensor([4], "int64")', TensorStructInfo((4,), "int64")),
        ('R.Tensor((), "bool")', TensorStructInfo((), "bool")),
        ('R.Tensor(("n", 4), "float32")', TensorStructInfo(("n", 4), "float32")),
        ('R.Tensor(("n*2", "m + 1"), "float32")', TensorStructInfo(("n * 2", "m + 1"), "float32")),
        ('R.Tensor(dtype="float32", ndim=2)', TensorStructInfo(None, "float32", 2)),
        ('R.Tensor("float32", ndim=2)', TensorStructInfo(None, "float32", 2)),
        ('R.Tensor("float32")', TensorStructInfo(None, "float32")),
        ("R.Tensor", TensorStructInfo()),
        ("R.Tensor()", TensorStructInfo()),
        ("R.Tensor(ndim=3)", TensorStructInfo(None, "", 3)),
        ('R.Tensor(None, "float32", ndim=-1)', TensorStructInfo(None, "float32")),
        (
            'R.Tuple([R.Tensor((2,), "float32"), R.Shape([2])])',
            TupleStructInfo([TensorStructInfo((2,), "float32"), ShapeStructInfo((2,))]),
        ),
        (
            'R.Tuple(R.Tensor((2,), "float32"), R.Object)',
            TupleStructInfo([TensorStructInfo((2,), "float32"), ObjectStructInfo()]),
        ),
        ("R.Tuple", TupleStructInfo([])),
        ("R.Tuple([])", TupleStructInfo([])),
        ("R.Shape([2, 3])", ShapeStructInfo((2, 3))),
        ('R.Shape(["n", 3])', ShapeStructInfo(("n", 3))),
        ("R.Shape(ndim=2)", ShapeStructInfo(None, 2)),
        ("R.Shape", ShapeStructInfo()),
        ("R.Shape()", ShapeStructInfo()),
        ('R.Prim("int64")', PrimStructInfo("int64")),
        ('R.Prim("bool")', PrimStructInfo("bool")),
        ('R.Prim(dtype="int32", value=3)', PrimStructInfo("int32", 3)),
        ("R.Object", ObjectStructInfo()),
        ("R.Object()", ObjectStructInfo()),
        (
            'R.Callable([R.Tensor((2,), "float32")], R.Tensor((2,), "float32"))',
            FuncStructInfo([TensorStructInfo((2,), "float32")], TensorStructInfo((2,), "float32")),
        ),
    ],
)
def test_struct_info_annotations(annotation, expected):
    f = function("return x", params=f"x: {annotation}", ret=f" -> {annotation}")
    assert f.params[0].struct_info == expected
    assert f.ret_struct_info == expected


def test_symbolic_dims_declared_with_t_int64():
    f = function(
        'n = T.int64()\nm = T.int32()\ny: R.Tensor((n, m * 2), "float32") = R.add(x, x)\nreturn y',
        params='x: R.Tensor((n, m * 2), "float32")',
    )
    assert f.params[0].struct_info == TensorStructInfo(("n", "m * 2"), "float32")
    y = bindings(f)["y"]
    assert y.annotation.shape == ("n", "m * 2")
    assert y.var.struct_info.shape == ("n", "m * 2")


def test_symbolic_dims_as_strings_and_names_are_the_same():
    f = function("n = T.int64()\nreturn x", params='x: R.Tensor(("n", 4), "float32"), y: R.Tensor((n, 4), "float32")')
    assert f.params[0].struct_info == f.params[1].struct_info


def test_return_annotation_is_kept_as_written_and_checked():
    f = function("y = R.hint_on_device(x, tvm.cuda(0))\nreturn y", ret=' -> R.Tensor((2, 3), "float32")')
    assert f.ret_struct_info == TensorStructInfo((2, 3), "float32")
    assert f.body.body.struct_info.vdevice == CUDA0
    assert f.ret_span is not None and f.ret_span.line == 10


def test_missing_return_annotation_uses_the_body():
    f = function("y = R.hint_on_device(x, tvm.cuda(1))\nreturn (y, x)")
    assert f.ret_struct_info == TupleStructInfo(
        [TensorStructInfo((2, 3), "float32", vdevice=CUDA1), TensorStructInfo((2, 3), "float32")]
    )
    assert f.ret_span is None
    assert isinstance(f.body.body, Tuple)


# -- functions -----------------------------------------------------------------------


def test_function_decorator_attributes():
    mod = module(
        "    @R.function(private=True)\n    def a(x: R.Tensor) -> R.Tensor:\n        return x\n"
        "    @R.function(pure=False)\n    def b(x: R.Tensor) -> R.Tensor:\n        return x\n"
        "    @R.function(private=False, pure=True)\n    def c(x: R.Tensor) -> R.Tensor:\n        return x\n"
        "    @R.function\n    def d(x: R.Tensor) -> R.Tensor:\n"
        '        R.func_attr({"global_symbol": "d", "n": [1, 2]})\n'
        "        return x\n"
    )
    assert mod["a"].attrs == {"private": True} and mod["a"].is_private
    assert mod["b"].attrs == {"pure": False}
    assert mod["c"].attrs == {"pure": True}
    assert mod["d"].attrs == {"global_symbol": "d", "n": [1, 2]}
    assert list(mod) == ["a", "b", "c", "d"]


CALLS = """
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        a = cls.helper(x)
        b = Module.helper(a)
        c = cls.untyped(b)
        return c

    @R.function
    def untyped(x: R.Tensor((2, 3), "float32")):
        y = R.hint_on_device(x, tvm.cuda(1))
        return y

    @R.function(private=True)
    def helper(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        return x
"""


def test_calls_between_functions_in_any_order():
    mod = module(CALLS)
    assert list(mod) == ["main", "untyped", "helper"]
    b = bindings(mod["main"])
    call = b["a"].value
    assert isinstance(call, Call) and isinstance(call.op, GlobalVar) and call.op.name == "helper"
    assert call.args == (mod["main"].params[0],)
    assert b["b"].value.op.name == "helper"
    # untyped has no return annotation: its body (parsed first) gives the type.
    assert b["c"].var.struct_info == TensorStructInfo((2, 3), "float32", vdevice=CUDA1)
    assert mod["untyped"].ret_struct_info.vdevice == CUDA1


def test_recursive_function_with_an_annotated_return():
    f = module(
        """
    @R.function
    def f(x: R.Tensor((2,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((2,), "float32"):
        cls = Module
        if c:
            r = cls.f(x, c)
        else:
            r = x
        return r
"""
    )["f"]
    call = f.body.blocks[0].bindings[0].value.true_branch.body
    assert isinstance(call, Call) and call.op.name == "f"


def test_a_function_reference_is_a_global_var():
    f = module(
        '    @R.function\n    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):\n'
        "        cls = Module\n        g = cls.f\n        return x\n"
    )["f"]
    g = bindings(f)["g"].value
    assert isinstance(g, GlobalVar) and g.name == "f"
    assert g.struct_info == FuncStructInfo([TensorStructInfo((2,), "float32")], TensorStructInfo((2,), "float32"))


# -- bindings and expressions -----------------------------------------------------------


def test_dataflow_block_outputs_are_vars_and_the_rest_dataflow_vars():
    f = function(
        "with R.dataflow():\n    a = R.add(x, x)\n    a = R.multiply(a, a)\n    b = R.add(a, x)\n    R.output(a, b)\n"
        "c = R.add(a, b)\nreturn c"
    )
    df, plain = f.body.blocks
    assert isinstance(df, DataflowBlock) and not plain.is_dataflow
    kinds = [(b.var.name, type(b.var)) for b in df.bindings]
    assert kinds == [("a", DataflowVar), ("a", Var), ("b", Var)]
    assert plain.bindings[0].value.args == (df.bindings[1].var, df.bindings[2].var)


def test_annotation_is_what_the_user_wrote_and_the_var_gets_the_merge():
    b = bindings(
        function('y = R.hint_on_device(x, tvm.cuda(1))\nz: R.Tensor("float32", ndim=2) = R.add(y, y)\nreturn z')
    )
    z = b["z"]
    assert z.annotation == TensorStructInfo(None, "float32", 2)
    assert z.var.struct_info == TensorStructInfo((2, 3), "float32", vdevice=CUDA1)
    pinned = bindings(function('z: R.Tensor((2, 3), "float32", "llvm") = R.add(x, x)\nreturn z'))["z"]
    assert pinned.var.struct_info.vdevice == LLVM


def test_alias_tuple_and_get_item():
    b = bindings(function("y = x\nt = (x, y)\ns = t[1]\nu = R.tuple(x)\nv = R.tuple()\nreturn s"))
    x = b["y"].value
    assert isinstance(x, Var) and x.name == "x"
    assert isinstance(b["t"].value, Tuple) and b["t"].value.fields == (x, b["y"].var)
    assert b["t"].var.struct_info == TupleStructInfo([x.struct_info, x.struct_info])
    item = b["s"].value
    assert isinstance(item, TupleGetItem) and item.index == 1 and item.tuple_value is b["t"].var
    assert b["s"].var.struct_info == x.struct_info
    assert b["u"].var.struct_info == TupleStructInfo([x.struct_info])
    assert b["v"].var.struct_info == TupleStructInfo([])


def test_if_else_binds_the_result_name_to_an_if():
    f = function(
        "if c:\n    a = R.add(x, x)\n    r = R.multiply(a, a)\nelse:\n"
        '    r: R.Tensor((2, 3), "float32", "cuda:1") = R.hint_on_device(x, tvm.cuda(1))\n'
        "s = R.add(r, r)\nreturn s",
        params='x: R.Tensor((2, 3), "float32"), c: R.Tensor((), "bool")',
    )
    (block,) = f.body.blocks
    binding = block.bindings[0]
    node = binding.value
    assert isinstance(node, If) and binding.var.name == "r"
    assert node.cond is f.params[1]
    assert isinstance(node.true_branch, SeqExpr) and isinstance(node.false_branch, SeqExpr)
    assert [b.var.name for b in node.true_branch.blocks[0].bindings] == ["a"]
    assert node.true_branch.body.op.name == "multiply" and node.false_branch.blocks == ()
    # join of "no device" and cuda:1 has no device; the written annotation pins it.
    assert node.struct_info == TensorStructInfo((2, 3), "float32")
    assert binding.annotation == TensorStructInfo((2, 3), "float32", vdevice=CUDA1)
    assert binding.var.struct_info.vdevice == CUDA1
    assert block.bindings[1].value.args == (binding.var, binding.var)


def test_an_if_may_end_a_branch_and_its_variable_is_the_branch_result():
    from vdplace.placement import place

    body = [
        "if c:",
        "    if c:",
        "        y = R.exp(x)",
        "    else:",
        "        y = R.negative(x)",
        "else:",
        "    y = R.negative(x)",
        "return y",
    ]
    mod = module(
        '    @R.function\n    def f(x: R.Tensor((2, 3), "float32"), c: R.Tensor((), "bool")):\n'
        + "".join(f"        {line}\n" for line in body)
    )
    (outer,) = mod["f"].body.blocks[0].bindings
    inner = outer.value.true_branch.blocks[0].bindings[0]
    assert isinstance(inner.value, If) and inner.var.name == "y" and inner.var is not outer.var
    assert outer.value.true_branch.body is inner.var
    assert outer.span.end_line > inner.span.end_line  # the outer if ends with its else branch
    text = ir.script(place(mod).module)  # printed as TVM prints it: the inner variable renamed, then aliased
    assert 'y: R.Tensor((2, 3), dtype="float32") = y_1' in text
    assert ir.structural_equal(ir.parse(text), place(mod).module)


def test_constants():
    b = bindings(
        function(
            'a = R.const(1.0, "float32")\nb = R.const([[1, 2]], "int32")\nc = R.const(3)\nd = R.const(2.5)\n'
            'e = R.const(True)\nf = R.const([1, 2])\ng = R.const(-1, dtype="int8")\nreturn a'
        )
    )
    for name, dtype, shape in [
        ("a", "float32", ()),
        ("b", "int32", (1, 2)),
        ("c", "int32", ()),
        ("d", "float32", ()),
        ("e", "bool", ()),
        ("f", "int32", (2,)),
        ("g", "int8", ()),
    ]:
        const = b[name].value
        assert isinstance(const, Constant)
        assert const.struct_info == TensorStructInfo(shape, dtype)
        assert str(const.data.dtype) == dtype and const.data.shape == shape
    np.testing.assert_array_equal(b["b"].value.data, np.array([[1, 2]], dtype="int32"))


def test_shapes_prim_values_and_strings():
    b = bindings(
        function(
            'n = T.int64()\na = R.shape([2, 3])\nb = R.shape([n, "m", n + 1])\n'
            "c = R.prim_value(3)\nd = R.prim_value(1.5)\n"
            'e = R.prim_value(True)\nf = R.prim_value(T.int32(7))\ng = R.str("hi")\nh = R.shape_of(x)\nreturn x'
        )
    )
    assert isinstance(b["a"].value, ShapeExpr) and b["a"].var.struct_info == ShapeStructInfo((2, 3))
    assert b["b"].value.values == ("n", "m", "n + 1")
    for name, value, dtype in [("c", 3, "int64"), ("d", 1.5, "float64"), ("e", True, "bool"), ("f", 7, "int32")]:
        prim = b[name].value
        assert isinstance(prim, PrimValue) and prim.value == value and prim.dtype == dtype
        assert prim.struct_info == PrimStructInfo(dtype, value)
    assert isinstance(b["g"].value, StringImm) and b["g"].value.value == "hi"
    assert b["h"].value.op.name == "shape_of" and b["h"].var.struct_info == ShapeStructInfo((2, 3))


def test_nested_calls_stay_expression_trees():
    y = bindings(function("y = R.add(R.multiply(x, x), R.nn.relu(x))\nreturn y"))["y"]
    outer = y.value
    assert outer.op.name == "add"
    assert [a.op.name for a in outer.args] == ["multiply", "nn.relu"]
    assert outer.args[0].struct_info == TensorStructInfo((2, 3), "float32")
    assert outer.args[0].span.col == 19 and outer.span.col == 13


# -- op arguments -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("device", "expected"),
    [
        ("tvm.cpu()", DeviceSpec("cpu", 0)),
        ("tvm.cuda(0)", DeviceSpec("cuda", 0)),
        ("tvm.cuda(1)", DeviceSpec("cuda", 1)),
        ("tvm.gpu()", DeviceSpec("cuda", 0)),
        ("R.device(2, 1)", DeviceSpec("cuda", 1)),
        ("R.device(device_type=2, index=0)", DeviceSpec("cuda", 0)),
        ("R.device(1)", DeviceSpec("cpu", 0)),
        ('tvm.device("cuda", 1)', DeviceSpec("cuda", 1)),
        ('tvm.device("llvm")', DeviceSpec("cpu", 0)),
    ],
)
def test_device_arguments(device, expected):
    y = bindings(function(f"y = R.hint_on_device(x, {device})\nreturn y"))["y"]
    assert y.value.attrs == {"device": expected, "memory_scope": "global"}
    assert y.var.struct_info.vdevice.physical == (expected.device_type, expected.index)


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ('R.to_vdevice(x, "cuda")', CUDA0),
        ('R.to_vdevice(x, "cuda:1")', CUDA1),
        ('R.to_vdevice(x, dst_vdevice="cuda:0:global")', CUDA0),
        ('R.to_vdevice(x, dst_vdevice="vdevice:0")', LLVM),
        ('R.to_vdevice(x, I.vdevice("cuda", 1, "global"))', CUDA1),
    ],
)
def test_vdevice_arguments(call, expected):
    y = bindings(function(f"y = {call}\nreturn y"))["y"]
    assert y.value.attrs == {"dst_vdevice": expected}
    assert y.var.struct_info.vdevice == expected


def test_memory_scope_positional_and_keyword():
    for call in (
        'R.hint_on_device(x, tvm.cuda(0), "global")',
        'R.hint_on_device(x, memory_scope="global", device=tvm.cuda())',
    ):
        y = bindings(function(f"y = {call}\nreturn y"))["y"]
        assert y.value.attrs == {"device": DeviceSpec("cuda", 0), "memory_scope": "global"}


def test_attributes_are_literals_with_defaults_filled_in():
    b = bindings(
        function(
            "a = R.permute_dims(x, axes=[1, 0])\nb = R.permute_dims(x)\nc = R.sum(x, axis=[-1], keepdims=True)\n"
            'd = R.astype(x, "float16")\ne = R.reshape(x, R.shape([3, 2]))\nf = R.reshape(x, (6,))\n'
            "g = R.concat((x, x), axis=0)\nt = (x, x)\nh = R.concat(t)\nreturn x"
        )
    )
    assert b["a"].value.attrs == {"axes": (1, 0)} and b["a"].var.struct_info.shape == (3, 2)
    assert b["b"].value.attrs == {"axes": None}
    assert b["c"].value.attrs == {"axis": (-1,), "keepdims": True}
    assert b["d"].value.attrs == {"dtype": "float16"}
    assert b["e"].value.attrs == {} and b["e"].value.args[1].values == (3, 2)  # a shape is an argument
    assert b["f"].value.args[1].values == (6,)
    assert isinstance(b["g"].value.args[0], Tuple) and b["g"].var.struct_info.shape == (4, 3)
    assert b["h"].value.args == (b["t"].var,) and b["h"].var.struct_info.shape == (4, 3)


@pytest.fixture
def extra_op():
    """An op registered only for this test, with one parameter of every kind."""
    from vdplace.ir.op import _REGISTRY

    name = "test_parser.everything"

    def infer(args, attrs):
        return args[0]

    register_op(
        name,
        [
            Param("data"),
            Param("more", TENSORS),
            Param("scale", ATTR, 1.0),
            Param("shape", SHAPE, None),
            Param("device", DEVICE, None),
            Param("target", VDEVICE, None),
        ],
        infer,
        None,
        device_rule="same",
    )
    yield name
    del _REGISTRY[name]


def test_a_new_op_needs_no_parser_change(extra_op):
    y = bindings(
        function(f'y = R.{extra_op}(x, (x, x), shape=[1, "n"], device=tvm.cuda(1), target="cuda:1", scale=2)\nreturn y')
    )["y"]
    call = y.value
    assert call.op.name == extra_op and call.args[0].name == "x" and isinstance(call.args[1], Tuple)
    assert call.attrs == {"scale": 2, "device": DeviceSpec("cuda", 1), "target": CUDA1}
    assert call.args[2].values == (1, "n")  # a shape is an argument (a ShapeExpr)
    assert list(call.attrs) == ["scale", "device", "target"]


# -- module level --------------------------------------------------------------------------


def test_module_attrs_global_infos_and_decorator_spellings():
    text = """
@tvm.script.ir_module
class Named:
    '''A docstring.'''
    I.module_attrs({"attr": 10, "list": [1, 2], "nested": {"a": None}})
    I.module_global_infos({"vdevice": [I.vdevice("llvm")], "other": [1, "two"]})

    @R.function
    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        '''Function docstring.'''
        return x
"""
    mod = ir.parse(text)
    assert mod.name == "Named"
    assert mod.attrs == {"attr": 10, "list": [1, 2], "nested": {"a": None}}
    assert mod.vdevices == [LLVM]
    assert mod.global_infos["other"] == [1, "two"]


def test_an_empty_module_and_no_vdevices():
    mod = ir.parse("@I.ir_module\nclass Empty:\n    pass\n")
    assert mod.functions == {} and mod.vdevices == []


# -- spans ----------------------------------------------------------------------------------


def test_spans_of_vars_bindings_calls_and_functions():
    text = (
        "@I.ir_module\nclass M:\n    @R.function\n"
        '    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):\n'
        "        y = R.add(x, x)\n"
        '        z: R.Tensor((2,), "float32") = R.multiply(y, R.add(y, y))\n'
        "        return z\n"
    )
    f = ir.parse(text, "spans.py")["f"]
    assert f.span == Span("spans.py", 4, 5, 7, 17)
    assert f.params[0].span == Span("spans.py", 4, 11, 4, 39)
    assert f.ret_span == Span("spans.py", 4, 44, 4, 69)
    y, z = iter_bindings(f)
    assert y.span == Span("spans.py", 5, 9, 5, 24)
    assert y.var.span == Span("spans.py", 5, 9, 5, 10)
    assert y.value.span == Span("spans.py", 5, 13, 5, 24)
    assert z.var.span == Span("spans.py", 6, 9, 6, 10)
    assert z.value.span == Span("spans.py", 6, 40, 6, 66)
    assert z.value.args[1].span == Span("spans.py", 6, 54, 6, 65)


def test_spans_are_the_same_on_the_fast_path_and_without_it(monkeypatch):
    text = HEADER + (
        "    @R.function\n"
        '    def f(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32", "cuda"):\n'
        "        with R.dataflow():\n"
        '            a: R.Tensor((2, 3), dtype="float32", vdevice="cuda:0:global") = '
        'R.to_vdevice(x, dst_vdevice="cuda")\n'
        "            b = R.add(a, a)\n"
        "            c = b\n"
        '            d: R.Tensor((3, 2), "float32", "cuda") = R.permute_dims(c, axes=[1, 0])\n'
        "            e = R.permute_dims(d)\n"
        "            R.output(e)\n"
        "        return e\n"
    )
    fast = ir.parse(text, "f.py")
    no_fast_path(monkeypatch)
    slow = ir.parse(text, "f.py")
    assert ir.structural_equal(fast, slow)
    for a, b in zip(iter_bindings(fast["f"]), iter_bindings(slow["f"]), strict=True):
        assert (a.span, a.var.span, a.value.span, a.annotation) == (b.span, b.var.span, b.value.span, b.annotation)
        assert type(a.var) is type(b.var) and a.var.struct_info == b.var.struct_info


def test_fast_path_spans_are_the_same_with_windows_line_breaks(monkeypatch):
    text = chain(5).replace("\n", "\r\n")
    fast = ir.parse(text, "crlf.py")
    no_fast_path(monkeypatch)
    slow = ir.parse(text, "crlf.py")
    assert ir.structural_equal(fast, slow)
    for a, b in zip(iter_bindings(fast["main"]), iter_bindings(slow["main"]), strict=True):
        assert (a.span, a.var.span, a.value.span) == (b.span, b.var.span, b.value.span)
    first = next(iter_bindings(fast["main"]))
    line = text.split("\r\n")[first.span.line - 1]
    assert line.lstrip().startswith("lv1:") and first.span == Span(
        "crlf.py", first.span.line, 13, first.span.line, len(line) + 1
    )


def test_an_if_ending_in_fast_lines_spans_its_whole_else_branch(monkeypatch):
    body = "if c:\n    p = R.exp(x)\n    r = p\nelse:\n    q = R.negative(x)\n    r = q\nreturn r"
    params = 'c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")'
    fast = next(iter_bindings(function(body, params=params)))
    no_fast_path(monkeypatch)
    slow = next(iter_bindings(function(body, params=params)))
    assert fast.span == slow.span and fast.value.span == slow.value.span
    assert (fast.span.line, fast.span.end_line) == (slow.span.line, slow.span.line + 5)


def test_a_joined_binding_span_runs_from_the_variable_to_the_value():
    x = Var("x", None, Span("f.py", 3, 9, 3, 10))
    call = Call(get_op("add"), [x, x], None, None, Span("f.py", 3, 13, 3, 24))
    assert Binding(x, call, None, JOINED_SPAN).span == Span("f.py", 3, 9, 3, 24)
    assert Binding(Var("y"), call, None, JOINED_SPAN).span is None
    assert Binding(x, call).span is None


def test_parsing_leaves_the_garbage_collector_as_it_found_it():
    good = chain(3)
    ir.parse(good)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    with pytest.raises(ir.ParseError):
        ir.parse(good.replace("R.add", "R.no_such_op"))
    assert gc.isenabled()
    gc.disable()
    try:
        ir.parse(good)
        assert not gc.isenabled()
    finally:
        gc.enable()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        ir.parse(good)
        assert gc.get_freeze_count() == frozen  # the caller's frozen objects stay frozen
    finally:
        gc.unfreeze()


def test_columns_count_characters_on_non_ascii_lines():
    f = ir.parse(
        "@I.ir_module\nclass M:\n    @R.function\n"
        '    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):\n'
        '        """Ünïcödé docstring."""\n'
        "        y = R.add(x, x)  # ünïcödé\n"
        '        z: R.Tensor((2,), "float32") = R.add(y, y)  # ü\n'
        "        return z\n"
    )["f"]
    y, z = iter_bindings(f)
    assert y.value.span == Span(None, 6, 13, 6, 24)
    assert z.value.span == Span(None, 7, 40, 7, 51)


# -- the fast path ---------------------------------------------------------------------------


def chain(n: int, vdevice: str = 'vdevice="cuda:0:global"') -> str:
    lines = [
        HEADER,
        "    @R.function",
        f'    def main(lv0: R.Tensor((8, 8), dtype="float32", {vdevice})):',
        "        with R.dataflow():",
    ]
    for i in range(1, n + 1):
        lines.append(f'            lv{i}: R.Tensor((8, 8), dtype="float32", {vdevice}) = R.add(lv{i - 1}, lv{i - 1})')
    lines += [f"            R.output(lv{n})", f"        return lv{n}", ""]
    return "\n".join(lines)


def test_a_long_chain_parses_with_every_binding(monkeypatch):
    text = chain(300)
    mod = ir.parse(text)
    bs = list(iter_bindings(mod["main"]))
    assert len(bs) == 300 and type(bs[-1].var) is Var and all(type(b.var) is DataflowVar for b in bs[:-1])
    assert all(b.var.struct_info.vdevice == CUDA0 for b in bs)
    assert bs[5].value.args == (bs[4].var, bs[4].var)
    no_fast_path(monkeypatch)
    assert ir.structural_equal(mod, ir.parse(text))


def test_a_fast_looking_line_inside_a_multiline_string_is_string_content():
    mod = ir.parse('@I.ir_module\nclass M:\n    I.module_attrs({"doc": """\n        y = R.add(x, x)\n"""})\n')
    assert mod.attrs == {"doc": "\n        y = R.add(x, x)\n"}


def test_a_fast_looking_line_inside_brackets_is_part_of_the_call():
    # "axes = R.foo(a, b)" alone looks like a binding; here it is a keyword argument.
    with pytest.raises(ir.ParseError, match=r"test.py:12:20: expected a literal value .* got a call to R.foo"):
        function("y = R.permute_dims(x,\n    axes = R.foo(a, b)\n)\nreturn y")


def test_fast_lines_with_unusual_args_fall_back_to_the_ordinary_path(monkeypatch):
    body = (
        'a = R.hint_on_device(x, device=R.device(device_type=2, index=1), memory_scope="global")\n'
        "b = R.add(x1=a, x2=a)\n"
        "c = R.permute_dims(b, [1, 0])\n"
        'd = R.zeros(shape=R.shape([2, 3]), dtype="float32")\n'
        "e = R.add(d, c)\n"
        "return e"
    )
    fast = function(body, params='x: R.Tensor((3, 2), "float32")')
    no_fast_path(monkeypatch)
    slow = function(body, params='x: R.Tensor((3, 2), "float32")')
    assert ir.structural_equal(fast, slow)
    assert bindings(fast)["e"].var.struct_info == TensorStructInfo((2, 3), "float32", vdevice=CUDA1)


def parsed_both_ways(text: str, monkeypatch) -> tuple[object, object]:
    """What parsing `text` gives with the fast path and without it: a summary with every span, or the error."""

    def summary() -> object:
        try:
            mod = ir.parse(text, "t.py")
        except ir.ParseError as err:
            return type(err).__name__, str(err)
        spans = [
            (
                name,
                f.span,
                f.ret_span,
                [p.span for p in f.params],
                [(b.span, b.var.span, b.value.span) for b in iter_bindings(f)],
                f.attrs,
                f.body.span,
            )
            for name, f in mod.functions.items()
        ]
        return spans, mod.vdevices, ir.script(mod)

    fast = summary()
    with monkeypatch.context() as m:
        m.setattr(parser_pkg, "build_skeleton", lambda src: None)
        slow = summary()
    return fast, slow


T23 = 'R.Tensor((2, 3), dtype="float32")'


def fn(name: str, body: list[str], params: str = f"x: {T23}", ret: str | None = T23) -> str:
    """The text of an @R.function `name` (the body indented 8 spaces)."""
    arrow = "" if ret is None else f" -> {ret}"
    return f"    @R.function\n    def {name}({params}){arrow}:\n" + "".join(f"        {line}\n" for line in body)


@pytest.mark.parametrize(
    "params",
    [
        f'x: {T23}, y: R.Tuple(R.Tensor((2,), "int64"), R.Object), s: R.Shape([2, 3]), p: R.Prim("int64")',
        f"x: {T23}, x: {T23}",  # a parameter twice
        f"R: {T23}",  # a namespace
        'x: R.Tensor((2, 3), dtype="float33")',  # a bad dtype
        'x: R.Tensor((2, -3), dtype="float32")',  # a negative dim
        'x: R.Tensor(("n", 3), dtype="float32", vdevice="cuda:1")',
        'x: R.Tensor((2, 3), dtype="float32", vdevice="rocm")',  # an unknown vdevice
        f"x: {T23}, *rest",  # not a fast signature: read by ast
    ],
)
def test_fast_signatures_read_the_same_as_their_ast(params, monkeypatch):
    text = HEADER + fn("f", ["return x"], params) + fn("g", ["return x"], params, ret='R.Tensor((2, 3), "float32")')
    fast, slow = parsed_both_ways(text, monkeypatch)
    assert fast == slow


def test_a_fast_looking_def_inside_a_multiline_string_is_string_content():
    doc = f"    def g(x: {T23}) -> {T23}:"
    mod = ir.parse(f'@I.ir_module\nclass M:\n    I.module_attrs({{"doc": """\n{doc}\n"""}})\n')
    assert mod.attrs == {"doc": f"\n{doc}\n"}


@pytest.mark.parametrize(
    "main",
    [
        ["cls = Module", "a = cls.g(x)", f"b: {T23} = cls.h(a)", "c = Module.g(b)", "return c"],
        ["a = cls.zz(x)", "return a"],  # cls is not the module here
        ["cls = Module", "a = cls.zz(x)", "return a"],  # no such function
        ["cls = Module", "a = cls.g(x, x)", "return a"],  # too many arguments
        ["cls = Module", "a = cls.g(x=x)", "return a"],  # a keyword
        ["cls = Module", "a = cls.g(q)", "return a"],  # an unknown variable
        ["cls = Module", 'a: R.Tensor((3, 3), dtype="float32") = cls.g(x)', "return a"],  # a wrong annotation
        ["cls = Module", f"cls: {T23} = cls.g(x)", "return cls"],  # binding the module's name
        ["cls = Module", 'cls: R.Tensor((3, 3), "float32") = R.add(x, x)', "return x"],  # and a wrong annotation
        ["cls = Module", "a = cls.main(x)", "return a"],  # a recursive call
        ["a = np.g(x)", "return a"],
        ["with R.dataflow():", "    lv = Module.g(x)", "    lv_1 = Module.h(lv)", "    R.output(lv)", "return lv"],
    ],
)
def test_fast_calls_of_module_functions_read_the_same_as_their_ast(main, monkeypatch):
    text = HEADER + fn("g", ["return x"]) + fn("h", ["y = R.add(x, x)", "return y"]) + fn("main", main)
    fast, slow = parsed_both_ways(text, monkeypatch)
    assert fast == slow


def test_functions_without_return_annotations_parse_in_the_same_order(monkeypatch):
    # Each callee implies a vdevice when parsed: the module's vdevice list shows the order.
    hint = "y = R.hint_on_device(x, R.device(device_type={}, index=0))"
    text = (
        "@I.ir_module\nclass Module:\n"
        + fn("main", ["cls = Module", "a = cls.h(x)", "b = cls.g(a)", "return b"], ret=None)
        + fn("g", [hint.format(2), "return y"], ret=None)
        + fn("h", [hint.format(1), "return y"], ret=None)
    )
    fast, slow = parsed_both_ways(text, monkeypatch)
    assert fast == slow
    assert fast[1] == [VDevice("llvm", 0), VDevice("cuda", 0)]


def test_annotations_are_shared_only_between_functions_without_symbolic_dims():
    text = HEADER + fn("f", ["n = T.int64()", "return x"], 'x: R.Tensor((n, 3), dtype="float32")')
    mod = ir.parse(text)
    assert mod["f"].params[0].struct_info == TensorStructInfo(("n", 3), "float32")
    with pytest.raises(ir.ParseError, match=r"t.py:14:24: undefined symbolic dim 'n'"):
        ir.parse(text + fn("g", ["return x"], 'x: R.Tensor((n, 3), dtype="float32")'), "t.py")


def test_a_dataflow_output_is_its_names_last_binding_in_fast_lines(monkeypatch):
    body = [
        "with R.dataflow():",
        "    lv = R.add(x, x)",
        "    lv_1 = R.add(lv, lv)",
        "    lv = R.add(lv_1, x)",
        "    lv_12 = R.add(lv, lv)",
        "    R.output(lv, lv_1)",
        "return lv",
    ]
    fast, slow = parsed_both_ways(HEADER + fn("f", body), monkeypatch)
    assert fast == slow
    kinds = [type(b.var).__name__ for b in iter_bindings(ir.parse(HEADER + fn("f", body))["f"])]
    assert kinds == ["DataflowVar", "Var", "Var", "DataflowVar"]


DATAFLOW = ["with R.dataflow():", "    lv = R.add(x, x)", "    lv_1 = R.add(lv, lv)", "    R.output(lv_1)"]


@pytest.mark.parametrize(
    "body",
    [
        [*DATAFLOW, "return lv_1"],
        [*DATAFLOW, "with R.dataflow():", "    lv_2 = R.add(lv_1, lv_1)", "    R.output(lv_2)", "return lv_2"],
        [*DATAFLOW[:-1], "    R.output()", "y = R.add(x, x)", "return y"],
        [*DATAFLOW, "y = R.add(lv, lv)", "return y"],  # lv died with its block
        [
            "c = R.const(True, 'bool')",
            "if c:",
            *[f"    {line}" for line in DATAFLOW],
            "    z = lv_1",
            "else:",
            "    z = x",
        ]
        + ["return z"],
        ["with R.dataflow():", *[f"    {line}" for line in DATAFLOW], "    R.output(lv_1)", "return lv_1"],  # nested
        [*DATAFLOW[:-1], "    R.output(lv_1, lv_1)", "return lv_1"],  # an output twice
        [*DATAFLOW[:-1], "    R.output(lv_1, q)", "return lv_1"],  # an output not bound
        DATAFLOW,  # no return
        [*DATAFLOW, "    y = R.add(x, x)", "return y"],  # a line after R.output
        [*DATAFLOW, "      y = R.add(x, x)", "return y"],  # a bad indentation after the block
        ["with R.dataflow():", "lv = R.add(x, x)", "R.output(lv)", "return lv"],  # a body not indented
        ["with R.dataflow():", '    lv: R.Tensor((3, 3), "float32") = R.add(x, x)', "    R.output(lv)", "return lv"],
    ],
)
def test_collapsed_dataflow_blocks_read_the_same_as_their_ast(body, monkeypatch):
    fast, slow = parsed_both_ways(HEADER + fn("main", body), monkeypatch)
    assert fast == slow


@pytest.mark.parametrize(
    "text",
    [
        HEADER + "    with R.dataflow():\n        lv = R.add(x, x)\n        R.output(lv)\n" + fn("main", ["return x"]),
        "with R.dataflow():\n    lv = R.add(x, x)\n    R.output(lv)\n" + HEADER + fn("main", ["return x"]),
        HEADER + '    I.module_attrs({"doc": """\n' + "\n".join(DATAFLOW) + '\n"""})\n' + fn("main", ["return x"]),
        (HEADER + fn("main", [*DATAFLOW, "return lv_1"])).replace("\n", "\r\n"),
    ],
    ids=["in the class", "at the top level", "in a string", "windows line breaks"],
)
def test_dataflow_blocks_outside_functions_read_the_same_as_their_ast(text, monkeypatch):
    fast, slow = parsed_both_ways(text, monkeypatch)
    assert fast == slow


@pytest.mark.parametrize(("text", "expected"), [('"-inf"', -np.inf), ('"inf"', np.inf), ('"+inf"', np.inf)])
def test_const_reads_tvms_spelling_of_non_finite_values(text, expected):
    mod = module(
        f"""
    @R.function
    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = R.maximum(x, R.const({text}, "float32"))
        return y
"""
    )
    const = mod["f"].body.blocks[0].bindings[0].value.args[1]
    assert const.data.dtype == np.float32 and const.data.shape == () and const.data == expected
    printed = ir.script(mod)
    assert f'R.const("{"inf" if expected > 0 else "-inf"}", "float32")' in printed
    assert ir.structural_equal(ir.parse(printed), mod)


def test_const_nan_round_trips_and_an_integer_inf_is_an_error():
    mod = module(
        """
    @R.function
    def f(x: R.Tensor((), "float64")) -> R.Tensor((), "float64"):
        y = R.add(x, R.const("nan", "float64"))
        return y
"""
    )
    printed = ir.script(mod)
    assert 'R.const("nan", "float64")' in printed
    assert ir.structural_equal(ir.parse(printed), mod)
    with pytest.raises(ir.ParseError, match=r"test.py:\d+:\d+: R.const: cannot make a int32 array"):
        module(
            """
    @R.function
    def f(x: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
        y = R.add(x, R.const("-inf", "int32"))
        return y
"""
        )


def test_functions_share_the_text_of_their_binding_names_up_to_a_bound(monkeypatch):
    import vdplace.ir.parser.fastpath as fastpath

    body = "        lv = R.add(x, x)\n        lv1 = R.nn.relu(lv)\n        return lv1\n"
    functions = "".join(f'    @R.function\n    def f{k}(x: R.Tensor((2,), "float32")):\n{body}\n' for k in range(3))
    text = f"@I.ir_module\nclass Module:\n{functions}"

    def names(mod):
        return [[b.var.name for b in mod.functions[f"f{k}"].body.blocks[0].bindings] for k in range(3)]

    first, *others = names(ir.parse(text))
    assert first == ["lv", "lv1"] and all(all(n is m for n, m in zip(first, o, strict=True)) for o in others)
    monkeypatch.setattr(fastpath, "MAX_SHARED_NAMES", 1)  # "lv" is shared, "lv1" is not
    first, *others = names(ir.parse(text))
    assert all(o[0] is first[0] and o[1] == first[1] and o[1] is not first[1] for o in others)


def test_symbolic_dims_may_use_t_min_and_t_max_as_tvm_prints_a_slice_of_a_symbolic_length():
    text = """
s = TypeVar("s")

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, s, 4), dtype="float32")) -> R.Tensor((1, 4), dtype="float32"):
        a: R.Tensor((1, T.min(9223372036854775807, s) - T.min(1, s), 4), dtype="float32") = R.strided_slice(
            x, (1,), (1,), (9223372036854775807,), (1,), assume_inbound=False
        )
        b: R.Tensor((T.max(s, 2), "T.min(s, 16) + 1"), dtype="float32") = R.zeros(
            R.shape([T.max(s, 2), T.min(s, 16) + 1]), "float32"
        )
        c: R.Tensor((1, 4), dtype="float32") = R.sum(a, axis=[1], keepdims=False)
        return c
"""
    mod = ir.parse(text)
    a, b, _ = mod["main"].body.blocks[0].bindings
    assert a.var.struct_info.shape == (1, "T.min(9223372036854775807, s) - T.min(1, s)", 4)
    assert b.var.struct_info.shape == ("T.max(s, 2)", "T.min(s, 16) + 1")
    assert ir.structural_equal(ir.parse(ir.script(mod)), mod)
    for bad, reason in (
        ("T.min(s)", "T.min/T.max"),
        ("T.abs(s)", "must be an integer literal"),
        ("T.min(t, 2)", "undefined symbolic"),
    ):
        with pytest.raises(ir.ParseError, match=reason):
            ir.parse(text.replace('T.max(s, 2), "T', f'{bad}, "T', 1))


def test_the_runtime_evaluates_t_min_and_t_max_in_symbolic_dims():
    from vdplace.runtime import shapes

    assert shapes.evaluate("T.min(s, 16) + T.max(1, s) * 2", {"s": 20}) == 16 + 40
    with pytest.raises(shapes.InputError):
        shapes.evaluate("T.min(s, 16, 3)", {"s": 1})


def test_parsing_makes_no_reference_cycle_so_each_functions_parsers_are_freed_at_once():
    body = "        lv = R.add(x, x)  # off the fast path\n        lv1 = R.nn.relu(lv)\n        return lv1\n"
    functions = "".join(f'    @R.function\n    def f{k}(x: R.Tensor((2,), "float32")):\n{body}\n' for k in range(3))
    text = f"@I.ir_module\nclass Module:\n{functions}"
    ir.parse(text)
    gc.collect()
    gc.disable()
    try:
        mod = ir.parse(text)
        assert gc.collect() == 0
    finally:
        gc.enable()
    assert len(mod.functions) == 3
