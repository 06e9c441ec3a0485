"""A device's memory limit is a budget of bytes live at once (issue 32, item 3; runtime/memory.py).

It bounded one tensor: a simulated 16 MiB GPU accepted ten live 10 MiB
tensors.  Now every device (CPU, simulated, torch, a Ray actor's) refuses a
new buffer that would take its live bytes past the limit, with a
`DeviceMemoryError` naming the device, the instruction and its source line,
and the largest live tensors; buffers are freed after their last use and
weights stay resident for the run, so a plan whose live set fits runs even
when it allocates far more in total.  ``vdplace run --memory VDEV=SIZE``
sets the limit of a simulated or real device.  The Ray actors' budget is
tested in test_ray.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.cli import main
from vdplace.runtime import CPU, DeviceMemoryError, Simulated, VirtualMachine

MiB = 1024 * 1024
ROWS = 10 * MiB // 4  # a float32 vector of 10 MiB

HEADER = """from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
"""


def fan_out(n: int, rows: int = ROWS) -> str:
    """main(x) on the GPU: a_i = x + x for i < n, all live until the chain of adds that sums them."""
    lines = [f"        a{i} = R.add(x, x)" for i in range(n)]
    acc = "a0"
    for i in range(1, n):
        lines.append(f"        s{i} = R.add({acc}, a{i})")
        acc = f"s{i}"
    sig = f'    def main(x: R.Tensor(({rows},), "float32", "cuda:0")) -> R.Tensor(({rows},), "float32", "cuda:0"):\n'
    return HEADER + sig + "\n".join(lines) + f"\n        return {acc}\n"


def chain(n: int, rows: int = ROWS) -> str:
    """main(x) on the GPU: n multiplies one after the other; only an op's input and output are ever live."""
    lines, h = [], "x"
    for i in range(n):
        lines.append(f"        h{i} = R.add({h}, {h})")
        h = f"h{i}"
    sig = f'    def main(x: R.Tensor(({rows},), "float32", "cuda:0")) -> R.Tensor(({rows},), "float32", "cuda:0"):\n'
    return HEADER + sig + "\n".join(lines) + f"\n        return {h}\n"


def vm(text: str, filename: str, device, memory=None) -> VirtualMachine:
    placed = placement.place(ir.parse(text, filename=filename)).module
    return VirtualMachine(runtime.compile(placed), devices={"cuda:0": device}, memory=memory)


def test_ten_live_10_mib_tensors_do_not_fit_a_16_mib_device():
    x = np.ones(ROWS, "float32")
    with pytest.raises(DeviceMemoryError) as info:
        vm(fan_out(10), "fan.py", Simulated("gpu", memory_limit=16 * MiB)).run("main", x)
    err = info.value
    assert err.device == "gpu" and err.limit == 16 * MiB and err.nbytes == 10 * MiB and err.live == 10 * MiB
    assert "out of memory on gpu: instruction main:0 `r1:a0 = Call add(r0:x, r0:x)" in str(err)
    assert "binding a0 at fan.py:11:9" in str(err)
    assert err.largest == (("main:x", 10 * MiB),)


def test_the_error_names_the_instruction_its_line_and_the_largest_live_tensors():
    """64 MiB: x and a0..a4 live (60 MiB), a5 does not fit; the five largest are named, and one more."""
    x = np.ones(ROWS, "float32")
    gpu = Simulated("gpu", memory_limit=64 * MiB)
    with pytest.raises(DeviceMemoryError) as info:
        vm(fan_out(10), "fan.py", gpu).run("main", x)
    text = str(info.value)
    assert "instruction main:5 `r6:a5 = Call add(r0:x, r0:x) on cuda:0:global`" in text
    assert "(main: binding a5 at fan.py:16:9)" in text
    assert "needs 10.0 MiB more, but 60.0 MiB of its 64.0 MiB memory_limit" in text
    assert "the largest live tensors: main:x (10.0 MiB), main:a0 (10.0 MiB)" in text and ", and 1 more" in text
    assert len(info.value.largest) == 5 and info.value.live == 60 * MiB
    assert gpu.stats.live == 0  # the failed run released everything
    out = vm(fan_out(10), "fan.py", Simulated("gpu", memory_limit=110 * MiB)).run("main", x)
    assert float(out[0]) == 20.0  # eleven live tensors at the peak: fits 110 MiB exactly


def test_a_plan_whose_live_set_fits_runs_though_it_allocates_more_than_the_limit():
    machine = vm(chain(10), "chain.py", Simulated("gpu", memory_limit=20 * MiB))
    out = machine.run("main", np.ones(ROWS, "float32"), profile=True)
    assert float(out[0]) == 2.0**10
    memory = machine.profile.memory["gpu"]
    assert memory.allocated == 11 * 10 * MiB and memory.peak == 20 * MiB  # 110 MiB allocated, 20 live at most


WEIGHTED = """from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1024,), "float32"), w: R.Tensor((1024,), "float32")) -> R.Tensor((1024,), "float32"):
        R.func_attr({"num_input": 1})
        a = R.add(x, w)
        b = R.multiply(a, a)
        c = R.add(a, b)
        return c
"""
KiB4 = 4096  # one tensor of WEIGHTED


