"""`ir.structural_equal`: equal up to renaming of locals; every other difference counts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from tests.support.strategies import modules
from vdplace.ir import DeviceSpec, ModuleBuilder, VDevice, assert_structural_equal, structural_equal
from vdplace.ir.builder import tensor
from vdplace.ir.expr import (
    Binding,
    BindingBlock,
    Constant,
    DataflowBlock,
    DataflowVar,
    Function,
    SeqExpr,
    Var,
)
from vdplace.ir.module import IRModule
from vdplace.ir.structural_equal import structural_diff

LLVM = VDevice("llvm")
CUDA = VDevice("cuda")
CUDA1 = VDevice("cuda", 1)
CUDA0_SPEC = DeviceSpec("cuda", 0)


def build(
    *,
    names=("x", "y", "lv0", "gv"),
    vdevices=(LLVM, CUDA),
    x_vdevice=LLVM,
    dtype="float32",
    shape=(2, 3),
    op="add",
    axes=(1, 0),
    const=1.5,
    const_dtype=None,
    dataflow=True,
    output_kind=True,
    annotate=False,
    attrs=None,
    func_name="main",
    private=False,
    hint=CUDA0_SPEC,
    ret_vdevice=None,
):
    """One small module whose every feature can be varied by a keyword."""
    x_name, y_name, lv_name, gv_name = names
    mb = ModuleBuilder(list(vdevices), attrs=attrs or {})
    f = mb.function(
        func_name,
        [(x_name, tensor(shape, dtype, x_vdevice)), (y_name, tensor(shape, dtype))],
        private=private,
    )
    x, y = f.params
    const_expr = Constant(np.array(const, const_dtype or dtype), tensor((), const_dtype or dtype))

    def body():
        a = f.emit(op, x, y, name=lv_name, annotation=tensor(shape, dtype, x_vdevice) if annotate else None)
        b = f.emit("multiply", a, const_expr, name=lv_name + "_c")
        c = f.emit("hint_on_device", b, device=hint, name=lv_name + "_h")
        return f.emit("permute_dims", c, axes=axes, name=gv_name, output=output_kind)

    if dataflow:
        with f.dataflow():
            gv = body()
    else:
        gv = body()
    ret = None if ret_vdevice is None else tensor(tuple(reversed(shape)), dtype, ret_vdevice)
    f.finish(gv, ret)
    return mb.get()


def test_identical_builds_are_equal():
    assert structural_equal(build(), build())
    assert_structural_equal(build(), build())


def test_renaming_locals_is_equal():
    assert structural_equal(build(), build(names=("a", "b", "t", "out")))


def test_module_name_source_and_filename_are_ignored():
    a = build()
    b = build().replace(name="Expect", source="text", filename="f.py")
    assert structural_equal(a, b)


def test_annotations_are_ignored_when_the_struct_info_agrees():
    # x is on llvm, so add(x, y) is inferred on llvm: writing that down changes nothing.
    assert structural_equal(build(annotate=False), build(annotate=True))


@pytest.mark.parametrize(
    "change",
    [
        {"x_vdevice": CUDA},
        {"x_vdevice": None},
        {"vdevices": (LLVM, CUDA, CUDA1)},
        {"vdevices": (CUDA, LLVM)},
        {"dtype": "float16"},
        {"shape": (3, 2)},
        {"op": "subtract"},
        {"axes": None},
        {"const": 2.5},
        {"dataflow": False},
        {"output_kind": False},
        {"attrs": {"attr": 10}},
        {"func_name": "foo"},
        {"private": True},
        {"hint": DeviceSpec("cpu", 0)},
        {"ret_vdevice": LLVM},
    ],
    ids=lambda c: ",".join(c),
)
def test_each_difference_is_seen(change):
    a, b = build(), build(**change)
    assert not structural_equal(a, b)
    assert not structural_equal(b, a)
    with pytest.raises(AssertionError):
        assert_structural_equal(a, b)


def test_constant_dtype_is_compared():
    x = Var("x", tensor((), "float32"))
    c32 = Constant(np.array(1, "int32"), tensor((), "int32"))
    c64 = Constant(np.array(1, "int64"), tensor((), "int64"))
    assert not structural_equal(c32, c64)
    assert structural_equal(c32, Constant(np.array(1, "int32"), tensor((), "int32")))
    assert structural_equal(x, Var("other", tensor((), "float32")))


def test_constant_shape_and_values_are_compared():
    a = Constant(np.array([1.0, 2.0], "float32"), tensor((2,), "float32"))
    assert not structural_equal(a, Constant(np.array([[1.0, 2.0]], "float32"), tensor((1, 2), "float32")))
    assert not structural_equal(a, Constant(np.array([1.0, 3.0], "float32"), tensor((2,), "float32")))


def _chain(names_and_uses):
    """main(x, y): bindings name_i = add(use_a, use_b), returning the last."""
    mb = ModuleBuilder()
    f = mb.function("main", [("x", tensor((2,), "float32")), ("y", tensor((2,), "float32"))])
    env = dict(zip(("x", "y"), f.params, strict=True))
    last = None
    for name, (u, v) in names_and_uses:
        last = env[name] = f.emit("add", env[u], env[v], name=name)
    f.finish(last)
    return mb.get()


def test_uses_must_follow_the_definitions():
    a = _chain([("a", ("x", "y")), ("b", ("a", "x"))])
    assert structural_equal(a, _chain([("p", ("x", "y")), ("q", ("p", "x"))]))
    assert not structural_equal(a, _chain([("a", ("y", "x")), ("b", ("a", "x"))]))
    assert not structural_equal(a, _chain([("a", ("x", "y")), ("b", ("x", "x"))]))


def test_a_use_cannot_map_to_two_variables():
    # b = a + a vs b = a + c where both a and c exist: the second use breaks the matching.
    a = _chain([("a", ("x", "y")), ("c", ("x", "y")), ("b", ("a", "a"))])
    b = _chain([("a", ("x", "y")), ("c", ("x", "y")), ("b", ("a", "c"))])
    assert not structural_equal(a, b)


def test_var_kind_is_compared():
    x = Var("x", tensor((2,), "float32"))
    a1 = Var("a", x.struct_info)
    a2 = DataflowVar("a", x.struct_info)
    f1 = Function([x], SeqExpr([DataflowBlock([Binding(a1, x)])], a1), x.struct_info)
    f2 = Function([x], SeqExpr([DataflowBlock([Binding(a2, x)])], a2), x.struct_info)
    assert not structural_equal(f1, f2)
    assert "DataflowVar" in structural_diff(f1, f2)


def test_adjacent_plain_blocks_equal_one_block_and_empty_blocks_vanish():
    x = Var("x", tensor((2,), "float32"))
    a, b = Var("a", x.struct_info), Var("b", x.struct_info)
    one = Function([x], SeqExpr([BindingBlock([Binding(a, x), Binding(b, a)])], b), x.struct_info)
    a2, b2 = Var("a", x.struct_info), Var("b", x.struct_info)
    split = Function(
        [x],
        SeqExpr([BindingBlock([Binding(a2, x)]), BindingBlock([]), BindingBlock([Binding(b2, a2)])], b2),
        x.struct_info,
    )
    assert structural_equal(one, split)


def test_private_false_is_the_default():
    mod = build()
    fn = mod["main"]
    explicit = mod.replace(functions={"main": Function(fn.params, fn.body, fn.ret_struct_info, {"private": False})})
    assert structural_equal(mod, explicit)
    assert not structural_equal(mod, build(private=True))


def test_function_set_and_order():
    def two(order):
        mb = ModuleBuilder()
        for name in order:
            f = mb.function(name, [("x", tensor((2,), "float32"))])
            f.finish(f.emit("abs", f.params[0]))
        return mb.get()

    assert structural_equal(two(["a", "b"]), two(["b", "a"]))
    assert not structural_equal(two(["a", "b"]), two(["a"]))
    assert not structural_equal(two(["a", "b"]), two(["a", "c"]))


def test_if_branches_are_compared():
    def with_if(op):
        mb = ModuleBuilder()
        f = mb.function("main", [("c", tensor((), "bool")), ("x", tensor((2,), "float32"))])
        c, x = f.params
        t, e = f.branch(), f.branch()
        r = f.emit_if(c, t.seq(t.emit("exp", x)), e.seq(e.emit(op, x)), name="r")
        f.finish(r)
        return mb.get()

    assert structural_equal(with_if("abs"), with_if("abs"))
    diff = structural_diff(with_if("abs"), with_if("negative"))
    assert diff is not None and "R.abs vs R.negative" in diff


def test_assert_names_function_binding_and_difference():
    with pytest.raises(AssertionError) as err:
        assert_structural_equal(build(), build(op="subtract", names=("x", "y", "t0", "gv")))
    message = str(err.value)
    assert "function 'main'" in message
    assert "binding 'lv0' vs 't0'" in message
    assert "R.add vs R.subtract" in message


def test_assert_names_a_struct_info_difference():
    with pytest.raises(AssertionError, match=r"function 'main'.*parameter 0.*struct info"):
        assert_structural_equal(build(), build(x_vdevice=CUDA))


def test_mixed_kinds_are_not_equal():
    mod = build()
    assert not structural_equal(mod, mod["main"])
    assert not structural_equal(mod["main"].body.body, mod["main"])


def _long_module(n: int, name: str) -> IRModule:
    mb = ModuleBuilder([LLVM])
    f = mb.function("main", [("x", tensor((4,), "float32", LLVM))])
    v = f.params[0]
    with f.dataflow():
        for i in range(n):
            v = f.emit("add", v, v, name=f"{name}{i}", output=i == n - 1)
    f.finish(v)
    return mb.get()


def test_long_functions_compare_without_recursion():
    a, b = _long_module(20000, "a"), _long_module(20000, "b")
    assert structural_equal(a, b)


def test_deeply_nested_ifs_compare_without_recursion():
    from tests.ir.test_printer import _nested_ifs

    assert structural_equal(_nested_ifs(3000), _nested_ifs(3000))
    assert not structural_equal(_nested_ifs(3000), _nested_ifs(2999))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_every_module_equals_itself(mod):
    assert_structural_equal(mod, mod)
