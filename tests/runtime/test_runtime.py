"""Runtime: compile placed modules, run them on CPU and simulated devices, check against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from vdplace import runtime
from vdplace.ir import Constant, ModuleBuilder, VDevice, tensor
from vdplace.ir.op import Work
from vdplace.ir.struct_info import TensorStructInfo
from vdplace.runtime import (
    CPU,
    DeviceMismatch,
    DeviceUnavailable,
    InputError,
    Simulated,
    UnplacedError,
    VirtualMachine,
    random_inputs,
    run_reference,
)
from vdplace.runtime.executable import CompiledFunction, Executable
from vdplace.runtime.instructions import Call, Ret

CPU_V = VDevice("llvm")
GPU_V = VDevice("cuda", 0)
GPU1_V = VDevice("cuda", 1)
F32 = "float32"


def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def two_device_module():
    """x on the CPU, y on the GPU; x + x is copied to the GPU and multiplied with y there."""
    mb = ModuleBuilder([CPU_V, GPU_V])
    f = mb.function("main", [("x", tensor((8, 4), F32, CPU_V)), ("y", tensor((8, 4), F32, GPU_V))])
    x, y = f.params
    with f.dataflow():
        a = f.emit("add", x, x, name="a")
        b = f.emit("to_vdevice", a, dst_vdevice=GPU_V, name="b")
        c = f.emit("multiply", b, y, name="c")
        d = f.emit("to_vdevice", c, dst_vdevice=CPU_V, name="d", output=True)
    f.finish(d)
    return mb.get()


def test_compile_lists_instructions_with_devices_and_frees():
    exe = runtime.compile(two_device_module())
    text = str(exe)
    assert "[0] llvm:0:global  (cpu(0))" in text
    assert "[1] cuda:0:global  (cuda(0))" in text
    assert "function main(r0:x, r1:y)" in text
    assert "r2:a = Call add(r0:x, r0:x) on llvm:0:global    ; free r0:x" in text
    assert "r3:b = AllocTensor((8, 4), float32) on cuda:0:global" in text
    assert "DeviceCopy r2:a (llvm:0:global) -> r3:b (cuda:0:global)    ; free r2:a" in text
    assert "r4:c = Call multiply(r3:b, r1:y) on cuda:0:global    ; free r1:y, r3:b" in text
    assert text.rstrip().endswith("Ret r5:d")
    kinds = [i.kind for i in exe["main"].instructions]
    assert kinds == ["Call", "AllocTensor", "DeviceCopy", "Call", "AllocTensor", "DeviceCopy", "Ret"]


def test_same_physical_device_is_a_move_not_a_copy():
    shared = VDevice("cuda", 0, "shared")
    mb = ModuleBuilder([GPU_V, shared])
    f = mb.function("main", [("x", tensor((4,), F32, GPU_V))])
    (x,) = f.params
    y = f.emit("to_vdevice", x, dst_vdevice=shared, name="y")
    z = f.emit("add", y, y, name="z")
    f.finish(z)
    exe = runtime.compile(mb.get())
    kinds = [i.kind for i in exe["main"].instructions]
    assert kinds == ["Move", "Call", "Ret"]
    vm = VirtualMachine(exe, simulate_missing=True)
    x_in = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(vm.run("main", x_in), x_in * 2)
    assert vm.profile.num_copies == 0


def test_run_on_cpu_and_simulated_matches_reference():
    mod = two_device_module()
    inputs = random_inputs(mod, rng=rng())
    vm = VirtualMachine(runtime.compile(mod), simulate_missing=True)
    out = vm.run("main", *inputs)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_array_equal(out, run_reference(mod, "main", *inputs))
    np.testing.assert_array_equal(out, (inputs[0] * 2) * inputs[1])


def test_profile_counts_copies_bytes_and_memory_per_device_pair():
    mod = two_device_module()
    gpu = Simulated("gpu0")
    vm = VirtualMachine(runtime.compile(mod), devices={GPU_V: gpu})
    vm.run("main", *random_inputs(mod, rng=rng()), profile=True)
    prof = vm.profile
    nbytes = 8 * 4 * 4
    assert prof.copies == {("cpu", "gpu0"): (1, nbytes), ("gpu0", "cpu"): (1, nbytes)}
    assert prof.num_copies == 2 and prof.bytes_copied == 2 * nbytes
    # y is uploaded to the simulated GPU; x is used in place on the CPU; the result comes back from the CPU.
    assert prof.transfers == {("host", "gpu0"): (1, nbytes)}
    assert prof.by_kind["DeviceCopy"][0] == 2 and prof.by_kind["Call"][0] == 2
    assert set(prof.by_device) == {"cpu", "gpu0", "vm"}
    assert prof.peak_bytes["gpu0"] == 3 * nbytes  # y, b, and c while it is computed
    assert prof.memory["gpu0"].freed == prof.memory["gpu0"].allocated == 3 * nbytes
    table = prof.table()
    for needle in ("DeviceCopy", "cpu -> gpu0", "gpu0 -> cpu", "device memory", "peak"):
        assert needle in table


def test_profile_reports_the_estimated_work_per_device():
    mod = two_device_module()
    vm = VirtualMachine(runtime.compile(mod), devices={GPU_V: Simulated("gpu0")})
    vm.run("main", *random_inputs(mod, rng=rng()), profile=True)
    prof = vm.profile
    nbytes = 8 * 4 * 4
    # add on the CPU reads x twice; multiply on the GPU reads b and y; each writes one result.
    assert prof.work_by_device == {"cpu": Work(32, 2 * nbytes, nbytes), "gpu0": Work(32, 2 * nbytes, nbytes)}
    calls = [r for r in prof.instructions if r.kind == "Call"]
    assert [r.work.flops for r in calls] == [32, 32]
    assert all(r.work is None for r in prof.instructions if r.kind != "Call")
    assert "est. FLOPs" in prof.table() and "FLOP/s" in prof.table()


def test_profile_work_uses_the_symbolic_dims_of_the_run():
    mb = ModuleBuilder([CPU_V])
    f = mb.function("main", [("x", tensor(("n", 4), F32, CPU_V))])
    f.finish(f.emit("nn.relu", f.params[0], name="y"))
    vm = VirtualMachine(runtime.compile(mb.get()))
    for n in (3, 10):
        vm.run("main", np.ones((n, 4), np.float32), profile=True)
        assert vm.profile.work_by_device == {"cpu": Work(4 * n, 16 * n, 16 * n)}


def test_untimed_run_still_counts_copies():
    mod = two_device_module()
    vm = VirtualMachine(runtime.compile(mod), simulate_missing=True)
    vm.run("main", *random_inputs(mod, rng=rng()))
    assert not vm.profile.timed and vm.profile.num_copies == 2
    assert "times not measured" in vm.profile.table()


def test_devices_cpu_maps_every_vdevice_to_one_cpu():
    mod = two_device_module()
    vm = VirtualMachine(runtime.compile(mod), devices="cpu")
    assert len(vm.devices) == 1 and isinstance(vm.devices[0], CPU)
    inputs = random_inputs(mod, rng=rng())
    np.testing.assert_array_equal(vm.run("main", *inputs), run_reference(mod, "main", *inputs))
    assert vm.profile.copies == {("cpu", "cpu"): (2, 256)}


def test_missing_device_is_an_error_that_lists_what_is_available():
    metal = VDevice("metal", 0)
    mb = ModuleBuilder([CPU_V, metal])
    f = mb.function("main", [("x", tensor((2,), F32, metal))])
    f.finish(f.emit("add", f.params[0], f.params[0]))
    exe = runtime.compile(mb.get())
    with pytest.raises(DeviceUnavailable) as err:
        VirtualMachine(exe)
    message = str(err.value)
    assert "metal:0:global (metal:0)" in message
    assert "this machine has: cpu" in message
    assert "simulate_missing=True" in message and "devices='cpu'" in message
    vm = VirtualMachine(exe, simulate_missing=True)
    assert vm.device_of(1).name == "sim:metal:0"
    np.testing.assert_array_equal(vm.run("main", np.ones(2, np.float32)), np.full(2, 2, np.float32))


def test_device_mapping_errors():
    exe = runtime.compile(two_device_module())
    with pytest.raises(DeviceUnavailable, match="devices='gpu'"):
        VirtualMachine(exe, devices="gpu")
    with pytest.raises(DeviceUnavailable, match="no vdevice of kind 'rocm'"):
        VirtualMachine(exe, devices={"rocm": Simulated("r")})
    with pytest.raises(DeviceUnavailable, match="must be a runtime Device"):
        VirtualMachine(exe, devices={"cuda": "gpu"})
    shared = VDevice("cuda", 0, "shared")
    mb = ModuleBuilder([GPU_V, shared])
    f = mb.function("main", [("x", tensor((4,), F32, GPU_V))])
    f.finish(f.params[0])
    with pytest.raises(DeviceUnavailable, match="share one runtime device"):
        VirtualMachine(runtime.compile(mb.get()), devices={GPU_V: Simulated("a"), shared: Simulated("b")})


def missing_copy_module():
    """x on the CPU, y on the GPU, add(x, y) annotated on the GPU and no to_vdevice: a missing copy."""
    mb = ModuleBuilder([CPU_V, GPU_V])
    f = mb.function("main", [("x", tensor((2, 3), F32, CPU_V)), ("y", tensor((2, 3), F32, GPU_V))])
    x, y = f.params
    s = f.emit("add", x, y, name="s", annotation=tensor((2, 3), F32, GPU_V))
    f.finish(s)
    return mb.get()


def test_missing_copy_is_a_device_mismatch_at_compile_time():
    with pytest.raises(DeviceMismatch) as err:
        runtime.compile(missing_copy_module())
    e = err.value
    assert e.instruction == "r2:s = Call add(r0:x, r1:y) on cuda:0:global"
    assert (e.expected, e.actual) == ("cuda:0:global", "llvm:0:global")
    message = str(e)
    assert "main: s: argument x is on llvm:0:global" in message
    assert "needs it on cuda:0:global" in message and "R.to_vdevice" in message


def test_vm_refuses_an_array_from_another_device_at_run_time():
    """An executable that skips the compiler's check still cannot copy silently: the VM raises."""
    from vdplace.ir.op import get_op

    sinfo = [tensor((2,), F32, CPU_V), tensor((2,), F32, GPU_V)]
    code = [Call(get_op("add"), 1, (0, 1), 2, {}), Ret(2)]
    fn = CompiledFunction("main", ["x", "y"], sinfo, [0, 1], sinfo[1], 1, ["x", "y", "s"], code, (), ())
    exe = Executable({"main": fn}, [CPU_V, GPU_V], [])
    vm = VirtualMachine(exe, devices={GPU_V: Simulated("gpu0")})
    with pytest.raises(DeviceMismatch) as err:
        vm.run("main", np.ones(2, np.float32), np.ones(2, np.float32))
    e = err.value
    assert (e.expected, e.actual) == ("gpu0", "cpu")
    assert e.instruction == "main:0 `r2:s = Call add(r0:x, r1:y) on cuda:0:global`"
    assert "argument r0:x is on cpu" in str(e) and "runs on gpu0" in str(e)
    # Nothing stays counted as live after the failed run.
    assert all(d.stats.live == 0 for d in vm.devices)


