"""accelerate's device map of a torch model as pins on its Relax program (`vdplace.tvm.accelerate_map`)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
accelerate = pytest.importorskip("accelerate")
pytest.importorskip("tvm")

from vdplace import placement  # noqa: E402
from vdplace.ir.vdevice import VDevice  # noqa: E402
from vdplace.placement import CostModel  # noqa: E402
from vdplace.tvm import accelerate_map, export_name, from_torch, pin_parameters  # noqa: E402

CUDA, HOST = VDevice("cuda", 0), VDevice("llvm", 0)


class Small(torch.nn.Module):
    """GPT-2-like in shape: an embedding that is the largest layer, blocks, a final norm (mixed-case name)."""

    def __init__(self) -> None:
        super().__init__()
        self.wte = torch.nn.Embedding(160, 32)
        self.h = torch.nn.ModuleList(
            torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 32)) for _ in range(3)
        )
        self.ln_F = torch.nn.LayerNorm(32)

    def forward(self, ids):
        x = self.wte(ids)
        for block in self.h:
            x = x + block(x)
        return self.ln_F(x)


@pytest.fixture(scope="module")
def converted():
    torch.manual_seed(0)
    model = Small().eval()
    imported = from_torch(model, (torch.zeros(1, 6, dtype=torch.long),), keep_params_as_input=True)
    return model, imported.module


def weight_bytes(model) -> int:
    return sum(p.numel() * p.element_size() for p in model.parameters())


def accelerates_choice(model, max_memory) -> dict[str, object]:
    """Each torch parameter's device as accelerate's own map gives it (longest module-name prefix)."""
    device_map = accelerate.infer_auto_device_map(model, max_memory=max_memory)
    found = {}
    for name, _ in model.named_parameters():
        owners = [m for m in device_map if m == "" or name == m or name.startswith(m + ".")]
        found[name] = device_map[max(owners, key=len)]
    return found


def test_torch_exports_names_the_frontend_keeps(converted):
    model, mod = converted
    main = mod["main"]
    weights = [p.name for p in main.params[main.attrs["num_input"] :]]
    assert weights == [export_name(name) for name, _ in model.named_parameters()]
    assert export_name("ln_F.weight") == "p_ln_f_weight" and "p_ln_f_weight" in weights


@pytest.mark.parametrize("share", [0.5, 0.6])
def test_every_weight_gets_the_device_accelerate_chose(converted, share):
    model, mod = converted
    caps = {0: int(weight_bytes(model) * share), "cpu": 10**9}
    want = accelerates_choice(model, caps)
    assert set(want.values()) == {0, "cpu"}  # a split: the test means something
    plan = accelerate_map(mod, model, caps)
    params = {p.name: p for p in plan.module["main"].params}
    for name, device in want.items():
        vdevice = params[export_name(name)].struct_info.vdevice
        assert vdevice == (CUDA if device == 0 else HOST), name
        assert plan.pins[export_name(name)] == ("cuda:0:global" if device == 0 else "llvm:0:global")
    assert plan.module.vdevices == [CUDA, HOST]  # added: the frontend's module declares none
    assert mod.vdevices == [] and all(p.struct_info.vdevice is None for p in mod["main"].params)  # not modified
    # Cost-aware placement keeps the pins and puts copies where the map splits the program, as accelerate's
    # hooks move activations between devices.
    placed = placement.place(plan.module, cost=CostModel.roofline()).module
    for p in placed["main"].params[1:]:
        assert p.struct_info.vdevice == params[p.name].struct_info.vdevice


def test_raised_caps_fill_the_gpu_literal_caps_leave_empty(converted):
    model, mod = converted
    cap = int(weight_bytes(model) * 0.4)
    literal = accelerate_map(mod, model, {0: cap, "cpu": 10**9})
    assert 0 not in literal.weight_bytes  # room kept for the largest layer (the embedding): nothing on the GPU
    assert set(literal.pins.values()) == {"llvm:0:global"}
    raised = accelerate_map(mod, model, {0: cap, "cpu": 10**9}, raise_caps=True)
    assert raised.max_memory[0] > cap and raised.max_memory["cpu"] == 10**9
    assert 0 < raised.weight_bytes[0] <= cap  # within the literal cap
    assert raised.pins["p_wte_weight"] == "cuda:0:global"
    assert raised.parameters["wte.weight"] == 0


def test_bad_maps_are_clear_errors(converted):
    model, mod = converted
    with pytest.raises(ValueError, match="maps to no vdevice"):
        accelerate_map(mod, model, {0: int(weight_bytes(model) * 0.6), "cpu": 10**9}, devices={"cpu": "llvm:0"})
    with pytest.raises(ValueError, match="main has no tensor parameter 'p_nope'"):
        pin_parameters(mod.replace(vdevices=[HOST]), {"p_nope": "llvm:0"})
    bare = mod.replace(functions={"main": mod["main"]})
    other = torch.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="name no parameter of the torch model"):
        accelerate_map(bare, other, {"cpu": 10**9})


class WithBuffer(torch.nn.Module):
    """BERT-like: the embeddings module holds a buffer, and a tight cap splits that module."""

    def __init__(self) -> None:
        super().__init__()
        self.embeddings = torch.nn.Module()
        self.embeddings.words = torch.nn.Embedding(32, 16)
        self.embeddings.positions = torch.nn.Embedding(16, 16)
        self.embeddings.register_buffer("position_ids", torch.arange(16).unsqueeze(0), persistent=False)
        self.encoder = torch.nn.Sequential(*(torch.nn.Linear(16, 16) for _ in range(8)))

    def forward(self, ids):
        e = self.embeddings
        return self.encoder(e.words(ids) + e.positions(e.position_ids[:, : ids.shape[1]]))


def test_a_split_modules_buffer_accelerate_leaves_out_is_no_error():
    model = WithBuffer().eval()
    imported = from_torch(model, (torch.zeros(1, 6, dtype=torch.long),), keep_params_as_input=True)
    caps = {0: int(weight_bytes(model) * 0.35), "cpu": 10**9}
    device_map = accelerate.infer_auto_device_map(model, max_memory=caps)
    assert device_map["embeddings.words"] == 0
    assert "embeddings" not in device_map and "embeddings.position_ids" not in device_map  # split, buffer left out
    plan = accelerate_map(imported.module, model, caps)  # was: "places no module holding 'embeddings.position_ids'"
    want: dict[object, int] = {}
    for name, p in model.named_parameters():  # the parameters' bytes per device; the uncovered buffer nowhere
        device = accelerates_choice(model, caps)[name]
        want[device] = want.get(device, 0) + p.numel() * p.element_size()
    assert plan.weight_bytes == want
