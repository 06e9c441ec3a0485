"""`vdplace.calibration.dispatch`: the Ray executor's costs, their probes and how they enter a cost model."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from vdplace import ir
from vdplace.calibration.dispatch import (
    CHAIN,
    Dispatch,
    apply_dispatch,
    cpu_actor_keys,
    host_program,
    kernel_scale,
    probe_module,
    step_overhead,
)
from vdplace.ir.vdevice import VDevice
from vdplace.placement import CostModel, Time, place
from vdplace.placement.cost import Table, describe_ops
from vdplace.placement.cost.roofline import Link, Roof, Roofline

CPU, GPU = VDevice("llvm", 0), VDevice("cuda", 0)

TWO = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((256,), "float32"), w: R.Tensor((256,), "float32", "cuda:0")):
        R.func_attr({"num_input": 1})
        y: R.Tensor((256,), "float32", "cuda:0") = R.add(x, w)
        return y
"""


# TWO without its pins: every op may run on the host.
FREE = TWO.replace('"float32", "cuda:0")):', '"float32")):').replace(', "cuda:0") = R.add', ") = R.add")


def test_the_probes_run_on_the_host_and_visit_each_other_device_once():
    from vdplace import runtime

    mod, trips = probe_module([CPU, GPU, VDevice("cuda", 0, "shared")])
    assert trips == {"trip_0": "cuda:0"}  # two vdevices of one physical device: one actor, one trip
    assert sum(1 for b in mod["chain"].body.blocks[0].bindings) == CHAIN
    x = np.linspace(-1, 1, 4, dtype="float32")
    vm = runtime.VirtualMachine(runtime.compile(mod), simulate_missing=True)
    for entry in ("step", "chain", "trip_0"):
        np.testing.assert_array_equal(vm.run(entry, x), np.maximum(x, 0))
    assert vm.profile.bytes_copied == 2 * 16  # trip_0 copied to the (simulated) GPU and back


def test_the_program_on_the_host_holds_its_weights_as_constants_and_sums_its_kernels():
    mod = ir.parse(FREE)
    rng = np.random.default_rng(0)
    x, w = (rng.standard_normal(256).astype("float32") for _ in range(2))
    model = calibrated()
    program = host_program(mod, [x, w], model, "main", None)
    assert program is not None and program.calls == 1 and [p.name for p in program.module["main"].params] == ["x"]
    (add,) = describe_ops(mod)
    assert program.kernels == model.kernel(add, CPU, [CPU, GPU]) and program.inputs == [x]
    assert host_program(ir.parse(TWO), [x, w], model, "main", None) is None  # w is pinned to the GPU: a copy


def calibrated() -> CostModel:
    fallback = Roofline(
        devices={"llvm:0": Roof(1e9, 1e9, 1e-6), "cuda:0": Roof(1e9, 1e9, 1e-6)},
        links={("llvm:0", "cuda:0"): Link(1e-3, 1e9), ("cuda:0", "llvm:0"): Link(1e-3, 1e9)},
    )
    table = Table({"llvm:0": {"k": 2e-6}, "cuda:0": {"k": 3e-6, "none": None}}, fallback)
    return CostModel.from_table(table)


def test_applying_dispatch_adds_the_op_cost_sets_the_copy_latency_and_records_it():
    model = calibrated()
    apply_dispatch(model, Dispatch(step=4e-3, op=10e-6, copy={"cuda:0": 2e-3}, host="llvm:0", runs=7))
    table = model.source
    assert table.times["llvm:0"]["k"] == pytest.approx(12e-6) and table.times["cuda:0"]["none"] is None
    assert table.fallback.devices["cuda:0"].overhead == pytest.approx(11e-6)
    assert table.fallback.links["llvm:0", "cuda:0"] == Link(2e-3, 1e9)
    assert model.copy(1000, CPU, GPU, [CPU, GPU]) == pytest.approx(2e-3 + 1e-6)
    assert model.upload(1000, CPU, GPU, [CPU, GPU]) == pytest.approx(1e-6)  # from the driver: bytes only
    assert step_overhead(model) == 4e-3 and model.about["ray dispatch"]["copy seconds"] == {"cuda:0": 2e-3}
    assert step_overhead(calibrated()) == 0.0


