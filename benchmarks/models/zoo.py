"""The corpus's models by name: each factory returns (eval-mode module, example inputs)."""

from __future__ import annotations

import zlib
from collections.abc import Callable

import torch
import zoo_large
import zoo_llm
import zoo_seq
import zoo_vision
from torch import nn

MODELS: dict[str, Callable[[], tuple[nn.Module, tuple]]] = {**zoo_seq.MODELS, **zoo_vision.MODELS, **zoo_llm.MODELS}
DYNAMIC_SHAPES = zoo_seq.DYNAMIC_SHAPES  # `torch.export`'s dynamic_shapes of the models that have symbolic dims


def dynamic_shapes(name: str) -> tuple | None:
    """The ``dynamic_shapes`` to export model `name` with, or None (every dim static)."""
    make = DYNAMIC_SHAPES.get(name)
    return None if make is None else make()


SCALES = ("tiny", "large")  # tiny: the corpus's models (tests/models); large: `zoo_large`, the benches' scaled set


def build(name: str, scale: str = "tiny") -> tuple[nn.Module, tuple]:
    """Model `name` at `scale` (`SCALES`) and its inputs, the same on every run: the seed is fixed per name."""
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; the scales are {', '.join(SCALES)}")
    factories = MODELS if scale == "tiny" else zoo_large.MODELS
    if name not in factories:
        raise ValueError(f"no model {name!r} at scale {scale!r}; there are {', '.join(sorted(factories))}")
    torch.manual_seed(zlib.crc32(name.encode()))
    model, args = factories[name]()
    return model.eval(), args
