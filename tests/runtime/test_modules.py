"""Runtime on parsed modules: every example and conformance module, placed, compiled and run.

Each one is checked against the NumPy reference interpreter run on the *unplaced*
module: exactly for integer and bool results, with `allclose` for floats.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vdplace import ir, placement, runtime

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
CONFORMANCE = sorted((ROOT / "tests" / "data" / "conformance").glob("*.input.tvmscript"))
# Examples that exist to show a placement conflict: nothing to run.
CONFLICT_EXAMPLES = {"conflict_add.py"}
# Examples that conflict as written and place with call-site specialization.
SPECIALIZE_EXAMPLES = {"specialize_helper.py"}


def assert_same(got, want, where: str) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same(g, w, f"{where}[{i}]")
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, where
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


def place_for_run(mod: ir.IRModule, **options) -> ir.IRModule:
    """TVM's policy first (unconstrained tensors unplaced); if that leaves some unplaced, the first vdevice."""
    placed = placement.place(mod, **options).module
    try:
        runtime.check_placed(placed)
    except runtime.UnplacedError:
        placed = placement.place(mod, default="first", **options).module
    return placed


def run_everywhere(mod: ir.IRModule, label: str, **options) -> int:
    """Run every function on simulated devices and on one CPU; return the copies of the simulated runs."""
    placed = place_for_run(mod, **options)
    exe = runtime.compile(placed)
    sim = runtime.VirtualMachine(exe, simulate_missing=True)
    cpu = runtime.VirtualMachine(exe, devices="cpu")
    copies = 0
    for entry in mod.functions:
        inputs = runtime.random_inputs(mod, entry, rng=np.random.default_rng(7))
        want = runtime.run_reference(mod, entry, *inputs)
        assert_same(sim.run(entry, *inputs), want, f"{label}:{entry} (simulated)")
        copies += sim.profile.num_copies
        assert all(d.stats.live == sum(_constant_bytes(sim, d)) for d in sim.devices)
        assert_same(cpu.run(entry, *inputs), want, f"{label}:{entry} (cpu)")
    return copies


def _constant_bytes(vm: runtime.VirtualMachine, device) -> list[int]:
    return [c.nbytes for c in vm._constants if isinstance(c, runtime.DeviceArray) and c.device is device]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_and_matches_reference(path: Path):
    mod = ir.parse(path.read_text(), filename=str(path))
    if path.name in CONFLICT_EXAMPLES | SPECIALIZE_EXAMPLES:
        with pytest.raises(placement.PlacementConflict):
            placement.place(mod)
    if path.name in CONFLICT_EXAMPLES:
        return
    run_everywhere(mod, path.name, specialize=path.name in SPECIALIZE_EXAMPLES)


@pytest.mark.parametrize("path", CONFORMANCE, ids=lambda p: p.name.split(".")[0])
def test_conformance_module_runs_and_matches_reference(path: Path):
    mod = ir.parse(path.read_text(), filename=path.name)
    copies = run_everywhere(mod, path.name)
    # Each to_vdevice between two physical devices is executed once; the other cases copy nothing.
    assert copies == COPIES.get(path.name.split(".")[0], 0)


COPIES = {
    "printed_tvm_realize_insert_to_vdevice": 1,
    "tvm_realize_func_result_on_cpu": 1,
    "tvm_realize_insert_to_vdevice": 1,
    "tvm_realize_multi_device": 1,
    "tvm_vm_multi_cpu": 1,  # llvm device 0 -> llvm device 1: two physical CPUs
    "tvm_vm_multi_device": 1,
    "printed_tvm_vm_multi_gpu": 2,
    "tvm_vm_multi_gpu": 2,
}


def test_examples_and_conformance_are_found():
    assert len(EXAMPLES) >= 4 and len(CONFORMANCE) >= 15


MISSING_COPY = """
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(
        x: R.Tensor((2, 3), "float32", "llvm"), y: R.Tensor((2, 3), "float32", "cuda")
    ) -> R.Tensor((2, 3), "float32", "cuda"):
        s: R.Tensor((2, 3), "float32", "cuda") = R.add(x, y)
        return s
"""


def test_parsed_missing_copy_names_the_line_instruction_and_devices():
    mod = ir.parse(MISSING_COPY, filename="missing_copy.py")
    with pytest.raises(runtime.DeviceMismatch) as err:
        runtime.compile(mod)
    message = str(err.value)
    assert message.startswith("missing_copy.py:13:")
    assert "main: s: argument x is on llvm:0:global" in message
    assert "`r2:s = Call add(r0:x, r1:y) on cuda:0:global` needs it on cuda:0:global" in message


UNPLACED = """
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((2, 3), "float32", "llvm"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        a = R.add(x, x)
        b = R.multiply(y, y)
        return b
"""


def test_parsed_unplaced_module_names_the_first_unplaced_site_with_its_line():
    mod = ir.parse(UNPLACED, filename="unplaced.py")
    with pytest.raises(runtime.UnplacedError) as err:
        runtime.compile(mod)
    assert err.value.function == "main" and err.value.variable == "parameter y"
    assert str(err.value).startswith("unplaced.py:10:")


def test_placed_example_listing_shows_the_copy():
    path = ROOT / "examples" / "rfc_hint_copy.py"
    mod = ir.parse(path.read_text(), filename=str(path))
    exe = runtime.compile(place_for_run(mod))
    text = str(exe)
    assert "DeviceCopy" in text and "AllocTensor((2, 3), float32) on cuda:0:global" in text
    vm = runtime.VirtualMachine(exe, simulate_missing=True)
    vm.run("main", *runtime.random_inputs(mod, rng=np.random.default_rng(0)))
    assert vm.profile.copies == {("cpu", "sim:cuda:0"): (1, 24)}
