"""The corpus's ONNX models: tiny PyTorch modules that `onnx_export` exports to ONNX by name.

Each entry of `MODELS` names the module's factory, the names its ONNX graph
gives the inputs, whether the exporter folds constants, which input dims it
leaves symbolic (``dynamic_axes``; TVM then prints them as ``batch``), and
what, if anything, the model is waiting for: TVM converts and runs every one,
but the texts of some need what vdplace or `variants` lacks, so only
`DEFAULT`'s are written by a plain run (the others with ``--only``).

The modules are written so that the ONNX graphs hold the operators ONNX files
usually hold (Gemm, Conv, BatchNormalization, MaxPool, GlobalAveragePool,
ConvTranspose, Resize, Where, Softmax, LayerNormalization, Erf, Split, Shape,
Gather, Slice, Concat, Unsqueeze, Expand, Cast, ConstantOfShape, ArgMax, TopK,
CumSum, GatherElements, ...); named submodules (not ``nn.Sequential``'s
``0``, ``1``, ...) keep every initializer name a valid identifier once TVM has
replaced its dots (it prints ``0.weight`` as ``0_weight``, which no parser
takes).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn
from zoo_vision import randomize_bn


class Mlp(nn.Module):
    """Linear -> relu -> Linear -> tanh -> Linear (ONNX: Gemm, Relu, Tanh)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(16, 32), nn.Linear(32, 32), nn.Linear(32, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc3(torch.tanh(self.fc2(torch.relu(self.fc1(x)))))


class CnnBn(nn.Module):
    """conv-bn-relu-maxpool, conv-relu-bn, global average pool, Linear.

    The exporter folds the first BatchNorm into its conv; the second, after a
    relu, stays a BatchNormalization node.
    """

    def __init__(self) -> None:
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.conv2, self.bn2 = nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = nn.functional.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 2)
        h = self.bn2(torch.relu(self.conv2(h)))
        return self.head(nn.functional.adaptive_avg_pool2d(h, 1).flatten(1))


