# ruff: noqa: E501  (the TVMScript texts keep the lines TVM printed)
"""R.vision.roi_align and R.vision.roi_pool: TVM 0.27's printouts parse, print back, place and run.

The modules are what ``tvm.relax.frontend.onnx.from_onnx(model).script()`` printed for small
ONNX RoiAlign (opset 16 half_pixel, opset 10) and MaxRoiPool models, and (NHWC, which no
frontend emits) what TVM printed for a module written directly.  The expected values were computed
by TVM 0.27 (``tvm.compile(mod, target="llvm")`` run on ``relax.VirtualMachine``) on the same
closed-form inputs and are embedded here, so the suite needs neither tvm nor onnx.  Where
onnxruntime 1.32 agrees with TVM the comment says so; where it does not (RoiAlign max mode,
MaxRoiPool's negative .5 ties) vdplace computes what TVM computes.  Kernel cases are in
tests/ir/ops/cases_vision.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ir.ops.cases_vision import ramp
from tests.ir.ops.helpers import run_module
from tests.ir.ops.test_kernels import T, infer
from vdplace import placement, runtime
from vdplace.ir import InferenceError, get_op, parse, script, structural_equal
from vdplace.ir.op import Work

X = ramp(2, 2, 6, 8)
BOXES = np.array([[0.5, 1.0, 6.5, 4.5], [-1.5, -0.75, 3.25, 2.5], [2.25, 1.5, 9.0, 7.0]], np.float32)
BATCH = np.array([0, 1, 1], np.int64)


def _rois5(scale: float) -> np.ndarray:
    """[batch, x1, y1, x2, y2] rows of the boxes scaled by `scale`."""
    return np.concatenate([BATCH[:, None].astype(np.float32), BOXES * np.float32(scale)], axis=1)


def _expected(values: list[float], shape: tuple[int, ...]) -> np.ndarray:
    return np.array(values, np.float32).reshape(shape)


# -- ONNX RoiAlign, opset 16: half_pixel (rois - 0.5, aligned), avg, sample_ratio 2 ------------

ROI_ALIGN_HALF_PIXEL = """
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(X: R.Tensor((2, 2, 6, 8), dtype="float32"), rois: R.Tensor((3, 4), dtype="float32"), batch_indices: R.Tensor((3,), dtype="int64")) -> R.Tensor((3, 2, 2, 2), dtype="float32"):
        R.func_attr({"num_input": 3})
        with R.dataflow():
            lv: R.Tensor((3, 1), dtype="int64") = R.expand_dims(batch_indices, axis=[1])
            lv1: R.Tensor((3, 1), dtype="float32") = R.astype(lv, dtype="float32")
            lv2: R.Tensor((3, 4), dtype="float32") = R.add(rois, metadata["ir.GenericConst"][0])
            lv3: R.Tensor((3, 5), dtype="float32") = R.concat((lv1, lv2), axis=1)
            gv: R.Tensor((3, 2, 2, 2), dtype="float32") = R.vision.roi_align(X, lv3, pooled_size=[2, 2], spatial_scale=1.0, sample_ratio=2, aligned=True, layout="NCHW", mode="avg")
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
"""
HALF_PIXEL_CONSTS = {"ir.GenericConst:0": np.full(4, -0.5, np.float32)}
# TVM 0.27; onnxruntime agrees within 1.5e-8.
HALF_PIXEL_OUT = [
    0.012187495827674866,
    -0.03242187574505806,
    -0.07500000298023224,
    0.08554688096046448,
    0.08749998360872269,
    0.2638281285762787,
    -0.1574999988079071,
    0.04250001162290573,
    -0.33000001311302185,
    0.3384374976158142,
    -0.41312503814697266,
    0.17218750715255737,
    0.25999999046325684,
    -0.31218746304512024,
    0.17687499523162842,
    -0.18796385824680328,
    -0.039697278290987015,
    -0.20250001549720764,
    0.21312499046325684,
    -0.5306249856948853,
    -0.2760644555091858,
    -0.06406249105930328,
    0.099062480032444,
    0.33375000953674316,
]

# -- ONNX RoiAlign, opset 10 (output_half_pixel): max, adaptive sampling, spatial_scale 0.5 ----

ROI_ALIGN_MAX = """
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(X: R.Tensor((2, 2, 6, 8), dtype="float32"), rois: R.Tensor((3, 4), dtype="float32"), batch_indices: R.Tensor((3,), dtype="int64")) -> R.Tensor((3, 2, 2, 2), dtype="float32"):
        R.func_attr({"num_input": 3})
        with R.dataflow():
            lv: R.Tensor((3, 1), dtype="int64") = R.expand_dims(batch_indices, axis=[1])
            lv1: R.Tensor((3, 1), dtype="float32") = R.astype(lv, dtype="float32")
            lv2: R.Tensor((3, 5), dtype="float32") = R.concat((lv1, rois), axis=1)
            gv: R.Tensor((3, 2, 2, 2), dtype="float32") = R.vision.roi_align(X, lv2, pooled_size=[2, 2], spatial_scale=0.5, sample_ratio=0, aligned=False, layout="NCHW", mode="max")
            R.output(gv)
        return gv
