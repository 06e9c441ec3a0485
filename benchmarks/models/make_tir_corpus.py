"""TVM-printed TIR functions with TVM's own results: the corpus behind tests/tir and docs/tir.md.

Each case is a relax ``main`` built with ``BlockBuilder.emit_te`` of a TOPI
compute (the ``emit_te`` uses of TVM's ONNX frontend, and common TOPI ops),
printed by TVM (``mod.script()``), built for llvm and run on fixed inputs:

    OUT/<name>.py    the printed module
    OUT/<name>.npz   in0, in1, ... (inputs) and out0, out1, ... (TVM's outputs)
    OUT/status.json  per case: built or why not, the TOPI call

Needs the ``tvm`` extra.  ``python benchmarks/models/make_tir_corpus.py OUT [case ...]``;
tests/tir holds 25 of the cases.
"""

import json
import os
import sys
import traceback

import numpy as np
import tvm
import tvm.tirx
from tvm import relax, topi
from tvm.relax import BlockBuilder

OUT = "."  # set by main


# ---------------------------------------------------------------------------
# input specs
# ---------------------------------------------------------------------------
class In:
    """A main() parameter: static shape, dtype and how to generate data.

    gen: None          -> float: standard normal; int: integers in [0, 10); bool: coin flip
         ("int", lo, hi) -> integers in [lo, hi)
         ("idx", hi)   -> valid indices in [0, hi)
         "pos"         -> abs(normal) + 0.1   (for log / sqrt)
         "nan"         -> normal with some NaN / inf entries
         ("const", arr) -> exactly this array
    """

    def __init__(self, shape, dtype="float32", gen=None):
        self.shape, self.dtype, self.gen = tuple(shape), dtype, gen

    def ty(self):
        return relax.TensorType(self.shape, self.dtype)

    def make(self, rng):
        g, s, dt = self.gen, self.shape, self.dtype
        if isinstance(g, tuple) and g[0] == "const":
            return np.asarray(g[1], dtype=dt).reshape(s)
        if isinstance(g, tuple) and g[0] == "int":
            return rng.integers(g[1], g[2], size=s).astype(dt)
        if isinstance(g, tuple) and g[0] == "idx":
            return rng.integers(0, g[1], size=s).astype(dt)
        if dt == "bool":
            return rng.random(size=s) < 0.5
        if dt.startswith("int") or dt.startswith("uint"):
            return rng.integers(0, 10, size=s).astype(dt)
        a = rng.standard_normal(size=s)
        if g == "pos":
            a = np.abs(a) + 0.1
        elif g == "nan":
            a = a.reshape(-1)
            a[::3] = np.nan
            if a.size > 4:
                a[4] = np.inf
            a = a.reshape(s)
        return a.astype(dt)


F = lambda *shape: In(shape)  # noqa: E731  float32 input


def I32(*shape, gen=None):
    return In(shape, "int32", gen)


def I64(*shape, gen=None):
    return In(shape, "int64", gen)


def F16(*shape):
    return In(shape, "float16")


def B(*shape):
    return In(shape, "bool")


CASES = {}  # name -> (desc, fn(bb, *vars) -> relax.Expr, [In])


def case(name, desc, ins, fn):
    assert name not in CASES, name
    CASES[name] = (desc, fn, ins)


def te1(f, *a, **k):
    """single emit_te of f(x, *a, **k)"""
    return lambda bb, *xs: bb.emit_te(f, *xs, *a, **k)