def test_a_kernel_scale_multiplies_the_cpu_actors_kernels_before_the_op_cost_is_added():
    model = calibrated()
    dispatch = Dispatch(step=4e-3, op=10e-6, copy={}, host="llvm:0", runs=7, kernel_scale=1.5, scaled=("llvm:0",))
    apply_dispatch(model, dispatch)
    table = model.source
    assert table.times["llvm:0"]["k"] == pytest.approx(2e-6 * 1.5 + 10e-6)
    assert table.times["cuda:0"]["k"] == pytest.approx(3e-6 + 10e-6)  # not a CPU actor: its kernels unscaled
    roof = table.fallback.devices["llvm:0"]
    assert roof == pytest.approx(Roof(1e9 / 1.5, 1e9 / 1.5, 1.5e-6 + 10e-6))
    assert table.fallback.devices["cuda:0"] == pytest.approx(Roof(1e9, 1e9, 11e-6))
    assert model.about["ray dispatch"]["kernel scale"] == 1.5


def test_the_kernel_scale_is_the_programs_run_over_its_kernels_and_steps():
    assert kernel_scale(run=30e-3, kernels=18e-3, calls=100, op=20e-6) == pytest.approx(1.5)
    assert kernel_scale(run=10e-3, kernels=18e-3, calls=100, op=20e-6) == 1.0  # faster than the best calls: 1
    assert kernel_scale(run=10e-3, kernels=0.0, calls=3, op=0.0) == 1.0  # nothing to scale
    # tiny kernels: the excess lands on the op's step, about (run) / calls per op
    f = kernel_scale(run=2e-3, kernels=1e-6, calls=20, op=20e-6)
    assert f * 20e-6 == pytest.approx(2e-3 / 20, rel=0.01)


def test_cpu_actor_keys_are_the_vdevices_on_cpu_or_sim_actors():
    vdevices = [CPU, GPU]
    assert cpu_actor_keys(vdevices, {"llvm:0": "cpu", "cuda:0": "cpu"}) == {"llvm:0", "cuda:0"}
    assert cpu_actor_keys(vdevices, {"llvm:0": "cpu", "cuda:0": "gpu"}) == {"llvm:0"}
    assert cpu_actor_keys(vdevices, None) == set()


def test_an_upload_time_replaces_the_inputs_copy_from_the_host_in_the_schedule():
    mod = ir.parse(TWO)
    model = CostModel.roofline()
    before = place(mod, objective=Time(model)).schedule
    (copy,) = [e for e in before.events if e.kind == "copy"]  # x stays on the host, copied to the GPU
    assert copy.name == "x_cuda_0_global"
    assert copy.end - copy.start == pytest.approx(model.copy(1024, CPU, GPU, [CPU, GPU]))
    model.upload_time = lambda nbytes, vdevice: 1e-9 * nbytes
    after = place(mod, objective=Time(model)).schedule
    (upload,) = [e for e in after.events if e.kind == "copy"]  # now x goes straight to the GPU: its upload
    assert upload.name == "x" and upload.end - upload.start == pytest.approx(1024e-9)
    assert after.makespan < before.makespan
    # Sent by the driver, x never sits on the host: nothing is live there (before: x until its copy ended).
    assert before.peak_memory["llvm:0:global"] == 1024 and after.peak_memory["llvm:0:global"] == 0


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs ray")
def test_calibrating_on_ray_actors_measures_the_executors_costs(monkeypatch):
    import ray

    from vdplace.calibration import calibrate_program

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024 * 1024, log_to_driver=False)
    try:
        mod = ir.parse(FREE)
        rng = np.random.default_rng(0)
        inputs = [rng.standard_normal(256).astype("float32") for _ in range(2)]
        result = calibrate_program(mod, inputs, ray_actors={"llvm:0": "cpu", "cuda:0": "cpu"}, repeat=1)
    finally:
        ray.shutdown()
    found = result.model.about["ray dispatch"]
    assert found["step seconds"] > 0 and set(found["copy seconds"]) == {"cuda:0"}
    own = found["op seconds, the program's own run"]  # the program itself ran on the host actor
    assert own is not None and found["op seconds"] == max(own, found["op seconds, chain probe"])
    link = result.table.fallback.links["llvm:0", "cuda:0"]
    assert link.latency == found["copy seconds"]["cuda:0"]
    assert result.model.upload_time is not None and step_overhead(result.model) == found["step seconds"]