class ResnetBlock(nn.Module):
    """ResNet basic block with a stride-2 1x1 downsample on the skip path."""

    def __init__(self, channels: int = 8, out: int = 16) -> None:
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(channels, out, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(out)
        self.conv2, self.bn2 = nn.Conv2d(out, out, 3, padding=1, bias=False), nn.BatchNorm2d(out)
        self.down, self.bn_down = nn.Conv2d(channels, out, 1, stride=2, bias=False), nn.BatchNorm2d(out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        return torch.relu(h + self.bn_down(self.down(x)))


class ConvOps(nn.Module):
    """Depthwise conv, LeakyRelu, HardSwish, AveragePool, ConvTranspose, Resize (nearest), Concat.

    No ``F.pad``: torch exports its pads as a Slice/Transpose/Reshape chain,
    and TVM 0.27's Pad converter rejects pads that are not a constant
    ("Dynamic pads are not supported yet").
    """

    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.depthwise = nn.Conv2d(channels, channels, 3, padding=1, groups=channels)
        self.pointwise = nn.Conv2d(channels, channels, 1)
        self.up = nn.ConvTranspose2d(channels, channels, 2, stride=2)
        self.fuse = nn.Conv2d(2 * channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = nn.functional.leaky_relu(self.depthwise(x), 0.1)
        h = nn.functional.avg_pool2d(nn.functional.hardswish(self.pointwise(h)), 2)
        skip = nn.functional.interpolate(h, scale_factor=2.0, mode="nearest")
        h = torch.cat([self.up(h), skip], dim=1)
        return self.fuse(h)


class MobilenetBlock(nn.Module):
    """Depthwise-separable block: depthwise 3x3, BN, ReLU6 (ONNX: Clip with min/max inputs), pointwise 1x1, BN."""

    def __init__(self, channels: int = 8, out: int = 16) -> None:
        super().__init__()
        self.depthwise = nn.Conv2d(channels, channels, 3, padding=1, groups=channels, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.pointwise = nn.Conv2d(channels, out, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn2(self.pointwise(nn.functional.relu6(self.bn1(self.depthwise(x)))))


class Attention(nn.Module):
    """Causal multi-head self-attention: a Trilu mask, Where(-inf), Softmax."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (nn.Linear(dim, dim) for _ in range(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        hd = d // self.heads

        def split(h: torch.Tensor) -> torch.Tensor:
            return h.reshape(b, t, self.heads, hd).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = q @ k.transpose(-2, -1) / math.sqrt(hd)
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        weights = torch.softmax(torch.where(mask, torch.tensor(float("-inf")), scores), dim=-1)
        return self.o((weights @ v).transpose(1, 2).reshape(b, t, d))


class UnrolledGru(nn.Module):
    """A GRU written out step by step (TVM's ONNX frontend has no GRU/LSTM op); returns (sequence, last state).

    The gates are slices, not ``chunk``: ``chunk`` exports a Shape/Div/Slice
    chain that TVM 0.27's ONNX frontend fails to convert.
    """

    def __init__(self, features: int = 8, hidden: int = 16) -> None:
        super().__init__()
        self.hidden = hidden
        self.x2h, self.h2h = nn.Linear(features, 3 * hidden), nn.Linear(hidden, 3 * hidden)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        n = self.hidden
        h = torch.zeros(x.shape[0], n)
        steps = []
        for t in range(x.shape[1]):
            gx, gh = self.x2h(x[:, t]), self.h2h(h)
            r = torch.sigmoid(gx[:, :n] + gh[:, :n])
            z = torch.sigmoid(gx[:, n : 2 * n] + gh[:, n : 2 * n])
            candidate = torch.tanh(gx[:, 2 * n :] + r * gh[:, 2 * n :])
            h = (1 - z) * candidate + z * h
            steps.append(h)
        return torch.stack(steps, dim=1), h


class ShapeOps(nn.Module):
    """Embedding Gather, shape-derived positions (Shape, ConstantOfShape, Expand), Slice, Concat, Cast, ReduceSum.

    Exported without constant folding, so the ONNX graph keeps its
    Shape/Gather/Unsqueeze/Concat chains the way unoptimised ONNX files do.
    """

    def __init__(self) -> None:
        super().__init__()
        self.embed, self.proj = nn.Embedding(32, 16), nn.Linear(16, 16)

    def forward(self, ids: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        b, n = x.shape[0], x.shape[1]
        positions = torch.arange(n).unsqueeze(0).expand(b, n).unsqueeze(-1).to(torch.float32)
        h = torch.cat([self.embed(ids)[:, :n], x], dim=-1)[..., :16] + positions
        out = self.proj(h.reshape(b * n, -1)).reshape(b, n, -1)
        return out, (ids > 3).to(torch.int64).sum(dim=1)


class TransformerBlock(nn.Module):
    """Pre-norm encoder block: LayerNormalization, fused qkv split into heads, Softmax, erf GELU."""

    def __init__(self, dim: int = 16, heads: int = 2, hidden: int = 32) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.ff1, self.ff2 = nn.Linear(dim, hidden), nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).reshape(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        attended = torch.softmax(q @ k.transpose(-1, -2) * (d // self.heads) ** -0.5, dim=-1) @ v
        x = x + self.out(attended.transpose(1, 2).reshape(b, t, d))
        return x + self.ff2(nn.functional.gelu(self.ff1(self.norm2(x))))


class IndexOps(nn.Module):
    """int64 and bool outputs: ArgMax, TopK, GatherElements, Greater, Where, CumSum."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor, idx: torch.Tensor):
        h = self.proj(x)
        values, indices = torch.topk(h, 3, dim=-1)
        positive = h > 0
        cum = torch.cumsum(torch.where(positive, h, torch.zeros_like(h)), dim=-1)
        return torch.argmax(h, dim=-1), values, indices, torch.gather(h, 1, idx), cum, positive


@dataclass(frozen=True)
class Spec:
    """How to build one model: factory, ONNX input names, constant folding, symbolic input dims.

    `waiting_for` says what keeps the model out of the default run (empty: nothing); `conflict` is False
    where no ``conflict.py`` is written: `variants.conflict` drops the symbolic shape of the body's struct
    info, so TVM's own parse of its text differs (a model with symbolic dims).
    """

    factory: Callable[[], tuple[nn.Module, tuple]]
    inputs: tuple[str, ...] = ("x",)
    fold: bool = True
    dynamic: dict[str, dict[int, str]] | None = None
    waiting_for: str = ""
    conflict: bool = True


BATCH = {"x": {0: "batch"}}

MODELS: dict[str, Spec] = {
    "onnx_mlp": Spec(lambda: (Mlp(), (torch.randn(2, 16),))),
    "onnx_cnn_bn": Spec(lambda: (randomize_bn(CnnBn()), (torch.randn(1, 3, 8, 8),))),
    "onnx_resnet_block": Spec(lambda: (randomize_bn(ResnetBlock()), (torch.randn(1, 8, 8, 8),))),
    "onnx_conv_ops": Spec(lambda: (ConvOps(), (torch.randn(1, 8, 8, 8),))),
    "onnx_attention": Spec(lambda: (Attention(), (torch.randn(1, 8, 16),))),
    "onnx_transformer_block": Spec(lambda: (TransformerBlock(), (torch.randn(1, 8, 16),))),
    "onnx_mobilenet_block": Spec(
        lambda: (randomize_bn(MobilenetBlock()), (torch.randn(1, 8, 8, 8),)),
        waiting_for="vdplace parsing @T.prim_func: TVM converts ONNX Clip with min/max inputs to R.call_tir",
    ),
    "onnx_gru_unrolled": Spec(lambda: (UnrolledGru(), (torch.randn(1, 5, 8),))),
    "onnx_shape_ops": Spec(
        lambda: (ShapeOps(), (torch.randint(0, 32, (2, 6)), torch.randn(2, 6, 16))),
        ("ids", "x"),
        fold=False,
    ),
    "onnx_index_ops": Spec(
        lambda: (IndexOps(), (torch.randn(2, 8), torch.randint(0, 8, (2, 3)))),
        ("x", "idx"),
    ),
    "onnx_mlp_dynamic": Spec(lambda: (Mlp(), (torch.randn(3, 16),)), dynamic=BATCH, conflict=False),
    "onnx_cnn_bn_dynamic": Spec(
        lambda: (randomize_bn(CnnBn()), (torch.randn(2, 3, 8, 8),)), dynamic=BATCH, conflict=False
    ),
}
DEFAULT = [name for name, spec in MODELS.items() if not spec.waiting_for]


def build(name: str) -> tuple[nn.Module, tuple]:
    """Model `name` in eval mode and its inputs, the same on every run: the seed is fixed per name."""
    torch.manual_seed(zlib.crc32(name.encode()))
    model, args = MODELS[name].factory()
    return model.eval(), args
