"""Data type helpers shared by inference, constants and the runtime."""

from __future__ import annotations

from typing import Any

import numpy as np

_ITEMSIZE = {
    "bool": 1,
    "int8": 1,
    "uint8": 1,
    "int16": 2,
    "uint16": 2,
    "float16": 2,
    "bfloat16": 2,
    "int32": 4,
    "uint32": 4,
    "float32": 4,
    "int64": 8,
    "uint64": 8,
    "float64": 8,
}


def itemsize(dtype: str) -> int:
    """Bytes per element; an unknown dtype counts as 4 bytes."""
    return _ITEMSIZE.get(dtype, 4)


def to_numpy(dtype: str) -> np.dtype:
    """The NumPy dtype that stores `dtype` (bfloat16 is stored as float32)."""
    if dtype == "bfloat16":
        return np.dtype("float32")
    return np.dtype(dtype)


def is_float(dtype: str) -> bool:
    return dtype.startswith("float") or dtype == "bfloat16"


def torch_dtype(torch: Any, dtype: str) -> Any:
    """The torch dtype that stores `dtype`; `torch` is the torch module, passed in so `ir` never imports it."""
    if dtype == "bfloat16":
        return torch.bfloat16
    return getattr(torch, str(to_numpy(dtype)))
