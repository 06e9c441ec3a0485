"""The torch backend of the runtime (what `CUDA` runs on), checked on torch's CPU device.

Skipped when PyTorch is not installed (it is an optional extra).  The CUDA tests
at the end also need an NVIDIA GPU; they run the examples on `CUDA(0)`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.ir import ModuleBuilder, VDevice, tensor
from vdplace.ir.expr import PrimValue
from vdplace.ir.struct_info import PrimStructInfo, TupleStructInfo
from vdplace.runtime.torch_device import TorchDevice, cuda_backend

torch = pytest.importorskip("torch")

CPU_V = VDevice("llvm")
GPU_V = VDevice("cuda", 0)
ROOT = Path(__file__).resolve().parents[2]
HAS_CUDA = cuda_backend(0) is not None


def one_op_module(op: str, arg_sinfos, **attrs):
    """main(args...) = op(args..., **attrs), every tensor on the GPU vdevice."""
    mb = ModuleBuilder([CPU_V, GPU_V])
    f = mb.function("main", [(f"a{i}", s) for i, s in enumerate(arg_sinfos)])
    f.finish(f.emit(op, *f.params, name="r", **attrs))
    return mb.get()


def g(shape, dtype="float32"):
    return tensor(shape, dtype, GPU_V)


OP_CASES = [
    ("add", [g((3, 4)), g((4,))], {}),
    ("subtract", [g((3, 4), "int32"), g((3, 4), "int32")], {}),
    ("multiply", [g((2, 3)), g((2, 3))], {}),
    ("divide", [g((3, 4)), g((3, 4))], {}),
    ("divide", [g((3, 4), "int32"), g((3, 4), "int32")], {}),
    ("floor_divide", [g((3, 4), "int64"), g((3, 4), "int64")], {}),
    ("power", [g((3, 4), "int32"), g((3, 4), "int32")], {}),
    ("maximum", [g((3, 4)), g((3, 4))], {}),
    ("minimum", [g((3, 4), "int32"), g((3, 4), "int32")], {}),
    ("less", [g((3, 4)), g((3, 4))], {}),
    ("equal", [g((3, 4), "int32"), g((3, 4), "int32")], {}),
    ("where", [g((3, 4), "bool"), g((3, 4)), g((4,))], {}),
    ("negative", [g((5,))], {}),
    ("abs", [g((5,), "int32")], {}),
    ("exp", [g((5,))], {}),
    ("log", [g((5,), "float64")], {}),
    ("sqrt", [g((5,))], {}),
    ("tanh", [g((5,))], {}),
    ("sigmoid", [g((5,))], {}),
    ("nn.relu", [g((4, 4))], {}),
    ("nn.gelu", [g((4, 4))], {}),
    ("nn.silu", [g((4, 4))], {}),
    ("floor_mod", [g((3, 4), "int64"), g((3, 4), "int64")], {}),
    ("mod", [g((3, 4), "int32"), g((3, 4), "int32")], {}),
    ("nn.log_softmax", [g((3, 5))], {"axis": 0}),
    ("nn.leakyrelu", [g((4, 4))], {"alpha": 0.1}),
    ("nn.gelu_tanh", [g((4, 4))], {}),
    ("nn.softplus", [g((4, 4))], {"beta": 2.0, "threshold": 10.0}),
    ("nn.selu", [g((4, 4))], {}),
    ("nn.dropout", [g((4, 4))], {"rate": 0.5}),
    ("nn.softmax", [g((3, 5))], {"axis": 0}),
    ("matmul", [g((3, 4)), g((4, 5))], {}),
    ("matmul", [g((2, 3, 4)), g((4, 5))], {}),
    ("sum", [g((3, 4))], {"axis": [1], "keepdims": True}),
    ("sum", [g((3, 4), "int32")], {}),
    ("mean", [g((3, 4))], {"axis": [0]}),
    ("max", [g((3, 4, 2))], {"axis": [0, 2], "keepdims": True}),
    ("permute_dims", [g((2, 3, 4))], {"axes": [2, 0, 1]}),
    ("permute_dims", [g((2, 3))], {}),
    ("reshape", [g((2, 6))], {"shape": (3, 4)}),
    ("broadcast_to", [g((1, 4))], {"shape": (3, 4)}),
    ("astype", [g((3,))], {"dtype": "int32"}),
    ("zeros", [], {"shape": (2, 3), "dtype": "float32"}),
    ("ones", [], {"shape": (2,), "dtype": "int64"}),
    ("add", [g((3, 4), "bool"), g((4,), "bool")], {}),
    ("multiply", [g((3, 4), "bool"), g((3, 4), "bool")], {}),
    ("astype", [g((3, 4))], {"dtype": "bfloat16"}),
    ("stack", [TupleStructInfo([g((3, 4)), g((3, 4))])], {"axis": -2}),
]


def _place_gpu(mod):
    """Creation ops (zeros, ones) have no argument to take a device from: pin their result on the GPU."""
    try:
        runtime.check_placed(mod)
        return mod
    except runtime.UnplacedError:
        mb = ModuleBuilder([CPU_V, GPU_V])
        func = mod["main"]
        binding = next(iter(ir.iter_bindings(func)))
        f = mb.function("main", [(p.name, p.struct_info) for p in func.params])
        call = binding.value
        r = f.emit(call, name="r", annotation=call.struct_info.with_vdevice(GPU_V))
        f.finish(r)
        return mb.get()


def assert_same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for a, b in zip(got, want, strict=True):
            assert_same(a, b)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("op", "sinfos", "attrs"), OP_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(OP_CASES)])
def test_torch_kernel_matches_numpy_kernel(op, sinfos, attrs):
    mod = _place_gpu(one_op_module(op, sinfos, **attrs))
    inputs = runtime.random_inputs(mod, rng=np.random.default_rng(3))
    if op in ("log", "sqrt"):
        inputs = [np.abs(inputs[0]) + 0.1]
    dev = TorchDevice("cpu")
    vm = runtime.VirtualMachine(runtime.compile(mod), devices={GPU_V: dev})
    assert_same(vm.run("main", *inputs), runtime.run_reference(mod, "main", *inputs))
    # Every op of the table runs as a torch op for these inputs: no host round trip.
    assert dev.fallbacks == {}


def test_hamming_window_runs_as_torch_computes_it():
    mb = ModuleBuilder([CPU_V, GPU_V])
    f = mb.function("main", [])
    prims = [PrimValue(v, d, PrimStructInfo(d, v)) for v, d in ((8, "int64"), (True, "bool"), (0.54, "float64"))]
    prims.append(PrimValue(0.46, "float64", PrimStructInfo("float64", 0.46)))
    f.finish(f.emit("hamming_window", *prims, dtype="float32", name="w", annotation=g((8,))))
    mod = mb.get()
    dev = TorchDevice("cpu")
    out = runtime.VirtualMachine(runtime.compile(mod), devices={GPU_V: dev}).run("main")
    assert_same(out, runtime.run_reference(mod, "main"))
    np.testing.assert_allclose(out, torch.hamming_window(8).numpy(), rtol=1e-6, atol=1e-7)
    assert dev.fallbacks == {}


def test_unsupported_ops_fall_back_to_the_host_and_are_counted():
    mod = one_op_module("matmul", [g((3, 4), "int32"), g((4, 2), "int32")])
    dev = TorchDevice("cpu")
    vm = runtime.VirtualMachine(runtime.compile(mod), devices={GPU_V: dev})
    inputs = runtime.random_inputs(mod, rng=np.random.default_rng(0))
    assert_same(vm.run("main", *inputs), runtime.run_reference(mod, "main", *inputs))
    assert dev.fallbacks == {"matmul": 1}
    assert vm.profile.fallbacks == {(dev.name, "matmul"): 1}
    assert "host fallback on" in vm.profile.table()


def test_tuple_ops_on_torch():
    mb = ModuleBuilder([CPU_V, GPU_V])
    f = mb.function("main", [("x", g((6, 2))), ("y", g((2, 2)))])
    x, y = f.params
    parts = f.emit("split", x, name="parts", indices_or_sections=3, axis=0)
    first = f.emit(f.get_item(parts, 0), name="first")
    cat = f.emit("concat", f.tuple(first, y), name="cat", axis=1)
    f.finish(f.tuple(cat, f.emit("shape_of", cat, name="s")))
    mod = mb.get()
    inputs = runtime.random_inputs(mod, rng=np.random.default_rng(0))
    dev = TorchDevice("cpu")
    vm = runtime.VirtualMachine(runtime.compile(mod), devices={GPU_V: dev})
    out = vm.run("main", *inputs)
    ref = runtime.run_reference(mod, "main", *inputs)
    assert_same(out[0], ref[0])
    assert out[1] == ref[1] == (2, 4)
    assert dev.fallbacks == {}


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_examples_on_a_torch_device(path):
    mod = ir.parse(path.read_text(), filename=str(path))
    try:
        placed = placement.place(mod, default="first").module
    except placement.PlacementConflict:
        pytest.skip("a conflict example")
    dev = TorchDevice("cpu")
    mapping = {v: dev for v in placed.vdevices if v.device_type == "cuda"}
    vm = runtime.VirtualMachine(runtime.compile(placed), devices=mapping, simulate_missing=True)
    for entry in mod.functions:
        inputs = runtime.random_inputs(mod, entry, rng=np.random.default_rng(1))
        assert_same(vm.run(entry, *inputs), runtime.run_reference(mod, entry, *inputs))
        assert dev.stats.live == 0


def test_torch_device_rejects_arrays_from_another_device():
    from vdplace.runtime.executable import CompiledFunction, Executable
    from vdplace.runtime.instructions import Call, Ret

    sinfo = [tensor((2,), "float32", CPU_V), g((2,))]
    code = [Call(ir.get_op("add"), 1, (0, 1), 2, {}), Ret(2)]
    fn = CompiledFunction("main", ["x", "y"], sinfo, [0, 1], sinfo[1], 1, ["x", "y", "s"], code, (), ())
    vm = runtime.VirtualMachine(Executable({"main": fn}, [CPU_V, GPU_V], []), devices={GPU_V: TorchDevice("cpu")})
    with pytest.raises(runtime.DeviceMismatch, match="argument r0:x is on cpu"):
        vm.run("main", np.ones(2, np.float32), np.ones(2, np.float32))


# -- real GPUs -------------------------------------------------------------------------

needs_cuda = pytest.mark.skipif(not HAS_CUDA, reason="needs PyTorch with an NVIDIA GPU")


@pytest.mark.skipif(HAS_CUDA, reason="this machine has a GPU")
def test_cuda_without_a_gpu_says_what_is_missing():
    with pytest.raises(runtime.DeviceUnavailable, match="CUDA device 0 is not available: PyTorch sees 0"):
        runtime.CUDA(0)


@needs_cuda
@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_examples_on_cuda(path):
    mod = ir.parse(path.read_text(), filename=str(path))
    try:
        placed = placement.place(mod, default="first").module
    except placement.PlacementConflict:
        pytest.skip("a conflict example")
    vm = runtime.VirtualMachine(runtime.compile(placed), simulate_missing=True)  # cuda vdevices on CUDA(0)
    gpu = [d for d in vm.devices if isinstance(d, runtime.CUDA)]
    assert len(gpu) == len({v.physical for v in placed.vdevices if v.device_type == "cuda"})
    for entry in mod.functions:
        inputs = runtime.random_inputs(mod, entry, rng=np.random.default_rng(1))
        assert_same(vm.run(entry, *inputs, profile=True), runtime.run_reference(mod, entry, *inputs))
        assert all(d.stats.live == 0 for d in gpu)


@needs_cuda
@pytest.mark.parametrize(("op", "sinfos", "attrs"), OP_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(OP_CASES)])
def test_cuda_kernel_matches_numpy_kernel(op, sinfos, attrs):
    mod = _place_gpu(one_op_module(op, sinfos, **attrs))
    inputs = runtime.random_inputs(mod, rng=np.random.default_rng(3))
    if op in ("log", "sqrt"):
        inputs = [np.abs(inputs[0]) + 0.1]
    dev = runtime.CUDA(0)
    vm = runtime.VirtualMachine(runtime.compile(mod), devices={GPU_V: dev})
    assert_same(vm.run("main", *inputs), runtime.run_reference(mod, "main", *inputs))


@needs_cuda
def test_cuda_copies_are_counted():
    mb = ModuleBuilder([CPU_V, GPU_V])
    f = mb.function("main", [("x", tensor((256, 256), "float32", CPU_V))])
    xg = f.emit("to_vdevice", f.params[0], dst_vdevice=GPU_V, name="xg")
    y = f.emit("matmul", xg, xg, name="y")
    f.finish(f.emit("to_vdevice", y, dst_vdevice=CPU_V, name="out"))
    mod = mb.get()
    vm = runtime.VirtualMachine(runtime.compile(mod))
    x = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    np.testing.assert_allclose(vm.run("main", x, profile=True), x @ x, rtol=1e-3, atol=1e-3)
    assert vm.profile.copies == {("cpu", "cuda:0"): (1, 256 * 256 * 4), ("cuda:0", "cpu"): (1, 256 * 256 * 4)}
