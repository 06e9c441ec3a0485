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
from vdplace.tvm import PlaceDevices, from_tvm, to_tvm  # noqa: E402

MODELS = Path(__file__).resolve().parent / "models"
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
