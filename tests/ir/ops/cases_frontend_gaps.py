"""Kernel cases of the ops TVM's torch.fx and ONNX frontends print that vdplace lacked.

``R.square``, ``R.log_add_exp``, ``R.outer``, ``R.eye``, ``R.eye_like``,
``R.nn.pixel_shuffle``, ``R.nn.nll_loss``, ``R.left_shift``,
``R.right_shift``, ``R.image.resize3d``, ``R.meshgrid`` and ``R.size``.
Joined into KERNEL_CASES (tests/ir/ops/test_kernels.py).  Each case is `(op, args,
attrs, reference)`; the references are written entry by entry
with Python's `math` and plain loops, not the kernels' NumPy calls.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

_RNG = np.random.default_rng(31)
_A = _RNG.standard_normal((3, 4)).astype(np.float32)
_B = (_RNG.standard_normal((1, 4)) * 50).astype(np.float32)
_X = _RNG.standard_normal((1, 2, 8, 2, 3)).astype(np.float32)
_LOGP = np.log(_RNG.dirichlet(np.ones(4), size=(3, 2)).transpose(0, 2, 1)).astype(np.float32)  # (3, 4, 2)
_T = np.array([[0, 3], [1, 1], [2, 0]], dtype=np.int64)
_W = np.float32([0.5, 1.0, 2.0, 0.25])
_N = np.int16([1, -5, 7, -32768])
_V = _RNG.standard_normal((1, 2, 3, 4, 2)).astype(np.float32)
_RESIZE = {"roi": None, "rounding_method": "", "cubic_alpha": -0.75, "cubic_exclude": 0, "extrapolation_value": 0.0}


def _entrywise(fn, dtype):
    def ref(*xs):
        b = np.broadcast_arrays(*xs)
        return np.array([fn(*vals) for vals in zip(*(x.ravel().tolist() for x in b), strict=True)], dtype).reshape(
            b[0].shape
        )

    return ref


def _log_add_exp(a: float, b: float) -> float:
    hi = max(a, b)
    return hi + math.log(math.exp(a - hi) + math.exp(b - hi))


def _eye_ref(n: int, m: int, k: int, dtype: str):
    return lambda *a: np.array([[1 if c - r == k else 0 for c in range(m)] for r in range(n)], dtype)


def _pixel_shuffle_ref(r: int):
    def ref(x, factor=None):
        *lead, c, h, w = x.shape
        out = np.empty((*lead, c // (r * r), h * r, w * r), x.dtype)
        for ch in range(c // (r * r)):
            for y in range(h * r):
                for z in range(w * r):
                    out[..., ch, y, z] = x[..., ch * r * r + (y % r) * r + z % r, y // r, z // r]
        return out

    return ref


def _nll_ref(reduction: str, ignore: int, weighted: bool):
    def ref(p, t, *w):
        weight = w[0] if weighted else np.ones(p.shape[1], np.float32)
        losses = np.zeros(t.shape)
        total = 0.0
        for idx in np.ndindex(*t.shape):
            c = int(t[idx])
            if c != ignore:
                losses[idx] = -float(weight[c]) * float(p[(idx[0], c, *idx[1:])])
                total += float(weight[c])
        if reduction == "none":
            return losses
        return losses.sum() if reduction == "sum" else losses.sum() / total

    return ref


def _trilinear_ref(out: tuple[int, int, int]):
    """Half-pixel trilinear resize of NCDHW data, one output element at a time over its 8 neighbours."""

    def ref(x, size=None):
        n, c, *ins = x.shape
        res = np.zeros((n, c, *out))
        for pos in np.ndindex(*out):
            taps = []
            for o, length, size_out in zip(pos, ins, out, strict=True):
                coord = (o + 0.5) * length / size_out - 0.5
                low = math.floor(coord)
                frac = coord - low
                taps.append([(min(max(low, 0), length - 1), 1 - frac), (min(max(low + 1, 0), length - 1), frac)])
            for (d, wd), (h, wh), (w, ww) in itertools.product(*taps):
                res[:, :, pos[0], pos[1], pos[2]] += wd * wh * ww * x[:, :, d, h, w]
        return res

    return ref


def _nearest3d_ref(out: tuple[int, int, int]):
    """Asymmetric nearest resize (floor): output i of an axis reads input floor(i * in / out)."""

    def ref(x, size=None):
        ins = x.shape[2:]
        res = np.empty((*x.shape[:2], *out), x.dtype)
        for pos in np.ndindex(*out):
            axes = zip(pos, ins, out, strict=True)
            src = tuple(min(int(math.floor(o * length / m + 1e-5)), length - 1) for o, length, m in axes)
            res[:, :, pos[0], pos[1], pos[2]] = x[:, :, src[0], src[1], src[2]]
        return res

    return ref


def _meshgrid_ref(indexing: str):
    def ref(tensors):
        vals = [np.reshape(t, -1) for t in tensors]
        lengths = [len(v) for v in vals]
        xy = indexing == "xy" and len(vals) > 1
        if xy:
            lengths[0], lengths[1] = lengths[1], lengths[0]
        grids = []
        for i, v in enumerate(vals):
            g = np.empty(lengths, v.dtype)
            for pos in np.ndindex(*lengths):
                k = pos[i]
                if xy and i < 2:
                    k = pos[1 - i]
                g[pos] = v[k]
            grids.append(g)
        return tuple(grids)

    return ref


CASES: list = [
    ("square", (_A,), {}, _entrywise(lambda a: a * a, np.float32)),
    ("square", (np.int8([3, -4, 12]),), {}, lambda x: np.int8([9, 16, -112])),  # 144 wraps, as in TVM
    ("log_add_exp", (_A, _B), {}, _entrywise(_log_add_exp, np.float64)),
    ("log_add_exp", (np.float16([1000.0, -3.0]), np.float16([999.0, -3.0])), {}, _entrywise(_log_add_exp, np.float64)),
    ("outer", (_A[0], _A[:, 1].copy()), {}, lambda a, b: [[x * y for y in b] for x in a]),
    ("outer", (np.int32([1, -2]), np.int32([3, 4, 5])), {}, lambda a, b: [[3, 4, 5], [-6, -8, -10]]),
    ("eye", (np.int64(3), np.int64(5), np.int64(2)), {"dtype": "float32"}, _eye_ref(3, 5, 2, "float32")),
    ("eye", (np.int64(4), np.int64(2), np.int64(-1)), {"dtype": "int32"}, _eye_ref(4, 2, -1, "int32")),
    ("eye_like", (_A, np.int64(0)), {}, _eye_ref(3, 4, 0, "float32")),
    ("eye_like", (_A, np.int64(-2)), {"dtype": "bool"}, _eye_ref(3, 4, -2, "bool")),
    ("nn.pixel_shuffle", (_X,), {"upscale_factor": 2}, _pixel_shuffle_ref(2)),
    ("nn.pixel_shuffle", (_X[0, 0],), {"upscale_factor": 1}, _pixel_shuffle_ref(1)),
    ("nn.nll_loss", (_LOGP, _T), {}, _nll_ref("mean", -100, False)),
    ("nn.nll_loss", (_LOGP, _T, _W), {"reduction": "sum", "ignore_index": 1}, _nll_ref("sum", 1, True)),
    ("nn.nll_loss", (_LOGP, _T, _W), {"reduction": "none"}, _nll_ref("none", -100, True)),
    ("nn.nll_loss", (_LOGP[0, :, 0].copy(), np.array(2)), {"reduction": "mean"}, lambda p, t: -p[2]),
    ("left_shift", (_N, np.int16([2, 3, 1, 0])), {}, lambda a, b: np.int16([4, -40, 14, -32768])),
    ("right_shift", (_N, np.int16([1])), {}, lambda a, b: np.int16([0, -3, 3, -16384])),
    ("right_shift", (np.uint8([255, 16]), np.uint8([4, 4])), {}, lambda a, b: np.uint8([15, 1])),
    ("image.resize3d", (_V,), {"size": (5, 2, 7), **_RESIZE}, _trilinear_ref((5, 2, 7))),
    (
        "image.resize3d",
        (_V,),
        {"size": (2, 6, 3), **_RESIZE, "method": "nearest_neighbor", "coordinate_transformation_mode": "asymmetric"},
        _nearest3d_ref((2, 6, 3)),
    ),
    ("meshgrid", ((_A[0], _A[1, :3].copy()),), {}, _meshgrid_ref("ij")),
    ("meshgrid", ((_A[0], _A[1, :3].copy(), _A[2, :2].copy()),), {"indexing": "xy"}, _meshgrid_ref("xy")),
    ("meshgrid", ((np.int32([4, 5]),),), {"indexing": "xy"}, _meshgrid_ref("xy")),
    ("meshgrid", ((np.array(2.5, np.float32), _A[0]),), {}, _meshgrid_ref("ij")),
    ("size", (_X,), {}, lambda x: 1 * 2 * 8 * 2 * 3),
    ("size", (np.zeros((0, 3), np.int8),), {}, lambda x: 0),
]
