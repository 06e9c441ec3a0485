"""Kernel cases of the ops in ir/ops/conv.py, pool.py and resize.py, for tests/ir/ops/test_kernels.py's KERNEL_CASES.

Each case is `(op, args, attrs, reference)`: the op runs on `args` with `attrs`, its
result must have the inferred shape and dtype and agree with `reference(*args)`.

The references are written from the definitions, loop by loop over output positions
and window taps (a transposed convolution as the adjoint of the convolution it undoes,
built column by column), not from the kernels' tap-at-a-time or matrix forms.  Each
semantic choice was checked against TVM 0.27 (see tests/ir/ops/test_conv_pool.py).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

RNG = np.random.default_rng(7)


def _rand(*shape: int, dtype: str = "float32") -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def _ints(*shape: int) -> np.ndarray:
    return RNG.integers(-20, 20, size=shape).astype("int32")


def _per_axis(value, n):
    value = [value] if isinstance(value, int) else list(value)
    return value * n if len(value) == 1 else value


def _pads(padding, n):
    p = [padding] if isinstance(padding, int) else list(padding)
    p = p * 2 * n if len(p) == 1 else p * 2 if len(p) == n else p
    return p[:n], p[n:]


# -- convolutions ------------------------------------------------------------------------------


def naive_conv(x, w, strides=1, padding=0, dilation=1, groups=1):
    """N-d convolution, NC* data and OI* weight, straight from the definition."""
    n = x.ndim - 2
    s, d = _per_axis(strides, n), _per_axis(dilation, n)
    before, after = _pads(padding, n)
    o, cg, *k = w.shape
    size = x.shape[2:]
    out = [(size[i] + before[i] + after[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(n)]
    y = np.zeros((x.shape[0], o, *out))
    for b, oc in itertools.product(range(x.shape[0]), range(o)):
        g = oc // (o // groups)
        for pos in itertools.product(*map(range, out)):
            acc = 0.0
            for ic, tap in itertools.product(range(cg), itertools.product(*map(range, k))):
                idx = [pos[i] * s[i] + tap[i] * d[i] - before[i] for i in range(n)]
                if all(0 <= idx[i] < size[i] for i in range(n)):
                    acc += float(x[(b, g * cg + ic, *idx)]) * float(w[(oc, ic, *tap)])
            y[(b, oc, *pos)] = acc
    return y


def naive_conv_transpose(x, w, strides=1, padding=0, output_padding=0, dilation=1, groups=1):
    """The adjoint of the convolution (weight (C, O/groups, *K) read as OI*) from the result space to x's."""
    n = x.ndim - 2
    s, d, op = _per_axis(strides, n), _per_axis(dilation, n), _per_axis(output_padding, n)
    before, after = _pads(padding, n)
    c, og, *k = w.shape
    out = [(x.shape[2 + i] - 1) * s[i] - before[i] - after[i] + d[i] * (k[i] - 1) + op[i] + 1 for i in range(n)]
    cols = []
    for basis in np.eye(og * groups * math.prod(out)):
        e = basis.reshape(1, og * groups, *out)
        cols.append(naive_conv(e, w, s, before + after, d, groups)[0, :, *[slice(0, x.shape[2 + i]) for i in range(n)]])
    a = np.stack([col.ravel() for col in cols], axis=1)  # conv as a matrix: result-space vector -> x-space vector
    return np.stack([(a.T @ x[b].ravel()).reshape(og * groups, *out) for b in range(x.shape[0])])


# -- pooling ------------------------------------------------------------------------------------


