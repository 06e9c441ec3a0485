"""Kernel cases of the ops in ir/ops/norm.py, activation.py, pad.py and attention.py, joined into KERNEL_CASES.

Each case is `(op, args, attrs, reference)`: the op runs on `args` with `attrs`, its
result must have the inferred shape and dtype and agree with `reference(*args)`.
The references are written from the definitions, group by group, row by row or
element by element in Python floats, not with the kernels' helpers.  Tuple results
(batch_norm, dropout) are compared exactly, so their inputs make every step exact
(epsilon 0, variances that are perfect squares, momentum 1/2).  The semantics were
checked against TVM 0.27 compiled for llvm (see tests/ir/ops/test_norm.py).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

_RNG = np.random.default_rng(11)


def _f(*shape: int, dtype: str = "float32", scale: float = 1.0) -> np.ndarray:
    return (_RNG.standard_normal(shape) * scale).astype(dtype)


def _mean_var(values) -> tuple[float, float]:
    values = [float(v) for v in values]
    mean = sum(values) / len(values)
    return mean, sum((v - mean) ** 2 for v in values) / len(values)


def _cells(shape, axes):
    """Every index of `shape` grouped by the coordinates outside `axes`: {outside coords: [indices]}."""
    groups: dict = {}
    for pos in itertools.product(*map(range, shape)):
        groups.setdefault(tuple(p for i, p in enumerate(pos) if i not in axes), []).append(pos)
    return groups.values()


# -- norms -----------------------------------------------------------------------------------


def _batch_norm_ref(axis, eps, training, momentum=0.5):
    def ref(x, gamma, beta, mm, mv):
        out, new_mm, new_mv = np.empty(x.shape), mm.astype(np.float64), mv.astype(np.float64)
        for c in range(x.shape[axis]):
            mean, var = _mean_var(np.take(x, c, axis=axis).ravel()) if training else (float(mm[c]), float(mv[c]))
            for pos in itertools.product(*map(range, x.shape)):
                if pos[axis] == c:
                    out[pos] = (float(x[pos]) - mean) / math.sqrt(var + eps) * float(gamma[c]) + float(beta[c])
            if training:
                new_mm[c] = (1 - momentum) * float(mm[c]) + momentum * mean
                new_mv[c] = (1 - momentum) * float(mv[c]) + momentum * var
        return tuple(a.astype(x.dtype) for a in (out, new_mm, new_mv))

    return ref


def _normalize_groups(x, groups_of_indices, channel_of, gamma, beta, eps):
    out = np.empty(x.shape)
    for indices in groups_of_indices:
        mean, var = _mean_var(x[p] for p in indices)
        for p in indices:
            c = channel_of(p)
            out[p] = (float(x[p]) - mean) / math.sqrt(var + eps) * float(gamma[c]) + float(beta[c])
    return out


def _group_norm_ref(groups, channel_axis, axes, eps=1e-5):
    def ref(x, gamma, beta):
        cg = x.shape[channel_axis] // groups
        buckets: dict = {}
        for pos in itertools.product(*map(range, x.shape)):
            key = tuple(p for i, p in enumerate(pos) if i not in axes and i != channel_axis)
            buckets.setdefault((key, pos[channel_axis] // cg), []).append(pos)
        return _normalize_groups(x, buckets.values(), lambda p: p[channel_axis], gamma, beta, eps)

    return ref


def _instance_norm_ref(channel_axis, axes, eps=1e-5):
    def ref(x, gamma, beta):
        return _normalize_groups(x, _cells(x.shape, axes), lambda p: p[channel_axis], gamma, beta, eps)

    return ref


def _rms_norm_ref(axes, eps=1e-5):
    def ref(x, w):
        out = np.empty(x.shape)
        for indices in _cells(x.shape, axes):
            rms = math.sqrt(sum(float(x[p]) ** 2 for p in indices) / len(indices) + eps)
            for p in indices:
                out[p] = float(x[p]) / rms * float(w[tuple(p[a] for a in axes)])
        return out

    return ref


# -- activations ---------------------------------------------------------------------------------


def _elementwise(fn):
    return lambda x: np.vectorize(lambda v: fn(float(v)), otypes=[np.float64])(x)


def _log_softmax_ref(axis):
    def ref(x):
        out = np.empty(x.shape)
        for indices in _cells(x.shape, (axis % x.ndim,)):
            total = sum(math.exp(float(x[p])) for p in indices)
            for p in indices:
                out[p] = float(x[p]) - math.log(total)
        return out

    return ref


def _gelu_tanh_ref(v):
    return 0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)))


def _softplus_ref(beta, threshold):
    return lambda v: v if beta * v > threshold else math.log(1 + math.exp(beta * v)) / beta


def _selu_ref(v):
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return scale * (v if v > 0 else alpha * (math.exp(v) - 1))


def _prelu_ref(axis):
    def ref(x, alpha):
        out = np.empty(x.shape)
        for pos in itertools.product(*map(range, x.shape)):
            a = float(alpha[pos[axis] if alpha.shape[0] > 1 else 0])
            out[pos] = x[pos] if x[pos] > 0 else a * float(x[pos])
        return out

    return ref


# -- pad and attention ----------------------------------------------------------------------------------


def _pad_ref(widths, mode, value=0.0):
    """Each result element from the input index its axis maps to, written out per mode."""

    def source(o, n):
        if mode == "reflect":
            while not 0 <= o < n:
                o = -o if o < 0 else 2 * (n - 1) - o
            return o
        if mode == "replicate":
            return min(max(o, 0), n - 1)
        if mode == "circular":
            return o % n
        return o if 0 <= o < n else None

    def ref(x):
        pairs = [widths[i : i + 2] for i in range(0, len(widths), 2)]
        shape = [n + b + a for n, (b, a) in zip(x.shape, pairs, strict=True)]
        out = np.empty(shape, dtype=x.dtype)
        for pos in itertools.product(*map(range, shape)):
            src = [source(p - b, n) for p, n, (b, _) in zip(pos, x.shape, pairs, strict=True)]
            out[pos] = value if None in src else x[tuple(src)]
        return out

    return ref


def _attention_ref(scale=None, causal_mask=None):
    def ref(q, k, v, bias=None):
        b_, sq, n, d = q.shape
        skv, nk, nv = k.shape[1], k.shape[2], v.shape[2]
        offset = 0 if causal_mask == "TopLeft" else abs(sq - skv)
        out = np.zeros((b_, sq, n, v.shape[3]))
        for b, h, i in itertools.product(range(b_), range(n), range(sq)):
            hk, hv = h // (n // nk), h // (n // nv)
            keys = [j for j in range(skv) if causal_mask is None or j <= i + offset]
            s = {j: sum(float(q[b, i, h, t]) * float(k[b, j, hk, t]) for t in range(d)) for j in keys}
            s = {j: s[j] * scale if scale is not None else s[j] / math.sqrt(d) for j in keys}
            if bias is not None:  # a bias dim of 1 broadcasts
                s = {
                    j: s[j] + float(bias[tuple(min(c, m - 1) for m, c in zip(bias.shape, (b, h, i, j), strict=True))])
                    for j in keys
                }
            top = max(s.values())
            total = sum(math.exp(s[j] - top) for j in keys)
            for j in keys:
                out[b, i, h] += math.exp(s[j] - top) / total * v[b, j, hv].astype(np.float64)
        return out

    return ref


# -- inputs ---------------------------------------------------------------------------------------------

_X = _f(2, 4, 3, 3)
_C4 = (_f(4), _f(4))
# Batch-norm inputs on which every step is exact: per channel the values m - a, m + a (mean m, variance a^2).
_BN_X = np.array([[[1, 5], [-2, 0], [2, 4]], [[5, 1], [0, -2], [4, 2]]], np.float32)  # (2, 3, 2), axis 1
_BN_PARAMS = (np.array([2, 0.5, 1], np.float32), np.array([1, -1, 0.25], np.float32))
_BN_STATS = (np.array([1, -1, 2], np.float32), np.array([4, 16, 0.25], np.float32))
_WIDE = np.concatenate([_f(40, scale=3), np.array([0, 25, -25, 60, -60], np.float32)])
_Q, _K, _V = _f(2, 4, 4, 3), _f(2, 6, 2, 3), _f(2, 6, 1, 5)

CASES: list = [
    # norm.py
    (
        "nn.batch_norm",
        (_BN_X, *_BN_PARAMS, *_BN_STATS),
        {"axis": 1, "epsilon": 0.0, "training": False},
        _batch_norm_ref(1, 0.0, False),
    ),
    (
        "nn.batch_norm",
        (_BN_X, *_BN_PARAMS, *_BN_STATS),
        {"axis": -2, "epsilon": 0.0, "momentum": 0.5},
        _batch_norm_ref(1, 0.0, True),
    ),
    ("nn.group_norm", (_X, *_C4), {"num_groups": 2, "channel_axis": 1, "axes": [2, 3]}, _group_norm_ref(2, 1, (2, 3))),
    (
        "nn.group_norm",
        (_f(3, 5, 6), _f(6), _f(6)),
        {"num_groups": 3, "channel_axis": -1, "axes": [0, 1], "epsilon": 0.1},
        _group_norm_ref(3, 2, (0, 1), 0.1),
    ),
    ("nn.instance_norm", (_X, *_C4), {"channel_axis": 1, "axes": [2, 3]}, _instance_norm_ref(1, (2, 3))),
    (
        "nn.instance_norm",
        (_f(1, 8, 2, 3), _f(8), _f(8)),
        {"channel_axis": 1, "axes": [0, 2, 3]},
        _instance_norm_ref(1, (0, 2, 3)),
    ),
    ("nn.rms_norm", (_X, _f(3)), {}, _rms_norm_ref((3,))),
    ("nn.rms_norm", (_X, _f(3, 4)), {"axes": [2, 1], "epsilon": 0.5}, _rms_norm_ref((2, 1), 0.5)),
    ("nn.rms_norm", (_f(3, 64, dtype="float16", scale=30), _f(64, dtype="float16")), {}, _rms_norm_ref((1,))),
    # activation.py
    ("nn.log_softmax", (_f(3, 5, scale=10),), {}, _log_softmax_ref(-1)),
    ("nn.log_softmax", (_f(4, 3, 2),), {"axis": 1}, _log_softmax_ref(1)),
    ("nn.leakyrelu", (_WIDE,), {"alpha": 0.25}, _elementwise(lambda v: v if v > 0 else 0.25 * v)),
    ("nn.leakyrelu", (_WIDE.astype("float16"),), {}, _elementwise(lambda v: v if v > 0 else 0.01 * v)),
    ("nn.gelu_tanh", (_WIDE,), {}, _elementwise(_gelu_tanh_ref)),
    ("nn.gelu_tanh", (_WIDE.astype("float16"),), {}, _elementwise(_gelu_tanh_ref)),
    ("nn.softplus", (_WIDE,), {}, _elementwise(_softplus_ref(1.0, 20.0))),
    ("nn.softplus", (_WIDE,), {"beta": 2.0, "threshold": 5.0}, _elementwise(_softplus_ref(2.0, 5.0))),
    ("nn.selu", (_WIDE,), {}, _elementwise(_selu_ref)),
    ("nn.prelu", (_X, _f(4)), {}, _prelu_ref(1)),
    ("nn.prelu", (_X, _f(1)), {"axis": -1}, _prelu_ref(3)),
    ("nn.dropout", (_X,), {"rate": 0.2}, lambda x: (x, np.ones_like(x))),
    ("nn.dropout", (np.arange(6, dtype=np.int64),), {}, lambda x: (x, np.ones_like(x))),
    # pad.py
    (
        "nn.pad",
        (_X,),
        {"pad_width": [0, 0, 0, 0, 1, 2, 0, 1], "pad_value": 0.5},
        _pad_ref([0, 0, 0, 0, 1, 2, 0, 1], "constant", 0.5),
    ),
    (
        "nn.pad",
        (np.arange(12, dtype=np.int32).reshape(3, 4),),
        {"pad_width": [-1, 2, 1, -2], "pad_value": -2.7},
        _pad_ref([-1, 2, 1, -2], "constant", -2),
    ),
    ("nn.pad", (_f(3, 4),), {"pad_width": [2, 1, 3, 3], "pad_mode": "reflect"}, _pad_ref([2, 1, 3, 3], "reflect")),
    (
        "nn.pad",
        (_f(3, 4),),
        {"pad_width": [2, 4, -1, 3], "pad_mode": "replicate"},
        _pad_ref([2, 4, -1, 3], "replicate"),
    ),
    ("nn.pad", (_f(3, 4),), {"pad_width": [7, 1, 2, -1], "pad_mode": "circular"}, _pad_ref([7, 1, 2, -1], "circular")),
    # attention.py
    ("nn.attention", (_Q, _f(2, 6, 4, 3), _f(2, 6, 4, 5)), {}, _attention_ref()),
    ("nn.attention", (_Q, _K, _V), {"scale": 0.7, "causal_mask": "TopLeft"}, _attention_ref(0.7, "TopLeft")),
    (
        "nn.attention",
        (_f(1, 6, 2, 3), _f(1, 4, 2, 3), _f(1, 4, 2, 2)),
        {"causal_mask": "BottomRight"},
        _attention_ref(None, "BottomRight"),
    ),
    (
        "nn.attention_bias",
        (_Q, _K, _V, _f(1, 4, 1, 6)),
        {"causal_mask": "BottomRight"},
        _attention_ref(None, "BottomRight"),
    ),
    ("nn.attention_bias", (_Q, _K, _V, _f(2, 1, 4, 6)), {"scale": 0.25}, _attention_ref(0.25)),
]
