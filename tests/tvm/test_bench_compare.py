"""The library side of benchmarks/bench_accelerate.py (`vdplace.bench.compare`): caps, fixed plans, the plans."""

from __future__ import annotations

import numpy as np
import pytest

from vdplace import ir
from vdplace.bench.compare import (
    FAST_NAME,
    HOST_NAME,
    PLANS,
    compare_plans,
    evaluate_placed,
    inline_bound_constants,
    share_caps,
)
from vdplace.placement import CostModel, place

# A slow host beside the default GPU roofline, so that the fast device is worth a copy.
SLOW_HOST = CostModel.roofline(devices={"cpu": {"flops": 1e9, "bandwidth": 2e9, "overhead": 4e-6}})

BOUND_CONSTANT = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0, "global"), I.vdevice("llvm", 0, "global")]})

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((), dtype="float32") = R.const(2.0, "float32")
            y: R.Tensor((4, 8), dtype="float32") = R.multiply(x, c)
            z: R.Tensor((4, 8), dtype="float32") = R.add(y, c)
            R.output(z)
        return z
"""

PLACED = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0, "global"), I.vdevice("llvm", 0, "global")]})

    @R.function
    def main(x: R.Tensor((64, 64), "float32", "llvm:0"),
             w: R.Tensor((64, 64), "float32", "cuda:0")
    ) -> R.Tensor((64, 64), "float32", "llvm:0"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            a: R.Tensor((64, 64), "float32", "llvm:0") = R.nn.relu(x)
            ag: R.Tensor((64, 64), "float32", "cuda:0") = R.to_vdevice(a, dst_vdevice="cuda:0:global")
            b: R.Tensor((64, 64), "float32", "cuda:0") = R.matmul(ag, w)
            bc: R.Tensor((64, 64), "float32", "llvm:0") = R.to_vdevice(b, dst_vdevice="llvm:0:global")
            c: R.Tensor((64, 64), "float32", "llvm:0") = R.nn.relu(bc)
            R.output(c)
        return c
"""


def test_caps_are_shares_of_the_weights():
    assert share_caps(16_320) == [5712, 8976]  # 35% and 55%: the bench's default rule
    assert share_caps(1000, [0.3, 0.6]) == [300, 600]
    for bad in (0.0, 1.0, 1.5, -0.2):
        with pytest.raises(ValueError, match="share of the weights must be in"):
            share_caps(1000, [bad])


def test_bound_constants_are_inlined_and_the_values_kept():
    from vdplace.runtime import VirtualMachine, compile

    mod = ir.parse(BOUND_CONSTANT)
    inlined = inline_bound_constants(mod)
    names = [b.var.name for b in ir.iter_bindings(inlined["main"])]
    assert names == ["y", "z"]  # the constant's binding is gone, its readers read the constant
    assert [b.var.name for b in ir.iter_bindings(mod["main"])] == ["c", "y", "z"]  # the input is not modified
    x = np.arange(32, dtype="float32").reshape(4, 8)
    placed = place(inlined, default="host").module
    got = VirtualMachine(compile(placed), simulate_missing=True).run("main", x)
    np.testing.assert_allclose(got, x * 2 + 2)


def test_a_fixed_plan_is_scheduled_as_written():
    placed = ir.parse(PLACED)
    schedule = evaluate_placed(placed, SLOW_HOST)
    ops = {e.name: e.device for e in schedule.events if e.kind == "op"}
    assert ops == {"a": HOST_NAME, "b": FAST_NAME, "c": HOST_NAME}
    copies = sorted(e.device for e in schedule.events if e.kind == "copy")
    assert copies == [(FAST_NAME, HOST_NAME), (HOST_NAME, FAST_NAME)]
    # One chain: every op and copy after the one before it, nothing overlaps.
    busy = sum(e.end - e.start for e in schedule.events)
    assert schedule.makespan == pytest.approx(busy, rel=1e-12)
    assert schedule.peak_memory[FAST_NAME] == 3 * 64 * 64 * 4  # w, a's copy and b live together