def test_unplaced_module_is_rejected_naming_the_first_unplaced_site():
    mb = ModuleBuilder([CPU_V])
    f = mb.function("main", [("x", tensor((2,), F32, CPU_V)), ("w", tensor((2,), F32))])
    f.finish(f.emit("add", f.params[0], f.params[0], name="y"))
    with pytest.raises(UnplacedError) as err:
        runtime.compile(mb.get())
    assert (err.value.function, err.value.variable) == ("main", "parameter w")
    assert "main: parameter w has no vdevice" in str(err.value)

    mb = ModuleBuilder([CPU_V])
    f = mb.function("main", [("x", tensor((2,), F32, CPU_V))])
    z = f.emit("zeros", name="z", shape=(2,), dtype=F32)
    f.finish(f.emit("add", f.params[0], z, name="y"))
    with pytest.raises(UnplacedError, match="main: z has no vdevice"):
        runtime.compile(mb.get())


def chain_module(n: int, size: int):
    mb = ModuleBuilder([CPU_V])
    f = mb.function("main", [("x", tensor((size,), F32, CPU_V))])
    v = f.params[0]
    for i in range(n):
        v = f.emit("add", v, v, name=f"v{i}")
    f.finish(v)
    return mb.get()


def test_buffers_are_released_after_their_last_use():
    mod = chain_module(20, 1000)
    vm = VirtualMachine(runtime.compile(mod), devices="cpu")
    x = np.ones(1000, np.float32)
    np.testing.assert_array_equal(vm.run("main", x), x * 2**20)
    mem = vm.profile.memory["cpu"]
    assert mem.allocated == 21 * 4000  # the input and 20 results
    assert mem.peak == 2 * 4000  # only an op's input and its output are ever live together
    assert mem.freed == mem.allocated and mem.live == 0


