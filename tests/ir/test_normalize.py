"""Forward struct-info inference, vdevice included: each op's device rule, joins and annotation merges."""

import pytest

from vdplace.ir import InferenceError, ModuleBuilder, VDevice, VDeviceLookupError, tensor
from vdplace.ir.normalize import host_vdevice, join, merge_annotation
from vdplace.ir.struct_info import TensorStructInfo, TupleStructInfo

CPU, GPU = VDevice("llvm"), VDevice("cuda", 0)


def _fn(*params):
    mb = ModuleBuilder([CPU, GPU])
    return mb, mb.function("f", [(f"p{i}", s) for i, s in enumerate(params)])


def test_known_args_on_one_device_put_the_result_there():
    _, f = _fn(tensor((2, 3), vdevice=GPU), tensor((2, 3)))
    y = f.emit("add", *f.params)
    assert y.struct_info.vdevice == GPU


def test_args_on_different_devices_leave_the_result_unknown():
    _, f = _fn(tensor((2, 3), vdevice=GPU), tensor((2, 3), vdevice=CPU))
    y = f.emit("add", *f.params)
    assert y.struct_info.vdevice is None


def test_hint_and_to_vdevice_name_their_result_device():
    from vdplace.ir.vdevice import DeviceSpec

    _, f = _fn(tensor((2, 3)))
    h = f.emit("hint_on_device", f.params[0], device=DeviceSpec("cuda", 0))
    c = f.emit("to_vdevice", h, dst_vdevice=CPU)
    assert (h.struct_info.vdevice, c.struct_info.vdevice) == (GPU, CPU)


def test_hint_on_undeclared_device_is_an_error():
    from vdplace.ir.vdevice import DeviceSpec

    _, f = _fn(tensor((2, 3)))
    with pytest.raises(VDeviceLookupError, match="cuda"):
        f.emit("hint_on_device", f.params[0], device=DeviceSpec("cuda", 3))


def test_to_vdevice_outside_the_list_is_an_error():
    _, f = _fn(tensor((2, 3)))
    with pytest.raises(VDeviceLookupError):
        f.emit("to_vdevice", f.params[0], dst_vdevice=VDevice("metal"))


def test_shape_and_dtype_mismatches_are_inference_errors():
    _, f = _fn(tensor((2, 3)), tensor((4, 3)), tensor((2, 3), "int32"))
    with pytest.raises(InferenceError, match="broadcast"):
        f.emit("add", f.params[0], f.params[1])
    with pytest.raises(InferenceError, match="dtype"):
        f.emit("add", f.params[0], f.params[2])


def test_annotation_device_wins_and_shapes_must_agree():
    inferred = TensorStructInfo((2, 3), "float32", vdevice=CPU)
    merged = merge_annotation(TensorStructInfo((2, 3), "float32", vdevice=GPU), inferred, None, "y")
    assert merged.vdevice == GPU
    assert merge_annotation(TensorStructInfo((2, 3), "float32"), inferred, None, "y").vdevice == CPU
    with pytest.raises(InferenceError, match="shape"):
        merge_annotation(TensorStructInfo((3, 3), "float32"), inferred, None, "y")
    with pytest.raises(InferenceError, match="dtype"):
        merge_annotation(TensorStructInfo((2, 3), "int8"), inferred, None, "y")


def test_join_keeps_what_both_branches_agree_on():
    a = TupleStructInfo([TensorStructInfo((2,), "float32", vdevice=GPU), TensorStructInfo((2,), "float32")])
    b = TupleStructInfo([TensorStructInfo((2,), "float32", vdevice=CPU), TensorStructInfo((3,), "float32")])
    joined = join(a, b)
    assert joined.fields[0] == TensorStructInfo((2,), "float32")
    assert joined.fields[1] == TensorStructInfo(None, "float32", 1)


def test_host_is_the_last_cpu_entry():
    assert host_vdevice([CPU, GPU]) == CPU
    assert host_vdevice([GPU, VDevice("llvm", 1), CPU]) == CPU
    assert host_vdevice([GPU]) == GPU
    assert host_vdevice([]) is None


def test_calls_between_functions_return_the_callee_signature():
    mb = ModuleBuilder([CPU, GPU])
    g = mb.function("g", [("x", tensor((2,)))], ret=tensor((2,), vdevice=GPU))
    g.finish(g.emit("exp", g.params[0]))
    f = mb.function("f", [("x", tensor((2,)))])
    y = f.emit(f.call_function("g", f.params[0]))
    assert y.struct_info.vdevice == GPU
    with pytest.raises(InferenceError, match="takes 1 argument"):
        f.call_function("g")
    with pytest.raises(InferenceError, match="undefined"):
        f.call_function("h", f.params[0])