def test_weights_stay_resident_for_the_run_and_inputs_are_freed_after_their_last_use():
    """w is a weight (num_input = 1): it stays live beside a, b and c; unmarked, it is freed after `a`."""
    placed = placement.place(ir.parse(WEIGHTED, filename="weighted.py"), default="host").module
    x, w = np.ones(1024, "float32"), np.full(1024, 2.0, "float32")
    machine = VirtualMachine(runtime.compile(placed), devices={"llvm": CPU(memory_limit=4 * KiB4)})
    np.testing.assert_array_equal(machine.run("main", x, w, profile=True), np.full(1024, 12.0, "float32"))
    assert machine.profile.memory["cpu"].peak == 4 * KiB4  # w, a, b and c while c is computed
    tight = VirtualMachine(runtime.compile(placed), devices={"llvm": CPU(memory_limit=4 * KiB4 - 1)})
    with pytest.raises(DeviceMemoryError, match=r"binding c at weighted.py:12:9.*main:w \(weight\) \(4.0 KiB\)"):
        tight.run("main", x, w)
    unmarked = placement.place(ir.parse(WEIGHTED.replace('        R.func_attr({"num_input": 1})\n', "")))
    free = VirtualMachine(runtime.compile(unmarked.module), devices={"llvm": CPU(memory_limit=3 * KiB4)})
    free.run("main", x, w, profile=True)
    assert free.profile.memory["cpu"].peak == 3 * KiB4  # x, w, a; then a, b, c


def test_an_input_its_device_has_no_room_for_is_named():
    placed = placement.place(ir.parse(WEIGHTED, filename="weighted.py"), default="host").module
    machine = VirtualMachine(runtime.compile(placed), devices={"llvm": CPU(memory_limit=4096 + 100)})
    with pytest.raises(DeviceMemoryError, match=r"out of memory on cpu: input w needs 4.0 KiB more, .*input x"):
        machine.run("main", np.ones(1024, "float32"), np.ones(1024, "float32"))


def test_memory_sets_the_limit_of_a_vdevices_device_by_name():
    machine = vm(chain(2), "chain.py", Simulated("gpu"), memory={"cuda:0": 15 * MiB})
    assert machine.device_of(1).memory_limit == 15 * MiB
    with pytest.raises(DeviceMemoryError, match="out of memory on gpu"):
        machine.run("main", np.ones(ROWS, "float32"))
    with pytest.raises(runtime.DeviceUnavailable, match=r"memory\['cuda:3'\]"):
        vm(chain(2), "chain.py", Simulated("gpu"), memory={"cuda:3": MiB})


def test_a_torch_device_keeps_the_same_budget():
    pytest.importorskip("torch")
    from vdplace.runtime.torch_device import TorchDevice

    x = np.ones(ROWS, "float32")
    with pytest.raises(DeviceMemoryError, match=r"out of memory on torch:cpu: instruction main:5 .*fan.py:16:9"):
        vm(fan_out(10), "fan.py", TorchDevice("cpu", memory_limit=64 * MiB)).run("main", x)
    assert float(vm(chain(10), "chain.py", TorchDevice("cpu", memory_limit=20 * MiB)).run("main", x)[0]) == 1024.0


SYMBOLIC = """from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor(("n", 1), "float32", "cuda:0")) -> R.Tensor(("n", 1), "float32", "cuda:0"):
        y = R.exp(x)
        z = R.add(x, y)
        return z
"""


def test_vdplace_run_memory_limits_the_device_the_run_uses(tmp_path, capsys, monkeypatch):
    """`run --memory` limits the plan (which weighs the symbolic batch at the size the run runs) and the device
    the run uses: x, y and z of a million rows (3.8 MiB each) live at once."""
    source = tmp_path / "sym.py"
    source.write_text(SYMBOLIC)
    np.savez(tmp_path / "big.npz", x=np.ones((1_000_000, 1), "float32"))
    run = ["run", str(source), "--simulate", "--inputs", str(tmp_path / "big.npz")]
    assert main([*run, "--memory", "cuda:0=8MiB"]) == 1  # the plan sees the 1,000,000 rows: it does not fit
    err = capsys.readouterr().err
    assert "memory limit of cuda:0:global exceeded: 12000000 bytes must live there" in err and "Traceback" not in err
    seen = []
    real = runtime.VirtualMachine
    monkeypatch.setattr(runtime, "VirtualMachine", lambda *a, **kw: seen.append(kw["memory"]) or real(*a, **kw))
    assert main([*run, "--memory", "cuda:0=12MiB"]) == 0  # x, y, z: 11.4 MiB
    assert main([*run, "--memory", f"cuda:0={12 * MiB}"]) == 0  # a size in bytes
    assert "shape (1000000, 1)" in capsys.readouterr().out
    assert seen == [{"cuda:0": 12 * MiB}, {"cuda:0": 12 * MiB}]  # and the run's device holds that budget
