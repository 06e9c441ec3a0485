# ruff: noqa: E501  (the TVMScript text keeps TVM's printed lines)
"""R.image.grid_sample and R.image.affine_grid (ir/ops/sampling.py): forms, inference, kernels, runs.

Expected values come from torch 2.13 and are embedded (tests/ir/ops/sampling_expected.py); the
kernel cases themselves are in tests/ir/ops/cases_sampling.py (they also feed tests/ir/ops/test_kernels.py).
The two modules below are TVMScript printed by TVM 0.27: GRID_TORCH by its PyTorch
exported-program frontend (affine_grid decomposed by torch.export; grid_sample fed torch's
channels-last grid unpermuted, so TVM and vdplace compute grid_sample on the planes
grid[:, 0] and grid[:, 1], not torch's F.grid_sample), GRID_ONNX by its ONNX frontend.
Running both under TVM 0.27 (llvm) gave the embedded torch values to within 6e-7.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ir.ops.cases_sampling import (
    AFFINE_SIZES,
    E2E_GRID,
    E2E_THETA,
    E2E_X,
    G2,
    G3,
    ONNX_GRID,
    ONNX_THETA,
    ONNX_X,
    THETA2,
    THETA3,
    X2,
    X3,
    affine_grid_key,
    expected,
    grid_sample_combos,
    grid_sample_key,
)
from tests.ir.ops.test_kernels import T, infer, run
from vdplace import placement, runtime
from vdplace.ir import InferenceError, get_op, parse, script, structural_equal
from vdplace.ir.op import Work
from vdplace.ir.struct_info import ShapeStructInfo

GS, AG = "image.grid_sample", "image.affine_grid"
ATOL = 2e-6


def test_parameters_are_tvms():
    gs = get_op(GS)
    assert [p.name for p in gs.params] == ["data", "grid", "method", "layout", "padding_mode", "align_corners"]
    assert [p.default for p in gs.params[2:]] == ["bilinear", "NCHW", "zeros", False]
    ag = get_op(AG)
    assert [p.name for p in ag.params] == ["data", "size", "align_corners"]
    assert ag.params[2].default is True


# -- inference ----------------------------------------------------------------------------------


def test_grid_sample_inference_reads_tvms_channels_first_grid():
    assert infer(GS, T((2, 3, 6, 8)), T((2, 2, 5, 7))) == T((2, 3, 5, 7))
    # the torch frontend's unpermuted (N, Ho, Wo, 2) grid: TVM infers (N, C, Wo, 2), and so do we
    assert infer(GS, T((2, 3, 6, 8)), T((2, 5, 7, 2))) == T((2, 3, 7, 2))
    assert infer(GS, T((2, 3, 4, 6, 8), "float64"), T((2, 3, 4, 5, 7)), layout="NCDHW") == T((2, 3, 4, 5, 7), "float64")
    assert infer(GS, T(("n", 3, 6, 8), "float16"), T(("n", 2, "h", 7), "float16")) == T(("n", 3, "h", 7), "float16")
    assert infer(GS, T(None, ndim=4), T((2, 2, 5, 7))) == T(None, ndim=4)
    assert infer(GS, T(None), T(None), layout="NCDHW") == T(None, ndim=5)


@pytest.mark.parametrize(
    "data, grid, attrs, message",
    [
        ((3, 6, 8), (2, 2, 5, 7), {}, "data must have rank 4 \\(NCHW\\), got rank 3"),
        ((2, 3, 6, 8), (2, 5, 7), {}, "grid must have rank 4 \\(NCHW\\), got rank 3"),
        ((2, 3, 6, 8), (2, 2, 5, 7), {"layout": "NCDHW"}, "data must have rank 5 \\(NCDHW\\)"),
        ((2, 3, 6, 8), (3, 2, 5, 7), {}, "data has batch 2 but grid has batch 3"),
        ((2, 3, 6, 8), (2, 1, 5, 7), {}, "grid must be \\(N, 2, \\*out\\)"),
        ((2, 6, 8, 3), (2, 2, 5, 7), {"layout": "NHWC"}, "layout 'NHWC' is not supported"),
        ((2, 3, 6, 8), (2, 2, 5, 7), {"method": "cubic"}, "method 'cubic' is not one of nearest, bilinear, bicubic"),
        ((2, 3, 6, 8), (2, 2, 5, 7), {"padding_mode": "constant"}, "padding_mode 'constant' is not one of"),
        ((2, 3, 6, 8), (2, 2, 5, 7), {"align_corners": 1}, "align_corners must be True or False"),
        (
            (2, 3, 4, 6, 8),
            (2, 3, 4, 5, 7),
            {"layout": "NCDHW", "method": "bicubic"},
            "method 'bicubic' supports only NCHW \\(2-D\\), not NCDHW",
        ),
    ],
)
def test_grid_sample_errors_name_the_problem(data, grid, attrs, message):
    with pytest.raises(InferenceError, match=rf"R\.image\.grid_sample: {message}"):
        infer(GS, T(data), T(grid), **attrs)


def test_grid_sample_rejects_integer_tensors():
    with pytest.raises(InferenceError, match=r"R\.image\.grid_sample: expects a float tensor, got dtype int32"):
        infer(GS, T((2, 3, 6, 8), "int32"), T((2, 2, 5, 7)))


def test_affine_grid_inference():
    assert infer(AG, T((2, 2, 3)), size=(5, 7)) == T((2, 2, 5, 7))
    assert infer(AG, T(("n", 3, 4), "float64"), size=(4, "h", 7), align_corners=False) == T(
        ("n", 3, 4, "h", 7), "float64"
    )
    assert infer(AG, T(None, ndim=3), size=(5, 7)) == T(None, ndim=4)
    assert infer(AG, T((2, 2, 3)), ShapeStructInfo(None, 2)) == T(None, ndim=4)


@pytest.mark.parametrize(
    "theta, size, message",
    [
        ((2, 3, 3), (5, 7), "a 2-D size needs data of shape \\(N, 2, 3\\), got \\(2, 3, 3\\)"),
        ((2, 2, 3), (4, 5, 7), "a 3-D size needs data of shape \\(N, 3, 4\\)"),
        ((2, 6), (5, 7), "data must have rank 3 \\(N, k, k \\+ 1\\), got rank 2"),
        ((2, 2, 3), (7,), "size must have 2 dims \\(H, W\\) or 3 \\(D, H, W\\), got \\(7,\\)"),
    ],
)
def test_affine_grid_errors_name_the_problem(theta, size, message):
    with pytest.raises(InferenceError, match=rf"R\.image\.affine_grid: {message}"):
        infer(AG, T(theta), size=size)


def test_work_counts_taps():
    out = T((1, 2, 3, 4))
    args = [T((1, 2, 4, 4)), T((1, 2, 3, 4))]
    assert get_op(GS).work(args, out, {"method": "bilinear", "layout": "NCHW"}).flops == 2.0 * 4 * 24
    assert get_op(GS).work(args, out, {"method": "bicubic", "layout": "NCHW"}).flops == 2.0 * 16 * 24
    assert get_op(GS).work(args, out, {"method": "nearest", "layout": "NCHW"}) == Work(48.0, 224.0, 96.0)
    assert get_op(AG).work([T((1, 2, 3))], T((1, 2, 3, 4))).flops == 8.0 * 24


# -- kernels against torch -------------------------------------------------------------------------


@pytest.mark.parametrize("k, method, padding, align", grid_sample_combos())
def test_grid_sample_matches_torch(k, method, padding, align):
    x, g = (X2, G2) if k == 2 else (X3, G3)
    layout = "NCHW" if k == 2 else "NCDHW"
    got = run(GS, x, g, method=method, layout=layout, padding_mode=padding, align_corners=align)
    want = expected(grid_sample_key(k, method, padding, align), got.shape)
    np.testing.assert_allclose(got, want, rtol=0, atol=ATOL)


@pytest.mark.parametrize("dtype, atol", [("float64", 1e-6), ("float16", 2e-2)])
def test_grid_sample_keeps_the_dtype(dtype, atol):
    got = run(GS, X2.astype(dtype), G2.astype(dtype), method="bicubic", padding_mode="border", align_corners=False)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, expected(grid_sample_key(2, "bicubic", "border", False), got.shape), atol=atol)


def test_grid_sample_reads_only_the_first_k_grid_planes():
    extra = np.concatenate([G2, np.full_like(G2[:, :1], 9.0)], axis=1)  # (1, 3, 2, 3)
    np.testing.assert_array_equal(run(GS, X2, extra), run(GS, X2, G2))


@pytest.mark.parametrize("k, align", [(2, False), (2, True), (3, False), (3, True)])
def test_affine_grid_matches_torch(k, align):
    theta = THETA2 if k == 2 else THETA3
    got = run(AG, theta, size=AFFINE_SIZES[k], align_corners=align)
    np.testing.assert_allclose(got, expected(affine_grid_key(k, align), got.shape), rtol=0, atol=ATOL)


def test_affine_grid_of_one_point_is_the_centre():
    got = run(AG, THETA2, size=(1, 1), align_corners=True)
    np.testing.assert_allclose(got.ravel(), THETA2[0, :, 2])  # torch's convention (TVM's topi asserts)


# -- the frontends' TVMScript: parse -> print -> parse, place, run ---------------------------------

GRID_TORCH = """\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 6, 8), dtype="float32"), theta: R.Tensor((2, 2, 3), dtype="float32"), grid: R.Tensor((2, 5, 7, 2), dtype="float32")) -> R.Tuple(R.Tensor((2, 3, 7, 2), dtype="float32"), R.Tensor((2, 5, 7, 2), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((7,), dtype="int64") = R.arange(0, 7, 1, dtype="int64")
            lv1: R.Tensor((7,), dtype="bool") = R.less(lv, R.const(3, "int64"))
            lv2: R.Tensor((7,), dtype="float32") = R.astype(lv, dtype="float32")
            lv3: R.Tensor((7,), dtype="float32") = R.multiply(lv2, R.const(0.3333333432674408, "float32"))
            lv4: R.Tensor((7,), dtype="float32") = R.add(lv3, R.const(-1.0, "float32"))
            lv5: R.Tensor((7,), dtype="int64") = R.subtract(R.const(6, "int64"), lv)
            lv6: R.Tensor((7,), dtype="float32") = R.astype(lv5, dtype="float32")
            lv7: R.Tensor((7,), dtype="float32") = R.multiply(lv6, R.const(0.3333333432674408, "float32"))
            lv8: R.Tensor((7,), dtype="float32") = R.subtract(R.const(1.0, "float32"), lv7)
            lv9: R.Tensor((7,), dtype="float32") = R.where(lv1, lv4, lv8)
            lv10: R.Tensor((1, 7, 1), dtype="float32") = R.reshape(lv9, R.shape([1, 7, 1]))
            lv11: R.Tensor((5,), dtype="int64") = R.arange(0, 5, 1, dtype="int64")
            lv12: R.Tensor((5,), dtype="bool") = R.less(lv11, R.const(2, "int64"))
            lv13: R.Tensor((5,), dtype="float32") = R.astype(lv11, dtype="float32")
            lv14: R.Tensor((5,), dtype="float32") = R.multiply(lv13, R.const(0.5, "float32"))
            lv15: R.Tensor((5,), dtype="float32") = R.add(lv14, R.const(-1.0, "float32"))
            lv16: R.Tensor((5,), dtype="int64") = R.subtract(R.const(4, "int64"), lv11)
            lv17: R.Tensor((5,), dtype="float32") = R.astype(lv16, dtype="float32")
            lv18: R.Tensor((5,), dtype="float32") = R.multiply(lv17, R.const(0.5, "float32"))
            lv19: R.Tensor((5,), dtype="float32") = R.subtract(R.const(1.0, "float32"), lv18)
            lv20: R.Tensor((5,), dtype="float32") = R.where(lv12, lv15, lv19)
            lv21: R.Tensor((5, 1, 1), dtype="float32") = R.reshape(lv20, R.shape([5, 1, 1]))
            lv22: R.Tensor((1, 1, 1), dtype="float32") = R.full(R.shape([1, 1, 1]), R.const(1.0, "float32"), dtype="float32")
            lv23: R.Tensor((1, 7, 3), dtype="float32") = R.nn.pad(lv10, pad_width=[0, 0, 0, 0, 0, 2], pad_value=0.0, pad_mode="constant")
            lv24: R.Tensor((5, 1, 3), dtype="float32") = R.nn.pad(lv21, pad_width=[0, 0, 0, 0, 1, 1], pad_value=0.0, pad_mode="constant")
            lv25: R.Tensor((1, 1, 3), dtype="float32") = R.nn.pad(lv22, pad_width=[0, 0, 0, 0, 2, 0], pad_value=0.0, pad_mode="constant")
            lv26: R.Tensor((5, 7, 3), dtype="float32") = R.add(lv23, lv24)
            lv27: R.Tensor((5, 7, 3), dtype="float32") = R.add(lv26, lv25)
            lv28: R.Tensor((35, 3, 1), dtype="float32") = R.reshape(lv27, R.shape([35, 3, 1]))
            lv29: R.Tensor((2, 3, 2), dtype="float32") = R.permute_dims(theta, axes=[0, 2, 1])
            lv30: R.Tensor((2, 1, 3, 2), dtype="float32") = R.expand_dims(lv29, axis=[1])
            lv31: R.Tensor((2, 35, 3, 2), dtype="float32") = R.multiply(lv28, lv30)
            lv32: R.Tensor((2, 35, 2), dtype="float32") = R.sum(lv31, axis=[-2], keepdims=False)
            lv33: R.Tensor((2, 5, 7, 2), dtype="float32") = R.reshape(lv32, R.shape([2, 5, 7, 2]))
            lv34: R.Tensor((2, 3, 7, 2), dtype="float32") = R.image.grid_sample(x, grid, method="bilinear", layout="NCHW", padding_mode="zeros", align_corners=False)
            gv: R.Tuple(R.Tensor((2, 3, 7, 2), dtype="float32"), R.Tensor((2, 5, 7, 2), dtype="float32")) = lv34, lv33
            R.output(gv)
        return gv
"""

GRID_ONNX = """\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 4, 5), dtype="float32"), theta: R.Tensor((1, 2, 3), dtype="float32"), grid: R.Tensor((1, 3, 4, 2), dtype="float32")) -> R.Tuple(R.Tensor((1, 3, 4, 2), dtype="float32"), R.Tensor((1, 2, 3, 4), dtype="float32"), R.Tensor((1, 2, 3, 4), dtype="float32"), R.Tensor((1, 2, 3, 4), dtype="float32"), R.Tensor((1, 2, 3, 4), dtype="float32")):
        R.func_attr({"num_input": 3})
        with R.dataflow():
            lv: R.Tensor((1, 2, 3, 4), dtype="float32") = R.image.affine_grid(theta, R.shape([3, 4]), align_corners=False)
            lv1: R.Tensor((1, 3, 4, 2), dtype="float32") = R.permute_dims(lv, axes=[0, 2, 3, 1])
            lv2: R.Tensor((1, 2, 3, 4), dtype="float32") = R.image.affine_grid(theta, R.shape([3, 4]), align_corners=True)
            lv3: R.Tensor((1, 3, 4, 2), dtype="float32") = R.permute_dims(lv2, axes=[0, 2, 3, 1])
            lv4: R.Tensor((1, 2, 3, 4), dtype="float32") = R.permute_dims(lv1, axes=[0, 3, 1, 2])
            lv5: R.Tensor((1, 2, 3, 4), dtype="float32") = R.permute_dims(lv3, axes=[0, 3, 1, 2])
            lv6: R.Tensor((1, 2, 3, 4), dtype="float32") = R.permute_dims(grid, axes=[0, 3, 1, 2])
            lv7: R.Tensor((1, 2, 3, 4), dtype="float32") = R.permute_dims(grid, axes=[0, 3, 1, 2])
            lv8: R.Tensor((1, 2, 3, 4), dtype="float32") = R.image.grid_sample(x, lv4, method="bilinear", layout="NCHW", padding_mode="border", align_corners=False)
            lv9: R.Tensor((1, 2, 3, 4), dtype="float32") = R.image.grid_sample(x, lv5, method="bilinear", layout="NCHW", padding_mode="reflection", align_corners=True)
            lv10: R.Tensor((1, 2, 3, 4), dtype="float32") = R.image.grid_sample(x, lv6, method="bicubic", layout="NCHW", padding_mode="reflection", align_corners=True)
            lv11: R.Tensor((1, 2, 3, 4), dtype="float32") = R.image.grid_sample(x, lv7, method="nearest", layout="NCHW", padding_mode="zeros", align_corners=False)
            gv: R.Tuple(R.Tensor((1, 3, 4, 2), dtype="float32"), R.Tensor((1, 2, 3, 4), dtype="float32"), R.Tensor((1, 2, 3, 4), dtype="float32"), R.Tensor((1, 2, 3, 4), dtype="float32"), R.Tensor((1, 2, 3, 4), dtype="float32")) = lv1, lv8, lv9, lv10, lv11
            R.output(gv)
        return gv
