"""`vdplace.bench.step`: a placed module's measured step time and peak memory per device, locally and on Ray."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.bench.step import measure_step, weights_as_constants

# Layer 1 on the CPU, layer 2 on the GPU (simulated): one copy of the activations between them.
SPLIT = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(
        x: R.Tensor((8, 64), "float32"),
        w1: R.Tensor((64, 64), "float32", "llvm:0"),
        w2: R.Tensor((64, 32), "float32", "cuda:0"),
    ):
        R.func_attr({"num_input": 1})
        h = R.nn.relu(R.matmul(x, w1))
        c = R.to_vdevice(h, "cuda:0")
        y = R.matmul(c, w2)
        return y
"""


def split_case():
    placed = placement.place(ir.parse(SPLIT), default="host").module
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 64)).astype("float32")
    weights = {
        "w1": rng.standard_normal((64, 64)).astype("float32"),
        "w2": rng.standard_normal((64, 32)).astype("float32"),
    }
    want = np.maximum(x @ weights["w1"], 0) @ weights["w2"]
    return placed, x, weights, want


def test_the_local_vm_measures_the_median_step_and_each_devices_peak_with_resident_weights():
    placed, x, weights, want = split_case()
    m = measure_step(placed, [x], weights=weights, runs=3, warmup=1)
    np.testing.assert_allclose(m.outputs, want, rtol=1e-5)
    assert m.on == "vm" and len(m.run_seconds) == 3 and m.step_seconds == sorted(m.run_seconds)[1]
    assert m.devices == {"llvm:0:global": "cpu", "cuda:0:global": "sim:cuda:0"}
    # Each device holds its own weights the whole run, then what it computes: the runtime's count of live bytes.
    assert m.peak_bytes["llvm:0:global"] >= weights["w1"].nbytes + 8 * 64 * 4
    gpu_least = weights["w2"].nbytes + 8 * 64 * 4 + 8 * 32 * 4  # w2, the copied activations, the result
    assert m.peak_bytes["cuda:0:global"] >= gpu_least
    assert m.device_peak_bytes == {"cpu": m.peak_bytes["llvm:0:global"], "sim:cuda:0": m.peak_bytes["cuda:0:global"]}


def test_weights_become_constants_on_their_parameters_devices():
    placed, x, weights, want = split_case()
    resident = weights_as_constants(placed, weights)
    main = resident["main"]
    assert [p.name for p in main.params] == ["x"] and main.attrs["num_input"] == 1
    assert [p.name for p in placed["main"].params] == ["x", "w1", "w2"]  # the input is not modified
    np.testing.assert_allclose(runtime.run_reference(resident, "main", x), want, rtol=1e-5)
    vm = runtime.VirtualMachine(runtime.compile(resident), simulate_missing=True)
    np.testing.assert_allclose(vm.run("main", x), want, rtol=1e-5)
    # No weight is sent with a run: x is used in place on the host's CPU, only the result comes back.
    assert vm.profile.transfers == {("sim:cuda:0", "host"): (1, 8 * 32 * 4)}
    with pytest.raises(ValueError, match="main has no parameter 'w3'"):
        weights_as_constants(placed, {"w3": weights["w1"]})
    with pytest.raises(ValueError, match=r"weight 'w2' is float64\[64, 32\], but the parameter is"):
        weights_as_constants(placed, {"w2": weights["w2"].astype("float64")})
    with pytest.raises(ValueError, match="runs must be >= 1"):
        measure_step(placed, [x], weights=weights, runs=0)


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs ray")
def test_two_ray_actors_with_one_thread_each_measure_the_same_program(monkeypatch):
    import ray

    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # the actors inherit it
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024 * 1024, log_to_driver=False)
    try:
        placed, x, weights, want = split_case()
        local = measure_step(placed, [x], weights=weights, runs=2)
        m = measure_step(placed, [x], weights=weights, runs=2, ray={"llvm:0": "cpu", "cuda:0": "cpu"})
    finally:
        ray.shutdown()
    np.testing.assert_allclose(m.outputs, want, rtol=1e-5)
    assert m.on == "ray" and m.step_seconds > 0
    assert set(m.devices) == {"llvm:0:global", "cuda:0:global"}
    assert m.devices["cuda:0:global"] != m.devices["llvm:0:global"]  # two actors
    assert m.peak_bytes["cuda:0:global"] >= weights["w2"].nbytes + 8 * 64 * 4 + 8 * 32 * 4
    assert m.peak_bytes["llvm:0:global"] >= weights["w1"].nbytes
    assert m.peak_bytes["cuda:0:global"] == local.peak_bytes["cuda:0:global"]  # the runtime's one count


TWICE = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((8, 64), "float32"), w: R.Tensor((64, 64), "float32")):
        R.func_attr({"num_input": 1})
        h = R.matmul(x, w)
        y = R.matmul(h, w)
        return y
"""


@pytest.mark.parametrize("where", ["llvm:0", "cuda:0"])
def test_a_weight_read_twice_is_one_constant_held_once_as_the_schedule_holds_it(where):
    mod = ir.parse(TWICE.replace('w: R.Tensor((64, 64), "float32")', f'w: R.Tensor((64, 64), "float32", "{where}")'))
    result = placement.place(mod, objective=placement.Time(placement.CostModel.roofline()))
    w = np.random.default_rng(0).standard_normal((64, 64)).astype("float32")
    resident = weights_as_constants(result.module, {"w": w})
    block = resident["main"].body.blocks[0]
    assert [b.var.name for b in block.bindings] == ["w"] and isinstance(block.bindings[0].value, ir.expr.Constant)
    assert len(runtime.compile(resident).constants) == 1  # one constant, read by both matmuls
    x = np.ones((8, 64), "float32")
    step = measure_step(result.module, [x], weights={"w": w}, runs=1)
    np.testing.assert_allclose(step.outputs, x @ w @ w, rtol=1e-4)
    assert step.peak_bytes == result.schedule.peak_memory  # w (16 KiB) counted once, where it was placed
