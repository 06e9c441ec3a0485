# ruff: noqa: E501  (the TVMScript texts keep the lines TVM printed)
"""Ops TVM 0.27's torch.fx and ONNX frontends print that vdplace lacked.

R.square, R.log_add_exp, R.outer, R.eye, R.eye_like, R.nn.pixel_shuffle,
R.nn.nll_loss (with and without its optional positional weights),
R.left_shift, R.right_shift, R.image.resize3d and R.meshgrid: the module below is what TVM prints for
them (``tvm.script.from_source`` then ``script()``); it must parse, print
back, place and run, each result equal to a NumPy formula written out here
(and to torch's, where torch is installed).  Then inference: shapes and the
errors for bad inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ir.ops import cases_frontend_gaps
from tests.ir.ops.helpers import P, _torch, run_module
from tests.ir.ops.test_kernels import T, infer
from vdplace.ir import InferenceError, get_op
from vdplace.ir.struct_info import TupleStructInfo

PRINTED = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4, 3, 5), dtype="float32"), y: R.Tensor((2, 4, 3, 5), dtype="float32"), v: R.Tensor((4,), dtype="float32"), w: R.Tensor((6,), dtype="float32"), p: R.Tensor((5, 7), dtype="float32"), t: R.Tensor((5,), dtype="int64"), wt: R.Tensor((7,), dtype="float32"), n: R.Tensor((5,), dtype="int32"), u: R.Tensor((1, 2, 3, 4, 5), dtype="float32")):
        a1: R.Tensor((2, 4, 3, 5), dtype="float32") = R.square(x)
        a2: R.Tensor((2, 4, 3, 5), dtype="float32") = R.log_add_exp(x, y)
        a3: R.Tensor((4, 6), dtype="float32") = R.outer(v, w)
        a4: R.Tensor((3, 4), dtype="float32") = R.eye(3, 4, 1, dtype="float32")
        a5: R.Tensor((5, 7), dtype="float32") = R.eye_like(p, -1, dtype=None)
        a6: R.Tensor((5, 7), dtype="int32") = R.eye_like(p, 0, dtype="int32")
        b0: R.Tensor((2, 1, 6, 10), dtype="float32") = R.nn.pixel_shuffle(x, upscale_factor=2)
        b1: R.Tensor((), dtype="float32") = R.nn.nll_loss(p, t, reduction="mean", ignore_index=-100)
        b2: R.Tensor((), dtype="float32") = R.nn.nll_loss(p, t, wt, reduction="sum", ignore_index=2)
        b3: R.Tensor((5,), dtype="float32") = R.nn.nll_loss(p, t, reduction="none", ignore_index=-100)
        b4: R.Tensor((), dtype="float32") = R.nn.nll_loss(p, t, wt, reduction="mean", ignore_index=2)
        c0: R.Tensor((5,), dtype="int32") = R.left_shift(n, R.const(2, "int32"))
        c1: R.Tensor((5,), dtype="int32") = R.right_shift(n, R.const(1, "int32"))
        c2: R.Tensor((1, 2, 6, 8, 10), dtype="float32") = R.image.resize3d(u, R.shape([6, 8, 10]), roi=[T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0)], layout="NCDHW", method="linear", coordinate_transformation_mode="half_pixel", rounding_method="", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype=None)
        c3: R.Tuple(R.Tensor((4, 6), dtype="float32"), R.Tensor((4, 6), dtype="float32")) = R.meshgrid((v, w), indexing="ij")
        return (a1, a2, a3, a4, a5, a6, b0, b1, b2, b3, b4, c0, c1, c2, c3)
"""


def _inputs():
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((2, 4, 3, 5)) * 40).astype("float32")  # exp overflows float32: log_add_exp must not
    y = (rng.standard_normal((2, 4, 3, 5)) * 40).astype("float32")
    v, w = rng.standard_normal(4).astype("float32"), rng.standard_normal(6).astype("float32")
    logits = rng.standard_normal((5, 7))
    p = (logits - np.log(np.exp(logits).sum(1, keepdims=True))).astype("float32")
    t = np.array([0, 2, 6, 2, 3], dtype="int64")
    wt = rng.random(7).astype("float32")
    n = np.array([1, -8, 3, 100, -1], dtype="int32")
    u = rng.standard_normal((1, 2, 3, 4, 5)).astype("float32")
    return x, y, v, w, p, t, wt, n, u


