"""The op library: struct-info inference, NumPy kernels, work estimates, errors.

Every registered op must have a kernel case in `KERNEL_CASES` (checked by
`test_every_op_has_a_kernel_case`): each case runs inference through the
builder, runs the kernel, checks that the result has exactly the inferred
shape and dtype, and compares it with plain NumPy.
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.ir.ops import (
    cases_conv_pool,
    cases_dynamic,
    cases_frontend_gaps,
    cases_gather,
    cases_misc,
    cases_norm,
    cases_probe,
    cases_qdq,
    cases_sampling,
    cases_tir,
    cases_vision,
)
from vdplace import placement, runtime
from vdplace.ir import InferenceError, ModuleBuilder, VDevice, all_ops, get_op, parse, script
from vdplace.ir.dtype import to_numpy
from vdplace.ir.expr import Call, ShapeExpr, Var
from vdplace.ir.normalize import call_struct_info
from vdplace.ir.op import NO_WORK, Work, data_bytes
from vdplace.ir.struct_info import (
    ObjectStructInfo,
    PrimStructInfo,
    ShapeStructInfo,
    StructInfo,
    TensorStructInfo,
    TupleStructInfo,
)
from vdplace.ir.vdevice import DeviceSpec

CPU, GPU = VDevice("llvm"), VDevice("cuda", 0)
RNG = np.random.default_rng(0)


def T(shape, dtype="float32", ndim=-1, vdevice=None) -> TensorStructInfo:
    return TensorStructInfo(shape, dtype, ndim, vdevice)


def _call(op_name: str, *sinfos: StructInfo, **attrs: Any) -> Call:
    """A normalized call on variables of the given struct infos (defaults filled by the builder)."""
    f = ModuleBuilder([CPU, GPU]).function("f", [])
    return f.call(op_name, *[Var(f"a{i}", s) for i, s in enumerate(sinfos)], **attrs)


def infer(op_name: str, *sinfos: StructInfo, **attrs: Any) -> StructInfo:
    return _call(op_name, *sinfos, **attrs).struct_info


def _sinfo_of(value: Any) -> StructInfo:
    if isinstance(value, np.generic):  # a NumPy scalar stands for a prim value (R.prim_value)
        return PrimStructInfo(str(value.dtype), value.item())
    if isinstance(value, tuple):
        return TupleStructInfo([_sinfo_of(v) for v in value])
    if isinstance(value, str):  # a string (R.str) is an object
        return ObjectStructInfo()
    return T(value.shape, str(value.dtype))


def _check_matches(sinfo: StructInfo, value: Any) -> None:
    """The kernel delivered what inference promised."""
    if isinstance(sinfo, TupleStructInfo):
        assert isinstance(value, tuple) and len(value) == len(sinfo.fields)
        for s, v in zip(sinfo.fields, value, strict=True):
            _check_matches(s, v)
    elif isinstance(sinfo, ShapeStructInfo):
        assert value == sinfo.values and all(type(d) is int for d in value)
    else:
        assert isinstance(sinfo, TensorStructInfo)
        assert isinstance(value, np.ndarray), type(value)
        if sinfo.shape is None:  # a data-dependent shape: inference knows the rank at most
            assert sinfo.ndim in (-1, value.ndim)
        else:  # a symbolic dim (match_cast's) stands for whatever length the run has
            assert len(value.shape) == len(sinfo.shape)
            assert all(type(d) is not int or d == n for d, n in zip(sinfo.shape, value.shape, strict=True))
        assert value.dtype == to_numpy(sinfo.dtype)


def run(op_name: str, *args: Any, **attrs: Any) -> Any:
    """Infer, run the kernel, check the result against the inferred struct info."""
    call = _call(op_name, *[_sinfo_of(a) for a in args], **attrs)
    given = iter(args)  # a shape passed by keyword is a ShapeExpr argument: the kernel gets its dims
    kernel_args = [tuple(a.values) if isinstance(a, ShapeExpr) else next(given) for a in call.args]
    out = get_op(op_name).kernel(*kernel_args, **call.attrs)
    _check_matches(call.struct_info, out)
    return out


def rand(*shape: int, dtype: str = "float32") -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def ints(*shape: int, lo: int = -9, hi: int = 10, dtype: str = "int32") -> np.ndarray:
    return RNG.integers(lo, hi, size=shape).astype(dtype)


def _erf(x):
    return np.vectorize(math.erf)(x)


def naive_conv2d(x, w, strides=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    """The definition, loop by loop."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    top, left, bottom, right = padding
    xp = np.zeros((n, c, h + top + bottom, wd + left + right), dtype=np.float64)
    xp[:, :, top : top + h, left : left + wd] = x
    oh = (h + top + bottom - dilation[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd + left + right - dilation[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for b in range(n):
        for oc in range(o):
            g = oc // og
            for i in range(oh):
                for j in range(ow):
                    acc = 0.0
                    for ic in range(cg):
                        for r in range(kh):
                            for s in range(kw):
                                acc += (
                                    xp[
                                        b,
                                        g * cg + ic,
                                        i * strides[0] + r * dilation[0],
                                        j * strides[1] + s * dilation[1],
                                    ]
                                    * w[oc, ic, r, s]
                                )
                    out[b, oc, i, j] = acc
    return out


def _layer_norm_ref(x, g, b, axes, eps=1e-5):
    m = x.mean(axis=axes, keepdims=True)
    v = x.var(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


# (op, args, attrs, reference) -- reference(*args) gives the expected value.
Case = tuple[str, tuple, dict, Callable[..., Any]]
_A, _B = rand(2, 3), rand(3)
_I, _J = ints(2, 3), ints(3, lo=1)
_X4 = rand(2, 4, 7, 6)
KERNEL_CASES: list[Case] = [
    ("add", (_A, _B), {}, np.add),
    ("subtract", (_A, _B), {}, np.subtract),
    ("multiply", (_A, _B), {}, np.multiply),
    ("divide", (_A, _B + 3), {}, np.divide),
    (
        "divide",
        (np.array([7, -7, 7, -7, 6]), np.array([2, 2, -2, -2, -3])),
        {},
        lambda a, b: np.array([3, -3, -3, 3, -2]),
    ),
    ("floor_divide", (_I, _J), {}, np.floor_divide),
    ("shape_to_tensor", (), {"expr": (2, 3, 5)}, lambda: np.array([2, 3, 5], np.int64)),
    ("floor_mod", (np.array([7, -7, 7, -7]), np.array([3, 3, -3, -3])), {}, lambda a, b: np.array([1, 2, -2, -1])),
    ("floor_mod", (np.array([5.5, -5.5], "float32"), np.array([2.0, 2.0], "float32")), {}, lambda a, b: [1.5, 0.5]),
    ("mod", (np.array([7, -7, 7, -7]), np.array([3, 3, -3, -3])), {}, lambda a, b: np.array([1, -1, 1, -1])),
    ("power", (np.abs(_A), _B), {}, np.power),
    ("maximum", (_A, _B), {}, np.maximum),
    ("minimum", (_I, _J), {}, np.minimum),
    ("equal", (_I, _J), {}, np.equal),
    ("not_equal", (_I, _J), {}, np.not_equal),
    ("less", (_A, _B), {}, np.less),
    ("less_equal", (_I, _J), {}, np.less_equal),
    ("greater", (_A, _B), {}, np.greater),
    ("greater_equal", (np.ones((), np.float32), _B), {}, np.greater_equal),
    ("add", (np.array(2.0, np.float32), np.array(3.0, np.float32)), {}, np.add),
    ("where", (_A > 0, _A, _B), {}, np.where),
    ("where", (np.array([True, False, True]), _I, np.array(7, np.int32)), {}, np.where),
    ("negative", (_I,), {}, np.negative),
    ("abs", (_A,), {}, np.abs),
    ("exp", (_A,), {}, np.exp),
    ("log", (np.abs(_A) + 0.1,), {}, np.log),
    ("sqrt", (np.abs(_A),), {}, np.sqrt),
    ("tanh", (_A,), {}, np.tanh),
    ("sigmoid", (_A * 10,), {}, lambda x: 1 / (1 + np.exp(-x.astype(np.float64)))),
    ("sigmoid", (np.array([-20, -12, 0, 12, 20], np.float16),), {}, lambda x: 1 / (1 + np.exp(-x.astype(np.float64)))),
    ("nn.relu", (_A,), {}, lambda x: np.maximum(x, 0)),
    ("nn.relu", (np.array(-3, np.int8),), {}, lambda x: np.array(0, np.int8)),
    ("nn.gelu", (np.linspace(-12, 12, 97).astype(np.float64),), {}, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    ("nn.gelu", (_A.astype(np.float16),), {}, lambda x: 0.5 * x * (1 + _erf(x.astype(np.float64) / math.sqrt(2)))),
    ("nn.silu", (_A,), {}, lambda x: x / (1 + np.exp(-x))),
    ("nn.silu", (np.array(1.5, np.float32),), {}, lambda x: x / (1 + np.exp(-x))),
    ("nn.softmax", (rand(2, 3, 4),), {"axis": 1}, lambda x: np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)),
    (
        "nn.softmax",
        (np.array([[1000.0, 1000.0], [-1e4, 0]], np.float32),),
        {},
        lambda x: np.array([[0.5, 0.5], [0, 1]]),
    ),
    (
        "nn.layer_norm",
        (rand(2, 3, 4), rand(4), rand(4)),
        {},
        lambda x, g, b: _layer_norm_ref(x, g, b, -1),
    ),
    (
        "nn.layer_norm",
        (rand(2, 3, 4), rand(4, 3), rand(4, 3)),
        {"axes": [2, 1], "epsilon": 1e-3},
        lambda x, g, b: _layer_norm_ref(x, g.T, b.T, (1, 2), 1e-3),
    ),
    (
        "nn.layer_norm",
        (rand(3, 5), rand(3), rand(3)),
        {"axes": 0, "center": False, "scale": False},
        lambda x, g, b: _layer_norm_ref(x, 1.0, 0.0, 0),
    ),
    ("nn.conv2d", (_X4, rand(5, 4, 3, 3)), {}, naive_conv2d),
    (
        "nn.conv2d",
        (_X4, rand(6, 2, 3, 2)),
        {"strides": [2, 1], "padding": [1, 2], "dilation": 2, "groups": 2},
        lambda x, w: naive_conv2d(x, w, (2, 1), (1, 2, 1, 2), (2, 2), 2),
    ),
    (
        "nn.conv2d",
        (_X4, rand(4, 1, 2, 2)),
        {"strides": 3, "padding": [0, 1, 2, 3], "groups": 4},
        lambda x, w: naive_conv2d(x, w, (3, 3), (0, 1, 2, 3), (1, 1), 4),
    ),
    (
        "nn.conv2d",
        (ints(1, 2, 4, 4, dtype="int8"), ints(3, 2, 3, 3, dtype="int8")),
        {"padding": 1, "out_dtype": "int32"},
        lambda x, w: naive_conv2d(x, w, padding=(1, 1, 1, 1)),
    ),
    ("matmul", (rand(3, 4), rand(4, 5)), {}, np.matmul),
    ("matmul", (rand(2, 1, 3, 4), rand(5, 4, 2)), {}, np.matmul),
    ("matmul", (rand(4), rand(2, 4, 3)), {}, np.matmul),
    ("matmul", (rand(2, 3, 4), rand(4)), {}, np.matmul),
    ("matmul", (rand(4), rand(4)), {}, np.matmul),
    ("matmul", (rand(3, 4, dtype="float16"), rand(4, 2, dtype="float16")), {}, np.matmul),
    (
        "matmul",
        (ints(3, 4, dtype="int8"), ints(4, 2, dtype="int8")),
        {"out_dtype": "int32"},
        lambda a, b: a.astype(np.int32) @ b.astype(np.int32),
    ),
    ("permute_dims", (rand(2, 3, 4),), {}, np.transpose),
    ("permute_dims", (rand(2, 3, 4),), {"axes": [1, -1, 0]}, lambda x: x.transpose(1, 2, 0)),
    ("reshape", (rand(2, 3, 4),), {"shape": (4, -1)}, lambda x: x.reshape(4, 6)),
    ("reshape", (rand(2, 3, 4),), {"shape": (24,)}, lambda x: x.reshape(24)),
    ("concat", ((rand(2, 3), rand(4, 3)),), {}, lambda t: np.concatenate(t)),
    ("concat", ((rand(2, 3), rand(2, 1)),), {"axis": -1}, lambda t: np.concatenate(t, axis=1)),
    ("concat", ((rand(2, 3), rand(5)),), {"axis": None}, lambda t: np.concatenate(t, axis=None)),
    ("split", (rand(2, 7),), {"indices_or_sections": 3, "axis": 1}, lambda x: (x[:, :3], x[:, 3:6], x[:, 6:])),
    ("split", (rand(5, 2),), {"indices_or_sections": 4}, lambda x: (x[:2], x[2:4], x[4:], x[5:])),
    ("split", (rand(6, 2),), {"indices_or_sections": [2, 5, 9]}, lambda x: (x[:2], x[2:5], x[5:], x[6:])),
    ("split", (rand(6),), {"indices_or_sections": [4, 1]}, lambda x: (x[:4], x[4:4], x[1:])),
    ("broadcast_to", (rand(3, 1),), {"shape": (2, 3, 4)}, lambda x: np.broadcast_to(x, (2, 3, 4))),
    ("astype", (_A * 10,), {"dtype": "int32"}, lambda x: x.astype(np.int32)),
    ("astype", (_I,), {"dtype": "float16"}, lambda x: x.astype(np.float16)),
    ("take", (rand(4, 5), np.array([[0, 3], [2, 2]])), {"axis": 1}, lambda x, i: np.take(x, i, axis=1)),
    ("take", (rand(4, 5), np.array([1, 19])), {}, lambda x, i: np.take(x, i)),
    ("take", (rand(4), np.array([-1, 4, 9])), {"axis": 0, "mode": "clip"}, lambda x, i: x[[0, 3, 3]]),
    ("take", (rand(4), np.array([-1, 5])), {"axis": 0, "mode": "wrap"}, lambda x, i: x[[3, 1]]),
    (
        "take",
        (rand(2, 3), np.array([0, 3, 2, -4])),
        {"axis": 1, "mode": "nan"},
        lambda x, i: np.stack([x[:, 0], np.full(2, np.nan), x[:, 2], np.full(2, np.nan)], axis=1),
    ),
    ("sum", (rand(2, 3, 4),), {"axis": [0, 2]}, lambda x: x.sum(axis=(0, 2))),
    ("sum", (_I.astype(np.int8),), {"keepdims": True}, lambda x: x.sum(keepdims=True).astype(np.int8)),
    ("sum", (rand(1000, dtype="float16"),), {}, lambda x: x.astype(np.float64).sum()),
    ("mean", (rand(2, 3, 4),), {"axis": -1, "keepdims": True}, lambda x: x.mean(axis=-1, keepdims=True)),
    ("mean", (np.array([[1, 2], [4, 4]], np.int32),), {"axis": 1}, lambda x: np.array([1, 4])),
    ("max", (rand(2, 3, 4),), {"axis": 1}, lambda x: x.max(axis=1)),
    ("max", (_I,), {}, np.max),
    ("zeros", (), {"shape": (2, 3), "dtype": "int64"}, lambda: np.zeros((2, 3), np.int64)),
    ("ones", (), {"shape": (), "dtype": "float16"}, lambda: np.ones((), np.float16)),
    ("full", (np.array(2.5, np.float32),), {"shape": (2, 2)}, lambda v: np.full((2, 2), 2.5)),
    ("full", (np.array(2.5, np.float32),), {"shape": (3,), "dtype": "int32"}, lambda v: np.full(3, 2, np.int32)),
    ("shape_of", (rand(2, 3),), {}, lambda x: (2, 3)),
    ("hint_on_device", (_A,), {"device": DeviceSpec("cuda", 0)}, lambda x: x),
    ("to_vdevice", (_A,), {"dst_vdevice": CPU}, lambda x: x),
    # -- axis and slicing ops (ir/ops/index.py)
    ("expand_dims", (_A,), {"axis": 1}, lambda x: x[:, None, :]),
    ("expand_dims", (_A,), {"axis": [-1, 0]}, lambda x: x[None, :, :, None]),
    ("squeeze", (rand(1, 3, 1),), {}, lambda x: x.reshape(3)),
    ("squeeze", (rand(1, 3, 1),), {"axis": [-1]}, lambda x: x.reshape(1, 3)),
    ("flatten", (rand(2, 3, 4),), {}, lambda x: x.reshape(-1)),
    ("flatten", (np.array(5, np.int32),), {}, lambda x: np.array([5])),
    (
        "strided_slice",
        (rand(8, 9, 10),),
        {"axes": [0, -1], "begin": [1, 8], "end": [8, 0], "strides": [2, -3]},
        lambda x: x[1:8:2, :, 8:0:-3],
    ),
    ("strided_slice", (rand(4, 5),), {"axes": [1], "begin": [-3], "end": [100]}, lambda x: x[:, -3:]),
    ("flip", (_I,), {"axis": -1}, lambda x: x[:, ::-1]),
    ("tile", (_A,), {"repeats": [2, 1, 3]}, lambda x: np.tile(x, (2, 1, 3))),
    ("repeat", (_A,), {"repeats": 2, "axis": 0}, lambda x: np.repeat(x, 2, axis=0)),
    ("repeat", (_I,), {"repeats": 3}, lambda x: np.repeat(x, 3)),
    # -- *_like creation
    ("zeros_like", (_A,), {}, np.zeros_like),
    ("ones_like", (_A,), {"dtype": "int8"}, lambda x: np.ones(x.shape, np.int8)),
    ("full_like", (_I, np.array(2.5, np.float32)), {}, lambda x, v: np.full(x.shape, 2, np.int32)),
    # -- unary math and logic (ir/ops/math.py)
    ("rsqrt", (np.abs(_A) + 0.1,), {}, lambda x: 1 / np.sqrt(x)),
    ("erf", (np.linspace(-5, 5, 101).astype(np.float32),), {}, _erf),
    ("erf", (np.array([1e-6, -0.3, 0.7], np.float64),), {}, _erf),
    ("sin", (_A,), {}, np.sin),
    ("cos", (_A.astype(np.float16),), {}, lambda x: np.cos(x.astype(np.float64))),
    ("log1p", (np.abs(_A),), {}, np.log1p),
    ("round", (np.array([0.5, 1.5, 2.5, -0.5, -1.7], np.float32),), {}, lambda x: np.array([0, 2, 2, 0, -2])),
    ("round", (_I,), {}, lambda x: x),
    ("ceil", (_A,), {}, np.ceil),
    ("floor", (_A,), {}, np.floor),
    ("sign", (_I,), {}, np.sign),
    ("logical_not", (_A > 0,), {}, np.logical_not),
    ("logical_and", (_A > 0, _B > 0), {}, np.logical_and),
    ("logical_or", (_A > 0, _B > 0), {}, np.logical_or),
    ("bitwise_and", (_I, _J), {}, np.bitwise_and),
    ("bitwise_or", (_I, _J), {}, np.bitwise_or),
    ("bitwise_not", (_I,), {}, np.invert),
    # -- more reductions, scans
    ("min", (rand(2, 3, 4),), {"axis": [0, 2], "keepdims": True}, lambda x: x.min(axis=(0, 2), keepdims=True)),
    ("prod", (_I,), {"axis": 1}, lambda x: x.prod(axis=1)),
    ("argmax", (rand(2, 3, 4),), {"axis": 1}, lambda x: x.argmax(axis=1)),
    ("argmax", (_I,), {"keepdims": True}, lambda x: np.array(x.argmax()).reshape(1, 1)),
    ("argmin", (rand(2, 3),), {"axis": -1, "keepdims": True}, lambda x: x.argmin(axis=-1, keepdims=True)),
    ("variance", (rand(2, 3, 4),), {"axis": [1, 2]}, lambda x: x.astype(np.float64).var(axis=(1, 2))),
    ("std", (rand(2, 3),), {"keepdims": True}, lambda x: x.astype(np.float64).std(keepdims=True)),
    ("cumsum", (_I,), {"axis": 1}, lambda x: np.cumsum(x, axis=1)),
    ("cumsum", (_I,), {"dtype": "float32", "exclusive": True}, lambda x: np.concatenate([[0], np.cumsum(x)[:-1]])),
    ("tril", (rand(2, 3, 4), np.int64(1)), {}, lambda x, k: np.tril(x, 1)),
    ("triu", (_I, np.int64(-1)), {}, lambda x, k: np.triu(x, -1)),
    ("clip", (_A, np.float64(-0.5), np.float64(0.5)), {}, lambda x, lo, hi: np.clip(x, -0.5, 0.5)),
    ("clip", (_I, np.int64(0), np.int64(6)), {}, lambda x, lo, hi: np.clip(x, 0, 6)),
    ("arange", (np.int64(0), np.int64(14), np.int64(3)), {}, lambda a, b, c: np.arange(0, 14, 3)),
    (
        "arange",
        (np.int64(1), np.float64(0), np.float64(-0.25)),
        {"dtype": "float16"},
        lambda a, b, c: np.array([1, 0.75, 0.5, 0.25]),
    ),
    ("cumprod", (_J,), {"axis": 0, "exclusive": True}, lambda x: np.concatenate([[1], np.cumprod(x)[:-1]])),
]
# The cases of the op families kept in their own modules (tests/cases_*.py).
KERNEL_CASES += cases_norm.CASES + cases_conv_pool.CASES + cases_gather.CASES + cases_misc.CASES + cases_probe.CASES
KERNEL_CASES += cases_sampling.CASES
KERNEL_CASES += cases_frontend_gaps.CASES
KERNEL_CASES += cases_vision.CASES
KERNEL_CASES += cases_qdq.CASES
KERNEL_CASES += cases_tir.CASES
KERNEL_CASES += cases_dynamic.CASES


def _tolerance(value: Any) -> float:
    if isinstance(value, tuple) or value.dtype.kind != "f":
        return 0.0
    return {2: 2e-3, 4: 2e-5}.get(value.dtype.itemsize, 1e-6)


def _case_id(case: Case) -> str:
    return case[0]


def test_every_op_has_a_kernel_case():
    missing = set(all_ops()) - {case[0] for case in KERNEL_CASES}
    assert not missing, f"ops without a kernel case in tests/ir/ops/test_kernels.py: {sorted(missing)}"


@pytest.mark.parametrize("case", KERNEL_CASES, ids=_case_id)
def test_kernel_agrees_with_numpy_and_with_inference(case):
    op_name, args, attrs, reference = case
    with np.errstate(over="raise", invalid="raise"):  # no overflow or NaN warnings from a kernel
        out = run(op_name, *args, **attrs)
    expected = reference(*args)
    if isinstance(out, tuple):
        assert len(out) == len(expected)
        for o, e in zip(out, expected, strict=True):
            np.testing.assert_array_equal(o, e)
    else:
        np.testing.assert_allclose(out, np.asarray(expected, dtype=np.float64), rtol=_tolerance(out), atol=1e-6)


@pytest.mark.parametrize("name", sorted(all_ops()))
def test_a_non_tensor_argument_is_an_inference_error(name):
    op = get_op(name)
    if not op.expr_params:
        pytest.skip("the op takes no expression argument")
    case = next(c for c in KERNEL_CASES if c[0] == name)
    if not case[1]:
        pytest.skip("the op's only expression argument is its shape")
    sinfos = [_sinfo_of(a) for a in case[1]]
    sinfos[0] = ShapeStructInfo((2, 3))
    with pytest.raises(InferenceError, match=rf"R\.{name}: .*(tensor|tuple)"):
        infer(name, *sinfos, **case[2])


@pytest.mark.parametrize("name", sorted(all_ops()))
def test_work_is_non_negative_and_writes_at_most_the_result(name):
    op_name, args, attrs, _ = next(c for c in KERNEL_CASES if c[0] == name)
    call = _call(op_name, *[_sinfo_of(a) for a in args], **attrs)
    work = get_op(name).work([a.struct_info for a in call.args], call.struct_info, call.attrs)
    assert isinstance(work, Work)
    assert all(isinstance(v, float) and v >= 0 for v in (work.flops, work.bytes_read, work.bytes_written))
    assert work.bytes_written <= data_bytes([call.struct_info])


def test_default_work_is_one_flop_per_element_reading_each_argument_once():
    work = get_op("add").work([T((4, 5)), T((5,))], T((4, 5)))
    assert work == Work(20.0, (20 + 5) * 4.0, 20 * 4.0)
    assert work.bytes == 25 * 4 + 20 * 4


def test_views_and_device_ops_do_no_work():
    for name, args, out in (
        ("reshape", [T((4, 6))], T((24,))),
        ("permute_dims", [T((4, 6))], T((6, 4))),
        ("split", [T((4, 6))], TupleStructInfo([T((2, 6)), T((2, 6))])),
        ("to_vdevice", [T((4, 6))], T((4, 6))),
        ("shape_of", [T((4, 6))], ShapeStructInfo((4, 6))),
    ):
        assert get_op(name).work(args, out) == NO_WORK, name


def test_symbolic_dims_count_as_one_in_work():
    assert get_op("nn.relu").work([T(("n", 8))], T(("n", 8))).flops == 8


def test_works_add_and_scale():
    assert Work(1, 2, 3) + Work(4, 5, 6) == Work(5, 7, 9)
    assert Work(1, 2, 3) * 2 == Work(2, 4, 6)


def test_ir_imports_neither_torch_nor_the_runtime_nor_placement():
    code = (
        "import sys; from vdplace.ir import all_ops; all_ops(); "
        "bad = [m for m in sys.modules if m == 'torch' or m.startswith(('vdplace.runtime', 'vdplace.placement'))]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- parameters as TVM names them ---------------------------------------------


@pytest.mark.parametrize(
    "name, params",
    [
        ("nn.softmax", [("data", None), ("axis", -1)]),
        ("matmul", [("x1", None), ("x2", None), ("out_dtype", None)]),
        ("permute_dims", [("x", None), ("axes", None)]),
        ("split", [("x", None), ("indices_or_sections", None), ("axis", 0)]),
        ("reshape", [("x", None), ("shape", None)]),
        ("concat", [("tensors", None), ("axis", 0)]),
        ("take", [("x", None), ("indices", None), ("axis", None), ("mode", "fast")]),
        ("full", [("shape", None), ("fill_value", None), ("dtype", None)]),
        ("shape_of", [("expr", None)]),
        ("sum", [("x", None), ("axis", None), ("keepdims", False)]),
    ],
)
def test_parameter_names_and_order_follow_tvm(name, params):
    assert [p.name for p in get_op(name).params] == [n for n, _ in params]


def test_conv2d_and_layer_norm_parameters_follow_tvm():
    assert [p.name for p in get_op("nn.conv2d").params] == [
        "data",
        "weight",
        "strides",
        "padding",
        "dilation",
        "groups",
        "data_layout",
        "kernel_layout",
        "out_layout",
        "out_dtype",
    ]
    assert [p.name for p in get_op("nn.layer_norm").params] == [
        "data",
        "gamma",
        "beta",
        "axes",
        "epsilon",
        "center",
        "scale",
    ]


# -- elementwise ------------------------------------------------------------------


def test_binary_broadcasting_with_symbolic_and_unknown_shapes():
    assert infer("add", T(("n", 1)), T((4,))) == T(("n", 4))
    assert infer("add", T(("n", 4)), T(("n", 4))) == T(("n", 4))
    assert infer("multiply", T(None, ndim=3), T((2, 3))) == T(None, ndim=3)
    assert infer("less", T((2, 3)), T((3,))) == T((2, 3), "bool")
    assert infer("add", T(None), T((3,))) == T(None, ndim=-1)


def test_binary_shape_and_dtype_mismatches():
    with pytest.raises(InferenceError, match="do not broadcast"):
        infer("add", T((2, 3)), T((4,)))
    with pytest.raises(InferenceError, match="dtypes float32 and float16 differ"):
        infer("equal", T((2,)), T((2,), "float16"))


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tanh", "sigmoid", "nn.gelu", "nn.silu", "nn.softmax"])
def test_float_only_ops_reject_integer_tensors(name):
    with pytest.raises(InferenceError, match=rf"R\.{name}: expects a float tensor, got dtype int32"):
        infer(name, T((2,), "int32"))


@pytest.mark.parametrize("name", ["subtract", "divide", "floor_divide", "power", "mod", "floor_mod"])
def test_arithmetic_on_bool_tensors_is_rejected(name):
    with pytest.raises(InferenceError, match=rf"R\.{name}: arithmetic on bool tensors"):
        infer(name, T((2,), "bool"), T((2,), "bool"))
    assert infer("maximum", T((2,), "bool"), T((2,), "bool")) == T((2,), "bool")


def test_integer_divide_is_exact_for_large_int64():
    big = np.array([2**62 + 1], np.int64)
    assert run("divide", big, np.array([1], np.int64))[0] == 2**62 + 1


def test_float16_sigmoid_is_accurate_and_silent():
    x = np.linspace(-30, 30, 61).astype(np.float16)
    with np.errstate(over="raise", invalid="raise"):
        out = run("sigmoid", x)
    np.testing.assert_allclose(out, 1 / (1 + np.exp(-x.astype(np.float64))), atol=1e-3)


def test_gelu_relative_accuracy_over_a_wide_range():
    x = np.linspace(-20, 20, 4001)
    out = run("nn.gelu", x)
    ref = 0.5 * x * np.vectorize(math.erfc)(-x / math.sqrt(2))
    nz = ref != 0
    assert np.max(np.abs(out[nz] / ref[nz] - 1)) < 1e-6
    assert run("nn.gelu", np.array([-np.inf, np.inf]))[0] == 0


def test_result_device_is_left_to_the_device_rule():
    """Inference is device-free; the normalizer puts a same-rule result on its args' device."""
    op = get_op("matmul")
    assert op.infer([T((2, 3), vdevice=GPU), T((3, 4), vdevice=GPU)], {"out_dtype": None}).vdevice is None
    args = [Var("a", T((2, 3), vdevice=GPU)), Var("b", T((3, 4)))]
    assert call_struct_info(op, args, {"out_dtype": None}, [CPU, GPU], None) == T((2, 4), vdevice=GPU)
    fill = Var("v", T((), vdevice=GPU))
    assert infer("full", fill.struct_info, shape=(2,)).vdevice == GPU
    assert infer("shape_of", T((2, 3), vdevice=GPU)) == ShapeStructInfo((2, 3))


# -- nn -----------------------------------------------------------------------------


def test_softmax_axis_out_of_range():
    with pytest.raises(InferenceError, match="axis 2 is out of range for a tensor of rank 2"):
        infer("nn.softmax", T((2, 3)), axis=2)
    assert infer("nn.softmax", T(None, ndim=-1), axis=5) == T(None)


def test_layer_norm_inference_and_errors():
    assert infer("nn.layer_norm", T(("n", 8)), T((8,)), T((8,))) == T(("n", 8))
    assert infer("nn.layer_norm", T((2, 3, 4)), T((3, 4)), T(None, ndim=2), axes=(1, 2)) == T((2, 3, 4))
    with pytest.raises(InferenceError, match="gamma has shape"):
        infer("nn.layer_norm", T((2, 3)), T((2,)), T((3,)))
    with pytest.raises(InferenceError, match="beta must have rank 1"):
        infer("nn.layer_norm", T((2, 3)), T((3,)), T((1, 3)))
    with pytest.raises(InferenceError, match="dtypes float32 and float16 differ"):
        infer("nn.layer_norm", T((2, 3)), T((3,), "float16"), T((3,), "float16"))
    with pytest.raises(InferenceError, match="repeat an axis"):
        infer("nn.layer_norm", T((2, 3)), T((3, 3)), T((3, 3)), axes=(1, -1))
    with pytest.raises(InferenceError, match="epsilon must be a number"):
        infer("nn.layer_norm", T((2, 3)), T((3,)), T((3,)), epsilon="small")


def test_conv2d_inference():
    assert infer("nn.conv2d", T((1, 3, 32, 32)), T((16, 3, 3, 3)), padding=1) == T((1, 16, 32, 32))
    assert infer("nn.conv2d", T((1, 3, 32, 31)), T((8, 3, 3, 3)), strides=2) == T((1, 8, 15, 15))
    assert infer("nn.conv2d", T((1, 4, 9, 9)), T((8, 2, 3, 3)), groups=2, dilation=[2, 1]) == T((1, 8, 5, 7))
    sym = infer("nn.conv2d", T(("b", 3, "h", "w")), T((8, 3, 3, 3)), strides=[1, 2], padding=[1, 0])
    assert sym == T(("b", 8, "h", "(w - 3) // 2 + 1"))
    assert infer("nn.conv2d", T(("b", 3, "h", 5)), T((8, 3, 3, 3))) == T(("b", 8, "h - 2", 3))
    assert infer("nn.conv2d", T(None, ndim=4), T((8, 3, 3, 3))) == T(None, ndim=4)
    assert infer("nn.conv2d", T((1, 3, 5, 5), "int8"), T((2, 3, 1, 1), "int8"), out_dtype="int32").dtype == "int32"
    assert infer("nn.conv2d", T((1, 3, 5, 5)), T((2, 3, 1, 1)), out_dtype="void", out_layout="NCHW").dtype == "float32"


@pytest.mark.parametrize(
    "data, weight, attrs, message",
    [
        ((1, 3, 8, 8), (4, 2, 3, 3), {}, "data has 3 channels but weight expects 2 per group"),
        ((1, 4, 8, 8), (3, 2, 3, 3), {"groups": 2}, "3 output channels do not divide into 2 groups"),
        ((1, 3, 8, 8), (4, 3, 3, 3), {"data_layout": "NHWC"}, "data_layout 'NHWC' is not supported"),
        ((1, 3, 8, 8), (4, 3, 3, 3), {"kernel_layout": "HWIO"}, "kernel_layout 'HWIO' is not supported"),
        ((1, 3, 8, 8), (4, 3, 3, 3), {"out_layout": "NHWC"}, "out_layout 'NHWC' is not supported"),
        ((1, 3, 2, 8), (4, 3, 3, 3), {}, "vertical window"),
        ((1, 3, 8, 8), (4, 3, 3, 3), {"padding": [1, 2, 3]}, "padding takes 1, 2 or 4 values"),
        ((1, 3, 8, 8), (4, 3, 3, 3), {"strides": [0, 1]}, "strides must be positive"),
        ((1, 3, 8), (4, 3, 3, 3), {}, r"data \(NCHW\) must have rank 4"),
        ((1, 3, 8, 8), (4, 3, 3, 3), {"groups": 0}, "groups must be positive"),
    ],
)
def test_conv2d_errors(data, weight, attrs, message):
    with pytest.raises(InferenceError, match=message):
        infer("nn.conv2d", T(data), T(weight), **attrs)


def test_conv2d_dtype_mismatch_without_out_dtype():
    with pytest.raises(InferenceError, match="dtypes float32 and float16 differ"):
        infer("nn.conv2d", T((1, 3, 8, 8)), T((4, 3, 3, 3), "float16"))


def test_conv2d_work_counts_multiply_adds():
    op = get_op("nn.conv2d")
    work = op.work([T((1, 3, 8, 8)), T((4, 3, 3, 3))], T((1, 4, 6, 6)))
    assert work.flops == 2 * 4 * 6 * 6 * 3 * 3 * 3
    assert work.bytes_read == (3 * 8 * 8 + 4 * 3 * 3 * 3) * 4 and work.bytes_written == 4 * 6 * 6 * 4


def test_conv2d_random_shapes_against_the_loop():
    for _ in range(5):
        g = int(RNG.integers(1, 3))
        cg, og = int(RNG.integers(1, 3)), int(RNG.integers(1, 3))
        kh, kw = int(RNG.integers(1, 4)), int(RNG.integers(1, 4))
        x = rand(1, cg * g, 8, 7)
        w = rand(og * g, cg, kh, kw)
        strides = tuple(int(s) for s in RNG.integers(1, 3, 2))
        dilation = tuple(int(s) for s in RNG.integers(1, 3, 2))
        padding = tuple(int(s) for s in RNG.integers(0, 3, 4))
        out = run("nn.conv2d", x, w, strides=strides, dilation=dilation, padding=padding, groups=g)
        np.testing.assert_allclose(out, naive_conv2d(x, w, strides, padding, dilation, g), rtol=1e-4, atol=1e-5)


# -- where ----------------------------------------------------------------------------


def test_where_inference_broadcasts_the_three_tensors():
    assert infer("where", T((1, 3), "bool"), T(("n", 1)), T((3,))) == T(("n", 3))
    assert infer("where", T((), "bool"), T((2, 3), "int8"), T((2, 3), "int8")) == T((2, 3), "int8")
    assert infer("where", T(None, "bool", ndim=1), T((2, 3)), T((3,))) == T(None, ndim=2)
    assert infer("where", T(None, "bool"), T((2, 3)), T((3,))) == T(None)


def test_where_errors_name_the_mismatch():
    with pytest.raises(InferenceError, match="R.where: condition must be a bool tensor, got dtype float32"):
        infer("where", T((3,)), T((3,)), T((3,)))
    with pytest.raises(InferenceError, match="R.where: dtypes float32 and int32 differ"):
        infer("where", T((3,), "bool"), T((3,)), T((3,), "int32"))
    with pytest.raises(InferenceError, match=r"R.where: shapes \(2,\) and \(3,\) do not broadcast"):
        infer("where", T((2,), "bool"), T((3,)), T((3,)))


WHERE_SOURCE = """
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

    @R.function
    def main(c: R.Tensor((2, 3), "bool"), x: R.Tensor((2, 3), "float32"), y: R.Tensor((3,), "float32")):
        z = R.where(c, x, y)
        return z
"""


def test_where_parses_prints_and_runs():
    mod = parse(WHERE_SOURCE)
    text = script(mod)
    assert 'z: R.Tensor((2, 3), dtype="float32") = R.where(c, x, y)' in text
    assert script(parse(text)) == text
    c, x, y = rand(2, 3) > 0, rand(2, 3), rand(3)
    vm = runtime.VirtualMachine(runtime.compile(placement.place(mod, default="host").module))
    np.testing.assert_array_equal(vm.run("main", c, x, y, profile=True), np.where(c, x, y))
    assert vm.profile.work_by_device["cpu"] == Work(6, 6 + 24 + 12, 24)


# -- matmul ----------------------------------------------------------------------------


def test_matmul_inference():
    assert infer("matmul", T(("n", 4)), T((4, 8))) == T(("n", 8))
    assert infer("matmul", T((2, 1, 3, 4)), T((5, 4, 2))) == T((2, 5, 3, 2))
    assert infer("matmul", T((4,)), T((4,))) == T(())
    assert infer("matmul", T((4,)), T(("b", 4, 3))) == T(("b", 3))
    assert infer("matmul", T(("m", "k")), T(("k2", "n"))) == T(("m", "n"))
    assert infer("matmul", T(None, ndim=3), T((4, 5))) == T(None, ndim=3)
    assert infer("matmul", T(None, ndim=1), T(None, ndim=2)) == T(None, ndim=1)
    assert infer("matmul", T(None), T((4, 5))) == T(None)
    assert infer("matmul", T((2, 3), "int8"), T((3, 4), "int8"), out_dtype="int32") == T((2, 4), "int32")


def test_matmul_errors():
    with pytest.raises(
        InferenceError, match=r"reduction dims differ: x1 \(2, 3\) has 3 columns, x2 \(4, 5\) has 4 rows"
    ):
        infer("matmul", T((2, 3)), T((4, 5)))
    with pytest.raises(InferenceError, match="dtypes float32 and float16 differ"):
        infer("matmul", T((2, 3)), T((3, 5), "float16"))
    with pytest.raises(InferenceError, match="do not broadcast"):
        infer("matmul", T((2, 2, 3)), T((3, 3, 5)))
    with pytest.raises(InferenceError, match="operand 1 is a scalar"):
        infer("matmul", T((2, 3)), T(()))
    with pytest.raises(InferenceError, match="out_dtype must be one of"):
        infer("matmul", T((2, 3)), T((3, 5)), out_dtype="float8")


def test_matmul_work_is_2mnk():
    op = get_op("matmul")
    work = op.work([T((7, 2, 3)), T((3, 5))], T((7, 2, 5)))
    assert work == Work(2 * 7 * 2 * 5 * 3, (7 * 2 * 3 + 3 * 5) * 4, 7 * 2 * 5 * 4)


# -- manipulation ------------------------------------------------------------------------


def test_permute_dims_inference_and_errors():
    assert infer("permute_dims", T(("n", 3, 4))) == T((4, 3, "n"))
    assert infer("permute_dims", T(None, ndim=3), axes=[2, 0, 1]) == T(None, ndim=3)
    assert infer("permute_dims", T(None), axes=[1, 0]) == T(None, ndim=2)
    with pytest.raises(InferenceError, match="has 2 entries for a tensor of rank 3"):
        infer("permute_dims", T((2, 3, 4)), axes=[1, 0])
    with pytest.raises(InferenceError, match="repeat an axis"):
        infer("permute_dims", T((2, 3)), axes=[1, -1])
    with pytest.raises(InferenceError, match="axis 2 is out of range"):
        infer("permute_dims", T((2, 3)), axes=[2, 0])
    with pytest.raises(InferenceError, match="axes must be an integer"):
        infer("permute_dims", T((2, 3)), axes=["a", 0])


def test_reshape_inference():
    assert infer("reshape", T((2, 3, 4)), shape=(6, 1, -1)) == T((6, 1, 4))
    assert infer("reshape", T(("n", 4)), shape=(-1,)) == T(("n * 4",))
    assert infer("reshape", T(("n", 4)), shape=(2, -1)) == T((2, "n * 2"))
    assert infer("reshape", T(("n", "m")), shape=("m", -1)) == T(("m", "n"))
    assert infer("reshape", T(("n", 4)), shape=(3, -1)) == T(None, ndim=2)  # not exact: unknown
    assert infer("reshape", T(("n", 4)), shape=(8, 3)) == T((8, 3))  # symbolic: accepted
    assert infer("reshape", T(None, ndim=2), shape=(6,)) == T((6,))
    assert infer("reshape", T(None), shape=(-1, 2)) == T(None, ndim=2)


def test_reshape_errors():
    with pytest.raises(InferenceError, match=r"cannot reshape \(2, 3\) \(6 elements\) into \(4, 2\) \(8 elements\)"):
        infer("reshape", T((2, 3)), shape=(4, 2))
    with pytest.raises(InferenceError, match="cannot reshape"):
        infer("reshape", T((2, 3)), shape=(4, -1))
    with pytest.raises(InferenceError, match="more than one -1"):
        infer("reshape", T((2, 3)), shape=(-1, -1))
    with pytest.raises(InferenceError, match="negative dim"):
        infer("reshape", T((2, 3)), shape=(-2, -3))
    with pytest.raises(InferenceError, match="shape must be a shape"):
        infer("reshape", T((2, 3)), shape=6)


def test_reshape_kernel_solves_one_unbound_symbolic_dim():
    assert get_op("reshape").kernel(rand(4, 6), shape=("n", 3)).shape == (8, 3)
    with pytest.raises(ValueError, match="more than one dim to infer"):
        get_op("reshape").kernel(rand(4, 6), shape=("n", "m"))


def test_concat_inference_and_errors():
    tup = TupleStructInfo
    assert infer("concat", tup([T(("n", 3)), T((2, 3)), T(("m", 3))])) == T(("n + m + 2", 3))
    assert infer("concat", tup([T(("n", 3)), T((2, "k"))]), axis=1) == T((2, "k + 3"))
    assert infer("concat", tup([T((2, 3)), T(None, ndim=2)]), axis=1) == T(None, ndim=2)
    assert infer("concat", tup([T(None), T(None)])) == T(None)
    assert infer("concat", tup([T((2, 3)), T((4,))]), axis=None) == T((10,))
    with pytest.raises(InferenceError, match="differ at axis 1"):
        infer("concat", tup([T((2, 3)), T((2, 4))]))
    with pytest.raises(InferenceError, match="different ranks"):
        infer("concat", tup([T((2, 3)), T((2,))]))
    with pytest.raises(InferenceError, match="different dtypes float16, float32"):
        infer("concat", tup([T((2, 3)), T((2, 3), "float16")]))
    with pytest.raises(InferenceError, match="empty tuple"):
        infer("concat", tup([]))
    with pytest.raises(InferenceError, match="field 1 of tensors must be a tensor"):
        infer("concat", tup([T((2,)), ShapeStructInfo((2,))]))
    with pytest.raises(InferenceError, match="axis 2 is out of range"):
        infer("concat", tup([T((2,)), T((2,))]), axis=2)


def test_concat_result_follows_the_tuple_device():
    args = [Var("t", TupleStructInfo([T((2,), vdevice=GPU), T((3,), vdevice=GPU)]))]
    assert call_struct_info(get_op("concat"), args, {"axis": 0}, [CPU, GPU], None) == T((5,), vdevice=GPU)


def test_split_inference():
    fields = lambda s: TupleStructInfo([T(d) for d in s])  # noqa: E731
    assert infer("split", T((2, 10)), indices_or_sections=4, axis=1) == fields([(2, 3), (2, 3), (2, 3), (2, 1)])
    assert infer("split", T((10,)), indices_or_sections=[3, 7]) == fields([(3,), (4,), (3,)])
    assert infer("split", T(("n", 2)), indices_or_sections=[3, 7]) == fields([(3, 2), (4, 2), ("n - 7", 2)])
    assert infer("split", T(("n", 2)), indices_or_sections=1) == fields([("n", 2)])
    assert infer("split", T(("n", 2)), indices_or_sections=2) == TupleStructInfo([T(None, ndim=2)] * 2)
    assert infer("split", T(None, ndim=2), indices_or_sections=[1]) == TupleStructInfo([T(None, ndim=2)] * 2)
    with pytest.raises(InferenceError, match="number of sections must be positive"):
        infer("split", T((4,)), indices_or_sections=0)
    with pytest.raises(InferenceError, match="axis -3 is out of range"):
        infer("split", T((4, 2)), indices_or_sections=2, axis=-3)
    with pytest.raises(InferenceError, match="indices_or_sections must be an integer"):
        infer("split", T((4, 2)), indices_or_sections=[1, "k"])


def test_broadcast_to_inference_and_errors():
    assert infer("broadcast_to", T(("n", 1)), shape=("n", 4)) == T(("n", 4))
    assert infer("broadcast_to", T(None), shape=(2, 3)) == T((2, 3))
    with pytest.raises(InferenceError, match=r"cannot broadcast shape \(2, 3\) to \(2, 4\)"):
        infer("broadcast_to", T((2, 3)), shape=(2, 4))
    with pytest.raises(InferenceError, match="lower rank"):
        infer("broadcast_to", T((2, 3)), shape=(3,))
    assert get_op("broadcast_to").kernel(rand(3, 1), shape=("n", 2)).shape == (3, 2)


def test_astype_and_take_inference_and_errors():
    assert infer("astype", T(("n",), ndim=1), dtype="float16") == T(("n",), "float16")
    with pytest.raises(InferenceError, match="dtype must be one of"):
        infer("astype", T((2,)), dtype="float128")
    assert infer("take", T(("m", "n")), T(("i",), "int64"), axis=1) == T(("m", "i"))
    assert infer("take", T((4, 5)), T((2, 3), "int32"), axis=0) == T((2, 3, 5))
    assert infer("take", T(None, ndim=2), T((2, 3), "int32"), axis=0) == T(None, ndim=3)
    with pytest.raises(InferenceError, match="indices must be an integer tensor, got dtype float32"):
        infer("take", T((4,)), T((2,)), axis=0)
    with pytest.raises(InferenceError, match="mode must be one of"):
        infer("take", T((4,)), T((2,), "int32"), mode="raise")
    with pytest.raises(InferenceError, match="mode 'nan' needs a float tensor"):
        infer("take", T((4,), "int32"), T((2,), "int32"), mode="nan")
    with pytest.raises(IndexError):
        run("take", rand(4), np.array([4]), axis=0)


# -- reductions ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["sum", "mean", "max"])
def test_reduction_inference(name):
    assert infer(name, T(("n", 3, 4))) == T(())
    assert infer(name, T(("n", 3, 4)), axis=1) == T(("n", 4))
    assert infer(name, T(("n", 3, 4)), axis=[0, -1], keepdims=True) == T((1, 3, 1))
    assert infer(name, T(None, ndim=3), axis=[0, 1]) == T(None, ndim=1)
    assert infer(name, T(None)) == T(())
    assert infer(name, T(None), axis=0, keepdims=True) == T(None)
    with pytest.raises(InferenceError, match="axis 3 is out of range"):
        infer(name, T((2, 3, 4)), axis=[0, 3])
    with pytest.raises(InferenceError, match="repeat an axis"):
        infer(name, T((2, 3, 4)), axis=[1, -2])
    with pytest.raises(InferenceError, match="keepdims must be True or False"):
        infer(name, T((2, 3, 4)), keepdims=1)


def test_max_over_an_empty_axis_is_rejected():
    with pytest.raises(InferenceError, match="maximum over an empty axis"):
        infer("max", T((0, 3)), axis=0)
    assert infer("sum", T((0, 3)), axis=0) == T((3,))


def test_reduction_work_counts_input_elements():
    assert get_op("sum").work([T((4, 5))], T(())) == Work(20, 80, 4)


# -- creation --------------------------------------------------------------------------------


def test_creation_inference_and_errors():
    assert infer("zeros", shape=("n", 3), dtype="int32") == T(("n", 3), "int32")
    assert infer("full", T((), "float16"), shape=(2,)) == T((2,), "float16")
    assert infer("full", T(None), shape=(2,), dtype="void") == T((2,), "float32")
    with pytest.raises(InferenceError, match="fill_value must be a scalar"):
        infer("full", T((1,)), shape=(2,))
    with pytest.raises(InferenceError, match="negative dim"):
        infer("ones", shape=(-1, 2), dtype="float32")
    with pytest.raises(InferenceError, match="missing attribute 'dtype'"):
        infer("ones", shape=(2,))
    with pytest.raises(ValueError, match="unbound symbolic dims"):
        get_op("zeros").kernel(shape=("n",), dtype="float32")


def test_shape_of_inference():
    assert infer("shape_of", T(("n", 4))) == ShapeStructInfo(("n", 4))
    assert infer("shape_of", T(None, ndim=3)) == ShapeStructInfo(None, ndim=3)
    with pytest.raises(InferenceError, match="argument 0 must be a tensor"):
        infer("shape_of", ObjectStructInfo())
