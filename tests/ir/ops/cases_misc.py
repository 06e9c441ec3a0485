"""Kernel cases of the ops in ir/ops/trig.py, numeric.py, xor.py, slice_scatter.py, search.py and median.py.

Joined into KERNEL_CASES (tests/ir/ops/test_kernels.py).  Each case is `(op, args, attrs,
reference)`; the references use Python's `math` module entry by entry, or
plain loops, not the kernels' NumPy calls.
"""

from __future__ import annotations

import math

import numpy as np

_RNG = np.random.default_rng(11)
_X = _RNG.standard_normal((3, 4)).astype(np.float32)
_UNIT = (np.tanh(_X) * 0.9).astype(np.float32)  # inside (-1, 1): asin, acos, atanh
_BIG = (np.abs(_X) + 1.0).astype(np.float32)  # at least 1: acosh
_INTS = _RNG.integers(-8, 8, size=(3, 4)).astype(np.int64)


def _entrywise(fn):
    def ref(x, *rest):
        return np.vectorize(lambda *v: fn(*map(float, v)), otypes=[np.float64])(x, *rest).astype(x.dtype)

    return ref


def _slice_scatter_ref(x, src, start, end, step, axis=0):
    out = x.copy()
    moved, src_moved = np.moveaxis(out, axis, 0), np.moveaxis(src, axis, 0)
    for i in range(x.shape[axis]):
        if start <= i < end and (i - start) % step == 0:
            moved[i] = src_moved[(i - start) // step]
    return out


def _nonzero_ref(x):
    coords = [list(pos) for pos in np.ndindex(*x.shape) if x[pos]]
    return np.array(coords, np.int64).reshape(-1, x.ndim).T


def _bucketize_ref(right):
    def ref(x, bounds):
        count = [sum(1 for b in bounds if (b <= v if right else b < v)) for v in x.reshape(-1)]
        return np.array(count, np.int64).reshape(x.shape)

    return ref


def _median_ref(x):
    values = np.empty(x.shape[0], x.dtype)
    index = np.empty(x.shape[0], np.int64)
    for r, row in enumerate(x):
        order = sorted(range(len(row)), key=lambda i: (row[i], i))
        index[r] = order[(len(row) - 1) // 2]
        values[r] = row[index[r]]
    return values, index


CASES: list = [
    # trig.py
    ("tan", (_X,), {}, _entrywise(math.tan)),
    ("asin", (_UNIT,), {}, _entrywise(math.asin)),
    ("acos", (_UNIT,), {}, _entrywise(math.acos)),
    ("atan", (_X,), {}, _entrywise(math.atan)),
    ("sinh", (_X,), {}, _entrywise(math.sinh)),
    ("cosh", (_X.astype(np.float16),), {}, _entrywise(math.cosh)),
    ("asinh", (_X,), {}, _entrywise(math.asinh)),
    ("acosh", (_BIG,), {}, _entrywise(math.acosh)),
    ("atanh", (_UNIT.astype(np.float64),), {}, _entrywise(math.atanh)),
    ("atan2", (_X, _X[::-1].copy()), {}, _entrywise(math.atan2)),
    ("atan2", (_X, np.float32([[1.0], [-1.0], [0.0]])), {}, _entrywise(math.atan2)),
    # numeric.py
    ("isnan", (np.float32([1.0, np.nan, np.inf, -np.inf]),), {}, lambda x: np.array([0, 1, 0, 0], bool)),
    ("isinf", (np.float16([1.0, np.nan, np.inf, -np.inf]),), {}, lambda x: np.array([0, 0, 1, 1], bool)),
    ("isfinite", (np.float32([1.0, np.nan, np.inf, -np.inf]),), {}, lambda x: np.array([1, 0, 0, 0], bool)),
    ("isfinite", (_INTS,), {}, lambda x: np.ones(x.shape, bool)),
    ("isnan", (_INTS,), {}, lambda x: np.zeros(x.shape, bool)),
    ("trunc", (_X * 3,), {}, _entrywise(math.trunc)),
    ("trunc", (_INTS,), {}, lambda x: x),
    # xor.py
    (
        "bitwise_xor",
        (_INTS, _INTS[::-1].copy()),
        {},
        lambda a, b: np.vectorize(lambda u, v: int(u) ^ int(v), otypes=[np.int64])(a, b),
    ),
    ("bitwise_xor", (_X > 0, np.array([True, False, True, False])), {}, lambda a, b: a != b),
    ("logical_xor", (_X > 0, _X[::-1] > 0), {}, lambda a, b: a != b),
    ("logical_xor", (np.int32([3, 0, 5]), np.int32([5, 0, 0])), {}, lambda a, b: np.int32([6, 0, 5])),
    # slice_scatter.py
    (
        "slice_scatter",
        (
            _RNG.standard_normal((2, 3, 5)).astype(np.float32),
            np.zeros((2, 3, 2), np.float32),
            np.int64(1),
            np.int64(5),
            np.int64(2),
        ),
        {"axis": 2},
        lambda x, s, a, b, c: _slice_scatter_ref(x, s, 1, 5, 2, axis=2),
    ),
    (
        "slice_scatter",
        (_INTS, -np.ones((1, 4), np.int64), np.int64(0), np.int64(1), np.int64(1)),
        {},
        lambda x, s, a, b, c: _slice_scatter_ref(x, s, 0, 1, 1),
    ),
    # search.py
    ("nonzero", (np.float32([[1, 0, 2], [0, 3, 0]]),), {}, _nonzero_ref),
    ("nonzero", (_X > 0.5,), {}, _nonzero_ref),
    ("bucketize", (_X, np.float32([-1.0, 0.0, 1.0])), {}, _bucketize_ref(False)),
    ("bucketize", (_INTS, np.int64([-2, 0, 0, 3])), {"right": True}, _bucketize_ref(True)),
    (
        "bucketize",
        (_X, np.float32([-1.0, 0.0])),
        {"out_int32": True},
        lambda x, b: _bucketize_ref(False)(x, b).astype(np.int32),
    ),
    # median.py
    ("median", (_X,), {"axis": [1]}, _median_ref),
    ("median", (np.float32([[5, 1, 5, 5], [2, 2, 2, 2]]),), {"axis": -1}, _median_ref),
    ("median", (_INTS,), {}, lambda x: np.asarray(np.sort(x.reshape(-1))[(x.size - 1) // 2])),
]
