"""Inference, errors, semantics, work and the TVMScript forms of the norm, activation, pad and attention ops.

nn.batch_norm, group_norm, instance_norm, rms_norm (ir/ops/norm.py); nn.log_softmax, leakyrelu,
gelu_tanh, softplus, prelu, selu, dropout (activation.py); nn.pad (pad.py); nn.attention and
nn.attention_bias (attention.py).  Their kernel cases are in tests/ir/ops/cases_norm.py.  Every kernel
was compared once with TVM 0.27 compiled for llvm on random inputs (all modes and attributes
below); the choices where vdplace departs from TVM's legalization are stated in the modules.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ir.ops.test_kernels import T, infer, rand, run
from vdplace import placement, runtime
from vdplace.ir import InferenceError, ModuleBuilder, VDevice, get_op, parse, script, tensor
from vdplace.ir.op import REQUIRED, Work
from vdplace.ir.struct_info import TupleStructInfo


def Tup(*fields):
    return TupleStructInfo(fields)


R_ = REQUIRED
_AFFINE = [("epsilon", 1e-5), ("center", True), ("scale", True)]
_ATTN = [("scale", None), ("causal_mask", None), ("window_size", None)]


@pytest.mark.parametrize(
    "name, params",
    [
        (
            "nn.batch_norm",
            [("data", R_), ("gamma", R_), ("beta", R_), ("moving_mean", R_), ("moving_var", R_), ("axis", R_)]
            + [*_AFFINE, ("momentum", 0.1), ("training", True)],
        ),
        (
            "nn.group_norm",
            [("data", R_), ("gamma", R_), ("beta", R_), ("num_groups", R_), ("channel_axis", R_), ("axes", R_)]
            + _AFFINE,
        ),
        ("nn.instance_norm", [("data", R_), ("gamma", R_), ("beta", R_), ("channel_axis", R_), ("axes", R_)] + _AFFINE),
        ("nn.rms_norm", [("data", R_), ("weight", R_), ("axes", (-1,)), ("epsilon", 1e-5)]),
        ("nn.log_softmax", [("data", R_), ("axis", -1)]),
        ("nn.dropout", [("data", R_), ("rate", 0.5)]),
        ("nn.leakyrelu", [("data", R_), ("alpha", 0.01)]),
        ("nn.gelu_tanh", [("data", R_)]),
        ("nn.softplus", [("data", R_), ("beta", 1.0), ("threshold", 20.0)]),
        ("nn.prelu", [("data", R_), ("alpha", R_), ("axis", 1)]),
        ("nn.selu", [("data", R_)]),
        ("nn.pad", [("data", R_), ("pad_width", R_), ("pad_mode", "constant"), ("pad_value", 0.0)]),
        ("nn.attention", [("query", R_), ("key", R_), ("value", R_), ("bias", None)] + _ATTN),
        ("nn.attention_bias", [("query", R_), ("key", R_), ("value", R_), ("bias", R_)] + _ATTN),
    ],
)
def test_parameter_names_order_and_defaults_follow_tvm(name, params):
    got = get_op(name).params
    assert [(p.name, p.default) for p in got] == params


# -- inference ------------------------------------------------------------------------------------

C4 = T((4,))


def test_norm_inference_keeps_shapes_and_tolerates_partial_information():
    stats = T((4,))
    assert infer("nn.batch_norm", T((2, 4, 3)), C4, C4, C4, C4, axis=1) == Tup(T((2, 4, 3)), stats, stats)
    sym = T(("c",))
    assert infer("nn.batch_norm", T(("n", "c")), sym, sym, sym, sym, axis=-1) == Tup(T(("n", "c")), sym, sym)
    unknown = T(None, ndim=1)
    assert infer("nn.batch_norm", T(None, ""), *[unknown] * 4, axis=1) == Tup(T(None), unknown, unknown)
    vague = T(None, "", 1)
    assert infer("nn.batch_norm", T(None, ""), *[vague] * 4, axis=0) == Tup(T(None, ""), vague, vague)
    assert infer("nn.batch_norm", T(None, ndim=3), *[unknown] * 4, axis=1) == Tup(T(None, ndim=3), *[unknown] * 2)
    assert infer("nn.batch_norm", T((2, 4)), *[unknown] * 4, axis=1) == Tup(T((2, 4)), stats, stats)
    x = T(("n", "c", 8, 8))
    gn = infer("nn.group_norm", x, C4, C4, num_groups=2, channel_axis=1, axes=[2, 3])
    assert gn == x
    assert infer("nn.instance_norm", T(None, "", 4), C4, C4, channel_axis=1, axes=[2, 3]) == T(None, "float32", 4)
    assert infer("nn.rms_norm", T((2, "n")), T(("n",))) == T((2, "n"))
    assert infer("nn.rms_norm", T(None), T((4,)), axes=[1]) == T(None)
    assert infer("nn.rms_norm", T((2, 4, 3), "float16"), T((3, 4), "float16"), axes=[2, 1]) == T((2, 4, 3), "float16")


def test_activation_pad_and_attention_inference():
    assert infer("nn.dropout", T(("n", 3), "int32")) == Tup(T(("n", 3), "int32"), T(("n", 3), "int32"))
    assert infer("nn.dropout", T(None, ndim=2)) == Tup(T(None, ndim=2), T(None, ndim=2))
    for op in ("nn.gelu_tanh", "nn.selu", "nn.softplus", "nn.leakyrelu", "nn.log_softmax"):
        assert infer(op, T(("n", 3), "bfloat16")) == T(("n", 3), "bfloat16")
        assert infer(op, T(None, "")) == T(None, "")
    assert infer("nn.prelu", T((2, 3, 4)), T((1,))) == T((2, 3, 4))
    assert infer("nn.pad", T(("n", 3)), pad_width=[1, 2, -1, 0]) == T(("n + 3", 2))
    assert infer("nn.pad", T(None, ndim=2), pad_width=[1, 2, 0, 0]) == T(None, ndim=2)
    assert infer("nn.pad", T(None), pad_width=[1, 2, 0, 0]) == T(None, ndim=2)
    assert infer("nn.pad", T((3, 0)), pad_width=[0, 0, 1, 1]) == T((3, 2))
    q, k, v = T(("b", "s", 4, 8)), T(("b", "t", 2, 8)), T(("b", "t", 1, "d"))
    assert infer("nn.attention", q, k, v) == T(("b", "s", 4, "d"))
    assert infer("nn.attention", q, T(None, ndim=4), v) == T(None, ndim=4)
    assert infer("nn.attention", T(None, ""), k, v) == T(None, "float32", 4)
    bias = T((1, 4, "s", "t"))
    got = infer("nn.attention_bias", q, k, v, bias, scale=0.5, causal_mask="BottomRight", window_size=4)
    assert got == T(("b", "s", 4, "d"))


def _errors():
    f16, i32, i4 = T((4,), "float16"), T((2, 4, 3), "int32"), T((4,), "int32")
    x = T((2, 4, 3, 3))
    bn = dict(axis=1)
    gn = dict(num_groups=2, channel_axis=1, axes=[2, 3])
    q, k, v = T((2, 5, 4, 8)), T((2, 6, 2, 8)), T((2, 6, 2, 3))
    return [
        ("nn.batch_norm", (i32, i4, i4, i4, i4), bn, "expects float tensors, got dtype int32"),
        ("nn.batch_norm", (T((2, 4, 3)), f16, C4, C4, C4), bn, "gamma has dtype float16 but data has float32"),
        (
            "nn.batch_norm",
            (T((2, 4, 3)), C4, C4, C4, C4),
            dict(axis=3),
            "axis 3 is out of range for a tensor of rank 3",
        ),
        ("nn.batch_norm", (T((2, 4, 3)), T((4, 1)), C4, C4, C4), bn, r"gamma must have rank 1, got rank 2"),
        ("nn.batch_norm", (T((2, 4, 3)), C4, C4, T((5,)), C4), bn, "moving_mean has 5 entries but data has 4 channels"),
        ("nn.batch_norm", (T((2, 4, 3)), C4, C4, C4, C4), dict(axis=1, momentum=1.5), r"momentum must be in \[0, 1\]"),
        ("nn.batch_norm", (T((2, 4, 3)), C4, C4, C4, C4), {}, "missing attribute 'axis'"),
        ("nn.group_norm", (x, C4, C4), dict(gn, axes=[1, 2]), r"channel_axis 1 must not be one of the axes \(1, 2\)"),
        ("nn.group_norm", (x, C4, C4), dict(gn, num_groups=3), "4 channels do not divide into 3 groups"),
        ("nn.group_norm", (x, C4, C4), dict(gn, num_groups=0), "num_groups must be positive, got 0"),
        ("nn.group_norm", (x, T((5,)), C4), gn, "gamma has 5 entries but data has 4 channels on axis 1"),
        (
            "nn.instance_norm",
            (T(x.shape, "int32"), T((4,), "int32"), T((4,), "int32")),
            dict(channel_axis=1, axes=[2]),
            "float",
        ),
        ("nn.instance_norm", (x, C4, T((4, 1))), dict(channel_axis=1, axes=[2]), "beta must have rank 1"),
        ("nn.rms_norm", (x, T((3, 3))), {}, "weight must have rank 1, got rank 2"),
        ("nn.rms_norm", (x, T((4,))), {}, r"weight has shape \(4,\) but data has \(3,\) on axes \(3,\)"),
        ("nn.rms_norm", (x, T((3, 3))), dict(axes=[3, -1]), "repeat an axis"),
        ("nn.log_softmax", (i32,), {}, "expects a float tensor, got dtype int32"),
        ("nn.log_softmax", (x,), dict(axis=4), "axis 4 is out of range"),
        ("nn.leakyrelu", (i32,), {}, "expects a float tensor"),
        ("nn.leakyrelu", (x,), dict(alpha="x"), "alpha must be a number"),
        ("nn.softplus", (x,), dict(beta=0.0), "beta must not be 0"),
        ("nn.gelu_tanh", (i32,), {}, "expects a float tensor"),
        ("nn.selu", (i32,), {}, "expects a float tensor"),
        ("nn.prelu", (x, T((5,))), {}, "alpha has 5 entries but data has 4 channels on axis 1"),
        ("nn.prelu", (x, f16), {}, "alpha has dtype float16 but data has float32"),
        ("nn.prelu", (x, T((4, 1))), {}, "alpha must have rank 1"),
        ("nn.dropout", (x,), dict(rate=1.5), r"rate must be in \[0, 1\]"),
        ("nn.pad", (T((2, 3)),), dict(pad_width=[1, 2]), r"pad_width needs 4 values \(before and after for each"),
        ("nn.pad", (T((2, 3)),), dict(pad_width=[0, 0, 1, 1], pad_mode="edge"), "pad_mode must be one of"),
        ("nn.pad", (T((2, 3), "uint8"),), dict(pad_width=[0, 0, 1, 1], pad_value=300), "pad_value 300.0 does not fit"),
        ("nn.pad", (T((2, 3), "float16"),), dict(pad_width=[0, 0, 1, 1], pad_value=1e6), "does not fit dtype float16"),
        ("nn.pad", (T((2, 3)),), dict(pad_width=[0, 0, 3, 0], pad_mode="reflect"), "must be shorter than the axis"),
        ("nn.pad", (T((2, 3)),), dict(pad_width=[0, 0, -2, -2]), r"crops axis 1 \(length 3\) by more than its length"),
        ("nn.pad", (T((2, 0)),), dict(pad_width=[0, 0, 1, 0], pad_mode="circular"), "cannot fill the empty axis 1"),
        ("nn.attention", (T((2, 5, 8)), k, v), {}, "query must have rank 4, got rank 3"),
        ("nn.attention", (q, T((3, 6, 2, 8)), v), {}, "key's batch size is 3 but must be 2"),
        ("nn.attention", (q, k, T((2, 7, 2, 3))), {}, "value's sequence length is 7 but must be 6"),
        ("nn.attention", (q, T((2, 6, 2, 7)), v), {}, "key's head dim is 7 but must be 8"),
        ("nn.attention", (q, T((2, 6, 3, 8)), v), {}, "query's 4 heads are not a multiple of key's 3 heads"),
        ("nn.attention", (q, k, v), dict(causal_mask="Foo"), "causal_mask must be None, 'TopLeft' or 'BottomRight'"),
        ("nn.attention", (q, k, v), dict(bias=1.0), r"a bias tensor is R\.nn\.attention_bias"),
        ("nn.attention", (T(q.shape, "int32"), T(k.shape, "int32"), T(v.shape, "int32")), {}, "expects float"),
        ("nn.attention", (q, T(k.shape, "float16"), v), {}, "key has dtype float16 but query has float32"),
        ("nn.attention_bias", (q, k, v, T((4, 5, 6))), {}, "bias must have rank 4"),
        ("nn.attention_bias", (q, k, v, T((2, 4, 3, 6))), {}, "must have 5 or 1 for the query length"),
        ("nn.attention_bias", (q, k, v, T((1, 1, 1, 1))), {}, "must have the key length 6 last"),
    ]


@pytest.mark.parametrize("op, args, attrs, message", _errors())
def test_inference_errors_name_the_op_and_the_mismatch(op, args, attrs, message):
    with pytest.raises(InferenceError, match=rf"R\.{op}: .*{message}"):
        infer(op, *args, **attrs)


# -- semantics beyond the kernel cases ------------------------------------------------------------------


def test_batch_norm_honours_center_and_scale_and_copies_the_eval_statistics():
    x, gamma, beta, mean, var = rand(3, 2), rand(2), rand(2), rand(2), np.abs(rand(2)) + 1
    out, m, v = run("nn.batch_norm", x, gamma, beta, mean, var, axis=1, center=False, scale=False, training=False)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-6)
    np.testing.assert_array_equal(m, mean)
    assert m is not mean and v is not var
    out = run("nn.batch_norm", x, gamma, beta, mean, var, axis=1, center=False)[0]
    np.testing.assert_allclose(out, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5) * gamma, rtol=1e-5)


def test_half_precision_norms_compute_in_float32():
    x = (rand(2, 4, 300) * 200).astype("float16")  # sums of squares overflow float16
    ones, zeros = np.ones(4, "float16"), np.zeros(4, "float16")
    expected = (x - x.astype(np.float64).mean(-1, keepdims=True)) / x.astype(np.float64).std(-1, keepdims=True)
    for out in (
        run("nn.instance_norm", x, ones, zeros, channel_axis=1, axes=[2]),
        run("nn.group_norm", x, ones, zeros, num_groups=4, channel_axis=1, axes=[2]),
    ):
        assert out.dtype == np.float16
        np.testing.assert_allclose(out, expected, rtol=2e-3, atol=2e-3)
    rms = run("nn.rms_norm", x, np.ones(300, "float16"))
    assert np.isfinite(rms).all()


def test_softplus_and_selu_do_not_overflow():
    x = np.array([-1e4, -50.0, 0.0, 50.0, 1e4], np.float32)
    with np.errstate(over="raise"):
        out = run("nn.softplus", x, threshold=1e30)
        np.testing.assert_allclose(out, np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x))), rtol=1e-6)
        assert run("nn.selu", x)[-1] == np.float32(1.0507009873554805 * 1e4)


def test_pad_converts_its_value_like_tvm_and_checks_symbolic_shapes_at_run_time():
    x = np.zeros((1, 2), np.int8)
    assert run("nn.pad", x, pad_width=[0, 0, 0, 1], pad_value=-3.9).tolist() == [[0, 0, -3]]
    assert run("nn.pad", x > 0, pad_width=[0, 0, 0, 1], pad_value=0.5).tolist() == [[False, False, True]]
    kernel = get_op("nn.pad").kernel
    with pytest.raises(ValueError, match=r"R\.nn\.pad: reflect padding of axis 1 \(length 2\)"):
        kernel(x, pad_width=[0, 0, 2, 0], pad_mode="reflect", pad_value=0.0)  # a shape symbolic at inference


def test_attention_groups_heads_and_rejects_sliding_windows():
    q, k, v = rand(1, 3, 4, 2), rand(1, 5, 2, 2), rand(1, 5, 1, 3)
    grouped = run("nn.attention", q, k, v)
    repeated = run("nn.attention", q, np.repeat(k, 2, axis=2), np.repeat(v, 4, axis=2))
    np.testing.assert_allclose(grouped, repeated, rtol=1e-6)
    with pytest.raises(ValueError, match="sliding-window attention"):
        get_op("nn.attention").kernel(q, k, v, window_size=2)


def test_work_estimates():
    x, c = T((2, 4, 3)), T((4,))
    out = Tup(x, c, c)
    bn = get_op("nn.batch_norm")
    assert bn.work([x, c, c, c, c], out, {"axis": 1}) == Work(8 * 24, (24 + 16) * 4.0, (24 + 8) * 4.0)
    assert bn.work([x, c, c, c, c], out, {"axis": 1, "training": False, "center": False}).flops == 3 * 24
    assert get_op("nn.rms_norm").work([x, T((3,))], x).flops == 4 * 24
    assert get_op("nn.dropout").work([x], Tup(x, x)) == Work(0.0, 96.0, 192.0)
    assert get_op("nn.pad").work([x], T((2, 6, 3))) == Work(0.0, 96.0, 144.0)
    q, k, v = T((2, 5, 4, 8)), T((2, 6, 2, 8)), T((2, 6, 2, 3))
    scores = 2 * 5 * 4 * 6
    work = get_op("nn.attention").work([q, k, v], T((2, 5, 4, 3)))
    assert work.flops == scores * (2 * (8 + 3) + 5)
    assert work.bytes_written == 2 * 5 * 4 * 3 * 4


# -- the TVMScript forms: parse -> print -> parse, place, run --------------------------------------------------

SOURCE = """
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda")]})

    @R.function
    def main(
        x: R.Tensor((2, 4, 3, 3), dtype="float32", vdevice="cuda"),
        g: R.Tensor((4,), dtype="float32"),
        q: R.Tensor((2, 5, 4, 8), dtype="float32"),
        k: R.Tensor((2, 6, 4, 8), dtype="float32"),
        v: R.Tensor((2, 6, 4, 3), dtype="float32"),
        b: R.Tensor((1, 4, 5, 6), dtype="float32"),
    ):
        with R.dataflow():
            gp: R.Tensor((4,), dtype="float32") = R.abs(g)
            lv: R.Tuple(
                R.Tensor((2, 4, 3, 3), dtype="float32"),
                R.Tensor((4,), dtype="float32"),
                R.Tensor((4,), dtype="float32"),
            ) = R.nn.batch_norm(
                x, g, g, g, gp, axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True,
                momentum=0.10000000000000001, training=False
            )
            lv1: R.Tensor((2, 4, 3, 3), dtype="float32") = lv[0]
            lv2: R.Tensor((2, 4, 3, 3), dtype="float32") = R.nn.group_norm(
                lv1, g, g, num_groups=2, channel_axis=1, axes=[2, 3], epsilon=1.0000000000000001e-05, center=True,
                scale=True
            )
            lv3: R.Tensor((2, 4, 3, 3), dtype="float32") = R.nn.instance_norm(
                lv2, g, g, channel_axis=1, axes=[2, 3], epsilon=1.0000000000000001e-05, center=True, scale=True
            )
            lv4: R.Tensor((2, 4, 4, 6), dtype="float32") = R.nn.pad(
                lv3, pad_width=[0, 0, 0, 0, 0, 1, 1, 2], pad_value=0.5, pad_mode="constant"
            )
            lv5: R.Tensor((2, 4, 4, 6), dtype="float32") = R.nn.leakyrelu(lv4, alpha=0.20000000000000001)
            lv6: R.Tensor((2, 4, 4, 6), dtype="float32") = R.nn.log_softmax(lv5, axis=1)
            lv7: R.Tuple(
                R.Tensor((2, 4, 4, 6), dtype="float32"), R.Tensor((2, 4, 4, 6), dtype="float32")
            ) = R.nn.dropout(lv6, rate=0.5)
            lv8: R.Tensor((2, 5, 4, 3), dtype="float32") = R.nn.attention(
                q, k, v, scale=None, causal_mask="TopLeft", window_size=None
            )
            lv9: R.Tensor((2, 5, 4, 3), dtype="float32") = R.nn.attention_bias(
                q, k, v, b, scale=T.float32(0.5), causal_mask=None, window_size=None
            )
            lv10: R.Tensor((2, 5, 4, 3), dtype="float32") = R.nn.softplus(lv9, beta=1.0, threshold=20.0)
            lv11: R.Tensor((2, 5, 4, 3), dtype="float32") = R.nn.selu(lv10)
            lv12: R.Tensor((2, 5, 4, 3), dtype="float32") = R.nn.gelu_tanh(lv11)
            lv13: R.Tensor((2, 5, 4, 3), dtype="float32") = R.nn.prelu(lv12, g, axis=2)
            w: R.Tensor((3,), dtype="float32") = R.ones(R.shape([3]), dtype="float32")
            lv14: R.Tensor((2, 5, 4, 3), dtype="float32") = R.nn.rms_norm(
                lv13, w, axes=[-1], epsilon=1.0000000000000001e-05
            )
            lv15: R.Tensor((2, 4, 4, 6), dtype="float32") = lv7[0]
            gv = (lv15, lv8, lv14)
            R.output(gv)
        return gv
