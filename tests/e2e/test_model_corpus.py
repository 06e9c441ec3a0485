"""The model corpus (tests/models/): what TVM's PyTorch frontend printed for real models, end to end.

benchmarks/models/make_corpus.py wrote every folder from a tiny PyTorch model
through torch.export and apache-tvm 0.27's ``from_exported_program``; the
texts are TVM's printout verbatim, the ``.npz`` files the inputs, the weights
and the ``metadata[kind][i]`` constants, and eager PyTorch's outputs.  Neither
torch nor TVM is needed here.  Each text parses, prints back structurally
equal, places, runs (on simulated devices where it names a GPU) and matches
PyTorch within rtol 1e-4, atol 1e-5; each ``conflict.py`` has no placement.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.placement.model.entry import num_inputs

MODELS = Path(__file__).resolve().parents[1] / "models"
NAMES = sorted(p.name for p in MODELS.iterdir() if (p / "params.py").is_file())
RTOL, ATOL = 1e-4, 1e-5


def _flat(value: Any) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _flat(v)]
    return [np.asarray(value)]


def _run(mod: ir.IRModule, npz: Path) -> list[np.ndarray]:
    with np.load(npz) as data:
        arrays = {k: data[k] for k in data.files}
    exe = runtime.compile(mod, params=arrays)
    vm = runtime.VirtualMachine(exe, simulate_missing=True)
    return _flat(vm.run("main", *[arrays[p.name] for p in mod["main"].params]))


def _check(got: list[np.ndarray], folder: Path) -> None:
    with np.load(folder / "expected.npz") as data:
        want = [data[f"output:{i}"] for i in range(len(data.files))]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
        else:
            np.testing.assert_array_equal(g, w)


def test_the_corpus_holds_the_model_families_the_issue_names():
    assert len(NAMES) >= 12
    for family in ("mlp", "cnn_bn", "resnet_block", "attention", "transformer_encoder", "lstm", "gpt2", "llama_block"):
        assert family in NAMES


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("variant", ["params", "consts"])
def test_frontend_printout_parses_prints_back_places_and_matches_torch(name, variant):
    folder = MODELS / name
    path = folder / f"{variant}.py"
    mod = ir.parse(path.read_text(), filename=str(path))
    assert ir.structural_equal(ir.parse(ir.script(mod)), mod)
    placed = placement.place(mod, default="host").module
    _check(_run(placed, folder / f"{variant}.npz"), folder)


@pytest.mark.parametrize("name", NAMES)
def test_hinted_variant_places_with_copies_and_matches_torch(name):
    folder = MODELS / name
    path = folder / "hinted.py"
    result = placement.place(ir.parse(path.read_text(), filename=str(path)), default="host")
    assert {v.kind for v in result.module.vdevices} == {"llvm", "cuda"}
    _check(_run(result.module, folder / "params.npz"), folder)


@pytest.mark.parametrize("name", [n for n in NAMES if (MODELS / n / "conflict.py").is_file()])
def test_conflict_variant_has_no_placement(name):
    path = MODELS / name / "conflict.py"
    with pytest.raises(placement.PlacementConflict) as err:
        placement.place(ir.parse(path.read_text(), filename=str(path)))
    assert str(path) in err.value.message


def test_a_returned_tuple_may_hold_fields_on_two_devices():
    """index_ops' hinted variant returns a tuple whose fields live on the CPU and the GPU."""
    folder = MODELS / "index_ops"
    placed = placement.place(ir.parse((folder / "hinted.py").read_text())).module
    ret = placed["main"].ret_struct_info
    assert len({leaf.vdevice.kind for _, leaf in ir.struct_info.tensor_leaves(ret)}) == 2
    _check(_run(placed, folder / "params.npz"), folder)


def _symbolic(mod: ir.IRModule) -> bool:
    """Whether `main` takes a tensor with a symbolic dim."""
    return any(
        isinstance(d, str)
        for p in mod["main"].params
        for _, leaf in ir.struct_info.tensor_leaves(p.struct_info)
        for d in leaf.shape or ()
    )


DYNAMIC = [n for n in NAMES if _symbolic(ir.parse((MODELS / n / "params.py").read_text()))]


def test_the_corpus_holds_models_with_dynamic_shapes():
    assert {"mlp_dynamic", "attention_dynamic", "onnx_mlp_dynamic", "onnx_cnn_bn_dynamic"} <= set(DYNAMIC)


@pytest.mark.parametrize("name", DYNAMIC)
@pytest.mark.parametrize("size", [1, 5])
def test_reported_bytes_are_what_the_run_moves_at_the_sizes_it_runs(name, size):
    """Issue 29: placed with the run's sizes, the bytes copied are the bytes the runtime's profile counts
    copying, and the runtime inputs uploaded plus the weights loaded onto a GPU are what it transfers there."""
    folder = MODELS / name
    mod = ir.parse((folder / "hinted.py").read_text())
    main = mod["main"]
    n = num_inputs(main)
    with np.load(folder / "params.npz") as data:
        arrays = {k: data[k] for k in data.files}
    dims: dict[str, int] = {}
    inputs = []
    for p in main.params[:n]:
        shape = [size if isinstance(d, str) else d for d in p.struct_info.shape]
        dims.update({d: size for d in p.struct_info.shape if isinstance(d, str)})
        inputs.append(np.resize(arrays[p.name], shape))  # the example's values, repeated to the size
    result = placement.place(mod, default="host", dims=dims)
    vm = runtime.VirtualMachine(runtime.compile(result.module, params=arrays), simulate_missing=True)
    vm.run("main", *inputs, *[arrays[p.name] for p in main.params[n:]], profile=True)
    profile = vm.profile
    assert result.stats.dims == dims
    assert result.stats.bytes_copied == profile.bytes_copied > 0
    vdevices = list(result.module.vdevices)
    gpu = {ir.vdevice_name(vdevices, v) for v in vdevices if v.device_type != "cpu"}
    loaded = sum(b for where, b in result.stats.bytes_loaded.items() if where in gpu)
    uploaded = sum(b for (src, _), (_, b) in profile.transfers.items() if src == "host")
    assert result.stats.bytes_uploaded + loaded == uploaded