def test_a_fixed_plan_whose_independent_bindings_time_reorders_is_still_fixed():
    from vdplace.bench.compare import _devices_by_name

    swapped = PLACED.replace(
        """            a: R.Tensor((64, 64), "float32", "llvm:0") = R.nn.relu(x)
            ag: R.Tensor((64, 64), "float32", "cuda:0") = R.to_vdevice(a, dst_vdevice="cuda:0:global")
            b: R.Tensor((64, 64), "float32", "cuda:0") = R.matmul(ag, w)""",
        """            wt: R.Tensor((64, 64), "float32", "cuda:0") = R.permute_dims(w, axes=[1, 0])
            a: R.Tensor((64, 64), "float32", "llvm:0") = R.nn.relu(x)
            ag: R.Tensor((64, 64), "float32", "cuda:0") = R.to_vdevice(a, dst_vdevice="cuda:0:global")
            b: R.Tensor((64, 64), "float32", "cuda:0") = R.matmul(ag, wt)""",
    )
    reordered = swapped.replace(
        """            wt: R.Tensor((64, 64), "float32", "cuda:0") = R.permute_dims(w, axes=[1, 0])
            a: R.Tensor((64, 64), "float32", "llvm:0") = R.nn.relu(x)""",
        """            a: R.Tensor((64, 64), "float32", "llvm:0") = R.nn.relu(x)
            wt: R.Tensor((64, 64), "float32", "cuda:0") = R.permute_dims(w, axes=[1, 0])""",
    )
    assert reordered != swapped
    assert _devices_by_name(ir.parse(swapped)) == _devices_by_name(ir.parse(reordered))
    moved = _devices_by_name(
        ir.parse(
            swapped.replace(
                'wt: R.Tensor((64, 64), "float32", "cuda:0")', 'wt: R.Tensor((64, 64), "float32", "llvm:0")'
            )
        )
    )
    assert moved != _devices_by_name(ir.parse(swapped))
    schedule = evaluate_placed(ir.parse(reordered), SLOW_HOST)
    assert {e.name for e in schedule.events if e.kind == "op"} == {"wt", "a", "b", "c"}


@pytest.fixture(scope="module")
def small():
    """A GPT-2-like torch model (the embedding its largest layer, blocks of matmuls), converted; needs the extras."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("accelerate")
    pytest.importorskip("tvm")
    from vdplace.tvm import from_torch

    class Small(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.wte = torch.nn.Embedding(256, 64)
            self.h = torch.nn.ModuleList(
                torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 64))
                for _ in range(2)
            )

        def forward(self, ids):
            x = self.wte(ids)
            for block in self.h:
                x = x + block(x)
            return x

    torch.manual_seed(0)
    model = Small().eval()
    imported = from_torch(model, (torch.zeros(1, 32, dtype=torch.long),), keep_params_as_input=True)
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    return model, imported.module, weights


def test_the_plans_of_a_small_model(small):
    from vdplace.tvm import accelerate_map
    from vdplace.tvm.device_map import DEFAULT_DEVICES

    model, mod, weights = small
    cap = share_caps(weights, [0.5])[0]
    plans = compare_plans(mod, model, cap, SLOW_HOST, time_limit_s=5)
    assert list(plans) == list(PLANS)
    time_plan, host = plans["time"], plans["host"]
    assert time_plan.fits and time_plan.peaks[FAST_NAME] <= cap  # within the cap, by liveness
    assert host.weight_bytes == {HOST_NAME: weights} and host.peaks[FAST_NAME] == 0
    # accelerate's rows keep the weights where one of its maps put them
    caps = {0: cap, "cpu": 1 << 40}
    maps = [accelerate_map(mod, model, caps, devices=DEFAULT_DEVICES, raise_caps=r) for r in (False, True)]
    on_fast = {m.weight_bytes.get(0, 0) for m in maps}
    for label in ("accelerate", "accelerate-cost", "accelerate-time"):
        assert plans[label].weight_bytes.get(FAST_NAME, 0) in on_fast, label
    # accelerate's maps spend the fast device's memory on the embedding (the largest, cheapest layer);
    # Time keeps the weights on the host and runs the matmuls on the fast device, weights copied there
    assert plans["accelerate"].weight_bytes[FAST_NAME] > time_plan.weight_bytes.get(FAST_NAME, 0)
    for label in ("accelerate-cost", "accelerate-time", "host"):
        assert time_plan.makespan * 5 < plans[label].makespan, label
    # what accelerate runs holds its GPU weights, the host's weights copied in and every activation on the
    # fast device: over a cap that leaves no room for the activations, under either map
    assert plans["accelerate"].fits is False and plans["accelerate"].peaks[FAST_NAME] > cap
    assert plans["bytes"].module is not None or plans["bytes"].error.startswith("no plan")
    with pytest.raises(ValueError, match="unknown plan"):
        compare_plans(mod, model, cap, SLOW_HOST, plans=["fastest"])


CHAIN = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((64, 64), "float32"), w: R.Tensor((64, 64), "float32")) -> R.Tensor((64, 64), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            a: R.Tensor((64, 64), "float32") = R.nn.relu(x)
            b: R.Tensor((64, 64), "float32") = R.matmul(a, w)
            c: R.Tensor((64, 64), "float32") = R.nn.relu(b)
            R.output(c)
        return c
"""


