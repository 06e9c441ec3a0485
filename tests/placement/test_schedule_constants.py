"""Constants and inputs in the time objective's memory model: the predicted peak is the measured one.

The runtime loads every tensor constant once onto its vdevice when the VM is
made and holds it for the whole run (`runtime.vm`: one load per constant,
however many places read it); the schedule holds a constant at its home for
the whole run.  A constant that is only a ``metadata[...]`` reference has
no known size until its value is bound (`ir.bind_constants`): the schedule
counts none of its bytes and says so in a warning.  Every runtime input is
held as the call begins, an unread one too (the run's *entry*,
`placement/schedule/liveness.py`).
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from vdplace import ir
from vdplace.bench.step import measure_step
from vdplace.ir.bind_constants import bind_constants
from vdplace.ir.vdevice import VDevice
from vdplace.placement import CostModel, PlacementConflict, Time, place

pytest.importorskip("ortools")

MODELS = Path(__file__).resolve().parents[1] / "models"
TENSOR = 4 * 4 * 4
HOST_ONLY = CostModel(lambda op, vdevice: None if vdevice.startswith("cuda") else 1e-6, lambda n, s, d: 1e-6)
ONE = np.ones((4, 4), "float32")


def module(body: list[str], params: str = 'x: R.Tensor((4, 4), "float32")', num_input: int = 1) -> ir.IRModule:
    lines = [
        "@I.ir_module",
        "class M:",
        '    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})',
        "    @R.function",
        f"    def main({params}):",
        f'        R.func_attr({{"num_input": {num_input}}})',
        *("        " + line for line in body),
    ]
    return ir.parse("\n".join(lines), filename="consts.py")


def peaks(mod: ir.IRModule, inputs: list[np.ndarray], model: CostModel = HOST_ONLY, **kw) -> tuple[dict, dict]:
    """The measured and predicted peak per vdevice of `mod` placed with `Time(model)`."""
    result = place(mod, objective=Time(model), time_limit_s=20)
    measured = measure_step(result.module, inputs, runs=1, warmup=0, **kw)
    return measured.peak_bytes, dict(result.schedule.peak_memory)


METADATA = [
    'a = R.add(x, metadata["ir.GenericConst"][0])',
    'b = R.multiply(a, metadata["ir.GenericConst"][1])',
    "c = R.nn.relu(b)",
    "return c",
]
CONSTS = {"ir.GenericConst:0": ONE, "ir.GenericConst:1": 2 * ONE}


def test_bound_metadata_constants_are_held_the_whole_run(caplog) -> None:
    """The constants, and at a's call x and a, at b's a and b: the run holds what the schedule predicts."""
    mod = bind_constants(module(METADATA), CONSTS)
    with caplog.at_level(logging.WARNING, logger="vdplace"):
        measured, predicted = peaks(mod, [ONE])
    assert measured == predicted
    assert predicted["llvm:0:global"] == 4 * TENSOR
    assert "without a value" not in caplog.text


def test_an_unbound_constant_is_named_and_not_counted(caplog) -> None:
    """Without their values the constants' sizes are unknown: a warning names each, the schedule counts none."""
    with caplog.at_level(logging.WARNING, logger="vdplace"):
        result = place(module(METADATA), objective=Time(HOST_ONLY), time_limit_s=20)
    assert 'metadata["ir.GenericConst"][0] at consts.py:7' in caplog.text
    assert 'metadata["ir.GenericConst"][1] at consts.py:8' in caplog.text
    assert "bind their values first" in caplog.text
    consts = [s for s in result.schedule.lives if s.label == "main:<const>"]
    assert len(consts) == 2 and all(s.nbytes == 0 for s in consts)


def test_a_constant_read_twice_is_loaded_once() -> None:
    """One constant object read by two ops (what `weights_as_constants` makes of a weight read twice) and
    returned: one load in the run, one value in the schedule."""
    mod = module(
        ["a = R.matmul(x, w)", "b = R.add(a, w)", "return (b, w)"],
        'x: R.Tensor((4, 4), "float32"), w: R.Tensor((4, 4), "float32")',
    )
    result = place(mod, objective=Time(HOST_ONLY), time_limit_s=20)
    measured = measure_step(result.module, [ONE], weights={"w": ONE}, runs=1, warmup=0)
    assert measured.peak_bytes == dict(result.schedule.peak_memory)
    assert measured.peak_bytes["llvm:0:global"] == 3 * TENSOR  # w (once) and two of x, a, b


def test_inline_and_scalar_constants() -> None:
    """A scalar and a vector constant written in the calls: held the whole run, as the run holds them."""
    lines = [
        'a = R.add(x, R.const(1.5, "float32"))',
        'b = R.multiply(a, R.const([1.0, 2.0, 3.0, 4.0], "float32"))',
        "return b",
    ]
    measured, predicted = peaks(module(lines), [ONE])
    assert measured == predicted
    assert predicted["llvm:0:global"] == 2 * TENSOR + 4 + 16  # x and a (or a and b), both constants