def test_inputs_are_moved_to_their_parameters_devices():
    mb = ModuleBuilder([CPU_V, GPU_V])
    f = mb.function("main", [("x", tensor((3,), F32, GPU_V))])
    f.finish(f.emit("negative", f.params[0]))
    gpu = Simulated("gpu0")
    vm = VirtualMachine(runtime.compile(mb.get()), devices={GPU_V: gpu})
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(vm.run("main", x), -x)
    assert vm.profile.transfers == {("host", "gpu0"): (1, 12), ("gpu0", "host"): (1, 12)}
    # A device array already on the right device is used as it is; one elsewhere is moved.
    on_gpu = gpu.upload(x)
    result = vm.run("main", on_gpu, return_numpy=False)
    assert result.device is gpu and ("host", "gpu0") not in vm.profile.transfers
    other = Simulated("other")
    vm.run("main", other.upload(x))
    assert vm.profile.transfers[("other", "host")] == (1, 12)


def test_input_errors_name_the_parameter():
    vm = VirtualMachine(runtime.compile(two_device_module()), simulate_missing=True)
    good = np.zeros((8, 4), np.float32)
    with pytest.raises(InputError, match="takes 2 argument"):
        vm.run("main", good)
    with pytest.raises(InputError, match="input y has dtype float64 but the parameter is float32"):
        vm.run("main", good, np.zeros((8, 4)))
    with pytest.raises(InputError, match=r"input x has shape \(8, 5\) but the parameter is \(8, 4\)"):
        vm.run("main", np.zeros((8, 5), np.float32), good)
    with pytest.raises(runtime.VMError, match="no function 'nope'"):
        vm.run("nope")


