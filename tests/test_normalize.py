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
