"""Tiny sequence and tabular models: (module, example inputs) factories for the corpus."""

from __future__ import annotations

import math

import torch
from torch import nn


class Mlp(nn.Module):
    """Linear -> relu -> Linear -> relu -> Linear."""

    def __init__(self, dim: int = 16, hidden: int = 32, out: int = 8) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, out)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


class Attention(nn.Module):
    """Hand-written causal multi-head self-attention: q/k/v projections, masked_fill(-inf), softmax."""

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
        weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        return self.o((weights @ v).transpose(1, 2).reshape(b, t, d))


class EmbeddingMean(nn.Module):
    """Embedding lookup, mean over the sequence, Linear."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(32, 16)
        self.head = nn.Linear(16, 4)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.embed(ids).mean(dim=1))


class Recurrent(nn.Module):
    """One LSTM or GRU layer, batch_first; returns the output sequence and the final state(s)."""

    def __init__(self, cell: type[nn.Module]) -> None:
        super().__init__()
        self.rnn = cell(8, 16, batch_first=True)

    def forward(self, x: torch.Tensor):
        return self.rnn(x)


class WhisperFront(nn.Module):
    """Whisper's audio stem: conv1d, GELU, conv1d stride 2, GELU, to (batch, time, dim), plus positions."""

    def __init__(self, mels: int = 8, dim: int = 16, frames: int = 20) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(mels, dim, 3, padding=1)
        self.conv2 = nn.Conv1d(dim, dim, 3, stride=2, padding=1)
        self.positions = nn.Parameter(torch.randn(frames // 2, dim) * 0.1)

    def forward(self, mel: torch.Tensor) -> torch.Tensor:
        h = nn.functional.gelu(self.conv1(mel))
        h = nn.functional.gelu(self.conv2(h)).permute(0, 2, 1)
        return h + self.positions


class IndexOps(nn.Module):
    """int64 and bool tensors: argmax, topk, cumsum, gather, comparisons, where."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor, idx: torch.Tensor):
        h = self.proj(x)
        best = torch.argmax(h, dim=-1)
        values, indices = torch.topk(h, 3, dim=-1)
        picked = torch.gather(h, 1, idx)
        positive = h > 0
        cum = torch.cumsum(torch.where(positive, h, torch.zeros_like(h)), dim=-1)
        return best, values, indices, picked, cum, positive


def mlp() -> tuple[nn.Module, tuple]:
    return Mlp(), (torch.randn(2, 16),)


def attention() -> tuple[nn.Module, tuple]:
    return Attention(), (torch.randn(1, 8, 16),)


def transformer_encoder() -> tuple[nn.Module, tuple]:
    layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
    return layer, (torch.randn(1, 8, 16),)


def embedding_mean() -> tuple[nn.Module, tuple]:
    return EmbeddingMean(), (torch.randint(0, 32, (2, 6)),)


def lstm() -> tuple[nn.Module, tuple]:
    return Recurrent(nn.LSTM), (torch.randn(1, 5, 8),)


def gru() -> tuple[nn.Module, tuple]:
    return Recurrent(nn.GRU), (torch.randn(1, 5, 8),)


def whisper_front() -> tuple[nn.Module, tuple]:
    return WhisperFront(), (torch.randn(1, 8, 20),)


def index_ops() -> tuple[nn.Module, tuple]:
    return IndexOps(), (torch.randn(2, 8), torch.randint(0, 8, (2, 3)))


def mlp_dynamic() -> tuple[nn.Module, tuple]:
    return Mlp(), (torch.randn(3, 16),)


def attention_dynamic() -> tuple[nn.Module, tuple]:
    return Attention(), (torch.randn(1, 6, 16),)


# Exported with these `torch.export` dynamic shapes: TVM prints the dims as symbols with their bounds
# (``tir_var_lower_bound`` / ``tir_var_upper_bound`` in ``R.func_attr``).
DYNAMIC_SHAPES = {
    "mlp_dynamic": lambda: ({0: torch.export.Dim("batch", min=2, max=64)},),
    "attention_dynamic": lambda: ({1: torch.export.Dim("seq", min=2, max=32)},),
}

MODELS = {
    "mlp": mlp,
    "mlp_dynamic": mlp_dynamic,
    "attention_dynamic": attention_dynamic,
    "attention": attention,
    "transformer_encoder": transformer_encoder,
    "embedding_mean": embedding_mean,
    "lstm": lstm,
    "gru": gru,
    "whisper_front": whisper_front,
    "index_ops": index_ops,
}
