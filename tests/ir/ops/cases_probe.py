"""Kernel cases of what a probe of TVM's PyTorch frontend found missing or wrong.

``R.stack``, ``R.hamming_window``, ``R.assert_op`` and ``R.print`` (new ops),
add and multiply on bool tensors, ``R.astype`` to bfloat16 (rounded) and
``R.clip`` of an integer tensor with infinite bounds.  Joined into
KERNEL_CASES (tests/ir/ops/test_kernels.py).  Each case is `(op, args, attrs,
reference)`; the references are written from the definitions with Python's
`math` and plain loops, not the kernels' NumPy calls.
"""

from __future__ import annotations

import math

import numpy as np

_RNG = np.random.default_rng(23)
_A = _RNG.standard_normal((4, 3)).astype(np.float32)
_B = _RNG.standard_normal((4, 3)).astype(np.float32)
_M1 = np.array([[True, True, False, False]])
_M2 = np.array([[True, False, True, False]])


def _stack_ref(axis: int):
    def ref(tensors):
        rows = [np.asarray(t) for t in tensors]
        out = np.empty((len(rows), *rows[0].shape), rows[0].dtype)
        for i, r in enumerate(rows):
            out[i] = r
        return np.moveaxis(out, 0, axis)

    return ref


def hamming_ref(n: int, periodic: bool, alpha: float, beta: float) -> list[float]:
    """torch.hamming_window's definition, entry by entry."""
    if n == 1:
        return [1.0]
    big = n + 1 if periodic else n
    return [alpha - beta * math.cos(2 * math.pi * k / (big - 1)) for k in range(n)]


def bfloat16_ref(v: float) -> float:
    """The bfloat16 nearest to `v` (8 significant bits, float32's exponent range), ties to even."""
    if v == 0 or not math.isfinite(v):
        return v
    m, e = math.frexp(v)  # v = m * 2**e, 0.5 <= |m| < 1
    bits = 8 - max(0, -126 - (e - 1))  # fewer bits below the smallest normal
    r = round(m * 2.0**bits) * 2.0 ** (e - bits)  # Python's round: half to even
    return math.copysign(math.inf, v) if abs(r) > 3.3895313892515355e38 else r


def _entrywise(fn, dtype):
    def ref(*arrays):
        return np.vectorize(fn, otypes=[dtype])(*arrays)

    return ref


_BF16_VALUES = np.float32([0.12573022, -0.13210486, 1.00390625, 1.01171875, -3.0, 3.3961776e38, 1e-40, 0.0])

CASES: list = [
    # stack
    ("stack", ((_A, _B),), {"axis": 1}, _stack_ref(1)),
    ("stack", ((_A, _B, _A),), {"axis": -1}, _stack_ref(2)),
    ("stack", ((np.arange(6).reshape(2, 3), -np.arange(6).reshape(2, 3)),), {}, _stack_ref(0)),
    ("stack", ((_A,),), {"axis": 0}, _stack_ref(0)),
    # hamming_window
    (
        "hamming_window",
        (np.int64(8), np.bool_(True), np.float64(0.54), np.float64(0.46)),
        {"dtype": "float32"},
        lambda *a: np.float32(hamming_ref(8, True, 0.54, 0.46)),
    ),
    (
        "hamming_window",
        (np.int64(5), np.bool_(False), np.float64(0.5), np.float64(0.5)),
        {"dtype": "float64"},
        lambda *a: np.float64(hamming_ref(5, False, 0.5, 0.5)),
    ),
    (
        "hamming_window",
        (np.int64(1), np.bool_(True), np.float64(0.54), np.float64(0.46)),
        {"dtype": "float16"},
        lambda *a: np.float16([1.0]),
    ),
    # effects: the kernels return the empty tuple
    ("assert_op", (np.array(True),), {"format": "never shown"}, lambda c: ()),
    ("assert_op", (np.bool_(True), _A, np.int64(3)), {"format": "{} {}"}, lambda c, a, b: ()),
    ("print", (), {"format": "R.print with no values"}, lambda: ()),
    ("print", (_A[0], np.int64(3)), {"format": ""}, lambda a, b: ()),
    # bool masks: add is logical or, multiply logical and
    ("add", (_M1, _M2), {}, _entrywise(lambda a, b: a or b, bool)),
    ("multiply", (_M1, _M2), {}, _entrywise(lambda a, b: a and b, bool)),
    ("add", (_M1.T.copy(), _M2), {}, _entrywise(lambda a, b: a or b, bool)),
    # astype to bfloat16 (stored as float32) rounds to bfloat16 precision
    ("astype", (_BF16_VALUES,), {"dtype": "bfloat16"}, _entrywise(bfloat16_ref, np.float32)),
    ("astype", (np.float64([1.00390625, 257.0, 259.0]),), {"dtype": "bfloat16"}, _entrywise(bfloat16_ref, np.float32)),
    ("astype", (np.int64([257, 259, -1025]),), {"dtype": "bfloat16"}, _entrywise(bfloat16_ref, np.float32)),
    # clip: an infinite bound of an integer tensor is no bound; out-of-range bounds saturate
    (
        "clip",
        (np.int64([3, -2, 2**62]), np.int64(0), np.float64(math.inf)),
        {},
        lambda x, lo, hi: _entrywise(lambda v: max(v, 0), np.int64)(x),
    ),
    (
        "clip",
        (np.int64([3, -2, -(2**62)]), np.float64(-math.inf), np.int64(1)),
        {},
        lambda x, lo, hi: _entrywise(lambda v: min(v, 1), np.int64)(x),
    ),
    (
        "clip",
        (np.int8([-100, 5, 100]), np.int64(-1000), np.int64(1000)),
        {},
        lambda x, lo, hi: x,
    ),
    (
        "clip",
        (np.uint8([0, 5, 200]), np.float64(-1e30), np.float64(7.9)),
        {},
        lambda x, lo, hi: _entrywise(lambda v: min(v, 7), np.uint8)(x),
    ),
]