"""
# TVM 0.27 (the maximum of the bilinear samples; onnxruntime's max mode is another definition).
MAX_OUT = [
    0.8962500095367432,
    0.47874999046325684,
    0.7737500667572021,
    0.9737499952316284,
    0.71875,
    0.9187499284744263,
    0.4737499952316284,
    0.6737499833106995,
    0.0,
    0.7400000095367432,
    0.0,
    0.5606250166893005,
    0.5199999809265137,
    0.6120831966400146,
    0.581458330154419,
    0.6202082633972168,
    0.503606915473938,
    0.2058333307504654,
    0.6580207943916321,
    0.0,
    0.3537370264530182,
    0.5858333110809326,
    0.44239580631256104,
    0.9599999785423279,
]

# -- ONNX MaxRoiPool: pooled_shape [2, 3], spatial_scale 0.5 ----------------------------------

ROI_POOL = """
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(X: R.Tensor((2, 2, 6, 8), dtype="float32"), rois: R.Tensor((3, 5), dtype="float32")) -> R.Tensor((3, 2, 2, 3), dtype="float32"):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            gv: R.Tensor((3, 2, 2, 3), dtype="float32") = R.vision.roi_pool(X, rois, pooled_size=[2, 3], spatial_scale=0.5, layout="NCHW")
            R.output(gv)
        return gv
