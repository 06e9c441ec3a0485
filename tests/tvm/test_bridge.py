"""vdplace.tvm: TVM modules in and out, constants with their values, and the PlaceDevices pass.

Needs the ``tvm`` extra (apache-tvm 0.27.0.post1); skipped without it.  The
modules come from the corpus (tests/models/): vdplace parses them, binds their
constants and hands them to TVM, so no torch is needed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")
relax = pytest.importorskip("tvm.relax")

from vdplace import ir, placement  # noqa: E402
from vdplace.tvm import PlaceDevices, from_tvm, param_values, to_tvm  # noqa: E402

MODELS = Path(__file__).resolve().parents[1] / "models"
CASES = ["mlp", "cnn_bn", "attention", "llama_block", "gpt2"]


def _load(name: str, variant: str) -> tuple[ir.IRModule, dict[str, np.ndarray]]:
    folder = MODELS / name
    with np.load(folder / ("consts.npz" if variant == "consts" else "params.npz")) as data:
        arrays = {k: data[k] for k in data.files}
    mod = ir.parse((folder / f"{variant}.py").read_text(), filename=f"{name}/{variant}.py")
    return ir.bind_constants(mod, arrays), arrays


def _expected(name: str) -> list[np.ndarray]:
    with np.load(MODELS / name / "expected.npz") as data:
        return [data[f"output:{i}"] for i in range(len(data.files))]


def _run_llvm(mod, args: list[np.ndarray]) -> list[np.ndarray]:
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    out = vm["main"](*[tvm.runtime.tensor(a) for a in args])
    return [o.numpy() for o in out]


def _params(mod: ir.IRModule, arrays: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The weights a params.py text names in R.func_attr, in order (its parameters after num_input)."""
    main = mod["main"]
    return [arrays[p.name] for p in main.params[main.attrs.get("num_input", len(main.params)) :]]