# ---------------------------------------------------------------------------
# 1. emit_te uses in TVM 0.27 ONNX frontend
# ---------------------------------------------------------------------------
# Clip: maximum / minimum with tensor, with 0-d tensor bound, with python scalar
case("maximum_tensor", "topi.maximum(x, y)", [F(2, 3), F(2, 3)], te1(topi.maximum))
case("maximum_bcast", "topi.maximum(x[2,3], y[3])", [F(2, 3), F(3)], te1(topi.maximum))
case("maximum_0d", "topi.maximum(x, lo[()])", [F(2, 3), F()], te1(topi.maximum))
case("maximum_scalar", "topi.maximum(x, 0.5)", [F(2, 3)], te1(topi.maximum, 0.5))
case("minimum_tensor", "topi.minimum(x, y)", [F(2, 3), F(2, 3)], te1(topi.minimum))
case("minimum_0d", "topi.minimum(x, hi[()])", [F(2, 3), F()], te1(topi.minimum))
case("minimum_scalar", "topi.minimum(x, -0.25)", [F(2, 3)], te1(topi.minimum, -0.25))
case("minimum_int32_scalar", "topi.minimum(x:int32, 3)", [I32(2, 3)], te1(topi.minimum, 3))
case("maximum_int64_0d", "topi.maximum(x:int64, lo:int64[()])", [I64(2, 3), I64()], te1(topi.maximum))
case(
    "clip_v1_chain",
    "topi.maximum(x,-0.5) -> topi.minimum(.,0.5) (ONNX Clip v1)",
    [F(2, 3)],
    lambda bb, x: bb.emit_te(topi.minimum, bb.emit_te(topi.maximum, x, -0.5), 0.5),
)
case(
    "clip_v13_inf",
    "topi.maximum(x, -inf) -> topi.minimum(., hi[()])",
    [F(2, 3), F()],
    lambda bb, x, hi: bb.emit_te(topi.minimum, bb.emit_te(topi.maximum, x, float("-inf")), hi),
)

# CumSum reverse: flip
case("flip_axis0", "topi.flip(x, axis=0)", [F(2, 3)], te1(topi.flip, axis=0))
case("flip_axis1", "topi.flip(x, axis=1)", [F(2, 3)], te1(topi.flip, axis=1))
case("flip_3d_axis2", "topi.flip(x[2,3,4], axis=2)", [F(2, 3, 4)], te1(topi.flip, axis=2))
case("flip_3d_axisneg", "topi.flip(x[2,3,4], axis=-2)", [F(2, 3, 4)], te1(topi.flip, axis=-2))

# Pad
case("pad_const", "topi.nn.pad(x, (0,1), (1,2), 1.5)", [F(2, 3)], te1(topi.nn.pad, (0, 1), (1, 2), 1.5))
case(
    "pad_const_4d",
    "topi.nn.pad(x[1,2,3,3], (0,0,1,2), (0,0,2,1), 0.0)",
    [F(1, 2, 3, 3)],
    te1(topi.nn.pad, (0, 0, 1, 2), (0, 0, 2, 1), 0.0),
)
case("pad_const_int32", "topi.nn.pad(x:int32, (1,0), (0,2), 7)", [I32(2, 3)], te1(topi.nn.pad, (1, 0), (0, 2), 7))
case(
    "mirror_pad_reflect",
    "topi.nn.mirror_pad(x, (0,1), (1,2), 'REFLECT')",
    [F(3, 4)],
    te1(topi.nn.mirror_pad, (0, 1), (1, 2), "REFLECT"),
)
case(
    "mirror_pad_symmetric",
    "topi.nn.mirror_pad(x, (1,2), (2,1), 'SYMMETRIC')",
    [F(3, 4)],
    te1(topi.nn.mirror_pad, (1, 2), (2, 1), "SYMMETRIC"),
)
case("replicate_pad", "topi.nn.replicate_pad(x, (0,1), (1,2))", [F(3, 4)], te1(topi.nn.replicate_pad, (0, 1), (1, 2)))
case("circular_pad", "topi.nn.circular_pad(x, (0,1), (1,2))", [F(3, 4)], te1(topi.nn.circular_pad, (0, 1), (1, 2)))

# Tile
case("tile", "topi.tile(x[3,4], (2,3))", [F(3, 4)], te1(topi.tile, (2, 3)))
case("tile_more_reps", "topi.tile(x[2,3], (2,1,2))", [F(2, 3)], te1(topi.tile, (2, 1, 2)))