"""


def _with_devices(text: str, on_cuda: str) -> str:
    """The module with an llvm and a cuda vdevice declared and parameter `on_cuda` put on cuda."""
    text = text.replace(
        "class Module:\n",
        'class Module:\n    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda")]})\n\n',
    )
    annotation = text.split("def main(")[1].split(f"{on_cuda}: R.Tensor(")[1].split(")")[0] + ")"
    old = f'{on_cuda}: R.Tensor({annotation}, dtype="float32")'
    return text.replace(old, f'{on_cuda}: R.Tensor({annotation}, dtype="float32", vdevice="cuda")', 1)


@pytest.mark.parametrize("text", [GRID_TORCH, GRID_ONNX], ids=["torch", "onnx"])
def test_frontend_text_round_trips(text):
    mod = parse(text)
    printed = script(mod)
    assert "R.image.grid_sample(x, " in printed
    again = parse(printed)
    assert structural_equal(mod, again)
    assert script(again) == printed


def _run_placed(text: str, *inputs: np.ndarray) -> tuple:
    placed = placement.place(parse(text), default="host").module
    vm = runtime.VirtualMachine(runtime.compile(placed), simulate_missing=True)
    return placed, vm.run("main", *inputs)


def test_torch_frontend_module_runs_as_tvm_runs_it():
    placed, (out0, out1) = _run_placed(_with_devices(GRID_TORCH, "x"), E2E_X, E2E_THETA, E2E_GRID)
    assert 'R.image.grid_sample(x, grid, method="bilinear"' in script(placed)
    assert 'vdevice="cuda:0:global") = R.image.grid_sample(' in script(placed)
    # TVM's result (torch's F.grid_sample on the planes grid[:, 0], grid[:, 1]), not F.grid_sample(x, grid)
    np.testing.assert_allclose(out0, expected("e2e/torch_frontend/out0", (2, 3, 7, 2)), rtol=0, atol=ATOL)
    np.testing.assert_allclose(out1, expected("e2e/torch_frontend/out1", (2, 5, 7, 2)), rtol=0, atol=ATOL)


def test_onnx_frontend_module_matches_torch():
    placed, outs = _run_placed(_with_devices(GRID_ONNX, "grid"), ONNX_X, ONNX_THETA, ONNX_GRID)
    assert "R.image.affine_grid(theta, R.shape([3, 4]), align_corners=False)" in script(placed)
    shapes = [(1, 3, 4, 2)] + [(1, 2, 3, 4)] * 4
    for i, (got, shape) in enumerate(zip(outs, shapes, strict=True)):
        np.testing.assert_allclose(got, expected(f"e2e/onnx/out{i}", shape), rtol=0, atol=ATOL, err_msg=f"out{i}")


def test_reference_interpreter_agrees():
    outs = runtime.run_reference(parse(GRID_ONNX), "main", ONNX_X, ONNX_THETA, ONNX_GRID)
    np.testing.assert_allclose(outs[3], expected("e2e/onnx/out3", (1, 2, 3, 4)), rtol=0, atol=ATOL)
