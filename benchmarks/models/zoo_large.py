"""The seven benchmark architectures at sizes where kernels take milliseconds and weights are megabytes.

`zoo.build(name, scale="large")` builds these: the same classes as the tiny
corpus models (mlp, cnn_bn, resnet_block, attention, gpt2, bert,
llama_block), only wider and longer, so that a bench's measured step is
the kernels' and copies' time rather than the executor's per-step and
per-copy costs.  Each step stays well under 0.3 s on one CPU thread.
GPT-2 and BERT keep what the placement question is about: an embedding
table of 8 MiB (vocab 8192 x 256) that is huge in bytes and cheap in work
(a gather), beside blocks that are cheap in bytes and heavy in work.
"""

from __future__ import annotations

import torch
from torch import nn
from zoo_llm import HiddenStates, LlamaBlock
from zoo_seq import Attention, Mlp
from zoo_vision import CnnBn, ResnetBlock, randomize_bn

VOCAB, SEQ = 8192, 128


def _ids_and_mask(vocab: int, seq: int) -> tuple[torch.Tensor, torch.Tensor]:
    ids = torch.randint(0, vocab, (1, seq))
    mask = torch.ones(1, seq, dtype=torch.int64)
    mask[0, -8:] = 0  # padded positions, so the mask matters
    return ids, mask


def mlp() -> tuple[nn.Module, tuple]:
    return Mlp(1024, 1024, 256), (torch.randn(64, 1024),)


def cnn_bn() -> tuple[nn.Module, tuple]:
    return randomize_bn(CnnBn(64)), (torch.randn(1, 3, 128, 128),)


def resnet_block() -> tuple[nn.Module, tuple]:
    return randomize_bn(ResnetBlock(64)), (torch.randn(1, 64, 64, 64),)


def attention() -> tuple[nn.Module, tuple]:
    return Attention(512, 8), (torch.randn(1, 2 * SEQ, 512),)


def llama_block() -> tuple[nn.Module, tuple]:
    return LlamaBlock(512, 8, 1376), (torch.randn(1, 64, 512),)


def gpt2() -> tuple[nn.Module, tuple]:
    from transformers import GPT2Config, GPT2Model

    config = GPT2Config(
        vocab_size=VOCAB,
        n_positions=SEQ,
        n_embd=256,
        n_layer=2,
        n_head=4,
        bos_token_id=0,
        eos_token_id=0,
        pad_token_id=0,
    )
    config._attn_implementation = "eager"
    return HiddenStates(GPT2Model(config), pooled=False), _ids_and_mask(VOCAB, SEQ)


def bert() -> tuple[nn.Module, tuple]:
    from transformers import BertConfig, BertModel

    config = BertConfig(
        vocab_size=VOCAB,
        hidden_size=256,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=1024,
        max_position_embeddings=SEQ,
        pad_token_id=0,
    )
    config._attn_implementation = "eager"
    return HiddenStates(BertModel(config), pooled=True), _ids_and_mask(VOCAB, SEQ)


MODELS = {
    "mlp": mlp,
    "cnn_bn": cnn_bn,
    "resnet_block": resnet_block,
    "attention": attention,
    "gpt2": gpt2,
    "bert": bert,
    "llama_block": llama_block,
}
