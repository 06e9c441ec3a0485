"""Tiny language-model blocks: a hand-written Llama block, and GPT-2 / BERT from `transformers` configs.

GPT-2 and BERT are the real `transformers` classes built from a tiny config
with random weights (nothing is downloaded), with the eager attention
implementation so the exported graph has plain matmul/softmax.
"""

from __future__ import annotations

import math

import torch
from torch import nn


class RMSNorm(nn.Module):
    """x / sqrt(mean(x^2) + eps) * weight."""

    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaBlock(nn.Module):
    """Pre-norm decoder block: RMSNorm, rotary q/k (sin/cos, rotate_half), causal attention, SiLU-gated MLP."""

    def __init__(self, dim: int = 16, heads: int = 2, hidden: int = 32) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.norm1, self.norm2 = RMSNorm(dim), RMSNorm(dim)
        self.q, self.k, self.v, self.o = (nn.Linear(dim, dim, bias=False) for _ in range(4))
        self.gate, self.up = nn.Linear(dim, hidden, bias=False), nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, self.head_dim, 2, dtype=torch.float32) / self.head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def rotary(self, t: int) -> tuple[torch.Tensor, torch.Tensor]:
        freqs = torch.arange(t, dtype=torch.float32)[:, None] * self.inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos(), emb.sin()

    def attend(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape

        def split(h: torch.Tensor) -> torch.Tensor:
            return h.reshape(b, t, self.heads, self.head_dim).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        cos, sin = self.rotary(t)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        # An additive mask; torch.full(..., -inf) would print as R.full with a -inf fill,
        # which tvm.compile (0.27) fails to legalize.
        mask = torch.zeros(t, t).masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim) + mask
        out = torch.softmax(scores, dim=-1) @ v
        return self.o(out.transpose(1, 2).reshape(b, t, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attend(self.norm1(x))
        h = self.norm2(x)
        return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))


class HiddenStates(nn.Module):
    """Wraps a `transformers` model so that it returns plain tensors (last hidden state, and pooler output if any)."""

    def __init__(self, model: nn.Module, pooled: bool) -> None:
        super().__init__()
        self.model, self.pooled = model, pooled

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False, return_dict=True)
        if self.pooled:
            return out.last_hidden_state, out.pooler_output
        return out.last_hidden_state


def _ids_and_mask(vocab: int) -> tuple[torch.Tensor, torch.Tensor]:
    ids = torch.randint(0, vocab, (1, 6))
    mask = torch.ones(1, 6, dtype=torch.int64)
    mask[0, -1] = 0  # one padded position, so the mask matters
    return ids, mask


def llama_block() -> tuple[nn.Module, tuple]:
    return LlamaBlock(), (torch.randn(1, 6, 16),)


def gpt2() -> tuple[nn.Module, tuple]:
    from transformers import GPT2Config, GPT2Model

    config = GPT2Config(
        vocab_size=32, n_positions=16, n_embd=16, n_layer=1, n_head=2, bos_token_id=0, eos_token_id=0, pad_token_id=0
    )
    config._attn_implementation = "eager"
    return HiddenStates(GPT2Model(config), pooled=False), _ids_and_mask(32)


def bert() -> tuple[nn.Module, tuple]:
    from transformers import BertConfig, BertModel

    config = BertConfig(
        vocab_size=32,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=16,
        pad_token_id=0,
    )
    config._attn_implementation = "eager"
    return HiddenStates(BertModel(config), pooled=True), _ids_and_mask(32)


MODELS = {"llama_block": llama_block, "gpt2": gpt2, "bert": bert}