# Einsum
case(
    "einsum_bmm",
    "topi.einsum('bij,bjk->bik', a, b)",
    [F(2, 3, 4), F(2, 4, 5)],
    lambda bb, a, b: bb.emit_te(topi.einsum, "bij,bjk->bik", a, b),
)
case("einsum_trace", "topi.einsum('ii->', a)", [F(3, 3)], lambda bb, a: bb.emit_te(topi.einsum, "ii->", a))
case("einsum_sum", "topi.einsum('ij->', a)", [F(3, 4)], lambda bb, a: bb.emit_te(topi.einsum, "ij->", a))
case(
    "einsum_outer",
    "topi.einsum('i,j->ij', a, b)",
    [F(3), F(4)],
    lambda bb, a, b: bb.emit_te(topi.einsum, "i,j->ij", a, b),
)
case("einsum_transpose", "topi.einsum('ij->ji', a)", [F(3, 4)], lambda bb, a: bb.emit_te(topi.einsum, "ij->ji", a))
case(
    "einsum_3op",
    "topi.einsum('ij,jk,kl->il', a, b, c)",
    [F(2, 3), F(3, 4), F(4, 2)],
    lambda bb, a, b, c: bb.emit_te(topi.einsum, "ij,jk,kl->il", a, b, c),
)
case("einsum_diag", "topi.einsum('ii->i', a)", [F(4, 4)], lambda bb, a: bb.emit_te(topi.einsum, "ii->i", a))
case(
    "einsum_rowdot",
    "topi.einsum('ij,ij->i', a, b)",
    [F(3, 4), F(3, 4)],
    lambda bb, a, b: bb.emit_te(topi.einsum, "ij,ij->i", a, b),
)
case(
    "einsum_ellipsis",
    "topi.einsum('...ij,...jk->...ik', a, b)",
    [F(2, 2, 3), F(2, 3, 2)],
    lambda bb, a, b: bb.emit_te(topi.einsum, "...ij,...jk->...ik", a, b),
)


# Resize (static roi and sizes), argument order as in the ONNX frontend
def rs1(sizes, mode, coord, rnd="", roi=(0.0, 0.0), a=-0.75, excl=0, ext=0.0):
    return te1(topi.image.resize1d, roi, sizes, "NCW", mode, coord, rnd, a, excl, ext)


def rs2(sizes, mode, coord, rnd="", roi=(0.0,) * 4, a=-0.75, excl=0, ext=0.0):
    return te1(topi.image.resize2d, roi, sizes, "NCHW", mode, coord, rnd, a, excl, ext)


def rs3(sizes, mode, coord, rnd="", roi=(0.0,) * 6, a=-0.75, excl=0, ext=0.0):
    return te1(topi.image.resize3d, roi, sizes, "NCDHW", mode, coord, rnd, a, excl, ext)


case(
    "resize1d_nearest_asym_floor",
    "topi.image.resize1d(x[1,2,4], size=(8,), nearest_neighbor, asymmetric, floor)",
    [F(1, 2, 4)],
    rs1((8,), "nearest_neighbor", "asymmetric", "floor"),
)
case(
    "resize1d_linear_half_pixel",
    "topi.image.resize1d(x[1,2,4], size=(7,), linear, half_pixel)",
    [F(1, 2, 4)],
    rs1((7,), "linear", "half_pixel"),
)
case(
    "resize1d_cubic_align_corners",
    "topi.image.resize1d(x[1,2,4], size=(6,), cubic, align_corners)",
    [F(1, 2, 4)],
    rs1((6,), "cubic", "align_corners"),
)
case(
    "resize2d_nearest_half_pixel_rpf",
    "topi.image.resize2d(x[1,2,3,3], (6,5), nearest_neighbor, half_pixel, round_prefer_floor)",
    [F(1, 2, 3, 3)],
    rs2((6, 5), "nearest_neighbor", "half_pixel", "round_prefer_floor"),
)
case(
    "resize2d_nearest_tf_half_pixel_for_nn_ceil",
    "topi.image.resize2d(x[1,1,4,4], (3,6), nearest_neighbor, tf_half_pixel_for_nn, ceil)",
    [F(1, 1, 4, 4)],
    rs2((3, 6), "nearest_neighbor", "tf_half_pixel_for_nn", "ceil"),
)
case(
    "resize2d_linear_align_corners",
    "topi.image.resize2d(x[1,2,3,3], (5,5), linear, align_corners)",
    [F(1, 2, 3, 3)],
    rs2((5, 5), "linear", "align_corners"),
)
case(
    "resize2d_linear_pytorch_half_pixel",
    "topi.image.resize2d(x[1,1,4,4], (2,3), linear, pytorch_half_pixel)",
    [F(1, 1, 4, 4)],
    rs2((2, 3), "linear", "pytorch_half_pixel"),
)
case(
    "resize2d_cubic_half_pixel",
    "topi.image.resize2d(x[1,2,3,3], (6,6), cubic, half_pixel, a=-0.75)",
    [F(1, 2, 3, 3)],
    rs2((6, 6), "cubic", "half_pixel"),
)
case(
    "resize2d_cubic_asym_exclude",
    "topi.image.resize2d(x[1,1,4,4], (5,3), cubic, asymmetric, a=-0.5, exclude=1)",
    [F(1, 1, 4, 4)],
    rs2((5, 3), "cubic", "asymmetric", a=-0.5, excl=1),
)
case(
    "resize2d_linear_tf_crop_and_resize",
    "topi.image.resize2d(x[1,1,4,4], roi=(0.1,0.2,0.9,0.7), (3,3), linear, tf_crop_and_resize, ext=-1.0)",
    [F(1, 1, 4, 4)],
    rs2((3, 3), "linear", "tf_crop_and_resize", roi=(0.1, 0.2, 0.9, 0.7), ext=-1.0),
)
case(
    "resize3d_nearest_asym",
    "topi.image.resize3d(x[1,1,2,3,3], (4,3,6), nearest_neighbor, asymmetric, round)",
    [F(1, 1, 2, 3, 3)],
    rs3((4, 3, 6), "nearest_neighbor", "asymmetric", "round"),
)
case(
    "resize3d_linear_half_pixel",
    "topi.image.resize3d(x[1,1,2,3,3], (3,4,4), linear, half_pixel)",
    [F(1, 1, 2, 3, 3)],
    rs3((3, 4, 4), "linear", "half_pixel"),
)
case(
    "resize3d_cubic_align_corners",
    "topi.image.resize3d(x[1,1,2,2,3], (3,3,4), cubic, align_corners)",
    [F(1, 1, 2, 2, 3)],
    rs3((3, 3, 4), "cubic", "align_corners"),
)