def branchy_module():
    """An If on a bool parameter, a call of another function, tuples in and out."""
    mb = ModuleBuilder([CPU_V, GPU_V])
    g = mb.function("scale", [("a", tensor((4,), F32, GPU_V))])
    g.finish(g.emit("multiply", g.params[0], g.params[0], name="sq"))
    f = mb.function(
        "main",
        [("x", tensor((4,), F32, CPU_V)), ("flag", tensor((), "bool", CPU_V)), ("k", tensor((4,), F32, GPU_V))],
    )
    x, flag, k = f.params
    xg = f.emit("to_vdevice", x, dst_vdevice=GPU_V, name="xg")
    then = f.branch()
    t1 = then.emit(then.call_function("scale", xg), name="t1")
    then_seq = then.seq(then.emit("add", t1, k, name="t2"))
    other = f.branch()
    else_seq = other.seq(other.emit("subtract", xg, k, name="e1"))
    r = f.emit_if(flag, then_seq, else_seq, name="r")
    pair = f.emit(f.tuple(r, k), name="pair")
    first = f.emit(f.get_item(pair, 0), name="first")
    f.finish(f.tuple(first, f.emit("nn.relu", r, name="rr")))
    return mb.get()


@pytest.mark.parametrize("flag", [True, False])
def test_if_invoke_and_tuples_match_reference(flag):
    mod = branchy_module()
    exe = runtime.compile(mod)
    kinds = {i.kind for i in exe["main"].instructions}
    assert {"If", "Goto", "Invoke", "MakeTuple"} <= kinds
    # `pair` is scalar-replaced (runtime.compile): `pair[0]` reads r's register, no GetItem; the returned tuple is
    # built (MakeTuple) just before the Ret
    assert "GetItem" not in kinds
    x, _, k = random_inputs(mod, rng=rng())
    inputs = (x, np.array(flag), k)
    vm = VirtualMachine(exe, simulate_missing=True)
    out = vm.run("main", *inputs, profile=True)
    ref = run_reference(mod, "main", *inputs)
    assert isinstance(out, tuple) and len(out) == 2
    for got, want in zip(out, ref, strict=True):
        np.testing.assert_array_equal(got, want)
    expected = (x * x + k) if flag else (x - k)
    np.testing.assert_array_equal(out[0], expected)
    assert all(d.stats.live == 0 for d in vm.devices)
    assert vm.profile.by_kind.get("Invoke", (0, 0.0))[0] == (1 if flag else 0)


