"""The corpus's models by name: each factory returns (eval-mode module, example inputs)."""

from __future__ import annotations

import zlib
from collections.abc import Callable

import torch
import zoo_llm
import zoo_seq
import zoo_vision
from torch import nn

MODELS: dict[str, Callable[[], tuple[nn.Module, tuple]]] = {**zoo_seq.MODELS, **zoo_vision.MODELS, **zoo_llm.MODELS}


def build(name: str) -> tuple[nn.Module, tuple]:
    """Model `name` and its inputs, the same on every run: the seed is fixed per name."""
    torch.manual_seed(zlib.crc32(name.encode()))
    model, args = MODELS[name]()
    return model.eval(), args