def _resize2d_dynroi(d, r):  # as _emit_resize_topi_dynamic_roi (roi is a runtime tensor)
    return topi.image.resize2d(
        d,
        (r[0], r[1], r[2], r[3]),
        (3, 4),
        layout="NCHW",
        method="linear",
        coordinate_transformation_mode="tf_crop_and_resize",
        rounding_method="",
        bicubic_alpha=-0.75,
        bicubic_exclude=0,
        extrapolation_value=0.0,
    )


case(
    "resize2d_dynroi_tf_crop",
    "emit_te(resize2d_dyn, x[1,1,4,4], roi[4]) linear tf_crop_and_resize (roi tensor)",
    [F(1, 1, 4, 4), In((4,), "float32", ("const", [0.1, 0.0, 0.8, 0.9]))],
    lambda bb, x, r: bb.emit_te(_resize2d_dynroi, x, r),
)

# ---------------------------------------------------------------------------
# 2. other broadly used TOPI ops
# ---------------------------------------------------------------------------
case("relu", "topi.nn.relu(x)", [F(2, 3)], te1(topi.nn.relu))
case("relu_f16", "topi.nn.relu(x:float16)", [F16(2, 3)], te1(topi.nn.relu))
case("leaky_relu", "topi.nn.leaky_relu(x, 0.1)", [F(2, 3)], te1(topi.nn.leaky_relu, 0.1))
case("clip", "topi.clip(x, -0.5, 0.7)", [F(2, 3)], te1(topi.clip, -0.5, 0.7))
case("clip_int64", "topi.clip(x:int64, 2, 6)", [I64(2, 3)], te1(topi.clip, 2, 6))

case(
    "sum_axis1_keepdims",
    "topi.sum(x[2,3,4], axis=1, keepdims=True)",
    [F(2, 3, 4)],
    te1(topi.sum, axis=1, keepdims=True),
)
case("sum_all", "topi.sum(x[2,3])", [F(2, 3)], te1(topi.sum))
case("sum_int64", "topi.sum(x:int64[2,3,4], axis=(0,2))", [I64(2, 3, 4)], te1(topi.sum, axis=(0, 2)))
case("sum_f16", "topi.sum(x:float16[2,5], axis=1)", [F16(2, 5)], te1(topi.sum, axis=1))
case("max_axes02", "topi.max(x[2,3,4], axis=(0,2))", [F(2, 3, 4)], te1(topi.max, axis=(0, 2)))
case("min_keepdims", "topi.min(x[2,3,4], axis=-1, keepdims=True)", [F(2, 3, 4)], te1(topi.min, axis=-1, keepdims=True))
case(
    "prod_axis0_keepdims", "topi.prod(x[3,4], axis=0, keepdims=True)", [F(3, 4)], te1(topi.prod, axis=0, keepdims=True)
)
case("all_bool", "topi.all(x:bool[3,4], axis=1)", [B(3, 4)], te1(topi.all, axis=1))
case("argmax", "topi.argmax(x[3,4], axis=1)", [F(3, 4)], te1(topi.argmax, axis=1))
case(
    "argmax_keepdims_last",
    "topi.argmax(x:int32[2,5], axis=1, keepdims=True, select_last_index=True)",
    [I32(2, 5, gen=("int", 0, 3))],
    te1(topi.argmax, axis=1, keepdims=True, select_last_index=True),
)
case("argmin", "topi.argmin(x[3,4], axis=0)", [F(3, 4)], te1(topi.argmin, axis=0))