def test_if_frees_registers_dead_on_one_branch():
    exe = runtime.compile(branchy_module())
    branch = next(i for i in exe["main"].instructions if i.kind == "If")
    # k is read by both branches and after the If, so neither edge frees it; the flag is dead after the test.
    names = [exe["main"].register_names[r] for r in branch.drop]
    assert names == ["flag"] and [exe["main"].register_names[r] for r in branch.else_drop] == ["flag"]


def test_constants_are_loaded_once_onto_their_device():
    mb = ModuleBuilder([CPU_V, GPU_V])
    f = mb.function("main", [("x", tensor((3,), F32, GPU_V))])
    c = Constant(np.array([1, 2, 3], np.float32), TensorStructInfo((3,), F32, vdevice=GPU_V))
    f.finish(f.emit("add", f.params[0], c, name="y"))
    exe = runtime.compile(mb.get())
    assert "LoadConst c0 on cuda:0:global" in str(exe)
    gpu = Simulated("gpu0")
    vm = VirtualMachine(exe, devices={GPU_V: gpu})
    assert gpu.stats.live == 12  # the constant lives on the device for the VM's lifetime
    for _ in range(2):
        np.testing.assert_array_equal(vm.run("main", np.ones(3, np.float32)), [2, 3, 4])
    assert gpu.stats.live == 12


def test_symbolic_shapes_bind_from_inputs():
    mb = ModuleBuilder([CPU_V])
    f = mb.function("main", [("x", tensor(("n", 4), F32, CPU_V))])
    y = f.emit("reshape", f.params[0], name="y", shape=(4, "n"))
    f.finish(f.emit("add", y, y, name="z"))
    mod = mb.get()
    (x,) = random_inputs(mod, rng=rng())
    assert x.shape == (4, 4)
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    out = VirtualMachine(runtime.compile(mod)).run("main", x)
    np.testing.assert_array_equal(out, x.reshape(4, 6) * 2)
    np.testing.assert_array_equal(out, run_reference(mod, "main", x))


def test_random_inputs_follow_dtypes_and_shared_symbols():
    mb = ModuleBuilder([CPU_V])
    f = mb.function(
        "main",
        [
            ("a", tensor(("n", 3), "float16", CPU_V)),
            ("b", tensor(("n",), "int32", CPU_V)),
            ("c", tensor((2,), "bool", CPU_V)),
        ],
    )
    f.finish(f.params[1])
    a, b, c = random_inputs(mb.get(), rng=rng())
    assert a.shape == (4, 3) and a.dtype == np.float16
    assert b.shape == (4,) and b.dtype == np.int32 and b.min() >= 1 and b.max() <= 3
    assert c.dtype == np.bool_
    with pytest.raises(InputError, match="no function 'f'"):
        random_inputs(mb.get(), "f")


def test_integer_ops_are_exact_against_reference():
    mb = ModuleBuilder([CPU_V, GPU_V])
    f = mb.function("main", [("a", tensor((5, 5), "int32", CPU_V)), ("b", tensor((5, 5), "int32", GPU_V))])
    a, b = f.params
    ag = f.emit("to_vdevice", a, dst_vdevice=GPU_V, name="ag")
    q = f.emit("divide", ag, b, name="q")
    m = f.emit("matmul", q, b, name="m")
    f.finish(f.emit("floor_divide", m, b, name="r"))
    mod = mb.get()
    inputs = [np.random.default_rng(1).integers(-9, 10, (5, 5)).astype(np.int32), random_inputs(mod, rng=rng())[1]]
    out = VirtualMachine(runtime.compile(mod), simulate_missing=True).run("main", *inputs)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, run_reference(mod, "main", *inputs))
