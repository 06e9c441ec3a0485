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


def bfloat16_bits(array: np.ndarray) -> np.ndarray | None:
    """The float32 values of bfloat16 data kept as raw 2-byte items, None for any other array.

    NumPy has no bfloat16: TVM's ``.numpy()`` of a bfloat16 tensor, saved to an
    ``.npz``, comes back as the void dtype ``|V2`` (``ml_dtypes``' ``bfloat16``
    is read the same way).  Those 16 bits are the upper half of a float32.
    """
    if not (array.dtype.kind == "V" and array.dtype.itemsize == 2) and array.dtype.name != "bfloat16":
        return None
    bits = np.ascontiguousarray(array).view(np.uint16).astype(np.uint32) << np.uint32(16)
    return bits.view(np.float32)