def _pixel_shuffle_ref(x: np.ndarray, r: int) -> np.ndarray:
    n, c, h, w = x.shape
    out = np.empty((n, c // (r * r), h * r, w * r), x.dtype)
    for ci in range(c // (r * r)):
        for i in range(r):
            for j in range(r):
                out[:, ci, i::r, j::r] = x[:, ci * r * r + i * r + j]
    return out


def _nll_ref(p, t, wt, reduction, ignore):
    losses = [0.0 if tc == ignore else -float(wt[tc]) * float(p[k, tc]) for k, tc in enumerate(t)]
    if reduction == "none":
        return np.array(losses, "float32")
    if reduction == "sum":
        return np.float32(sum(losses))
    return np.float32(sum(losses) / sum(float(wt[tc]) for tc in t if tc != ignore))


def test_the_printed_ops_parse_print_back_place_and_run_as_their_formulas():
    x, y, v, w, p, t, wt, n, u = _inputs()
    got = run_module(PRINTED, x, y, v, w, p, t, wt, n, u)
    ones = np.ones(7, "float32")
    hi = np.maximum(x.astype(np.float64), y)
    want = [
        x * x,
        (hi + np.log(np.exp(x - hi) + np.exp(y - hi))).astype("float32"),
        v[:, None] * w[None, :],
        np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], "float32"),
        np.array([[1.0 if c == r - 1 else 0.0 for c in range(7)] for r in range(5)], "float32"),
        np.array([[1 if c == r else 0 for c in range(7)] for r in range(5)], "int32"),
        _pixel_shuffle_ref(x, 2),
        _nll_ref(p, t, ones, "mean", -100),
        _nll_ref(p, t, wt, "sum", 2),
        _nll_ref(p, t, ones, "none", -100),
        _nll_ref(p, t, wt, "mean", 2),
        np.array([4, -32, 12, 400, -4], "int32"),
        np.array([0, -4, 1, 50, -1], "int32"),
        cases_frontend_gaps._trilinear_ref((6, 8, 10))(u).astype("float32"),
        (np.repeat(v[:, None], 6, axis=1), np.repeat(w[None, :], 4, axis=0)),
    ]
    assert np.isfinite(got[1]).all()
    for i, (g, e) in enumerate(zip(got, want, strict=True)):
        if isinstance(e, tuple):
            g, e = np.stack(g), np.stack(e)
        g, e = np.asarray(g), np.asarray(e)
        assert g.shape == e.shape and g.dtype == e.dtype, i
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-5, err_msg=str(i))


def test_the_ops_match_torch_where_it_is_installed():
    torch = _torch()
    if torch is None:
        pytest.skip("torch is not installed")
    x, y, v, w, p, t, wt, n, u = _inputs()
    got = run_module(PRINTED, x, y, v, w, p, t, wt, n, u)
    F, A = torch.nn.functional, torch.from_numpy
    want = [
        A(x).square(),
        torch.logaddexp(A(x), A(y)),
        torch.outer(A(v), A(w)),
        torch.eye(5, 7, dtype=torch.int32),
        F.pixel_shuffle(A(x), 2),
        F.nll_loss(A(p), A(t)),
        F.nll_loss(A(p), A(t), A(wt), reduction="sum", ignore_index=2),
        F.nll_loss(A(p), A(t), reduction="none"),
        F.nll_loss(A(p), A(t), A(wt), ignore_index=2),
        F.interpolate(A(u), size=(6, 8, 10), mode="trilinear"),
    ]
    for g, e in zip([got[i] for i in (0, 1, 2, 5, 6, 7, 8, 9, 10, 13)], want, strict=True):
        np.testing.assert_allclose(np.asarray(g), e.numpy(), rtol=1e-6, atol=1e-6)


def test_inference_gives_shapes_and_dtypes():
    assert infer("square", T((2, "n"), "int8")) == T((2, "n"), "int8")
    assert infer("log_add_exp", T((3, 1)), T((4,))) == T((3, 4))
    assert infer("outer", T(("n",)), T((6,))) == T(("n", 6))
    assert infer("eye", P("int64", 3), P("int64", 5), P("int64", 2), dtype="float16") == T((3, 5), "float16")
    assert infer("eye", P("int64", "n"), P("int64", "n"), P("int64", 0)) == T(("n", "n"))
    assert infer("eye_like", T((3, 4), "int8"), P("int64", 1)) == T((3, 4), "int8")
    assert infer("nn.pixel_shuffle", T((2, 18, 3, 5)), upscale_factor=3) == T((2, 2, 9, 15))
    assert infer("nn.pixel_shuffle", T((9, "h", 5)), upscale_factor=3) == T((1, "h * 3", 15))
    assert infer("nn.nll_loss", T((4, 3, 6)), T((4, 6), "int64")) == T((), "float32")
    assert infer("nn.nll_loss", T((4, 3, 6)), T((4, 6), "int64"), reduction="none") == T((4, 6), "float32")
    assert infer("nn.nll_loss", T((3,)), T((), "int64"), T((3,))) == T((), "float32")
    assert infer("left_shift", T((2, 3), "uint8"), T((3,), "uint8")) == T((2, 3), "uint8")
    assert infer("image.resize3d", T((1, 2, 3, 4, 5)), size=(6, 8, "w")) == T((1, 2, 6, 8, "w"))
    assert infer("meshgrid", TupleStructInfo([T((4,)), T(("n",))])) == TupleStructInfo([T((4, "n"))] * 2)
    assert infer("meshgrid", TupleStructInfo([T((4,)), T((6,)), T(())]), indexing="xy") == TupleStructInfo(
        [T((6, 4, 1))] * 3
    )
    assert infer("image.resize3d", T((1, 3, 4, 5, 2)), size=(6, 8, 10), layout="NDHWC") == T((1, 6, 8, 10, 2))