def test_unread_inputs_are_held_at_the_entry() -> None:
    """The caller hands the run every input at once: one nothing reads counts at the entry, then is dropped."""
    params = ", ".join(f'{p}: R.Tensor((4, 4), "float32")' for p in ("x", "y", "z"))
    mod = module(["a = R.nn.relu(x)", "return a"], params, num_input=3)
    measured, predicted = peaks(mod, [ONE, ONE, ONE])
    assert measured == predicted
    assert predicted["llvm:0:global"] == 3 * TENSOR
    result = place(mod, objective=Time(HOST_ONLY), time_limit_s=20)
    peak = result.schedule.peaks["llvm:0:global"]
    assert peak.at == 0.0 and peak.running is None and {s.label for s in peak.live} == {"main:x", "main:y", "main:z"}


def test_an_input_placed_off_the_host_is_never_on_it() -> None:
    """An input whose parameter goes to cuda:0 is uploaded as the call begins: the host never holds it."""
    mod = module(["t = (x, x)", "a = R.add(t[0], x)", "return a"])
    model = CostModel(lambda op, vdevice: 1e-6 if vdevice.startswith("cuda") else 1e-3, lambda n, s, d: 1e-6)
    result = place(mod, objective=Time(model), time_limit_s=20)
    assert result.module["main"].params[0].struct_info.vdevice.kind == "cuda"
    measured = measure_step(result.module, [ONE], runs=1, warmup=0)
    assert measured.peak_bytes == dict(result.schedule.peak_memory) == {"llvm:0:global": 0, "cuda:0:global": 128}


def test_bert_with_its_constants_bound_predicts_the_peak_it_measures() -> None:
    """tests/models/bert on the host: two ``metadata["ir.GenericConst"]`` tensors among its weights."""
    path = MODELS / "bert" / "params.py"
    npz = MODELS / "bert" / "params.npz"
    mod = ir.parse(path.read_text(), filename=str(path), constants=npz)
    mod = mod.replace(vdevices=[VDevice("llvm", 0), VDevice("cuda", 0)])
    arrays = np.load(npz)
    params = mod["main"].params
    inputs = [arrays[p.name] for p in params[:2]]
    weights = {p.name: arrays[p.name] for p in params[2:]}
    result = place(mod, objective=Time(HOST_ONLY), time_limit_s=20)
    measured = measure_step(result.module, inputs, weights=weights, runs=1, warmup=0)
    assert measured.peak_bytes == dict(result.schedule.peak_memory)
    assert measured.peak_bytes["llvm:0:global"] == 15533


@pytest.mark.parametrize("exact", [True, False], ids=["cp-sat", "list"])
def test_a_limit_holds_at_the_entry(exact: bool) -> None:
    """Three inputs, two unread, and room for two on the host: one unread input goes to cuda:0 (CP-SAT's entry
    constraint, the list scheduler's peaks), and the run holds what was predicted; with no room there either,
    the conflict names the entry."""
    params = ", ".join(f'{p}: R.Tensor((4, 4), "float32")' for p in ("x", "y", "z"))
    mod = module(["a = R.nn.relu(x)", "return a"], params, num_input=3)
    result = place(mod, objective=Time(HOST_ONLY, memory={"llvm:0": 2 * TENSOR}, exact=exact), time_limit_s=20)
    assert result.schedule.peak_memory["llvm:0:global"] == 2 * TENSOR
    measured = measure_step(result.module, [ONE] * 3, runs=1, warmup=0)
    assert measured.peak_bytes == dict(result.schedule.peak_memory)
    caps = {"llvm:0": 2 * TENSOR, "cuda:0": TENSOR - 1}
    with pytest.raises(PlacementConflict, match="at 0.0000 ms, no op runs there then"):
        place(mod, objective=Time(HOST_ONLY, memory=caps, exact=exact), time_limit_s=20)


def test_a_weight_nothing_reads_is_never_loaded() -> None:
    """The run binds weights as constants where they are read (`weights_as_constants`): an unread one is never
    loaded, and the schedule holds nothing for it (it held it the whole run before)."""
    params = 'x: R.Tensor((4, 4), "float32"), w: R.Tensor((4, 4), "float32")'
    mod = module(["a = R.nn.relu(x)", "return a"], params)
    result = place(mod, objective=Time(HOST_ONLY), time_limit_s=20)
    measured = measure_step(result.module, [ONE], weights={"w": ONE}, runs=1, warmup=0)
    assert measured.peak_bytes == dict(result.schedule.peak_memory)
    assert measured.peak_bytes["llvm:0:global"] == 2 * TENSOR  # x and a