@pytest.mark.parametrize("name", CASES)
def test_to_tvm_runs_in_tvm_and_matches_torch_and_from_tvm_gives_the_module_back(name):
    mod, arrays = _load(name, "consts")
    back = to_tvm(mod)
    args = [arrays[p.name] for p in mod["main"].params]
    for got, want in zip(_run_llvm(back, args), _expected(name), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    again = from_tvm(back)
    assert ir.structural_equal(again, mod)


@pytest.mark.parametrize("name", CASES)
def test_place_devices_is_a_module_pass_in_a_sequential(name):
    mod, arrays = _load(name, "params")
    tvm_mod = to_tvm(mod, _params(mod, arrays))
    placed = tvm.transform.Sequential([PlaceDevices(default="host")])(tvm_mod)
    ours = placement.place(mod, default="host").module
    # TVM spells a target out in full ({"kind": "llvm", "mtriple": ...}): compare after the same round trip.
    assert ir.structural_equal(from_tvm(placed), from_tvm(to_tvm(ours, _params(mod, arrays))))
    args = [arrays[p.name] for p in mod["main"].params]
    for got, want in zip(_run_llvm(placed, args), _expected(name), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_a_conflict_raises_the_conflict_report():
    mod, arrays = _load("mlp", "conflict")
    # TVM's pass machinery turns the exception into its own error; the message is vdplace's report.
    with pytest.raises((placement.PlacementConflict, RuntimeError), match=r"(?s)no placement exists.*must be on"):
        PlaceDevices()(to_tvm(mod, _params(mod, arrays)))


@pytest.mark.parametrize("name", CASES)
def test_place_devices_moves_weights_to_a_gpu_in_a_well_formed_module(name):
    """The hinted models put part of their weights on cuda:0; TVM's parser checks the result is well formed."""
    mod, arrays = _load(name, "hinted")
    params = _params(mod, arrays)
    placed = PlaceDevices()(to_tvm(mod, params))  # to_tvm and PlaceDevices' own to_tvm both pass the check
    ours = placement.place(mod).module
    assert any(p.struct_info.vdevice is not None and p.struct_info.vdevice.kind == "cuda" for p in ours["main"].params)
    assert ir.structural_equal(from_tvm(placed), from_tvm(to_tvm(ours, params)))


ALL_MODELS = sorted(p.name for p in MODELS.iterdir() if p.is_dir())


def _in_tvm_spelling(mod: ir.IRModule, spelled: list) -> ir.IRModule:
    """`mod` with each vdevice replaced by TVM's spelling of it (same kind, id and scope), references included."""
    assert [(v.kind, v.vdevice_id, v.memory_scope) for v in mod.vdevices] == [
        (v.kind, v.vdevice_id, v.memory_scope) for v in spelled
    ]
    for i, vdevice in enumerate(spelled):
        if vdevice != mod.vdevices[i]:
            mod = placement.update_vdevice(mod, vdevice, index=i)
    return mod


@pytest.mark.parametrize("variant", ["consts", "params", "hinted"])
@pytest.mark.parametrize("name", ALL_MODELS)
def test_place_devices_returns_exactly_what_vdplace_places(name, variant):
    """Not only after the same round trip: every binding's vdevice, constants bound to a variable included."""
    mod, arrays = _load(name, variant)
    params = _params(mod, arrays) if "params" in mod["main"].attrs else None
    options = {} if variant == "hinted" else {"default": "host"}
    placed = from_tvm(PlaceDevices(**options)(to_tvm(mod, params)))
    ours = placement.place(mod, **options).module
    assert ir.structural_equal(placed, _in_tvm_spelling(ours, placed.vdevices))


CAUSAL_MASK = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global"), I.vdevice("cuda", 0, "global")]})

    @R.function
    def main(scores: R.Tensor((1, 2, 4, 4), dtype="float32")) -> R.Tensor((1, 2, 4, 4), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 2, 4, 4), dtype="float32") = R.hint_on_device(scores, R.device(2, 0), "global")
            lv1: R.Tensor((4,), dtype="int64") = R.arange(0, 4, 1, dtype="int64")
            lv2: R.Tensor((1, 4), dtype="int64") = R.expand_dims(lv1, axis=[-2])
            lv3: R.Tensor((4, 1), dtype="int64") = R.expand_dims(lv1, axis=[-1])
            lv4: R.Tensor((4, 4), dtype="int64") = R.subtract(lv2, lv3)
            lv5: R.Tensor((4, 4), dtype="bool") = R.greater_equal(lv4, R.const(1, "int64"))
            lv6: R.Tensor((), dtype="float32") = R.const("-inf", "float32")
            lv7: R.Tensor((1, 2, 4, 4), dtype="float32") = R.where(lv5, lv6, lv)
            lv8: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.softmax(lv7, axis=-1)
            R.output(lv8)
        return lv8
"""


def test_place_devices_keeps_the_vdevice_of_a_causal_masks_constant():
    """The frontend's ``masked_fill(mask, -inf)`` on the GPU: the ``-inf`` bound to ``lv6`` stays on cuda:0.

    TVM's parser keeps a constant's own struct info, not its binding's
    annotation: `to_tvm` gives TVM the constant with its vdevice.
    """
    from vdplace import runtime

    mod = ir.parse(CAUSAL_MASK)
    placed = from_tvm(PlaceDevices()(to_tvm(mod)))
    ours = placement.place(mod).module
    assert ir.structural_equal(placed, _in_tvm_spelling(ours, placed.vdevices))
    where = next(b for b in ir.iter_bindings(placed["main"]) if b.var.name == "lv7")
    assert {a.struct_info.vdevice.kind for a in where.value.args} == {"cuda"}

    scores = np.random.default_rng(0).standard_normal((1, 2, 4, 4)).astype("float32")
    vm = runtime.VirtualMachine(runtime.compile(placed), simulate_missing=True)  # was an UnplacedError on lv6
    masked = np.where(np.triu(np.ones((4, 4), bool), 1), -np.inf, scores)
    want = np.exp(masked - masked.max(-1, keepdims=True))
    np.testing.assert_allclose(vm.run("main", scores), want / want.sum(-1, keepdims=True), rtol=1e-6)


def test_to_tvm_takes_the_weights_by_parameter_name():
    mod, arrays = _load("mlp", "params")
    by_name = {p.name: arrays[p.name] for p in mod["main"].params[1:]}
    back = to_tvm(mod, by_name)
    assert ir.structural_equal(from_tvm(back), from_tvm(to_tvm(mod, _params(mod, arrays))))
    for got, want in zip(param_values(back), _params(mod, arrays), strict=True):
        np.testing.assert_array_equal(got, want)

    missing = dict(by_name)
    del missing["p_layers_2_bias"]
    with pytest.raises(ValueError, match=r"no value for weight\(s\) p_layers_2_bias \(its weights: p_layers_0_weight"):
        to_tvm(mod, missing)
    with pytest.raises(ValueError, match=r"x, y name\(s\) no weight of the module"):
        to_tvm(mod, {**by_name, "x": arrays["x"], "y": arrays["x"]})
    with pytest.raises(ValueError, match="the module has 6 weight"):
        to_tvm(mod, _params(mod, arrays)[:5])
    with pytest.raises(TypeError, match="a list or a dict by parameter name, got str"):
        to_tvm(mod, "params.npz")