SYMBOLIC_HELPER = """
@I.ir_module
class Module:
    @R.function
    def helper(a: R.Tensor(("k", 4), dtype="float32")) -> R.Tensor(("k * 2", 4), dtype="float32"):
        k = T.int64()
        b: R.Tensor((k * 2, 4), dtype="float32") = R.concat([a, a], axis=0)
        return b

    @R.function
    def main(x: PARAM) -> R.Tensor(dtype="float32", ndim=2):
        cls = Module
        y = cls.helper(x)
        return y
"""


@pytest.mark.parametrize(
    ("param", "want"),
    [
        ('R.Tensor((3, 4), dtype="float32")', 'y: R.Tensor((6, 4), dtype="float32") = cls.helper(x)'),
        ('R.Tensor(("n", 4), dtype="float32")', 'y: R.Tensor((n * 2, 4), dtype="float32") = cls.helper(x)'),
        ('R.Tensor(dtype="float32", ndim=2)', 'y: R.Tensor(dtype="float32", ndim=2) = cls.helper(x)'),
    ],
    ids=["static", "caller-symbol", "unknown-shape"],
)
def test_a_call_binds_the_callees_symbolic_dims_from_its_arguments_as_tvm_does(param, want):
    """``k`` of the helper is 3 (or the caller's ``n``) at this call; with no shape to bind it, the shape is unknown.

    Each expected line is what TVM 0.27's parser infers for the same text.
    """
    from vdplace import ir

    text = SYMBOLIC_HELPER.replace("PARAM", param)
    printed = ir.script(ir.parse(text))
    assert want in [line.strip() for line in printed.splitlines()]
    assert "k = T.int64()" not in printed.split("def main")[1]  # the callee's symbol is not the caller's
    tvm = pytest.importorskip("tvm")
    assert want in [line.strip() for line in tvm.script.from_source(text).script().splitlines()]


def test_arguments_that_bind_one_symbol_to_two_sizes_are_a_located_error():
    from vdplace import ir

    text = """
@I.ir_module
class Module:
    @R.function
    def helper(a: R.Tensor(("k", 4), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
        return b

    @R.function
    def main(x: R.Tensor((3, 4), "float32"), z: R.Tensor((5,), "float32")) -> R.Tensor((5,), "float32"):
        cls = Module
        y = cls.helper(x, z)
        return y
"""
    with pytest.raises(
        InferenceError, match=r"^m\.py:11:\d+: cls\.helper: its symbolic dim k is 3 by argument 0 but 5 "
    ):
        ir.parse(text, "m.py")


ARITHMETIC_HELPER = """
@I.ir_module
class Module:
    @R.function
    def helper(a: R.Tensor(("k", "k * 2"), "float32"), s: R.Shape(["m"])) -> R.Tensor(("m", "k - 4"), "float32"):
        k = T.int64()
        m = T.int64()
        b: R.Tensor((m, k - 4), dtype="float32") = R.zeros(R.shape([m, k - 4]), dtype="float32")
        return b

    @R.function
    def main(x: R.Tensor((SHAPE), dtype="float32")) -> R.Tensor(dtype="float32", ndim=2):
        cls = Module
        y = cls.helper(x, R.shape([7]))
        return y
"""


@pytest.mark.parametrize(
    ("shape", "outcome"),
    [
        ("5, 10", 'y: R.Tensor((7, 1), dtype="float32") = cls.helper(x, R.shape([7]))'),
        ("5, 11", r"m\.py:14:13: cls\.helper: argument 0 has dim 11 where the parameter has k \* 2 = 10$"),
        ("3, 6", r"m\.py:14:13: cls\.helper: its dim k - 4 is 3 - 4 for these arguments, not a size$"),
    ],
)
def test_arithmetic_of_the_callees_dims_is_evaluated_and_checked(shape, outcome):
    from vdplace import ir

    text = ARITHMETIC_HELPER.replace("SHAPE", shape)
    if outcome.startswith("y:"):
        assert outcome in [line.strip() for line in ir.script(ir.parse(text, "m.py")).splitlines()]
    else:
        with pytest.raises(InferenceError, match=outcome):
            ir.parse(text, "m.py")