case("softmax", "topi.nn.softmax(x[2,5], axis=-1)", [F(2, 5)], te1(topi.nn.softmax, axis=-1))
case("softmax_axis1_3d", "topi.nn.softmax(x[2,3,4], axis=1)", [F(2, 3, 4)], te1(topi.nn.softmax, axis=1))
case("log_softmax", "topi.nn.log_softmax(x[2,5])", [F(2, 5)], te1(topi.nn.log_softmax))
case(
    "layer_norm",
    "topi.nn.layer_norm(x[2,3,4], g[4], b[4], axis=[-1])",
    [F(2, 3, 4), F(4), F(4)],
    lambda bb, x, g, b: bb.emit_te(topi.nn.layer_norm, x, g, b, [-1], 1e-5),
)

case("matmul", "topi.matmul(a[3,4], b[4,5])", [F(3, 4), F(4, 5)], te1(topi.matmul))
case(
    "matmul_transp_b", "topi.matmul(a[3,4], b[5,4], transp_b=True)", [F(3, 4), F(5, 4)], te1(topi.matmul, transp_b=True)
)
case("dense", "topi.nn.dense(x[3,4], w[5,4])", [F(3, 4), F(5, 4)], te1(topi.nn.dense))
case("dense_bias", "topi.nn.dense(x[3,4], w[5,4], b[5])", [F(3, 4), F(5, 4), F(5)], te1(topi.nn.dense))
case("batch_matmul", "topi.nn.batch_matmul(a[2,3,4], b[2,5,4])", [F(2, 3, 4), F(2, 5, 4)], te1(topi.nn.batch_matmul))
case(
    "batch_matmul_int32",
    "topi.nn.batch_matmul(a:int32[2,3,4], b:int32[2,4,2], transpose_b=False)",
    [I32(2, 3, 4), I32(2, 4, 2)],
    te1(topi.nn.batch_matmul, transpose_b=False),
)
case(
    "conv2d_nchw",
    "topi.nn.conv2d_nchw(x[1,2,5,5], w[3,2,3,3], stride=1, padding=1, dilation=1)",
    [F(1, 2, 5, 5), F(3, 2, 3, 3)],
    te1(topi.nn.conv2d_nchw, 1, 1, 1),
)
case(
    "conv2d_nchw_stride2",
    "topi.nn.conv2d_nchw(x[1,1,6,6], w[2,1,2,2], stride=2, padding=0, dilation=1)",
    [F(1, 1, 6, 6), F(2, 1, 2, 2)],
    te1(topi.nn.conv2d_nchw, 2, 0, 1),
)
case(
    "pool2d_max",
    "topi.nn.pool2d(x[1,2,5,5], (3,3), (2,2), (1,1), (1,1,1,1), 'max')",
    [F(1, 2, 5, 5)],
    te1(topi.nn.pool2d, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max"),
)
case(
    "pool2d_avg",
    "topi.nn.pool2d(x[1,2,5,5], (2,2), (2,2), (1,1), (0,0,1,1), 'avg', ceil_mode=True, count_include_pad=False)",
    [F(1, 2, 5, 5)],
    te1(topi.nn.pool2d, (2, 2), (2, 2), (1, 1), (0, 0, 1, 1), "avg", True, "NCHW", False),
)

case("transpose", "topi.transpose(x[2,3,4], (2,0,1))", [F(2, 3, 4)], te1(topi.transpose, (2, 0, 1)))
case("reshape", "topi.reshape(x[2,3,4], (4,6))", [F(2, 3, 4)], te1(topi.reshape, (4, 6)))
case(
    "concatenate",
    "topi.concatenate([a[2,3], b[2,2], c[2,1]], axis=1)",
    [F(2, 3), F(2, 2), F(2, 1)],
    lambda bb, a, b, c: bb.emit_te(topi.concatenate, [a, b, c], axis=1),
)
case("split_sections", "topi.split(x[2,6], 3, axis=1)", [F(2, 6)], te1(topi.split, 3, axis=1))
case("split_indices", "topi.split(x[5,2], [1,3], axis=0)", [F(5, 2)], te1(topi.split, [1, 3], axis=0))
case(
    "strided_slice",
    "topi.strided_slice(x[4,5], [1,0], [4,5], [2,2])",
    [F(4, 5)],
    te1(topi.strided_slice, [1, 0], [4, 5], [2, 2]),
)
case("strided_slice_neg", "topi.strided_slice(x[6], [5], [0], [-2])", [F(6)], te1(topi.strided_slice, [5], [0], [-2]))
case("where", "topi.where(c:bool[2,3], x, y)", [B(2, 3), F(2, 3), F(2, 3)], te1(topi.where))
case("where_bcast", "topi.where(c:bool[2,1], x[2,3], y[()]) (broadcast)", [B(2, 1), F(2, 3), F()], te1(topi.where))

case("cast_f16", "topi.cast(x, 'float16')", [F(2, 3)], te1(topi.cast, "float16"))
case("cast_int32", "topi.cast(x, 'int32')", [F(2, 3)], te1(topi.cast, "int32"))
case("cast_bool", "topi.cast(x:int32, 'bool')", [I32(2, 3, gen=("int", 0, 2))], te1(topi.cast, "bool"))
case("cast_f16_to_f32", "topi.cast(x:float16, 'float32')", [F16(2, 3)], te1(topi.cast, "float32"))

for _u in ["exp", "log", "sqrt", "tanh", "sigmoid", "erf", "abs", "floor", "ceil", "round"]:
    case(
        f"unary_{_u}",
        f"topi.{_u}(x)",
        [In((2, 5), "float32", "pos" if _u in ("log", "sqrt") else None)],
        te1(getattr(topi, _u)),
    )
case("unary_exp_f16", "topi.exp(x:float16)", [F16(2, 3)], te1(topi.exp))
case("unary_rsqrt", "topi.rsqrt(x) (pos input)", [In((2, 3), "float32", "pos")], te1(topi.rsqrt))
case("isnan", "topi.isnan(x) (input with NaN/inf)", [In((2, 4), "float32", "nan")], te1(topi.isnan))
case("isinf", "topi.isinf(x) (input with NaN/inf)", [In((2, 4), "float32", "nan")], te1(topi.isinf))

# TOPI 0.27 has no trunc_divide/trunc_mod; topi.divide / topi.mod on ints are the truncating ones
for _op, _tf in [
    ("floor_divide", "floor_divide"),
    ("floor_mod", "floor_mod"),
    ("trunc_divide", "divide"),
    ("trunc_mod", "mod"),
]:
    for _dt, _mk in [("int32", I32), ("int64", I64)]:
        case(
            f"{_op}_{_dt}",
            f"topi.{_tf}(a:{_dt}, b:{_dt}) (b in [1,5))",
            [_mk(2, 4), _mk(2, 4, gen=("int", 1, 5))],
            te1(getattr(topi, _tf)),
        )
case(
    "floor_mod_int32_signed",
    "topi.floor_mod(a:int32 in [-9,10), b:int32 in {-3..-1,1..3})",
    [I32(2, 4, gen=("int", -9, 10)), In((2, 4), "int32", ("const", [-3, -2, -1, 1, 2, 3, -2, 3]))],
    te1(topi.floor_mod),
)
case(
    "trunc_divide_int32_signed",
    "topi.divide(a:int32 in [-9,10), b:int32 in {-3..-1,1..3})",
    [I32(2, 4, gen=("int", -9, 10)), In((2, 4), "int32", ("const", [-3, -2, -1, 1, 2, 3, -2, 3]))],
    te1(topi.divide),
)
case(
    "floor_divide_f32",
    "topi.floor_divide(a, b) float32",
    [F(2, 3), In((2, 3), "float32", "pos")],
    te1(topi.floor_divide),
)
case(
    "left_shift_int32",
    "topi.left_shift(a:int32, b:int32 in [0,5))",
    [I32(2, 3), I32(2, 3, gen=("int", 0, 5))],
    te1(topi.left_shift),
)
case("right_shift_int64", "topi.right_shift(a:int64, 1)", [I64(2, 3, gen=("int", 0, 100))], te1(topi.right_shift, 1))
case(
    "bitwise_and_int32",
    "topi.bitwise_and(a:int32, b:int32)",
    [I32(2, 3, gen=("int", 0, 16)), I32(2, 3, gen=("int", 0, 16))],
    te1(topi.bitwise_and),
)
case("logical_and_bool", "topi.logical_and(a:bool, b:bool)", [B(2, 3), B(2, 3)], te1(topi.logical_and))
case("logical_not_bool", "topi.logical_not(a:bool)", [B(2, 3)], te1(topi.logical_not))
case("greater_f32", "topi.greater(a, b) -> bool", [F(2, 3), F(2, 3)], te1(topi.greater))
case("add_f16", "topi.add(a:float16, b:float16)", [F16(2, 3), F16(2, 3)], te1(topi.add))
case("multiply_int64_bcast", "topi.multiply(a:int64[2,3], b:int64[3])", [I64(2, 3), I64(3)], te1(topi.multiply))

case("cumsum", "topi.cumsum(x[2,4], axis=1)", [F(2, 4)], te1(topi.cumsum, axis=1))
case(
    "cumsum_exclusive_int32",
    "topi.cumsum(x:int32[3,2], axis=0, exclusive=True)",
    [I32(3, 2)],
    te1(topi.cumsum, axis=0, exclusive=True),
)
case("cumprod", "topi.cumprod(x[5])", [F(5)], te1(topi.cumprod, axis=0))
case("sort", "topi.sort(x[2,5], axis=-1)", [F(2, 5)], te1(topi.sort, axis=-1))
case("argsort", "topi.argsort(x[2,5], axis=1, dtype='int32')", [F(2, 5)], te1(topi.argsort, axis=1, dtype="int32"))
case("topk", "topi.topk(x[2,6], k=3, axis=-1, ret_type='both')", [F(2, 6)], te1(topi.topk, k=3, axis=-1))

case(
    "one_hot",
    "topi.one_hot(idx:int64[4], 1.0, 0.0, depth=5, axis=-1, 'float32')",
    [I64(4, gen=("idx", 5))],
    lambda bb, i: bb.emit_te(
        topi.one_hot, i, tvm.tirx.const(1.0, "float32"), tvm.tirx.const(0.0, "float32"), 5, -1, "float32"
    ),
)
case(
    "take_axis1",
    "topi.take(x[3,4], idx:int64[2], axis=1)",
    [F(3, 4), I64(2, gen=("idx", 4))],
    lambda bb, x, i: bb.emit_te(topi.take, x, i, axis=1),
)
case(
    "take_flat_clip",
    "topi.take(x[3,4], idx:int32[2,2], mode='clip')",
    [F(3, 4), I32(2, 2, gen=("idx", 12))],
    lambda bb, x, i: bb.emit_te(topi.take, x, i, mode="clip"),
)
case(
    "gather",
    "topi.gather(x[3,4], axis=1, idx:int64[3,2])",
    [F(3, 4), I64(3, 2, gen=("idx", 4))],
    lambda bb, x, i: bb.emit_te(topi.gather, x, 1, i),
)
case(
    "gather_nd",
    "topi.gather_nd(x[3,4], idx:int64[2,3])",
    [F(3, 4), I64(2, 3, gen=("idx", 3))],
    lambda bb, x, i: bb.emit_te(topi.gather_nd, x, i),
)

case(
    "full", "topi.full((2,3), 'float32', 1.5) (no inputs)", [], lambda bb: bb.emit_te(topi.full, (2, 3), "float32", 1.5)
)
case("full_like", "topi.full_like(x:int32, 7)", [I32(2, 3)], te1(topi.full_like, 7))
case("arange", "topi.arange(0, 10, 1) (no inputs)", [], lambda bb: bb.emit_te(topi.arange, 0, 10, 1))
case(
    "arange_f32_step",
    "topi.arange(1.0, 3.0, 0.25, 'float32') (no inputs)",
    [],
    lambda bb: bb.emit_te(topi.arange, 1.0, 3.0, 0.25, "float32"),
)
case(
    "arange_int64",
    "topi.arange(2, 11, 3, 'int64') (no inputs)",
    [],
    lambda bb: bb.emit_te(topi.arange, 2, 11, 3, "int64"),
)


# ---------------------------------------------------------------------------
# 3. chains: several emit_te + ordinary relax ops in one main
# ---------------------------------------------------------------------------
def _chain_pad_add_relu(bb, x, y):
    p = bb.emit_te(topi.nn.pad, x, (1, 1), (1, 1), 0.0)  # [4,5]
    s = bb.emit(relax.op.add(p, y))  # relax op
    return bb.emit_te(topi.nn.relu, s)


def _chain_einsum_softmax_mul(bb, a, b):
    m = bb.emit_te(topi.einsum, "ij,jk->ik", a, b)  # [3,5]
    s = bb.emit_te(topi.nn.softmax, m, axis=-1)
    return bb.emit(relax.op.multiply(s, relax.const(2.0, "float32")))


def _chain_resize_sum_split(bb, x, c):
    r = bb.emit_te(topi.image.resize2d, x, (0.0,) * 4, (4, 4), "NCHW", "linear", "half_pixel", "", -0.75, 0, 0.0)
    t = bb.emit(relax.op.subtract(r, c))  # [1,2,4,4] - [1,2,1,1]
    s = bb.emit_te(topi.sum, t, axis=(2,), keepdims=False)  # [1,2,4]
    return bb.emit_te(topi.split, s, 2, axis=1)  # tuple of 2


case("chain_pad_add_relu", "topi.nn.pad -> relax.op.add -> topi.nn.relu", [F(2, 3), F(4, 5)], _chain_pad_add_relu)
case(
    "chain_einsum_softmax_mul",
    "topi.einsum('ij,jk->ik') -> topi.nn.softmax -> relax.op.multiply(.,2)",
    [F(3, 4), F(4, 5)],
    _chain_einsum_softmax_mul,
)
case(
    "chain_resize_sub_sum_split",
    "topi.image.resize2d -> relax.op.subtract -> topi.sum -> topi.split (tuple out)",
    [F(1, 2, 2, 2), F(1, 2, 1, 1)],
    _chain_resize_sum_split,
)


# ---------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------
def to_np(r):
    if isinstance(r, (list, tuple)) or type(r).__name__ == "Array":
        out = []
        for e in r:
            out.extend(to_np(e))
        return out
    return [r.numpy()]


def build_one(name):
    desc, fn, ins = CASES[name]
    bb = BlockBuilder()
    params = [relax.Var(f"x{i}", s.ty()) for i, s in enumerate(ins)]
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(fn(bb, *params))
        bb.emit_func_output(out)
    mod = bb.get()
    text = mod.script()
    with open(os.path.join(OUT, f"{name}.py"), "w") as f:
        f.write(text)
    # sanity: printed text re-parses (not required, recorded only)
    try:
        tvm.script.from_source(text)
        reparse = True
    except Exception:  # noqa: BLE001
        reparse = False
    ex = tvm.compile(mod, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    rng = np.random.default_rng(0)
    arrs = [s.make(rng) for s in ins]
    res = vm["main"](*[tvm.runtime.tensor(a, tvm.cpu()) for a in arrs])
    outs = to_np(res)
    d = {f"in{i}": a for i, a in enumerate(arrs)}
    d.update({f"out{i}": o for i, o in enumerate(outs)})
    np.savez(os.path.join(OUT, f"{name}.npz"), **d)
    return {"reparse": reparse, "outs": [f"{o.dtype}{list(o.shape)}" for o in outs]}


def main(argv):
    global OUT
    if not argv:
        sys.exit(__doc__)
    OUT, argv = argv[0], argv[1:]
    os.makedirs(OUT, exist_ok=True)
    names = argv or list(CASES)
    status_path = os.path.join(OUT, "status.json")
    status = {}
    if argv and os.path.exists(status_path):
        status = json.load(open(status_path))
    for n in names:
        desc = CASES[n][0]
        try:
            info = build_one(n)
            status[n] = {"desc": desc, "built": True, **info}
            print("ok  ", n, info["outs"])
        except Exception as e:  # noqa: BLE001
            status[n] = {
                "desc": desc,
                "built": False,
                "error": f"{type(e).__name__}: {str(e).strip().splitlines()[-1][:300] if str(e).strip() else ''}",
            }
            for ext in (".npz",):
                p = os.path.join(OUT, n + ext)
                if os.path.exists(p):
                    os.remove(p)
            print("FAIL", n, status[n]["error"])
            if os.environ.get("TRACE"):
                traceback.print_exc()
    # keep CASES order
    status = {k: status[k] for k in CASES if k in status}
    json.dump(status, open(status_path, "w"), indent=1)
    print(f"{sum(v['built'] for v in status.values())}/{len(status)} built")


if __name__ == "__main__":
    main(sys.argv[1:])
