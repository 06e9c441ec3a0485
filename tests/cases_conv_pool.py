"""Kernel cases of the ops in ir/ops/conv_pool.py, joined into tests/test_ops.py's KERNEL_CASES.

Each case is `(op, args, attrs, reference)`: the op runs on `args` with `attrs`, its
result must have the inferred shape and dtype and agree with `reference(*args)`.
"""

from __future__ import annotations

CASES: list = []