@pytest.mark.parametrize(
    "op, sinfos, attrs, message",
    [
        ("square", [T((2,), "bool")], {}, "bool"),
        ("log_add_exp", [T((2,), "int32"), T((2,), "int32")], {}, "float"),
        ("outer", [T((2, 3)), T((3,))], {}, "1-D"),
        ("eye", [P("int64", -1), P("int64", 2), P("int64", 0)], {}, "negative"),
        ("eye_like", [T((2, 3, 4)), P("int64", 0)], {}, "2-D"),
        ("nn.pixel_shuffle", [T((1, 6, 2, 2))], {"upscale_factor": 2}, "multiple"),
        ("nn.pixel_shuffle", [T((6, 2))], {"upscale_factor": 1}, "rank >= 3"),
        ("nn.pixel_shuffle", [T((1, 4, 2, 2))], {"upscale_factor": 0}, "positive"),
        ("nn.nll_loss", [T((4, 3)), T((4,), "float32")], {}, "integer"),
        ("nn.nll_loss", [T((4, 3)), T((5,), "int64")], {}, "do not match"),
        ("nn.nll_loss", [T((4, 3)), T((4, 2), "int64")], {}, "rank"),
        ("nn.nll_loss", [T((4, 3)), T((4,), "int64")], {"reduction": "max"}, "reduction"),
        ("nn.nll_loss", [T((4, 3)), T((4,), "int64"), T((3, 1))], {}, "weights"),
        ("left_shift", [T((2,), "float32"), T((2,), "float32")], {}, "integer"),
        ("right_shift", [T((2,), "int32"), T((2,), "int64")], {}, "int64"),
        ("image.resize3d", [T((1, 2, 3, 4))], {"size": (2, 2, 2)}, "rank 5"),
        ("meshgrid", [TupleStructInfo([T((2, 3))])], {}, "1-D"),
        ("meshgrid", [TupleStructInfo([T((2,)), T((3,), "int32")])], {}, "dtypes"),
        ("meshgrid", [TupleStructInfo([T((2,))])], {"indexing": "yx"}, "indexing"),
        ("image.resize3d", [T((1, 2, 3, 4, 5))], {"size": (2, 2)}, "3 dims"),
        ("image.resize3d", [T((1, 2, 3, 4, 5))], {"size": (2, 2, 2), "roi": [0.0] * 4}, "6 numbers"),
    ],
)
def test_inference_errors_name_the_op_and_the_problem(op, sinfos, attrs, message):
    with pytest.raises(InferenceError, match=message) as err:
        infer(op, *sinfos, **attrs)
    assert str(err.value).startswith(f"R.{op}:")


def test_nll_loss_refuses_a_target_out_of_range_and_gives_nan_when_every_target_is_ignored():
    kernel = get_op("nn.nll_loss").kernel
    p = np.log(np.full((2, 3), 1 / 3, "float32"))
    with pytest.raises(ValueError, match="target 3 is out of range for 3 classes"):
        kernel(p, np.array([0, 3]), reduction="mean", ignore_index=-100)
    assert np.isnan(kernel(p, np.array([1, 1]), reduction="mean", ignore_index=1))
    assert kernel(p, np.array([1, 1]), reduction="sum", ignore_index=1) == 0


SIZE = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4, 5), dtype="float32")) -> R.Tensor((), dtype="int64"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            gv: R.Tensor((), dtype="int64") = R.size(x)
            R.output(gv)
        return gv
"""


def test_onnx_size_as_tvm_prints_it_is_the_element_count():
    got = run_module(SIZE, np.zeros((2, 3, 4, 5), "float32"))
    assert got.shape == () and got.dtype == np.int64 and int(got) == 120
