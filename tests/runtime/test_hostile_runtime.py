"""Huge shapes at run time (issue 15, item 3): every tensor is checked against its device's memory first.

Inputs moved onto a device, op results whose shape is known before the
kernel runs, copies' targets and random inputs raise `DeviceMemoryError`
naming the tensor, its shape, its bytes and the limit; never NumPy's
"array is too big" or a `MemoryError`.
"""

from __future__ import annotations

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.cli import main as cli_main
from vdplace.runtime import CPU, DeviceMemoryError, Simulated, VirtualMachine, random_inputs
from vdplace.runtime.memory import format_bytes, host_available, tensor_nbytes

HUGE = 10**18
HEADER = "@I.ir_module\nclass M:\n"
GPU_HEADER = HEADER + '    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})\n'


def module(body: str, header: str = HEADER) -> ir.IRModule:
    return ir.parse(header + "    @R.function\n" + body)


def vm_for(mod: ir.IRModule, **devices) -> VirtualMachine:
    placed = placement.place(mod, default="host").module
    return VirtualMachine(runtime.compile(placed), devices=devices or None, simulate_missing=True)


def test_byte_counts_are_exact_and_readable():
    assert tensor_nbytes((HUGE, 4), "float32") == 16 * HUGE
    assert format_bytes(3 * 2**30) == "3.0 GiB" and format_bytes(512) == "512 B"
    assert host_available() is None or host_available() > 0


def test_random_inputs_check_sizes_before_making_anything():
    mod = module(
        f'    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor(({HUGE}, 4), "float16")):\n        return y\n'
    )
    with pytest.raises(DeviceMemoryError) as info:
        random_inputs(mod, rng=np.random.default_rng(0))
    err = info.value
    assert err.tensor == "input y" and err.shape == (HUGE, 4) and err.nbytes == 8 * HUGE
    assert f"input y: a float16 tensor of shape ({HUGE}, 4) needs {8 * HUGE} bytes" in str(err)
    mod = module('    def main(x: R.Tensor((100000, 100000), "float32")):\n        return x\n')
    with pytest.raises(DeviceMemoryError, match=r"\(100000, 100000\) needs 40000000000 bytes \(37.3 GiB\), more than"):
        random_inputs(mod, memory_limit=2**30)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int32", "uint8", "int64", "bool"])
def test_random_inputs_are_made_in_their_dtype_with_the_same_values_as_before(dtype):
    mod = module(f'    def main(x: R.Tensor((3, 1000, 700), "{dtype}")):\n        return x\n')
    (x,) = random_inputs(mod, rng=np.random.default_rng(5))
    assert x.dtype == np.dtype(dtype) and x.shape == (3, 1000, 700)  # more than one chunk
    rng = np.random.default_rng(5)
    if dtype == "bool":
        expected = rng.random(x.shape) < 0.5
    elif dtype.startswith("float"):
        expected = rng.standard_normal(x.shape).astype(dtype)
    else:
        expected = rng.integers(1, 4, size=x.shape).astype(dtype)
    np.testing.assert_array_equal(x, expected)


def test_an_op_result_over_the_limit_is_named_before_its_kernel_runs():
    mod = module(
        f'    def main(x: R.Tensor((2, 3), "float32")):\n        y = R.zeros(R.shape([{HUGE}, 4]), "float32")\n'
        "        return y\n"
    )
    vm = vm_for(mod)
    with pytest.raises(DeviceMemoryError) as info:
        vm.run("main", np.zeros((2, 3), "float32"))
    text = str(info.value)
    assert "Call zeros(" in text and "binding y at <string>:5:9" in text and f"shape ({HUGE}, 4)" in text
    assert f"needs {16 * HUGE} bytes" in text and "memory_limit" in text
    assert all(d.stats.live == 0 for d in vm.devices)


def test_symbolic_results_are_checked_once_their_dims_are_known():
    mod = module(
        '    def main(x: R.Tensor(("n",), "float32")):\n        n = T.int64()\n'
        '        y = R.zeros(R.shape([n, n]), "float32")\n        return y\n'
    )
    vm = vm_for(mod, llvm=CPU(memory_limit=4 * 100 * 100))
    assert vm.run("main", np.zeros(100, "float32")).shape == (100, 100)
    with pytest.raises(DeviceMemoryError, match=r"shape \(101, 101\) needs 40804 bytes"):
        vm.run("main", np.zeros(101, "float32"))


def test_a_simulated_device_holds_what_its_capacity_allows():
    body = (
        '    def main(x: R.Tensor((256, 256), "float32", "llvm")):\n'
        '        y = R.to_vdevice(x, "cuda:0")\n        return y\n'
    )
    mod = module(body, GPU_HEADER)
    x = np.ones((256, 256), "float32")
    np.testing.assert_array_equal(vm_for(mod, cuda=Simulated("gpu", memory_limit=2**18)).run("main", x), x)
    vm = vm_for(mod, cuda=Simulated("gpu", memory_limit=2**18 - 1))
    with pytest.raises(DeviceMemoryError, match=r"DeviceCopy|AllocTensor") as info:
        vm.run("main", x)
    assert info.value.device == "gpu" and info.value.limit == 2**18 - 1 and info.value.nbytes == 2**18
    gpu_input = module('    def main(x: R.Tensor((256, 256), "float32", "cuda")):\n        return x\n', GPU_HEADER)
    vm = vm_for(gpu_input, cuda=Simulated("gpu", memory_limit=1000))
    with pytest.raises(DeviceMemoryError, match=r"^input x: a float32 tensor of shape \(256, 256\) needs 262144"):
        vm.run("main", x)
    with pytest.raises(ValueError, match="memory_limit"):
        Simulated("gpu", memory_limit=-1)


def test_the_cli_reports_a_huge_input_in_one_line(tmp_path, capsys):
    path = tmp_path / "huge.py"
    path.write_text(
        HEADER + f'    @R.function\n    def main(x: R.Tensor(({HUGE}, {HUGE}), "float32")):\n'
        "        y = R.add(x, x)\n        return y\n"
    )
    assert cli_main(["run", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: input x: a float32 tensor of shape ({HUGE}, {HUGE}) needs 4")
    assert "Traceback" not in err and "too big" not in err and len(err.strip().splitlines()) == 1