"""


def test_tvm_printed_forms_parse_print_place_and_run():
    mod = parse(SOURCE)
    text = script(mod)
    for line in (
        "R.nn.batch_norm(x, g, g, g, gp, axis=1, epsilon=1e-05, center=True, scale=True, momentum=0.1, training=False)",
        'R.nn.pad(lv3, pad_width=[0, 0, 0, 0, 0, 1, 1, 2], pad_mode="constant", pad_value=0.5)',
        'R.nn.attention(q, k, v, bias=None, scale=None, causal_mask="TopLeft", window_size=None)',
        "R.nn.attention_bias(q, k, v, b, scale=0.5, causal_mask=None, window_size=None)",
        "R.nn.dropout(lv6, rate=0.5)",
    ):
        assert line in text, text
    assert script(parse(text)) == text
    placed = placement.place(mod).module
    assert 'R.Tensor((2, 4, 4, 6), dtype="float32", vdevice="cuda:0:global") = R.nn.pad(' in script(placed)
    vm = runtime.VirtualMachine(runtime.compile(placed), simulate_missing=True)
    x, g = rand(2, 4, 3, 3), rand(4)
    q, k, v, b = rand(2, 5, 4, 8), rand(2, 6, 4, 8), rand(2, 6, 4, 3), rand(1, 4, 5, 6)
    dropped, causal, last = vm.run("main", x, g, q, k, v, b)
    assert dropped.shape == (2, 4, 4, 6)
    np.testing.assert_allclose(np.exp(dropped).sum(axis=1), 1.0, rtol=1e-5)  # log_softmax over axis 1
    s = np.einsum("bihd,bjhd->bhij", q, k) / np.sqrt(8)
    s = np.where(np.tril(np.ones((5, 6), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    # float32 attention against a float64 reference: 1e-5 is too tight for some draws of the shared RNG
    np.testing.assert_allclose(causal, np.einsum("bhij,bjhd->bihd", p / p.sum(-1, keepdims=True), v), rtol=1e-4)
    np.testing.assert_allclose(np.sqrt(np.mean(last.astype(np.float64) ** 2, axis=-1)), 1.0, rtol=1e-3)


# -- torch kernels (skipped without torch) -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op, attrs",
    [
        ("nn.log_softmax", {"axis": 0}),
        ("nn.leakyrelu", {"alpha": 0.3}),
        ("nn.gelu_tanh", {}),
        ("nn.softplus", {"beta": 2.0, "threshold": 1.0}),
        ("nn.selu", {}),
        ("nn.dropout", {}),
    ],
)
def test_torch_kernels_match_the_numpy_kernels(op, attrs):
    pytest.importorskip("torch")
    from vdplace.runtime.torch_device import TorchDevice

    cpu, gpu = VDevice("llvm"), VDevice("cuda", 0)
    mb = ModuleBuilder([cpu, gpu])
    f = mb.function("main", [("a", tensor((3, 5), "float32", gpu))])
    f.finish(f.emit(op, *f.params, name="r", **attrs))
    mod = mb.get()
    x = rand(3, 5) * 4
    dev = TorchDevice("cpu")
    got = runtime.VirtualMachine(runtime.compile(mod), devices={gpu: dev}).run("main", x)
    want = runtime.run_reference(mod, "main", x)
    for g, w in zip(
        got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,), strict=True
    ):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    assert dev.fallbacks == {}