def naive_pool(x, kind, pool_size, strides, padding, dilation=1, ceil_mode=False, count_include_pad=False):
    """max or avg pooling of NC* data: windows, padding, ceil mode and divisors as TVM defines them."""
    n = x.ndim - 2
    k, s, d = _per_axis(pool_size, n), _per_axis(strides, n), _per_axis(dilation, n)
    before, after = _pads(padding, n)
    size = x.shape[2:]
    out = []
    for i in range(n):
        num = size[i] + before[i] + after[i] - d[i] * (k[i] - 1) - 1
        o = -(-num // s[i]) + 1 if ceil_mode else num // s[i] + 1
        out.append(o - 1 if ceil_mode and (o - 1) * s[i] >= size[i] + before[i] else o)
    lowest = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    y = np.zeros(x.shape[:2] + tuple(out))
    for b, c in itertools.product(*map(range, x.shape[:2])):
        for pos in itertools.product(*map(range, out)):
            vals, counted = [], 0
            for tap in itertools.product(*map(range, k)):
                idx = [pos[i] * s[i] + tap[i] * d[i] - before[i] for i in range(n)]
                inside = all(0 <= idx[i] < size[i] for i in range(n))
                in_pad = all(-before[i] <= idx[i] < size[i] + after[i] for i in range(n))
                vals.append(float(x[(b, c, *idx)]) if inside else (0.0 if kind == "avg" else float(lowest)))
                counted += inside or (count_include_pad and in_pad)
            if kind == "max":
                y[(b, c, *pos)] = max(vals)
            else:
                y[(b, c, *pos)] = _divide(sum(vals), max(counted, 1), x.dtype)
    return y


def _divide(total: float, count: int, dtype: np.dtype) -> float:
    return total / count if dtype.kind == "f" else float(math.trunc(total / count))


def naive_adaptive(x, output_size):
    n = x.ndim - 2
    size = x.shape[2:]
    out = size if output_size is None else _per_axis(output_size, n)
    y = np.zeros(x.shape[:2] + tuple(out))
    for b, c in itertools.product(*map(range, x.shape[:2])):
        for pos in itertools.product(*map(range, out)):
            bins = [range(pos[i] * size[i] // out[i], math.ceil((pos[i] + 1) * size[i] / out[i])) for i in range(n)]
            vals = [float(x[(b, c, *idx)]) for idx in itertools.product(*bins)]
            y[(b, c, *pos)] = _divide(sum(vals), len(vals), x.dtype)
    return y


def _nhwc(fn):
    """`fn` for channel-last data: transposed to channel-first and back."""

    def ref(x, *rest):
        last = list(range(x.ndim))
        first = [0, x.ndim - 1, *last[1:-1]]
        return np.transpose(fn(np.transpose(x, first), *rest), [0, *range(2, x.ndim), 1])

    return ref


# -- resize ---------------------------------------------------------------------------------------


def _coord(mode: str, x: int, size: int, out: int) -> np.float32:
    f = np.float32
    scale = f(size) / f(out)
    if mode == "align_corners":
        return f(size - 1) / f(out - 1) * f(x) if out > 1 else f(0)
    if mode == "asymmetric":
        return scale * f(x)
    if mode == "pytorch_half_pixel" and out == 1:
        return f(0)
    return (f(x) + f(0.5)) * scale - f(0.5)


def naive_resize(x, size, method="linear", mode="half_pixel", rounding="round", alpha=-0.75, exclude=False):
    """NCHW resize, pixel by pixel: the coordinates in float32, neighbours clamped into the image."""
    h, w = x.shape[2:]
    y = np.zeros(x.shape[:2] + tuple(size))
    for i, j in itertools.product(range(size[0]), range(size[1])):
        cy, cx = _coord(mode, i, h, size[0]), _coord(mode, j, w, size[1])
        if method == "nearest_neighbor":
            ry, rx = (_round(c, rounding) for c in (cy, cx))
            y[:, :, i, j] = x[:, :, min(max(ry, 0), h - 1), min(max(rx, 0), w - 1)]
            continue
        taps = (0, 1) if method == "linear" else (-1, 0, 1, 2)
        wy, wx = (_tap_weights(c, taps, method, alpha, exclude, m) for c, m in ((cy, h), (cx, w)))
        by, bx = math.floor(cy), math.floor(cx)
        for (ty, a), (tx, b) in itertools.product(zip(taps, wy, strict=True), zip(taps, wx, strict=True)):
            y[:, :, i, j] += a * b * x[:, :, min(max(by + ty, 0), h - 1), min(max(bx + tx, 0), w - 1)]
    return np.trunc(y) if x.dtype.kind == "i" else y


def _round(c: np.float32, rounding: str) -> int:
    if rounding == "round":
        return int(np.round(c))
    if rounding == "floor":
        return math.floor(c + np.float32(1e-5))
    return math.ceil(c - np.float32(1e-5))


def _tap_weights(c, taps, method, alpha, exclude, size):
    t = float(c) - math.floor(c)
    if method == "linear":
        return [1 - t, t]
    dist = [abs(t - tap) for tap in taps]
    ws = [
        (alpha + 2) * u**3 - (alpha + 3) * u**2 + 1 if u <= 1 else alpha * (u**3 - 5 * u**2 + 8 * u - 4) for u in dist
    ]
    if exclude:
        ws = [wt if 0 <= math.floor(c) + tap < size else 0.0 for wt, tap in zip(ws, taps, strict=True)]
        ws = [wt / sum(ws) for wt in ws]
    return ws


def _resize_case(x, size, **attrs):
    names = {"coordinate_transformation_mode": "mode", "rounding_method": "rounding", "cubic_alpha": "alpha"}
    ref_kw = {names.get(k, k): v for k, v in attrs.items() if k not in ("layout", "cubic_exclude")}
    ref_kw["exclude"] = bool(attrs.get("cubic_exclude", 0))
    ref = (lambda v: naive_resize(v, size, **ref_kw)) if attrs.get("layout", "NCHW") == "NCHW" else None
    if ref is None:
        ref = _nhwc(lambda v: naive_resize(v, size, **ref_kw))
    return ("image.resize2d", (x,), {"size": size, **attrs}, ref)


_X1, _W1 = _rand(2, 4, 9), _rand(6, 2, 3)
_X3, _W3 = _rand(1, 2, 4, 5, 4), _rand(3, 2, 2, 3, 2)

CASES: list = [
    ("nn.conv1d", (_X1, _rand(5, 4, 3)), {}, naive_conv),
    (
        "nn.conv1d",
        (_X1, _W1),
        {"strides": [2], "padding": [1, 2], "dilation": [2], "groups": 2},
        lambda x, w: naive_conv(x, w, 2, [1, 2], 2, 2),
    ),
    (
        "nn.conv1d",
        (np.transpose(_X1, (0, 2, 1)), np.transpose(_W1, (2, 1, 0))),
        {"padding": 1, "groups": 2, "data_layout": "NWC", "kernel_layout": "WIO"},
        lambda x, w: np.transpose(
            naive_conv(np.transpose(x, (0, 2, 1)), np.transpose(w, (2, 1, 0)), 1, 1, 1, 2), (0, 2, 1)
        ),
    ),
    (
        "nn.conv3d",
        (_X3, _W3),
        {"strides": [1, 2, 1], "padding": [1, 0, 1]},
        lambda x, w: naive_conv(x, w, [1, 2, 1], [1, 0, 1]),
    ),
    (
        "nn.conv1d_transpose",
        (_rand(2, 4, 5), _rand(4, 3, 3)),
        {"strides": [2], "padding": [1, 0], "output_padding": [1], "groups": 2},
        lambda x, w: naive_conv_transpose(x, w, 2, [1, 0], 1, 1, 2),
    ),
    (
        "nn.conv2d_transpose",
        (_rand(1, 2, 3, 4), _rand(2, 3, 3, 2)),
        {"strides": [2, 1], "padding": [1, 0, 0, 1], "output_padding": [1, 0], "dilation": [1, 2]},
        lambda x, w: naive_conv_transpose(x, w, [2, 1], [1, 0, 0, 1], [1, 0], [1, 2]),
    ),
    (
        "nn.conv3d_transpose",
        (_rand(1, 2, 2, 3, 2), _rand(2, 2, 2, 2, 1)),
        {"strides": [1, 2, 1], "padding": [0, 1, 0]},
        lambda x, w: naive_conv_transpose(x, w, [1, 2, 1], [0, 1, 0]),
    ),
    (
        "nn.max_pool1d",
        (_rand(2, 3, 9),),
        {"pool_size": [3], "strides": [2], "padding": [1]},
        lambda x: naive_pool(x, "max", 3, 2, 1),
    ),
    (
        "nn.max_pool2d",
        (_rand(1, 3, 7, 6),),
        {"pool_size": [3, 2], "strides": [2, 2], "padding": [1, 0, 1, 1], "dilation": [1, 2], "ceil_mode": True},
        lambda x: naive_pool(x, "max", [3, 2], 2, [1, 0, 1, 1], [1, 2], True),
    ),
    (
        "nn.max_pool2d",
        (_ints(1, 6, 5, 2),),
        {"pool_size": [2, 2], "strides": [2, 2], "padding": [0, 1], "layout": "NHWC", "out_layout": "NHWC"},
        _nhwc(lambda x: naive_pool(x, "max", 2, 2, [0, 1])),
    ),
    (
        "nn.max_pool3d",
        (_rand(1, 2, 4, 5, 4),),
        {"pool_size": [2, 2, 2], "strides": [2, 2, 2]},
        lambda x: naive_pool(x, "max", 2, 2, 0),
    ),
    (
        "nn.avg_pool1d",
        (_rand(2, 3, 9),),
        {"pool_size": [3], "strides": [2], "padding": [1, 2], "ceil_mode": True},
        lambda x: naive_pool(x, "avg", 3, 2, [1, 2], 1, True, True),
    ),
    (
        "nn.avg_pool2d",
        (_rand(1, 3, 7, 7),),
        {"pool_size": [3, 3], "strides": [2, 2], "padding": [1, 1, 2, 2], "ceil_mode": True},
        lambda x: naive_pool(x, "avg", 3, 2, [1, 1, 2, 2], 1, True, False),
    ),
    (
        "nn.avg_pool2d",
        (_ints(1, 2, 6, 5),),
        {"pool_size": [3, 2], "strides": [1, 2], "padding": [1], "dilation": [2, 1], "count_include_pad": True},
        lambda x: naive_pool(x, "avg", [3, 2], [1, 2], 1, [2, 1], False, True),
    ),
    (
        "nn.avg_pool3d",
        (_rand(1, 2, 5, 4, 4, dtype="float16"),),
        {"pool_size": [2, 3, 2], "strides": [2, 1, 2], "padding": [1, 1, 0], "count_include_pad": False},
        lambda x: naive_pool(x, "avg", [2, 3, 2], [2, 1, 2], [1, 1, 0]),
    ),
    ("nn.adaptive_avg_pool1d", (_rand(2, 3, 7),), {"output_size": [3]}, lambda x: naive_adaptive(x, 3)),
    ("nn.adaptive_avg_pool2d", (_rand(1, 3, 7, 9),), {"output_size": [4, 5]}, lambda x: naive_adaptive(x, [4, 5])),
    ("nn.adaptive_avg_pool2d", (_ints(1, 2, 5, 3),), {"output_size": [7]}, lambda x: naive_adaptive(x, 7)),
    (
        "nn.adaptive_avg_pool2d",
        (_rand(1, 6, 4, 3),),
        {"output_size": [2, 3], "layout": "NHWC"},
        _nhwc(lambda x: naive_adaptive(x, [2, 3])),
    ),
    ("nn.adaptive_avg_pool3d", (_rand(1, 2, 4, 5, 3),), {"output_size": None}, lambda x: naive_adaptive(x, None)),
    (
        "nn.adaptive_avg_pool3d",
        (_rand(1, 2, 4, 5, 3),),
        {"output_size": [2, 3, 1]},
        lambda x: naive_adaptive(x, [2, 3, 1]),
    ),
    _resize_case(_rand(1, 2, 4, 5), (8, 10), method="nearest_neighbor"),
    _resize_case(
        _rand(1, 2, 6, 7),
        (4, 11),
        method="nearest_neighbor",
        coordinate_transformation_mode="asymmetric",
        rounding_method="floor",
    ),
    _resize_case(_rand(1, 2, 4, 5), (7, 9), method="linear"),
    _resize_case(_rand(1, 2, 4, 5), (7, 3), method="linear", coordinate_transformation_mode="align_corners"),
    _resize_case(
        _ints(1, 3, 2, 5), (6, 8), layout="NHWC", method="linear", coordinate_transformation_mode="asymmetric"
    ),
    _resize_case(_rand(1, 2, 5, 6), (9, 4), method="cubic", cubic_alpha=-0.5, cubic_exclude=1),
    _resize_case(_rand(1, 1, 3, 4), (5, 8), method="cubic", coordinate_transformation_mode="pytorch_half_pixel"),
]
