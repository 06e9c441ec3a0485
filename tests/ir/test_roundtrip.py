"""Round trip: ``parse(script(m))`` is structurally equal to ``m``, and printing is a fixpoint.

Covers every bundled example, the TVMScript texts of the conformance cases
(copied under ``tests/data/conformance``), hand-built modules that use every
kind of value, and random modules from `tests.support.strategies`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from tests.ir.test_printer import brief_example
from tests.support.strategies import generated_modules
from vdplace.ir import DeviceSpec, ModuleBuilder, VDevice, assert_structural_equal, parse, script
from vdplace.ir.builder import tensor
from vdplace.ir.expr import (
    Binding,
    Constant,
    DataflowBlock,
    DataflowVar,
    Function,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    StringImm,
    Var,
)
from vdplace.ir.module import IRModule
from vdplace.ir.struct_info import (
    FuncStructInfo,
    ObjectStructInfo,
    PrimStructInfo,
    ShapeStructInfo,
    TensorStructInfo,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
CONFORMANCE = sorted((Path(__file__).parents[1] / "data" / "conformance").glob("*.tvmscript"))


def check_roundtrip(mod: IRModule) -> str:
    """Print, parse back, compare; print again and expect the same text."""
    text = script(mod)
    again = parse(text, filename="<printed>")
    assert_structural_equal(mod, again)
    assert script(again) == text
    return text


def test_there_are_conformance_texts():
    assert len(CONFORMANCE) >= 20


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_roundtrip(path: Path):
    check_roundtrip(parse(path.read_text(), filename=str(path)))


@pytest.mark.parametrize("path", CONFORMANCE, ids=lambda p: p.stem)
def test_conformance_texts_roundtrip(path: Path):
    check_roundtrip(parse(path.read_text(), filename=str(path)))


def test_brief_example_roundtrips():
    check_roundtrip(brief_example())


def every_value_kind() -> IRModule:
    """One module with tuples, items, If, calls, constants, hints, copies, symbolic dims, both block kinds."""
    vds = [VDevice("llvm"), VDevice({"kind": "cuda", "arch": "sm_80"}), VDevice("cuda", 1, "global.texture")]
    mb = ModuleBuilder(vds, attrs={"attr": 10})
    g = mb.function("helper", [("x", tensor(("n", 3), "float32", vds[1]))], private=True)
    g.finish(g.emit("nn.relu", g.params[0], name="y"))
    f = mb.function(
        "main",
        [("c", tensor((), "bool")), ("x", tensor(("n", 3), "float32", vds[0])), ("w", tensor((3, 2), "float32"))],
    )
    c, x, w = f.params
    with f.dataflow():
        lv0 = f.emit("add", x, Constant(np.array(0.5, "float32"), tensor((), "float32")), name="lv0")
        lv1 = f.emit("to_vdevice", lv0, dst_vdevice=vds[1], name="lv1", output=True)
        lv2 = f.emit("hint_on_device", lv1, device=DeviceSpec("cuda", 1), memory_scope="global.texture", name="lv0")
        mm = f.emit("matmul", lv2, w, name="mm", output=True)
    h = f.emit(f.call_function("helper", lv1), name="h")
    t = f.emit(f.tuple(h, mm), name="t")
    first = f.emit(f.get_item(t, 0), name="first")
    k = f.emit(Constant(np.arange(6, dtype="int32").reshape(2, 3), tensor((2, 3), "int32")), name="k")
    then = f.branch()
    ty = then.emit("exp", first, name="y")
    other = f.branch()
    oy = other.emit("to_vdevice", first, dst_vdevice=vds[0], name="y")
    oz = other.emit("to_vdevice", oy, dst_vdevice=vds[1], name="z")
    r = f.emit_if(c, then.seq(ty), other.seq(oz), name="r")
    s = f.emit("sum", r, axis=[1], keepdims=True, name="s")
    f.finish(f.tuple(s, t, k))
    return mb.get()


def test_every_value_kind_roundtrips():
    text = check_roundtrip(every_value_kind())
    for piece in ("cls.helper(lv1)", "if c:", "else:", "t[0]", "R.const(0.5", "lv0_1", '"n"', "R.sum("):
        assert piece in text


def test_unannotated_python_module_equals_its_printed_form():
    # Built with no annotations at all; the printed text annotates every binding.
    mb = ModuleBuilder([VDevice("llvm"), VDevice("cuda")])
    f = mb.function("main", [("x", tensor((2, 2), "float32", VDevice("cuda")))])
    with f.dataflow():
        a = f.emit("multiply", f.params[0], f.params[0])
        b = f.emit("permute_dims", a, output=True)
    f.finish(b)
    check_roundtrip(mb.get())


def _single(value, params=None) -> IRModule:
    mb = ModuleBuilder([VDevice("llvm")])
    f = mb.function("main", params or [("x", tensor((2, 3), "float32"))])
    f.finish(f.emit(value(f), name="y"))
    return mb.get()


def _with_attrs(mod: IRModule, attrs: dict) -> IRModule:
    fn = mod["main"]
    return mod.replace(functions={"main": Function(fn.params, fn.body, fn.ret_struct_info, attrs)})


def _dataflow_without_outputs() -> IRModule:
    x = Var("x", tensor((2,), "float32"))
    a = DataflowVar("a", x.struct_info)
    return IRModule({"main": Function([x], SeqExpr([DataflowBlock([Binding(a, x)])], x), x.struct_info)})


F32 = Constant(np.array(1.0, "float32"), tensor((), "float32"))
HAND_WRITTEN = {
    "empty module": lambda: IRModule({}, [VDevice("llvm")]),
    "other global infos": lambda: IRModule({}, [VDevice("llvm")], global_infos={"foo": [1, 2]}),
    "shape value": lambda: _single(lambda f: ShapeExpr((2, "n"), ShapeStructInfo((2, "n")))),
    "prim int64": lambda: _single(lambda f: PrimValue(3, "int64", PrimStructInfo("int64", 3))),
    "prim int32": lambda: _single(lambda f: PrimValue(3, "int32", PrimStructInfo("int32", 3))),
    "prim float": lambda: _single(lambda f: PrimValue(1.5, "float64", PrimStructInfo("float64"))),
    "string": lambda: _single(lambda f: StringImm("hi")),
    "infinite constants": lambda: _single(
        lambda f: Constant(np.array([np.inf, -np.inf, 0.0], "float32"), tensor((3,), "float32"))
    ),
    "empty tuple": lambda: _single(lambda f: f.tuple()),
    "rank-only tensor": lambda: _single(lambda f: f.params[0], [("x", TensorStructInfo(None, "", 2, VDevice("llvm")))]),
    "unknown tensor": lambda: _single(lambda f: f.params[0], [("x", TensorStructInfo(None, "", -1))]),
    "object": lambda: _single(lambda f: f.params[0], [("x", ObjectStructInfo())]),
    "shape of rank 2": lambda: _single(lambda f: f.params[0], [("x", ShapeStructInfo(None, 2))]),
    "prim with value": lambda: _single(lambda f: f.params[0], [("x", PrimStructInfo("int64", 4))]),
    "callable": lambda: _single(
        lambda f: f.params[0], [("x", FuncStructInfo([tensor((2,), "float32")], tensor((2,), "float32")))]
    ),
    "zeros": lambda: _single(lambda f: f.call("zeros", shape=(2, 3), dtype="float32")),
    "full: attribute before a tensor": lambda: _single(lambda f: f.call("full", F32, shape=(2, 3), dtype="float32")),
    "concat": lambda: _single(lambda f: f.call("concat", f.tuple(f.params[0], f.params[0]), axis=1)),
    "split": lambda: _single(lambda f: f.call("split", f.params[0], indices_or_sections=3, axis=1)),
    "astype": lambda: _single(lambda f: f.call("astype", f.params[0], dtype="float16")),
    "shape_of": lambda: _single(lambda f: f.call("shape_of", f.params[0])),
    "softmax": lambda: _single(lambda f: f.call("nn.softmax", f.params[0], axis=1)),
    "function attrs": lambda: _with_attrs(_single(lambda f: f.params[0]), {"global_symbol": "main", "num_input": 1}),
    "dataflow block without outputs": _dataflow_without_outputs,
}


@pytest.mark.parametrize("name", list(HAND_WRITTEN))
def test_hand_written_values_roundtrip(name):
    check_roundtrip(HAND_WRITTEN[name]())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(generated_modules())
def test_random_modules_roundtrip(generated):
    check_roundtrip(generated.module)
