# ruff: noqa: E501  (the TVMScript text keeps TVM's printed lines)
"""Inference, errors, TVM's semantics, work and round trips of the convolution, pooling and resize ops.

conv1d, conv3d and the transposed convolutions (ir/ops/conv.py), max/avg/adaptive pools
(pool.py) and image.resize2d (resize.py).  Their kernel cases, with loop-by-loop
references, are in tests/ir/ops/cases_conv_pool.py.  The expected values marked "TVM 0.27"
were computed by TVM itself (relax op, compiled for llvm, run) once, when the kernels
were written; they pin the corners where TVM's semantics are easy to get wrong.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ir.ops.cases_conv_pool import naive_adaptive, naive_conv, naive_conv_transpose, naive_pool, naive_resize
from tests.ir.ops.test_kernels import T, infer, rand, run
from vdplace import placement, runtime
from vdplace.ir import InferenceError, get_op, parse, script
from vdplace.ir.op import Work
from vdplace.ir.ops.conv_pool import Window, window_out

_CONV = ["strides", "padding", "dilation", "groups", "data_layout", "kernel_layout", "out_layout", "out_dtype"]
_POOL = ["pool_size", "strides", "padding", "dilation", "ceil_mode", "count_include_pad", "layout", "out_layout"]


@pytest.mark.parametrize(
    "name, params, defaults",
    [
        ("nn.conv1d", ["data", "weight", *_CONV], {"strides": 1, "padding": 0, "data_layout": "NCW"}),
        ("nn.conv3d", ["data", "weight", *_CONV], {"strides": (1, 1, 1), "kernel_layout": "OIDHW"}),
        (
            "nn.conv2d_transpose",
            ["data", "weight", "strides", "padding", "output_padding", *_CONV[2:]],
            {"output_padding": (0, 0), "kernel_layout": "IOHW", "out_layout": None},
        ),
        ("nn.conv1d_transpose", ["data", "weight", "strides", "padding", "output_padding", *_CONV[2:]], {"strides": 1}),
        ("nn.max_pool1d", ["data", *_POOL], {"pool_size": (1,), "padding": (0, 0), "count_include_pad": False}),
        ("nn.avg_pool1d", ["data", *_POOL], {"count_include_pad": True, "layout": "NCW"}),
        ("nn.avg_pool2d", ["data", *_POOL], {"count_include_pad": False, "padding": (0, 0)}),
        ("nn.avg_pool3d", ["data", *_POOL], {"count_include_pad": True, "padding": (0, 0, 0)}),
        ("nn.adaptive_avg_pool2d", ["data", "output_size", "layout", "out_layout"], {"output_size": None}),
        (
            "image.resize2d",
            [
                "data",
                "size",
                "roi",
                "layout",
                "method",
                "coordinate_transformation_mode",
                "rounding_method",
                "cubic_alpha",
                "cubic_exclude",
                "extrapolation_value",
                "out_dtype",
            ],
            {"roi": None, "method": "linear", "coordinate_transformation_mode": "half_pixel", "cubic_alpha": -0.75},
        ),
    ],
)
def test_parameters_follow_tvm(name, params, defaults):
    got = get_op(name).params
    assert [p.name for p in got] == params
    by_name = {p.name: p.default for p in got}
    for key, value in defaults.items():
        assert by_name[key] == value


# -- convolutions ----------------------------------------------------------------------------------


def test_conv_inference():
    assert infer("nn.conv1d", T((2, 4, 10)), T((6, 2, 3)), strides=2, padding=1, groups=2) == T((2, 6, 5))
    assert infer("nn.conv1d", T((2, 4, 10)), T((6, 4, 3)), padding=[1, 2]) == T((2, 6, 11))
    assert infer("nn.conv1d", T((2, 10, 4)), T((3, 4, 6)), data_layout="NWC", kernel_layout="WIO") == T((2, 8, 6))
    assert infer("nn.conv1d", T((2, 4, 10)), T((6, 4, 3)), out_layout="NWC") == T((2, 8, 6))
    assert infer("nn.conv3d", T((1, 4, 6, 7, 8)), T((6, 4, 3, 3, 3)), strides=2, padding=[1, 2, 3]) == T(
        (1, 6, 3, 5, 6)
    )
    assert infer("nn.conv3d", T((1, 4, 6, 7, 8)), T((6, 4, 3, 3, 3)), padding=[1, 2, 3, 0, 0, 0]) == T((1, 6, 5, 7, 9))
    sym = infer("nn.conv1d", T(("n", 4, "w")), T((6, 4, 3)), strides=2, padding=1)
    assert sym == T(("n", 6, "(w - 1) // 2 + 1"))
    assert infer("nn.conv1d", T(None, ndim=3), T((6, 4, 3))) == T(None, ndim=3)
    assert infer("nn.conv3d", T(None), T(None)) == T(None, ndim=5)
    assert infer("nn.conv1d", T((1, 4, 9), ""), T((6, 4, 3))).dtype == "float32"
    assert infer("nn.conv1d", T((1, 4, 9), "int8"), T((6, 4, 3), "int8"), out_dtype="int32").dtype == "int32"


def test_conv_transpose_inference():
    assert infer(
        "nn.conv1d_transpose", T((1, 4, 10)), T((4, 3, 3)), strides=2, padding=1, output_padding=1, groups=2
    ) == T((1, 6, 20))
    out = infer(
        "nn.conv2d_transpose", T((1, 4, 10, 10)), T((4, 3, 3, 3)), strides=2, padding=1, output_padding=1, dilation=2
    )
    assert out == T((1, 3, 22, 22))
    assert infer(
        "nn.conv3d_transpose", T((1, 4, 5, 5, 5)), T((4, 3, 3, 3, 3)), strides=2, padding=1, output_padding=1
    ) == T((1, 3, 10, 10, 10))
    sym = infer("nn.conv2d_transpose", T((1, 4, "h", 7)), T((4, 3, 3, 3)), strides=2, padding=1, output_padding=1)
    assert sym == T((1, 3, "h * 2", 14))  # TVM 0.27 infers h * 2 too
    assert infer("nn.conv2d_transpose", T(("n", 4, "h", "w")), T((4, 3, 1, 1))) == T(("n", 3, "h", "w"))


@pytest.mark.parametrize(
    "op, data, weight, attrs, message",
    [
        ("nn.conv1d", (2, 4, 10), (6, 3, 3), {}, "data has 4 channels but weight expects 3 per group x 1 group"),
        ("nn.conv1d", (2, 4, 10), (6, 2, 3), {"groups": 4}, "weight expects 2 per group x 4 group"),
        ("nn.conv1d", (2, 4, 10), (5, 2, 3), {"groups": 2}, "5 output channels do not divide into 2 groups"),
        ("nn.conv1d", (2, 4, 10), (6, 4, 3), {"padding": [1, 2, 3]}, "padding takes 1 or 2 values, got 3"),
        ("nn.conv3d", (1, 4, 6, 6, 6), (6, 4, 3, 3, 3), {"padding": [1, 2]}, "padding takes 1, 3 or 6 values"),
        ("nn.conv1d", (2, 4, 10), (6, 4, 3), {"strides": [1, 1]}, "strides takes 1 values, got 2"),
        ("nn.conv1d", (2, 4, 2), (6, 4, 3), {}, "the window .3 taps, dilation 1. does not fit spatial axis 0"),
        ("nn.conv1d", (2, 4, 10), (6, 4, 3), {"data_layout": "NCHW"}, "data_layout 'NCHW' is not supported"),
        ("nn.conv1d", (2, 4, 10), (6, 4, 3), {"kernel_layout": "OIW4o"}, "kernel_layout 'OIW4o' is not supported"),
        ("nn.conv1d", (2, 4, 10, 1), (6, 4, 3), {}, r"data \(NCW\) must have rank 3"),
        ("nn.conv1d", (2, 4, 10), (6, 4, 3), {"groups": 0}, "groups must be positive"),
        ("nn.conv1d_transpose", (1, 4, 10), (4, 3, 3), {"strides": 2, "output_padding": 2}, "less than the strides"),
        ("nn.conv1d_transpose", (1, 4, 10), (3, 3, 3), {}, "data has 4 channels but weight expects 3 input"),
        ("nn.conv1d_transpose", (1, 4, 10), (4, 3, 3), {"groups": 3}, "4 input channels do not divide into 3"),
        ("nn.conv2d_transpose", (1, 4, 1, 1), (4, 3, 1, 1), {"padding": 2}, "removes the whole output"),
    ],
)
def test_conv_errors(op, data, weight, attrs, message):
    with pytest.raises(InferenceError, match=rf"R\.{op}: .*{message}"):
        infer(op, T(data), T(weight), **attrs)


def test_conv_dtypes_must_agree_without_out_dtype_and_bool_is_refused():
    with pytest.raises(InferenceError, match=r"R\.nn\.conv1d: dtypes float32 and float16 differ"):
        infer("nn.conv1d", T((1, 4, 9)), T((6, 4, 3), "float16"))
    with pytest.raises(InferenceError, match=r"R\.nn\.conv3d: arithmetic on bool"):
        infer("nn.conv3d", T((1, 1, 2, 2, 2), "bool"), T((1, 1, 1, 1, 1), "bool"), out_dtype="float32")


def test_conv_kernels_against_the_loops_on_random_attributes():
    rng = np.random.default_rng(3)
    for _ in range(12):
        g = int(rng.integers(1, 3))
        s, d, k = (int(v) for v in rng.integers(1, 4, 3))
        x, w = rand(2, 2 * g, 9), rand(3 * g, 2, k)
        pad = [int(v) for v in rng.integers(0, 3, 2)]
        out = run("nn.conv1d", x, w, strides=s, padding=pad, dilation=d, groups=g)
        np.testing.assert_allclose(out, naive_conv(x, w, s, pad, d, g), rtol=1e-5, atol=1e-5)
        xt, wt = rand(1, 2 * g, 4), rand(2 * g, 2, k)
        opad = int(rng.integers(0, s))
        out = run("nn.conv1d_transpose", xt, wt, strides=s, padding=pad, output_padding=opad, dilation=d, groups=g)
        np.testing.assert_allclose(out, naive_conv_transpose(xt, wt, s, pad, opad, d, g), rtol=1e-5, atol=1e-5)


def test_conv_computes_float16_in_float32_and_integers_exactly():
    x, w = np.full((1, 1, 600), 100.0, np.float16), np.ones((1, 1, 600), np.float16)
    assert run("nn.conv1d", x, w)[0, 0, 0] == 60000.0
    xi, wi = np.full((1, 2, 4), 100, np.int8), np.full((3, 2, 2), 100, np.int8)
    assert run("nn.conv1d", xi, wi, out_dtype="int32")[0, 0, 0] == 40000


def test_conv_work_counts_multiply_adds():
    conv = get_op("nn.conv1d").work([T((2, 4, 10)), T((6, 2, 3))], T((2, 6, 5)))
    assert conv == Work(2.0 * 2 * 3 * 60, (80 + 36) * 4.0, 60 * 4.0)
    tr = get_op("nn.conv2d_transpose").work([T((1, 4, 5, 5)), T((4, 3, 3, 3))], T((1, 3, 11, 11)))
    assert tr.flops == 2.0 * 3 * 9 * 100  # every input element: one multiply-add per tap and output channel
    assert get_op("nn.conv3d").work([T(None), T(None)], T(None, ndim=5)).flops == 2.0


# -- pooling ----------------------------------------------------------------------------------------


def test_pool_inference():
    assert infer("nn.max_pool2d", T((1, 3, 10, 10)), pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]) == T(
        (1, 3, 5, 5)
    )
    assert infer("nn.max_pool1d", T((1, 1, 7)), pool_size=3, strides=2, padding=[1, 2]) == T((1, 1, 4))
    assert infer("nn.max_pool2d", T((1, 1, 7, 7)), pool_size=3, strides=2, padding=[1, 2]) == T((1, 1, 4, 5))
    assert infer("nn.avg_pool2d", T((1, 7, 7, 3)), pool_size=3, strides=2, padding=1, layout="NHWC") == T((1, 4, 4, 3))
    nchw = infer("nn.max_pool2d", T((1, 7, 7, 3)), pool_size=3, strides=2, padding=1, layout="NHWC", out_layout="NCHW")
    assert nchw == T((1, 3, 4, 4))
    assert infer("nn.max_pool3d", T((1, 4, 6, 6, 6)), pool_size=2, strides=2) == T((1, 4, 3, 3, 3))
    assert infer("nn.max_pool2d", T(None), pool_size=2) == T(None, ndim=4)  # TVM 0.27: ndim 4 too
    assert infer("nn.avg_pool1d", T((1, 2, 9), "int32"), pool_size=2).dtype == "int32"
    sym = infer("nn.max_pool2d", T(("b", 4, "h", 10)), pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])
    assert sym == T(("b", 4, "(h - 1) // 2 + 1", 5))


def test_ceil_mode_drops_a_last_window_that_starts_past_the_input_once_as_tvm_does():
    # (pool_size, strides, padding, input length) -> TVM 0.27's extent in ceil mode
    for k, s, pad, size, want in [
        (1, 1, (0, 3), 4, 6),
        (1, 2, (0, 3), 4, 3),
        (2, 3, (0, 4), 4, 2),
        (1, 3, (1, 1), 4, 2),
        (3, 2, (1, 3), 4, 3),
        (2, 2, (1, 1), 3, 2),
        (1, 2, (1, 1), 4, 3),
    ]:
        assert infer("nn.max_pool1d", T((1, 1, size)), pool_size=k, strides=s, padding=pad, ceil_mode=True) == T(
            (1, 1, want)
        )


def test_symbolic_ceil_mode_extent_evaluates_to_the_concrete_one():
    for s in (1, 2, 3):
        for d in (1, 2):
            for k in (1, 2, 3):
                for before in range(3):
                    for after in range(4):
                        win = Window("p", {"strides": s, "dilation": d, "padding": [before, after]}, 1)
                        expr = window_out("p", 0, "n", k, win, ceil_mode=True)
                        for n in range(d * (k - 1) + 1, 20):
                            assert eval(expr, {"n": n}) == window_out("p", 0, n, k, win, True), (s, d, k, before, after)


@pytest.mark.parametrize(
    "op, shape, attrs, message",
    [
        (
            "nn.max_pool2d",
            (1, 1, 2, 2),
            {"pool_size": 3},
            "the window .3 taps, dilation 1. does not fit spatial axis 0",
        ),
        ("nn.max_pool2d", (1, 1, 7, 7), {"pool_size": [3, 3, 3]}, "pool_size takes 1 or 2 values, got 3"),
        ("nn.max_pool2d", (1, 1, 7, 7), {"strides": 0}, "strides must be positive"),
        ("nn.avg_pool2d", (1, 1, 7, 7), {"padding": [1, 2, 3]}, "padding takes 1, 2 or 4 values, got 3"),
        ("nn.avg_pool1d", (1, 1, 7), {"padding": -1}, "padding must not be negative"),
        ("nn.max_pool2d", (3, 7, 7), {}, "data must have rank 4"),
        ("nn.max_pool2d", (1, 2, 7, 7, 4), {"layout": "NCHW4c"}, "layout 'NCHW4c' is not supported"),
        ("nn.max_pool2d", (1, 1, 7, 7), {"ceil_mode": 1}, "ceil_mode must be True or False"),
        ("nn.avg_pool2d", (1, 1, 7, 7), {}, None),
        ("nn.adaptive_avg_pool3d", (1, 1, 4, 4, 4), {"output_size": [2, 2]}, "output_size takes 1 or 3 values, got 2"),
        ("nn.adaptive_avg_pool1d", (1, 1, 4), {"output_size": 0}, "output_size must be positive"),
        ("nn.adaptive_avg_pool2d", (1, 1, 4, 4), {"layout": "NCWH2"}, "layout 'NCWH2' is not supported"),
    ],
)
def test_pool_errors(op, shape, attrs, message):
    if message is None:
        infer(op, T(shape), **attrs)
        return
    with pytest.raises(InferenceError, match=rf"R\.{op}: .*{message}"):
        infer(op, T(shape), **attrs)


def test_pools_refuse_bool():
    with pytest.raises(InferenceError, match=r"R\.nn\.max_pool2d: arithmetic on bool"):
        infer("nn.max_pool2d", T((1, 1, 4, 4), "bool"))


def test_adaptive_pool_inference():
    assert infer("nn.adaptive_avg_pool2d", T((1, 1, 7, 9))) == T((1, 1, 7, 9))
    assert infer("nn.adaptive_avg_pool2d", T((1, 1, 7, 9)), output_size=3) == T((1, 1, 3, 3))
    assert infer("nn.adaptive_avg_pool2d", T(("n", 1, "h", 9)), output_size=[10, 20]) == T(("n", 1, 10, 20))
    assert infer("nn.adaptive_avg_pool1d", T((1, 7, 2)), output_size=[3], layout="NWC") == T((1, 3, 2))
    assert infer("nn.adaptive_avg_pool3d", T(None, "float16")) == T(None, "float16", ndim=5)


def test_pool_semantics_match_tvm():
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 4)
    lowest = np.finfo(np.float32).min  # TVM pads max pools with the lowest finite value, not -inf
    got = run("nn.max_pool1d", x, pool_size=1, strides=1, padding=[0, 3], ceil_mode=True)
    np.testing.assert_array_equal(got.ravel(), [0, 1, 2, 3, lowest, lowest])  # TVM 0.27
    got = run("nn.avg_pool1d", x, pool_size=3, strides=2, padding=[1, 3], ceil_mode=True, count_include_pad=True)
    np.testing.assert_allclose(got.ravel(), [1 / 3, 2, 1])  # TVM 0.27: the ceil overhang is never counted
    got = run("nn.avg_pool1d", x, pool_size=2, strides=3, padding=[0, 4], ceil_mode=True, count_include_pad=False)
    np.testing.assert_allclose(got.ravel(), [0.5, 3])  # TVM 0.27
    xi = np.array([[[-7, -2, 5, 3, -4, 8, 1]]], np.int32)
    np.testing.assert_array_equal(run("nn.avg_pool1d", xi, pool_size=2, strides=2).ravel(), [-4, 4, 2])  # truncates
    np.testing.assert_array_equal(run("nn.avg_pool1d", xi, pool_size=3).ravel(), [-1, 2, 1, 2, 1])  # TVM 0.27
    np.testing.assert_array_equal(run("nn.adaptive_avg_pool1d", xi, output_size=3).ravel(), [-1, 1, 1])
    np.testing.assert_array_equal(run("nn.adaptive_avg_pool1d", xi, output_size=5).ravel(), [-4, 1, 1, 2, 4])


def test_pool_kernels_against_the_loops_on_random_attributes():
    rng = np.random.default_rng(5)
    for _ in range(20):
        kind = ("max", "avg")[int(rng.integers(2))]
        k, s, d = (int(v) for v in rng.integers(1, 4, 3))
        pad = [int(v) for v in rng.integers(0, 2, 4)]
        ceil, cip = bool(rng.integers(2)), bool(rng.integers(2))
        x = rand(1, 2, 8, 7)
        attrs = dict(pool_size=k, strides=s, padding=pad, dilation=[d, 1], ceil_mode=ceil, count_include_pad=cip)
        want = naive_pool(x, kind, k, s, pad, [d, 1], ceil, cip)
        np.testing.assert_allclose(run(f"nn.{kind}_pool2d", x, **attrs), want, rtol=1e-5, atol=1e-6)
    x = rand(1, 2, 7, 5)
    for size in ([3, 2], [7, 5], [10, 9], [1]):
        np.testing.assert_allclose(
            run("nn.adaptive_avg_pool2d", x, output_size=size), naive_adaptive(x, size), rtol=1e-5, atol=1e-6
        )


def test_pool_work_counts_each_window_element_once_per_output():
    window = {"pool_size": (3, 3), "strides": (2, 2)}
    assert get_op("nn.max_pool2d").work([T((1, 2, 9, 9))], T((1, 2, 4, 4)), window) == Work(288.0, 648.0, 128.0)
    assert get_op("nn.avg_pool2d").work([T((1, 2, 9, 9))], T((1, 2, 4, 4)), window).flops == 288.0 + 32.0
    assert get_op("nn.max_pool2d").work([T((1, 2, 8, 8))], T((1, 2, 8, 8))).flops == 128.0  # default 1x1 window
    assert get_op("nn.adaptive_avg_pool1d").work([T((1, 2, 3))], T((1, 2, 6))).flops == 12.0 + 12.0


# -- resize2d -----------------------------------------------------------------------------------------


def test_resize_inference():
    assert infer("image.resize2d", T((1, 3, 4, 5)), size=(8, 10)) == T((1, 3, 8, 10))
    assert infer("image.resize2d", T((1, 4, 5, 3)), size=(8, 10), layout="NHWC") == T((1, 8, 10, 3))
    assert infer("image.resize2d", T((1, 3, 4, 5), "int32"), size=("h", 10)) == T((1, 3, "h", 10), "int32")
    assert infer("image.resize2d", T((1, 3, 4, 5)), size=(8, 10), out_dtype="float16").dtype == "float16"
    assert infer("image.resize2d", T(None), size=(8, 10)) == T(None, ndim=4)
    assert infer("image.resize2d", T((1, 3, 4, 5)), size=(8, 10), roi=[0.0, 0.0, 0.0, 0.0]) == T((1, 3, 8, 10))


@pytest.mark.parametrize(
    "shape, attrs, message",
    [
        ((1, 3, 4, 5), {"size": (8,)}, r"size must have 2 dims \(height, width\), got \(8,\)"),
        ((3, 4, 5), {"size": (8, 10)}, "data must have rank 4"),
        ((1, 3, 4, 5), {"size": (8, 10), "method": "bicubic"}, "method 'bicubic' is not one of nearest_neighbor"),
        ((1, 3, 4, 5), {"size": (8, 10), "coordinate_transformation_mode": "tf_crop_and_resize"}, "is not implemented"),
        ((1, 3, 4, 5), {"size": (8, 10), "rounding_method": "up"}, "rounding_method 'up' is not one of"),
        ((1, 3, 4, 5), {"size": (8, 10), "layout": "NCHW4c"}, "layout 'NCHW4c' is not supported"),
        ((1, 3, 4, 5), {"size": (8, 10), "roi": [0.0]}, "roi must be None or 4 numbers"),
        ((1, 3, 4, 5), {"size": (8, 10), "cubic_alpha": "a"}, "cubic_alpha must be a number"),
    ],
)
def test_resize_errors(shape, attrs, message):
    with pytest.raises(InferenceError, match=rf"R\.image\.resize2d: .*{message}"):
        infer("image.resize2d", T(shape), **attrs)


def _indices(size: int, out: int, **attrs) -> list[int]:
    x = np.arange(size, dtype=np.float32).reshape(1, 1, size, 1)
    return run("image.resize2d", x, size=(out, 1), method="nearest_neighbor", **attrs).ravel().astype(int).tolist()


def test_nearest_rounding_matches_tvm():
    # TVM 0.27: round is half to even, "" is round for align_corners and floor otherwise
    assert _indices(4, 2) == [0, 2]
    assert _indices(8, 2) == [2, 6]
    assert _indices(2, 15, coordinate_transformation_mode="pytorch_half_pixel") == [0] * 8 + [1] * 7
    assert _indices(8, 13) == [0, 0, 1, 2, 2, 3, 4, 4, 5, 5, 6, 7, 7]
    assert _indices(6, 11, coordinate_transformation_mode="asymmetric", rounding_method="") == [
        0,
        0,
        1,
        1,
        2,
        2,
        3,
        3,
        4,
        4,
        5,
    ]
    assert _indices(8, 6, coordinate_transformation_mode="tf_half_pixel_for_nn", rounding_method="") == [
        0,
        2,
        3,
        4,
        6,
        7,
    ]
    assert _indices(5, 4, coordinate_transformation_mode="align_corners", rounding_method="") == [0, 1, 3, 4]
    assert _indices(4, 8, coordinate_transformation_mode="asymmetric", rounding_method="ceil") == [
        0,
        1,
        1,
        2,
        2,
        3,
        3,
        3,
    ]


def test_linear_resize_truncates_integer_results_as_tvm():
    x = np.array([0, -5, 3], np.int32).reshape(1, 1, 3, 1)
    out = run("image.resize2d", x, size=(7, 1), coordinate_transformation_mode="asymmetric")
    np.testing.assert_array_equal(out.ravel(), [0, -2, -4, -2, 0, 3, 3])  # TVM 0.27


def test_resize_kernels_against_the_loops():
    x = rand(1, 2, 5, 4)
    for method in ("nearest_neighbor", "linear", "cubic"):
        for mode in ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"):
            for size in ((9, 7), (3, 2), (1, 6)):
                attrs = dict(method=method, coordinate_transformation_mode=mode)
                want = naive_resize(x, size, method, mode, "round" if mode == "align_corners" else "floor")
                got = run("image.resize2d", x, size=size, rounding_method="", **attrs)
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=str((method, mode, size)))


def test_resize_work_is_eight_flops_per_element():
    assert get_op("image.resize2d").work([T((1, 2, 4, 4))], T((1, 2, 8, 8))) == Work(8.0 * 128, 128.0, 512.0)


# -- the TVMScript forms: parse -> print -> parse, place and run --------------------------------------

SOURCE = """
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda")]})

    @R.function
    def main(x1: R.Tensor((1, 4, 9), dtype="float32", vdevice="cuda"), x2: R.Tensor(("n", 3, 5, 5), dtype="float32", vdevice="cuda"), w1: R.Tensor((6, 2, 3), dtype="float32"), w2: R.Tensor((3, 4, 3, 3), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((1, 6, 5), dtype="float32") = R.nn.conv1d(x1, w1, strides=[2], padding=[1, 1], dilation=[1], groups=2, data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype="float32")
            lv1: R.Tensor(("n", 4, 10, 10), dtype="float32") = R.nn.conv2d_transpose(x2, w2, strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype="float32")
            lv2: R.Tensor(("n", 4, 6, 6), dtype="float32") = R.nn.max_pool2d(lv1, pool_size=[3, 3], strides=[2, 2], dilation=[1, 1], padding=[1, 1, 1, 1], ceil_mode=True, count_include_pad=False, layout="NCHW", out_layout="NCHW")
            lv3: R.Tensor(("n", 4, 5, 5), dtype="float32") = R.nn.avg_pool2d(lv1, pool_size=[3, 3], strides=[2, 2], dilation=[1, 1], padding=[1, 1, 1, 1], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
            lv4: R.Tensor(("n", 4, 3, 2), dtype="float32") = R.nn.adaptive_avg_pool2d(lv2, output_size=[3, 2], layout="NCHW", out_layout="NCHW")
            lv5: R.Tensor(("n", 4, 10, 10), dtype="float32") = R.image.resize2d(lv3, R.shape([10, 10]), roi=[0.0, 0.0, 0.0, 0.0], layout="NCHW", method="linear", coordinate_transformation_mode="align_corners", rounding_method="round", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype=None)
            lv6: R.Tensor(("n", 4, 5, 7), dtype="float32") = R.image.resize2d(lv4, R.shape([5, 7]), roi=[0.0, 0.0, 0.0, 0.0], layout="NCHW", method="nearest_neighbor", coordinate_transformation_mode="half_pixel", rounding_method="round", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype=None)
            gv = (lv, lv5, lv6)
            R.output(gv)
        return gv
"""


def test_frontend_forms_parse_print_place_and_run():
    mod = parse(SOURCE)
    text = script(mod)
    assert "R.image.resize2d(lv3, R.shape([10, 10]), roi=[0.0, 0.0, 0.0, 0.0], layout=" in text
    assert "R.nn.conv1d(x1, w1, strides=[2], padding=[1, 1], dilation=[1], groups=2, data_layout=" in text
    assert script(parse(text)) == text
    placed = placement.place(mod).module
    assert 'lv: R.Tensor((1, 6, 5), dtype="float32", vdevice="cuda:0:global") = R.nn.conv1d(' in script(placed)
    x1, x2, w1, w2 = rand(1, 4, 9), rand(2, 3, 5, 5), rand(6, 2, 3), rand(3, 4, 3, 3)
    vm = runtime.VirtualMachine(runtime.compile(placed), simulate_missing=True)
    a, b, c = vm.run("main", x1, x2, w1, w2)
    np.testing.assert_allclose(a, naive_conv(x1, w1, 2, 1, 1, 2), rtol=1e-5, atol=1e-5)
    t = naive_conv_transpose(x2, w2, 2, 1, 1)
    avg = naive_pool(t, "avg", 3, 2, 1)
    np.testing.assert_allclose(b, naive_resize(avg, (10, 10), "linear", "align_corners"), rtol=1e-4, atol=1e-5)
    mx = naive_adaptive(naive_pool(t, "max", 3, 2, 1, 1, True), [3, 2])
    np.testing.assert_allclose(c, naive_resize(mx, (5, 7), "nearest_neighbor"), rtol=1e-4, atol=1e-5)


TVM_ROI = (
    'lv: R.Tensor((1, 4, 8, 8), dtype="float32") = R.image.resize2d(x, R.shape([8, 8]), roi=[T.float32(0.0), '
    'T.float32(0.0), T.float32(0.0), T.float32(0.0)], layout="NCHW", method="nearest_neighbor", '
    'coordinate_transformation_mode="half_pixel", rounding_method="round", cubic_alpha=-0.75, cubic_exclude=0, '
    "extrapolation_value=0.0, out_dtype=None)"
)


def test_resize_roi_as_tvm_prints_it():
    text = SOURCE.split("    @R.function")[0] + (
        '    @R.function\n    def main(x: R.Tensor((1, 4, 4, 4), dtype="float32")):\n'
        f"        {TVM_ROI}\n        return lv\n"
    )
    assert script(parse(text)).count("roi=[0.0, 0.0, 0.0, 0.0]") == 1