def test_the_activation_room_is_the_peak_of_what_is_not_a_weight():
    from vdplace.bench.compare import activation_room

    # all on the fast device: x and a, then a and b, then b and c live at once (w stays the whole run)
    assert activation_room(ir.parse(CHAIN), SLOW_HOST) == 2 * 64 * 64 * 4


def test_accelerate_gets_the_weights_budget_and_every_plan_the_cap(small):
    from vdplace.bench.compare import activation_room

    model, mod, weights = small
    budget = share_caps(weights, [0.5])[0]
    room = activation_room(mod, SLOW_HOST)
    assert room > 0
    cap = budget + room
    plans = compare_plans(mod, model, cap, SLOW_HOST, max_memory=budget, time_limit_s=3, plans=["accelerate", "time"])
    assert plans["accelerate"].weight_bytes.get(FAST_NAME, 0) <= budget  # accelerate's max_memory budgets weights
    for plan in plans.values():
        assert plan.fits == (plan.peaks[FAST_NAME] <= cap)  # one cap, the peak by liveness, for every plan
    assert plans["time"].fits
    assert plans["time"].makespan <= plans["accelerate"].makespan


def _ops_and_copies(mod):
    """``main``'s op calls (the copies aside) with their vdevice names, and each copy's source and destination."""
    from vdplace.ir.expr import Call
    from vdplace.ir.module import iter_bindings
    from vdplace.ir.op import Op
    from vdplace.ir.struct_info import tensor_leaves
    from vdplace.ir.vdevice import vdevice_name
    from vdplace.placement.cost.problem import COPY_OPS

    ops, copies = {}, {}
    for binding in iter_bindings(mod["main"]):
        value = binding.value
        if type(value) is not Call or type(value.op) is not Op:
            continue
        where = {vdevice_name(mod.vdevices, leaf.vdevice) for _, leaf in tensor_leaves(binding.var.struct_info)}
        if value.op.name in COPY_OPS:
            copies[value.args[0].name] = where
        else:
            ops[binding.var.name] = where
    return ops, copies


def test_accelerate_runs_every_op_on_the_main_device_and_keeps_the_cpu_weights_on_the_host(small):
    """accelerate's dispatch_model: a cpu-mapped module's weights stay on the host and run on the main GPU."""
    from vdplace.bench.compare import accelerate_execution, with_two_devices
    from vdplace.ir.vdevice import vdevice_name
    from vdplace.tvm import accelerate_map
    from vdplace.tvm.device_map import DEFAULT_DEVICES, pin_parameters

    model, mod, weights = small
    caps = {0: share_caps(weights, [0.5])[0], "cpu": 1 << 40}
    split = accelerate_map(with_two_devices(mod), model, caps, devices=DEFAULT_DEVICES, raise_caps=True)
    assert {FAST_NAME, HOST_NAME} <= set(split.pins.values())  # the map splits the weights
    placed = accelerate_execution(split.module, SLOW_HOST)
    main = placed["main"]
    first = int(main.attrs["num_input"])
    where = {p.name: vdevice_name(placed.vdevices, p.struct_info.vdevice) for p in main.params}
    assert {n: where[n] for n in split.pins} == split.pins  # every weight where the map put it
    assert all(where[p.name] == HOST_NAME for p in main.params[:first])  # the runtime inputs come from the host
    ops, copies = _ops_and_copies(placed)
    assert ops and all(w == {FAST_NAME} for w in ops.values())  # every op on the main device
    on_host = {n for n, d in split.pins.items() if d == HOST_NAME}
    assert on_host <= set(copies) and all(copies[n] == {FAST_NAME} for n in on_host)  # copied in where read
    assert evaluate_placed(placed, SLOW_HOST).makespan > 0  # a fixed plan Time only orders

    # a map with no GPU entry runs on the host: every op there, nothing copied
    everything = {p.name: HOST_NAME for p in mod["main"].params[first:]}
    host_only = accelerate_execution(pin_parameters(with_two_devices(mod), everything), SLOW_HOST)
    ops, copies = _ops_and_copies(host_only)
    assert all(w == {HOST_NAME} for w in ops.values()) and not copies
