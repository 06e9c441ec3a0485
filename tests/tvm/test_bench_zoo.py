"""The benches' torch loader (`vdplace.bench.zoo.import_torch`) and the scaled model set it loads."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tvm")

from vdplace.bench.zoo import import_torch  # noqa: E402
from vdplace.ir.vdevice import VDevice  # noqa: E402

MODELS = Path(__file__).resolve().parents[2] / "benchmarks" / "models"


class Two(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(40, 8)
        self.proj = torch.nn.Linear(8, 4)

    def forward(self, ids, scale):
        return self.proj(self.embed(ids)) * scale


def test_import_torch_gives_the_torch_weights_by_parameter_name_and_the_inputs_in_order():
    torch.manual_seed(0)
    model = Two().eval()
    args = (torch.tensor([[3, 7, 39]]), torch.full((1, 3, 4), 2.0))
    loaded = import_torch(model, args)
    main = loaded.module["main"]
    assert [p.name for p in main.params] == ["ids", "scale", *loaded.weights]
    assert sorted(loaded.weights) == ["p_embed_weight", "p_proj_bias", "p_proj_weight"]
    np.testing.assert_array_equal(loaded.weights["p_embed_weight"], model.embed.weight.detach().numpy())
    np.testing.assert_array_equal(loaded.inputs[0], [[3, 7, 39]])
    assert loaded.weight_bytes == sum(p.numel() * 4 for p in model.parameters())
    # the program with these weights computes what the torch model does
    from vdplace.bench.step import measure_step
    from vdplace.placement import place

    placed = place(loaded.module.replace(vdevices=[VDevice("llvm", 0)]), default="host").module
    out = measure_step(placed, loaded.inputs, weights=loaded.weights, runs=1, warmup=0).outputs  # a 1-tuple
    np.testing.assert_allclose(out[0], model(*args).detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.fixture
def zoo(monkeypatch):
    monkeypatch.syspath_prepend(str(MODELS))
    pytest.importorskip("transformers")
    import zoo as module

    yield module
    for name in ("zoo", "zoo_large", "zoo_llm", "zoo_seq", "zoo_vision"):
        sys.modules.pop(name, None)


def test_the_large_scale_has_the_seven_architectures_at_megabytes(zoo):
    assert sorted(zoo.zoo_large.MODELS) == sorted(
        ["mlp", "cnn_bn", "resnet_block", "attention", "gpt2", "bert", "llama_block"]
    )
    sizes = {}
    for name in ("gpt2", "llama_block", "mlp"):
        model, _ = zoo.build(name, "large")
        sizes[name] = sum(p.numel() * p.element_size() for p in model.parameters())
    assert all(size > 8 * 2**20 for size in sizes.values()), sizes
    tiny, _ = zoo.build("gpt2")
    assert sum(p.numel() for p in tiny.parameters()) * 4 < 2**16  # the corpus's size is unchanged
    gpt2, _ = zoo.build("gpt2", "large")
    assert gpt2.model.wte.weight.shape == (8192, 256)  # the embedding: huge in bytes, cheap in work


def test_a_large_model_imports_with_every_weight(zoo):
    model, args = zoo.build("llama_block", "large")
    loaded = import_torch(model, args)
    assert loaded.weight_bytes == sum(p.numel() * p.element_size() for p in model.parameters())
    assert loaded.inputs[0].shape == (1, 64, 512)


def test_an_unknown_scale_or_model_is_a_clear_error(zoo):
    with pytest.raises(ValueError, match="unknown scale 'huge'"):
        zoo.build("mlp", "huge")
    with pytest.raises(ValueError, match="no model 'lstm' at scale 'large'"):
        zoo.build("lstm", "large")
