"""Tiny models outside the corpus (tests/models): (module, example inputs) factories for benches that check a
solver on programs it was not tuned on (`benchmarks/bench_schedule_torch.py`).

Each is a family the corpus lacks or a different form of one it has: a T5 block (RMSNorm, a learned
attention bias, gated GELU), a two-layer GRU, a bidirectional LSTM, a Transformer decoder layer
(cross-attention), a 1-d convolutional audio net, a two-layer ViT with a class token, a depthwise-separable
CNN with hardswish, an embedding classifier, and a SwiGLU stack whose three layers share their weights.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F  # noqa: N812 - torch's own spelling
from torch import nn


class RmsNorm(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.rand(dim) + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class T5Block(nn.Module):
    """Pre-norm self-attention without biases plus a learned position bias, then a gated-GELU feed-forward."""

    def __init__(self, dim: int = 16, heads: int = 2, seq: int = 6) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = RmsNorm(dim), RmsNorm(dim)
        self.q, self.k, self.v, self.o = (nn.Linear(dim, dim, bias=False) for _ in range(4))
        self.wi0, self.wi1 = nn.Linear(dim, 2 * dim, bias=False), nn.Linear(dim, 2 * dim, bias=False)
        self.wo = nn.Linear(2 * dim, dim, bias=False)
        self.bias = nn.Parameter(torch.randn(1, heads, seq, seq) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        y = self.norm1(x)
        q, k, v = (p(y).view(b, t, self.heads, -1).transpose(1, 2) for p in (self.q, self.k, self.v))
        a = torch.softmax(q @ k.transpose(-1, -2) + self.bias, -1) @ v
        x = x + self.o(a.transpose(1, 2).reshape(b, t, d))
        y = self.norm2(x)
        return x + self.wo(F.gelu(self.wi0(y)) * self.wi1(y))


class Gru2(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gru = nn.GRU(8, 12, num_layers=2, batch_first=True)
        self.fc = nn.Linear(12, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.gru(x)
        return self.fc(y[:, -1])


class BiLstm(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(6, 8, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.lstm(x)
        return self.fc(y.mean(1))


class Decoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, batch_first=True)

    def forward(self, x: torch.Tensor, memory: torch.Tensor) -> torch.Tensor:
        return self.layer(x, memory)


class Audio(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c1, self.c2 = nn.Conv1d(2, 8, 5, padding=2), nn.Conv1d(8, 8, 3, stride=2)
        self.bn = nn.BatchNorm1d(8)
        self.fc = nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.max_pool1d(F.relu(self.c1(x)), 2)
        return self.fc(F.silu(self.bn(self.c2(y))).mean(-1))


class TinyVit(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, 16, 4, 4)
        self.cls = nn.Parameter(torch.randn(1, 1, 16))
        self.pos = nn.Parameter(torch.randn(1, 5, 16) * 0.1)
        layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.patch(x).flatten(2).transpose(1, 2)
        y = torch.cat([self.cls.expand(y.shape[0], -1, -1), y], 1) + self.pos
        return self.head(self.encoder(y)[:, 0])


class DsConv(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.dw1, self.pw = nn.Conv2d(4, 4, 3, padding=1, groups=4), nn.Conv2d(4, 12, 1)
        self.bn = nn.BatchNorm2d(12)
        self.dw2 = nn.Conv2d(12, 12, 3, padding=1, groups=12)
        self.fc = nn.Linear(12, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.hardswish(self.dw2(F.silu(self.bn(self.pw(self.dw1(x))))))
        return self.fc(F.adaptive_avg_pool2d(y, 1).flatten(1))


class EmbeddingClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed, self.norm, self.fc = nn.Embedding(30, 12), nn.LayerNorm(12), nn.Linear(12, 2)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.fc(self.norm(self.embed(ids)).mean(1))


class SharedSwiglu(nn.Module):
    """Three residual SwiGLU layers reading one set of weights: each weight read three times."""

    def __init__(self) -> None:
        super().__init__()
        self.gate, self.up, self.down = nn.Linear(16, 32), nn.Linear(16, 32), nn.Linear(32, 16)
        self.norm = nn.LayerNorm(16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for _ in range(3):
            x = x + self.down(F.silu(self.gate(self.norm(x))) * self.up(self.norm(x)))
        return x


def _batch_norm_stats(model: nn.Module) -> nn.Module:
    """Running statistics away from the identity, so that eval-mode batch norm does something."""
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    return model


MODELS: dict[str, Callable[[], tuple[nn.Module, tuple]]] = {
    "t5_block": lambda: (T5Block(), (torch.randn(1, 6, 16),)),
    "gru2": lambda: (Gru2(), (torch.randn(1, 5, 8),)),
    "bilstm": lambda: (BiLstm(), (torch.randn(2, 4, 6),)),
    "decoder": lambda: (Decoder(), (torch.randn(1, 5, 16), torch.randn(1, 7, 16))),
    "audio": lambda: (_batch_norm_stats(Audio()), (torch.randn(1, 2, 32),)),
    "tiny_vit": lambda: (TinyVit(), (torch.randn(1, 3, 8, 8),)),
    "dsconv": lambda: (_batch_norm_stats(DsConv()), (torch.randn(1, 4, 8, 8),)),
    "embedding_classifier": lambda: (EmbeddingClassifier(), (torch.randint(0, 30, (2, 5)),)),
    "shared_swiglu": lambda: (SharedSwiglu(), (torch.randn(2, 16),)),
}
