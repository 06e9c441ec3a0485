"""Kernel cases of the ops in ir/ops/gather.py, scatter.py, einsum.py and sort.py, joined into KERNEL_CASES.

Each case is `(op, args, attrs, reference)`: the op runs on `args` with `attrs`, its
result must have the inferred shape and dtype and agree with `reference(*args)`.
The references are written out loop by loop (or with plain NumPy indexing), not
with the kernels' own helpers.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

_RNG = np.random.default_rng(7)


def _f32(*shape: int) -> np.ndarray:
    return _RNG.standard_normal(shape).astype(np.float32)


def _ix(lo: int, hi: int, *shape: int, dtype: str = "int64") -> np.ndarray:
    return _RNG.integers(lo, hi, size=shape).astype(dtype)


def _norm(i: int, n: int) -> int:
    return int(i) + n if i < 0 else int(i)


# -- references -------------------------------------------------------------------------


def _gather_elements_ref(axis):
    def ref(data, indices):
        out = np.empty(indices.shape, data.dtype)
        for pos in itertools.product(*map(range, indices.shape)):
            src = list(pos)
            src[axis] = _norm(indices[pos], data.shape[axis])
            out[pos] = data[tuple(src)]
        return out

    return ref


def _gather_nd_ref(batch_dims):
    def ref(data, indices):
        k = indices.shape[-1]
        out = np.empty((*indices.shape[:-1], *data.shape[batch_dims + k :]), data.dtype)
        for pos in itertools.product(*map(range, indices.shape[:-1])):
            coords = [_norm(c, data.shape[batch_dims + j]) for j, c in enumerate(indices[pos])]
            out[pos] = data[(*pos[:batch_dims], *coords)]
        return out

    return ref


def _scatter_elements_ref(axis, reduction):
    step = {
        "update": lambda e, u: u,
        "add": lambda e, u: e + u,
        "mul": lambda e, u: e * u,
        "mean": lambda e, u: (e + u) / 2,
        "max": max,
        "min": min,
    }[reduction]

    def ref(data, indices, updates):
        out = data.copy()
        for pos in itertools.product(*map(range, indices.shape)):  # row-major order
            dst = list(pos)
            dst[axis] = _norm(indices[pos], data.shape[axis])
            out[tuple(dst)] = step(out[tuple(dst)], updates[pos])
        return out

    return ref


def _scatter_nd_ref(reduction):
    step = {"update": lambda e, u: u, "add": lambda e, u: e + u, "max": np.maximum}[reduction]

    def ref(data, indices, updates):
        out = data.copy()
        for pos in itertools.product(*map(range, indices.shape[:-1])):
            dst = tuple(_norm(c, data.shape[j]) for j, c in enumerate(indices[pos]))
            out[dst] = step(out[dst], updates[pos])
        return out

    return ref


def _index_put_ref(accumulate):
    def ref(data, indices, values):
        out = data.copy()
        i, j = np.broadcast_arrays(*indices)
        vals = np.broadcast_to(values, i.shape)
        for pos in itertools.product(*map(range, i.shape)):
            dst = (_norm(i[pos], data.shape[0]), _norm(j[pos], data.shape[1]))
            out[dst] = out[dst] + vals[pos] if accumulate else vals[pos]
        return out

    return ref


def _one_hot_ref(indices, on, off):
    out = np.full((*indices.shape, 5), off, dtype=np.asarray(on).dtype)
    for pos in itertools.product(*map(range, indices.shape)):
        if 0 <= indices[pos] < 5:
            out[(*pos, int(indices[pos]))] = on
    return np.moveaxis(out, -1, 0)


def _rank_order(row, descending):
    """Positions that sort a 1-D row, ties in input order, NaN largest (by comparing pairs)."""
    key = [(isinstance(v, float) and math.isnan(v), v) for v in row.tolist()]
    if descending:
        return sorted(range(len(row)), key=lambda i: (not key[i][0], -key[i][1] if not key[i][0] else 0, i))
    return sorted(range(len(row)), key=lambda i: (key[i][0], key[i][1] if not key[i][0] else 0, i))


def _along_last(x, descending, k=None):
    order = np.array([_rank_order(row, descending)[:k] for row in x.reshape(-1, x.shape[-1])])
    return order.reshape((*x.shape[:-1], order.shape[-1]))


def _dss_ref(x, begin, end, strides):
    return x[tuple(slice(int(b), int(e), int(s)) for b, e, s in zip(begin, end, strides, strict=True))]


# -- inputs ---------------------------------------------------------------------------------

_X = _f32(3, 4, 5)
_TIES = np.array([[3, 1, 3, np.nan, 1, 3, -0.0, 0.0], [0, np.nan, 0, 2, 2, -1, np.nan, 0]], np.float32)
_INT_TIES = np.array([[5, -2, 5, 7, -2, 0]], np.int32)
_DATA = np.arange(20, dtype=np.float32).reshape(4, 5)

CASES: list = [
    # gather.py
    ("gather_elements", (_X, _ix(-4, 4, 3, 2, 5)), {"axis": 1}, _gather_elements_ref(1)),
    ("gather_elements", (_X, _ix(-5, 5, 2, 3, 7, dtype="int32")), {"axis": -1}, _gather_elements_ref(2)),
    ("gather_nd", (_X, _ix(-3, 3, 2, 3, 2)), {}, _gather_nd_ref(0)),
    ("gather_nd", (_X, _ix(0, 4, 3, 6, 1)), {"batch_dims": 1}, _gather_nd_ref(1)),
    ("index_tensor", (_X, (_ix(-3, 3, 2, 1), _ix(-4, 4, 3))), {}, lambda x, ix: x[ix[0], ix[1]]),
    ("index_tensor", (_X, (_ix(0, 3, 4, dtype="int32"),)), {}, lambda x, ix: x[ix[0]]),
    ("one_hot", (_ix(-1, 7, 2, 3), np.float32(1.5), np.float32(-1.0)), {"depth": 5, "axis": 0}, _one_hot_ref),
    ("one_hot", (_ix(0, 6, 4, dtype="uint8"), np.int64(1), np.int64(0)), {"depth": 5, "axis": 0}, _one_hot_ref),
    # The result shape of a slice of rank 1 or more is known only at run time (tests/ir/ops/test_gather.py).
    ("dynamic_strided_slice", (np.array(2.5, np.float32), *[np.zeros(0, np.int64)] * 3), {}, _dss_ref),
    # scatter.py
    *[
        (
            "scatter_elements",
            (_f32(3, 5), _ix(-5, 5, 2, 6), _f32(2, 6)),
            {"axis": 1, "reduction": red},
            _scatter_elements_ref(1, red),
        )
        for red in ("update", "add", "mul", "mean", "max", "min")
    ],
    ("scatter_elements", (_ix(-9, 9, 4, 3), _ix(0, 4, 6, 3), _ix(-9, 9, 6, 3)), {}, _scatter_elements_ref(0, "update")),
    ("scatter_nd", (_DATA, _ix(-4, 4, 6, 1), _f32(6, 5)), {"reduction": "add"}, _scatter_nd_ref("add")),
    ("scatter_nd", (_DATA, _ix(0, 4, 3, 2, 2), _f32(3, 2)), {}, _scatter_nd_ref("update")),
    ("scatter_nd", (_DATA, _ix(0, 4, 7, 2), _f32(7)), {"reduction": "max"}, _scatter_nd_ref("max")),
    ("index_put", (_DATA, (_ix(-4, 4, 6), _ix(-5, 5, 6)), _f32(6)), {}, _index_put_ref(False)),
    ("index_put", (_DATA, (_ix(0, 2, 3, 1), _ix(0, 2, 4)), _f32(4)), {"accumulate": True}, _index_put_ref(True)),
    # einsum.py
    ("einsum", ((_f32(4, 5), _f32(5, 3)),), {"subscripts": "ij,jk->ik"}, lambda ops: ops[0] @ ops[1]),
    (
        "einsum",
        ((_f32(2, 1, 4, 5), _f32(3, 5, 6)),),
        {"subscripts": "...ij,...jk"},
        lambda ops: np.matmul(ops[0].astype(np.float64), ops[1]),
    ),
    ("einsum", ((_f32(3, 3, 2),),), {"subscripts": "iij->ji"}, lambda ops: np.diagonal(ops[0]).copy()),
    # sort.py
    ("sort", (_TIES,), {}, lambda x: np.take_along_axis(x, _along_last(x, False), -1)),
    ("sort", (_TIES,), {"axis": 0, "descending": True}, lambda x: np.sort(x, axis=0)[::-1]),
    ("argsort", (_TIES,), {"descending": True}, lambda x: _along_last(x, True).astype(np.int32)),
    ("argsort", (_INT_TIES,), {"dtype": "int64"}, lambda x: _along_last(x, False)),
    (
        "topk",
        (_TIES,),
        {"k": 3, "dtype": "int64"},
        lambda x: (np.take_along_axis(x, _along_last(x, True, 3), -1), _along_last(x, True, 3)),
    ),
    ("topk", (_INT_TIES,), {"k": 0, "largest": False, "ret_type": "indices"}, lambda x: _along_last(x, False)),
    ("topk", (_INT_TIES,), {"k": 2, "ret_type": "values"}, lambda x: np.array([[7, 5]], np.int32)),
]