"""
# TVM 0.27.  onnxruntime agrees on rois 0 and 2; roi 1 starts at x = -3 · 0.5 = -1.5, which TVM
# rounds to -1 (floor(v + 0.5)) and onnxruntime to -2 (std::round), so its first bins differ.
POOL_OUT = [
    0.9399999976158142,
    0.9399999976158142,
    1.0,
    0.800000011920929,
    0.800000011920929,
    1.0,
    0.7799999713897705,
    0.9800000190734863,
    0.8999999761581421,
    0.9599999785423279,
    0.699999988079071,
    0.8999999761581421,
    -0.6600000262260437,
    0.8199999928474426,
    0.8199999928474426,
    0.9399999976158142,
    0.9399999976158142,
    0.6800000071525574,
    0.5199999809265137,
    0.5199999809265137,
    0.7200000286102295,
    0.3799999952316284,
    0.9800000190734863,
    0.5799999833106995,
    1.0,
    0.7400000095367432,
    0.20000000298023224,
    0.8600000143051147,
    0.3199999928474426,
    -0.2199999988079071,
    0.8999999761581421,
    0.8999999761581421,
    -0.6399999856948853,
    0.7599999904632568,
    0.9599999785423279,
    0.9599999785423279,
]

# -- NHWC, aligned, adaptive, spatial_scale 0.25 (written directly; TVM's printout) ---------------

ROI_ALIGN_NHWC = """
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 6, 8, 2), dtype="float32"), rois: R.Tensor((3, 5), dtype="float32")) -> R.Tensor((3, 2, 2, 2), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((3, 2, 2, 2), dtype="float32") = R.vision.roi_align(x, rois, pooled_size=[2, 2], spatial_scale=0.25, sample_ratio=0, aligned=True, layout="NHWC", mode="avg")
            R.output(gv)
        return gv
"""
# TVM 0.27.
NHWC_OUT = [
    0.028124995529651642,
    0.050833337008953094,
    -0.15062499046325684,
    0.25083333253860474,
    -0.027499988675117493,
    -0.1731249988079071,
    0.17249999940395355,
    0.005833336617797613,
    -0.34368056058883667,
    0.12034723907709122,
    0.2162153571844101,
    -0.006562523543834686,
    -0.43130427598953247,
    0.1914127767086029,
    0.012777857482433319,
    0.10452903062105179,
    0.048461392521858215,
    -0.10505422949790955,
    -0.13843750953674316,
    -0.2318750023841858,
    0.13413192331790924,
    0.03178819268941879,
    -0.23083330690860748,
    0.26404082775115967,
]


def test_onnx_roi_align_half_pixel_runs_as_tvm_with_its_bound_constant():
    mod = parse(ROI_ALIGN_HALF_PIXEL)
    printed = script(mod)
    assert (
        'R.vision.roi_align(X, lv3, pooled_size=[2, 2], spatial_scale=1.0, sample_ratio=2, aligned=True, layout="NCHW", mode="avg")'
        in printed
    )
    assert structural_equal(parse(printed), mod)
    placed = placement.place(mod, default="host").module
    vm = runtime.VirtualMachine(runtime.compile(placed, params=HALF_PIXEL_CONSTS))
    out = vm.run("main", X, BOXES, BATCH)
    np.testing.assert_allclose(out, _expected(HALF_PIXEL_OUT, (3, 2, 2, 2)), rtol=1e-5, atol=1e-6)


def test_onnx_roi_align_max_adaptive_runs_as_tvm():
    out = run_module(ROI_ALIGN_MAX, X, BOXES * np.float32(2), BATCH)
    np.testing.assert_allclose(out, _expected(MAX_OUT, (3, 2, 2, 2)), rtol=1e-5, atol=1e-6)


def test_onnx_max_roi_pool_runs_as_tvm():
    out = run_module(ROI_POOL, X, _rois5(2.0))
    np.testing.assert_array_equal(out, _expected(POOL_OUT, (3, 2, 2, 3)))


def test_nhwc_roi_align_runs_as_tvm_and_as_nchw_transposed():
    x_nhwc = np.ascontiguousarray(X.transpose(0, 2, 3, 1))
    out = run_module(ROI_ALIGN_NHWC, x_nhwc, _rois5(4.0))
    np.testing.assert_allclose(out, _expected(NHWC_OUT, (3, 2, 2, 2)), rtol=1e-5, atol=1e-6)
    nchw = get_op("vision.roi_align").kernel(
        X, _rois5(4.0), pooled_size=[2, 2], spatial_scale=0.25, sample_ratio=0, aligned=True, layout="NCHW", mode="avg"
    )
    np.testing.assert_allclose(out, nchw.transpose(0, 2, 3, 1), rtol=1e-6, atol=1e-7)


def test_a_batch_index_outside_the_data_is_a_kernel_error():
    rois = _rois5(2.0)
    rois[1, 0] = 2.0
    with pytest.raises(runtime.KernelError, match=r"rois\[1, 0\] = 2.0 is not a batch index of data with 2 entries"):
        run_module(ROI_POOL, X, rois)


# -- inference --------------------------------------------------------------------------------


def _align(*sinfos, **attrs):
    return infer("vision.roi_align", *sinfos, **{"pooled_size": [2, 3], "spatial_scale": 1.0, **attrs})


def _pool(*sinfos, **attrs):
    return infer("vision.roi_pool", *sinfos, **{"pooled_size": [2, 3], "spatial_scale": 1.0, **attrs})


def test_inference_gives_rois_channels_and_pooled_size():
    data, rois = T((2, 16, 7, 9)), T(("r", 5))
    assert _align(data, rois) == T(("r", 16, 2, 3))
    assert _align(T((2, 7, 9, 16), "float16"), rois, layout="NHWC") == T(("r", 2, 3, 16), "float16")
    assert _align(data, rois, pooled_size=[4]) == T(("r", 16, 4, 4))
    assert _pool(data, T((5, 5))) == T((5, 16, 2, 3))
    assert _pool(data, rois, pooled_size=7) == T(("r", 16, 7, 7))
    # Only the rank when a shape is unknown, as in TVM.
    assert _align(T(None, ndim=4), rois) == T(None, ndim=4)
    assert _pool(data, T(None)) == T(None, ndim=4)
    assert _align(T(None, "float64"), T(None, "float64")) == T(None, "float64", ndim=4)


@pytest.mark.parametrize(
    ("op", "sinfos", "attrs", "message"),
    [
        ("roi_align", (T((2, 3, 4)), T((1, 5))), {}, r"data must have rank 4, got rank 3"),
        ("roi_pool", (T((2, 3, 4, 5)), T((1, 5, 1))), {}, r"rois must have rank 2, got rank 3"),
        (
            "roi_align",
            (T((2, 3, 4, 5)), T((1, 4))),
            {},
            r"rois must have shape \(num_roi, 5\), rows \[batch_index, x1, y1, x2, y2\]; got shape \(1, 4\)",
        ),
        ("roi_pool", (T((2, 3, 4, 5)), T(("r", 6))), {}, r"rois must have shape \(num_roi, 5\)"),
        ("roi_align", (T((2, 3, 4, 5)), T((1, 5))), {"mode": "sum"}, r"mode 'sum' is not one of avg, max"),
        (
            "roi_align",
            (T((2, 3, 4, 5)), T((1, 5))),
            {"layout": "NCDHW"},
            r"layout 'NCDHW' is not supported \(only NCHW and NHWC\)",
        ),
        ("roi_pool", (T((2, 3, 4, 5)), T((1, 5))), {"layout": "NHWC"}, r"layout 'NHWC' is not supported \(only NCHW\)"),
        (
            "roi_align",
            (T((2, 3, 4, 5)), T((1, 5))),
            {"pooled_size": [2, 0]},
            r"pooled_size must be one or two positive integers, got \(2, 0\)",
        ),
        (
            "roi_pool",
            (T((2, 3, 4, 5)), T((1, 5))),
            {"pooled_size": [1, 2, 3]},
            r"pooled_size must be one or two positive integers",
        ),
        (
            "roi_pool",
            (T((2, 3, 4, 5)), T((1, 5))),
            {"spatial_scale": "0.5"},
            r"spatial_scale must be a number, got '0.5'",
        ),
        ("roi_align", (T((2, 3, 4, 5)), T((1, 5))), {"sample_ratio": 1.5}, r"sample_ratio must be an integer"),
        ("roi_align", (T((2, 3, 4, 5)), T((1, 5))), {"aligned": 1}, r"aligned must be True or False"),
        ("roi_align", (T((2, 3, 4, 5), "int32"), T((1, 5))), {}, r"data must be a float tensor, got dtype int32"),
        ("roi_pool", (T((2, 3, 4, 5)), T((1, 5), "int64")), {}, r"rois must be a float tensor, got dtype int64"),
    ],
)
def test_inference_errors_say_what_is_wrong(op, sinfos, attrs, message):
    fn = _align if op == "roi_align" else _pool
    with pytest.raises(InferenceError, match=rf"R\.vision\.{op}: {message}"):
        fn(*sinfos, **attrs)


def test_a_module_with_rois_of_four_columns_is_refused_at_parse_time():
    bad = ROI_POOL.replace("rois: R.Tensor((3, 5)", "rois: R.Tensor((3, 4)")
    with pytest.raises(InferenceError, match=r"R\.vision\.roi_pool: rois must have shape \(num_roi, 5\)"):
        parse(bad)


# -- work -------------------------------------------------------------------------------------


def test_work_counts_samples_per_bin():
    align = get_op("vision.roi_align")
    data, rois, out = T((1, 4, 8, 9)), T((3, 5)), T((3, 4, 2, 3))
    attrs = {
        "pooled_size": [2, 3],
        "spatial_scale": 1.0,
        "sample_ratio": 2,
        "aligned": False,
        "layout": "NCHW",
        "mode": "avg",
    }
    read = (4 * 8 * 9 + 3 * 5) * 4.0
    assert align.work([data, rois], out, attrs) == Work(12.0 * 4 * 72, read, 72 * 4.0)
    # Adaptive: ceil(8 / 2) x ceil(9 / 3) samples, as many as a bin of a roi covering the map spans.
    assert align.work([data, rois], out, {**attrs, "sample_ratio": 0}) == Work(12.0 * 12 * 72, read, 72 * 4.0)
    pool = get_op("vision.roi_pool")
    assert pool.work([data, rois], out, {"pooled_size": [2, 3], "spatial_scale": 1.0, "layout": "NCHW"}) == Work(
        12.0 * 72, read, 72 * 4.0
    )
