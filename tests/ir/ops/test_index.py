# ruff: noqa: E501  (the TVMScript texts keep the lines TVM printed)
"""The index and slicing ops (ir/ops/index.py, slice_scatter.py): inference, errors, kernels, TVMScript forms.

expand_dims, squeeze, flatten, strided_slice (also to a symbolic end, as TVM's frontend prints
`pos[:t]`), flip, tile, repeat, tril, triu and slice_scatter; the round trips of the module the
PyTorch frontend emits most (with cumsum, argmax, full_like, rsqrt, erf, logical_not, variance)
and of the ops taking prim values (R.prim_value: tril, triu, clip, arange).  Their kernel cases
are in tests/ir/ops/test_kernels.py's KERNEL_CASES and tests/ir/ops/cases_misc.py; the values
pinned for slice_scatter are what apache-tvm 0.27.0.post1 computed, compiled for llvm.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ir.ops.helpers import run_module
from tests.ir.ops.test_kernels import T, infer, rand, run
from vdplace import placement, runtime
from vdplace.ir import InferenceError, get_op, parse, script, structural_equal
from vdplace.ir.op import NO_WORK
from vdplace.ir.struct_info import PrimStructInfo

I64 = "int64"


def P(value: int) -> PrimStructInfo:
    return PrimStructInfo(I64, value)


@pytest.mark.parametrize(
    "name, params",
    [
        ("expand_dims", [("x", None), ("axis", None)]),
        ("squeeze", [("x", None), ("axis", None)]),
        ("flatten", [("x", None)]),
        (
            "strided_slice",
            [("x", None), ("axes", None), ("begin", None), ("end", None), ("strides", None), ("assume_inbound", False)],
        ),
        ("flip", [("data", None), ("axis", None)]),
        ("tile", [("data", None), ("repeats", None)]),
        ("repeat", [("data", None), ("repeats", None), ("axis", None)]),
        ("full_like", [("x", None), ("fill_value", None), ("dtype", None)]),
        ("zeros_like", [("x", None), ("dtype", None)]),
        ("argmax", [("x", None), ("axis", None), ("keepdims", False)]),
        ("variance", [("x", None), ("axis", None), ("keepdims", False)]),
        ("cumsum", [("data", None), ("axis", None), ("dtype", None), ("exclusive", False)]),
        ("logical_and", [("x1", None), ("x2", None)]),
        ("stack", [("tensors", None), ("axis", 0)]),
        (
            "hamming_window",
            [("window_size", None), ("periodic", None), ("alpha", None), ("beta", None), ("dtype", None)],
        ),
        ("assert_op", [("condition", None), ("format_args", None), ("format", "")]),
        ("print", [("values", None), ("format", "")]),
        ("eye", [("n", None), ("m", None), ("k", None), ("dtype", "float32")]),
        ("eye_like", [("x", None), ("k", None), ("dtype", None)]),
        ("nn.pixel_shuffle", [("data", None), ("upscale_factor", None)]),
        (
            "nn.nll_loss",
            [
                ("predictions", None),
                ("targets", None),
                ("weights", None),
                ("reduction", "mean"),
                ("ignore_index", -100),
            ],
        ),
        ("left_shift", [("x1", None), ("x2", None)]),
        ("outer", [("x1", None), ("x2", None)]),
        (
            "image.resize3d",
            [
                ("data", None),
                ("size", None),
                ("roi", None),
                ("layout", "NCDHW"),
                ("method", "linear"),
                ("coordinate_transformation_mode", "half_pixel"),
                ("rounding_method", ""),
                ("cubic_alpha", -0.75),
                ("cubic_exclude", None),
                ("extrapolation_value", None),
                ("out_dtype", None),
            ],
        ),
    ],
)
def test_parameter_names_order_and_defaults_follow_tvm(name, params):
    got = get_op(name).params
    assert [p.name for p in got] == [n for n, _ in params]
    for p, (_, default) in zip(got, params, strict=True):
        if default is not None:
            assert p.default == default


# -- expand_dims, squeeze, flatten ---------------------------------------------------------


def test_expand_dims_inference_and_errors():
    assert infer("expand_dims", T(("n", 4)), axis=0) == T((1, "n", 4))
    assert infer("expand_dims", T(("n", 4)), axis=[-1, 1]) == T(("n", 1, 4, 1))
    assert infer("expand_dims", T(None, ndim=2), axis=[0, 1]) == T(None, ndim=4)
    assert infer("expand_dims", T(None), axis=0) == T(None, ndim=-1)
    with pytest.raises(InferenceError, match=r"R\.expand_dims: axis 3 is out of range for a tensor of rank 3"):
        infer("expand_dims", T((2, 3)), axis=3)
    with pytest.raises(InferenceError, match=r"R\.expand_dims: axes \(0, -3\) repeat an axis"):
        infer("expand_dims", T((2,)), axis=[0, -3])


def test_squeeze_inference_and_errors():
    assert infer("squeeze", T((1, "n", 1))) == T(None, ndim=-1)  # "n" may be 1
    assert infer("squeeze", T((1, 3, 1))) == T((3,))
    assert infer("squeeze", T((1, "n", 1)), axis=[0, -1]) == T(("n",))
    assert infer("squeeze", T(None, ndim=3), axis=0) == T(None, ndim=2)
    # As TVM (checked against 0.27 compiled for llvm): a listed axis of known length other than 1 stays;
    # torch's x.squeeze() prints every axis.
    assert infer("squeeze", T((1, 3)), axis=1) == T((1, 3))
    assert infer("squeeze", T((2, 1, 3, 1)), axis=[0, 1, 2, 3]) == T((2, 3))
    np.testing.assert_array_equal(get_op("squeeze").kernel(np.zeros((2, 1, 3, 1)), axis=[0, 1, 2, 3]).shape, (2, 3))
    with pytest.raises(InferenceError, match="out of range"):
        infer("squeeze", T((1, 3)), axis=2)


def test_flatten_inference_keeps_symbolic_products():
    assert infer("flatten", T(("n", 4, 2))) == T(("n * 8",))
    assert infer("flatten", T(())) == T((1,))
    assert infer("flatten", T(None, ndim=3)) == T(None, ndim=1)
    assert get_op("flatten").work([T((2, 3))], T((6,))) == NO_WORK


# -- strided_slice ----------------------------------------------------------------------------


def test_strided_slice_inference():
    x = T((8, 9, 10))
    got = infer("strided_slice", x, axes=[0, 1, -1], begin=[1, 0, 8], end=[8, 9, 0], strides=[2, 1, -3])
    assert got == T((4, 9, 3))
    assert infer("strided_slice", x, axes=[2], begin=[-100], end=[100]) == T((8, 9, 10))
    assert infer("strided_slice", x, axes=[2], begin=[5], end=[2]) == T((8, 9, 0))
    # a symbolic axis: kept when taken whole, known only when in bounds is assumed, else forgotten
    assert infer("strided_slice", T(("n", 4)), axes=[0], begin=[0], end=[2**63 - 1]) == T(("n", 4))
    assert infer("strided_slice", T(("n", 4)), axes=[0], begin=[1], end=[7], strides=[2], assume_inbound=True) == T(
        (3, 4)
    )
    assert infer("strided_slice", T(("n", 4)), axes=[0], begin=[1], end=[7]) == T(None, ndim=2)
    assert infer("strided_slice", T(None, ndim=2), axes=[1], begin=[0], end=[1]) == T(None, ndim=2)


@pytest.mark.parametrize(
    "attrs, message",
    [
        ({"axes": [0, 1], "begin": [0], "end": [1, 1]}, "begin has 1 entries for 2 axes"),
        ({"axes": [0], "begin": [0], "end": [1], "strides": [0]}, "zero stride"),
        ({"axes": [2], "begin": [0], "end": [1]}, "axis 2 is out of range"),
        ({"axes": [0, -2], "begin": [0, 0], "end": [1, 1]}, "repeat an axis"),
        ({"axes": [0], "begin": [0.5], "end": [1]}, "begin must be an integer"),
    ],
)
def test_strided_slice_errors(attrs, message):
    with pytest.raises(InferenceError, match=rf"R\.strided_slice: .*{message}"):
        infer("strided_slice", T((4, 5)), **attrs)


def test_strided_slice_clamps_like_python_slicing():
    rng = np.random.default_rng(1)
    x = rand(7, 6)
    for _ in range(300):
        b, e = (int(v) for v in rng.integers(-10, 11, size=2))
        s = int(rng.choice([-3, -2, -1, 1, 2, 3]))
        out = run("strided_slice", x, axes=[1], begin=[b], end=[e], strides=[s])
        np.testing.assert_array_equal(out, x[:, b:e:s])


# -- strided_slice at a symbolic position --------------------------------------------------

DYNAMIC_SLICE = """
s21 = TypeVar("s21")

@I.ir_module
class Module:
    @R.function
    def main(a_0: R.Tensor((1, s21, 8), dtype="float32"), p_pos: R.Tensor((16, 8), dtype="float32")) -> R.Tensor(dtype="float32", ndim=3):
        R.func_attr({"tir_var_lower_bound": {"s21": 2}, "tir_var_upper_bound": {"s21": 16}})
        with R.dataflow():
            lv60: R.Tensor((T.min(s21, 16), 8), dtype="float32") = R.strided_slice(p_pos, (0,), (0,), (s21,), (1,), assume_inbound=False)
            lv61: R.Tensor(dtype="float32", ndim=3) = R.add(a_0, lv60)
            R.output(lv61)
        return lv61
"""


def test_strided_slice_to_a_symbolic_length_runs_with_each_length():
    # `pos[:t]` on a dynamic `t`, as TVM's frontend prints it: the end is the symbolic dim itself.
    mod = parse(DYNAMIC_SLICE)
    call = mod["main"].body.blocks[0].bindings[0].value
    assert call.attrs["end"] == ("s21",) and call.attrs["begin"] == (0,)
    pos = rand(16, 8)
    for length in (2, 5, 16):
        a = rand(1, length, 8)
        np.testing.assert_allclose(run_module(DYNAMIC_SLICE, a, pos), a + pos[:length])
        np.testing.assert_allclose(runtime.run_reference(mod, "main", a, pos), a + pos[:length])
    with pytest.raises(Exception, match="undefined symbolic dim 'n'"):
        parse(DYNAMIC_SLICE.replace("(s21,), (1,)", "(n,), (1,)"))


# -- flip, tile, repeat --------------------------------------------------------------------------


def test_flip_tile_repeat_inference_and_errors():
    assert infer("flip", T(("n", 3)), axis=0) == T(("n", 3))
    with pytest.raises(InferenceError, match=r"R\.flip: axis 2 is out of range"):
        infer("flip", T((2, 3)), axis=2)
    assert infer("tile", T(("n", 3)), repeats=[2, 1, 2]) == T((2, "n", 6))
    assert infer("tile", T((2, 3, 4)), repeats=2) == T((2, 3, 8))
    with pytest.raises(InferenceError, match="negative"):
        infer("tile", T((2,)), repeats=[-1])
    assert infer("repeat", T(("n", 3)), repeats=2, axis=0) == T(("n * 2", 3))
    assert infer("repeat", T((2, 3)), repeats=2) == T((12,))
    with pytest.raises(InferenceError, match=r"R\.repeat: repeats must be an integer"):
        infer("repeat", T((2,)), repeats=[1, 2])


# -- slice_scatter ----------------------------------------------------------------------------


def test_slice_scatter_inference_and_errors():
    x, src = T((2, 3, 4)), T((2, 3, 2))
    assert infer("slice_scatter", x, src, P(0), P(4), P(2), axis=2) == x
    assert infer("slice_scatter", x, src, P(1), P(5), P(2), axis=-1) == x
    assert infer("slice_scatter", x, T((2, 3, "k")), PrimStructInfo(I64), P(4), P(2), axis=2) == x
    for args, attrs, message in [
        ((x, T((2, 3, 3)), P(0), P(4), P(2)), {"axis": 2}, "src has 3 entries along axis 2, the slice selects 2"),
        ((x, T((2, 2, 2)), P(0), P(4), P(2)), {"axis": 2}, r"differs from input_tensor shape \(2, 3, 4\) at axis 1"),
        ((x, T((2, 3, 2), I64), P(0), P(4), P(2)), {"axis": 2}, "dtypes float32 and int64 differ"),
        ((x, src, P(0), P(4), P(0)), {"axis": 2}, "step must be at least 1, got 0"),
        ((x, T((2, 3, 0)), P(3), P(1), P(1)), {"axis": 2}, "start 3 is greater than end 1"),
        ((x, src, P(0), P(4), P(2)), {"axis": 3}, "axis 3"),
        ((x, src, PrimStructInfo("float32", 0.0), P(4), P(2)), {"axis": 2}, "start must be an integer prim value"),
    ]:
        with pytest.raises(InferenceError, match=r"R\.slice_scatter: .*" + message):
            infer("slice_scatter", *args, **attrs)


def test_slice_scatter_takes_positions_as_written_as_tvm_does():
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    src = -np.ones((2, 2), np.float32)
    out = run("slice_scatter", x, src, np.int64(1), np.int64(5), np.int64(2), axis=1)  # positions 1 and 3
    np.testing.assert_array_equal(out, [[0, -1, 2, -1], [4, -1, 6, -1]])
    same = run("slice_scatter", x, src, np.int64(-3), np.int64(-1), np.int64(1), axis=1)  # no position in [0, 4)
    np.testing.assert_array_equal(same, x)


SLICE_SCATTER_SOURCE = """
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

    @R.function
    def main(x: R.Tensor((2, 3, 10), "float32"), s: R.Tensor((2, 3, 4), "float32")):
        y = R.slice_scatter(x, s, 1, 9, 2, axis=2)
        return y
"""


def test_slice_scatter_parses_prints_and_runs():
    mod = parse(SLICE_SCATTER_SOURCE)
    text = script(mod)
    assert "= R.slice_scatter(x, s, " in text and "axis=2)" in text
    assert structural_equal(parse(text), mod)
    x, s = np.zeros((2, 3, 10), np.float32), np.ones((2, 3, 4), np.float32)
    vm = runtime.VirtualMachine(runtime.compile(placement.place(mod, default="host").module))
    out = vm.run("main", x, s)
    assert out[0, 0].tolist() == [0, 1, 0, 1, 0, 1, 0, 1, 0, 0]


# -- the TVMScript forms: parse -> print -> parse, and run -------------------------------------------

SOURCE = """
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32"), m: R.Tensor((2, 3), "bool")):
        a = R.expand_dims(x, axis=[0])
        b = R.squeeze(a, axis=[0])
        c = R.strided_slice(b, axes=[2], begin=[1], end=[4], strides=[2])
        d = R.strided_slice(c, [0], [-1], [-100], [-1], assume_inbound=False)
        e = R.flatten(d)
        f = R.cumsum(x, axis=2, exclusive=True)
        g = R.argmax(f, axis=-1, keepdims=False)
        h = R.full_like(x, R.const(2.0, "float32"))
        i = R.rsqrt(R.add(R.erf(h), h))
        j = R.logical_not(m)
        k = R.variance(i, axis=[0, 1], keepdims=True)
        return (e, g, j, k)
"""


def test_new_ops_parse_print_and_run():
    mod = parse(SOURCE)
    text = script(mod)
    for line in (
        'b: R.Tensor((2, 3, 4), dtype="float32") = R.squeeze(a, axis=[0])',
        "R.strided_slice(b, axes=[2], begin=[1], end=[4], strides=[2], assume_inbound=False)",
        "R.strided_slice(c, axes=[0], begin=[-1], end=[-100], strides=[-1], assume_inbound=False)",
        'e: R.Tensor((12,), dtype="float32") = R.flatten(d)',
        'f: R.Tensor((2, 3, 4), dtype="float32") = R.cumsum(x, axis=2, dtype=None, exclusive=True)',
        'g: R.Tensor((2, 3), dtype="int64") = R.argmax(f, axis=-1, keepdims=False)',
    ):
        assert line in text, text
    assert script(parse(text)) == text
    x, m = rand(2, 3, 4), rand(2, 3) > 0
    vm = runtime.VirtualMachine(runtime.compile(placement.place(mod, default="host").module))
    e, g, j, k = vm.run("main", x, m)
    np.testing.assert_array_equal(e, x[::-1, :, 1:4:2].reshape(-1))
    f = np.concatenate([np.zeros((2, 3, 1), np.float32), np.cumsum(x, axis=2)[:, :, :-1]], axis=2)
    np.testing.assert_array_equal(g, f.argmax(axis=-1))
    np.testing.assert_array_equal(j, ~m)
    assert k.shape == (1, 1, 4)


# -- ops taking prim values: tril, triu, clip, arange --------------------------------------------------


def test_tril_clip_arange_inference_and_errors():
    k = PrimStructInfo("int64", 1)
    assert infer("tril", T(("n", 3, 4)), k) == T(("n", 3, 4))
    assert infer("triu", T(None, ndim=2), PrimStructInfo("int64")) == T(None, ndim=2)
    with pytest.raises(InferenceError, match=r"R\.tril: expects a tensor of rank 2 or more, got rank 1"):
        infer("tril", T((3,)), k)
    with pytest.raises(
        InferenceError, match=r"R\.triu: k must be a prim value such as R\.prim_value\(1\), not a tensor"
    ):
        infer("triu", T((3, 3)), T((), "int64"))
    with pytest.raises(InferenceError, match=r"R\.tril: k must be an integer prim value, got dtype float64"):
        infer("tril", T((3, 3)), PrimStructInfo("float64", 1.0))
    lo, hi = PrimStructInfo("float64", 0.0), PrimStructInfo("float64", 6.0)
    assert infer("clip", T(("n",), "float16"), lo, hi) == T(("n",), "float16")
    with pytest.raises(InferenceError, match=r"R\.clip: min 6.0 is greater than max 0.0"):
        infer("clip", T((2,)), hi, lo)
    ints = [PrimStructInfo("int64", v) for v in (2, 11, 3)]
    assert infer("arange", *ints) == T((3,), "int64")
    assert infer("arange", *ints, dtype="float32") == T((3,), "float32")
    floats = [PrimStructInfo("float64", v) for v in (0.0, 1.0, 0.3)]
    assert infer("arange", *floats) == T((4,), "float32")
    assert infer("arange", PrimStructInfo("int64"), *ints[1:]) == T(None, "int64", ndim=1)
    assert infer("arange", *ints[:2], PrimStructInfo("int64", -1)) == T((0,), "int64")
    with pytest.raises(InferenceError, match=r"R\.arange: step must not be 0"):
        infer("arange", *ints[:2], PrimStructInfo("int64", 0))


PRIM_SOURCE = """
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda")]})

    @R.function
    def main(x: R.Tensor((3, 4), "float32", "cuda")):
        a = R.tril(x, R.prim_value(1))
        b = R.triu(a, R.prim_value(-1))
        c = R.clip(b, R.prim_value(T.float32(-0.5)), R.prim_value(0.5))
        r = R.arange(R.prim_value(0), R.prim_value(4), R.prim_value(1), dtype="int64")
        d = R.take(c, r, axis=1)
        return d
"""


def test_prim_value_ops_parse_print_place_and_run():
    mod = parse(PRIM_SOURCE)
    text = script(mod)
    assert "R.tril(x, R.prim_value(1))" in text
    assert (
        'r: R.Tensor((4,), dtype="int64") = R.arange(R.prim_value(0), R.prim_value(4), R.prim_value(1), dtype="int64")'
        in text
    )
    assert script(parse(text)) == text
    x = rand(3, 4)
    placed = placement.place(mod).module
    assert 'r: R.Tensor((4,), dtype="int64", vdevice="cuda:0:global") = R.arange(' in script(placed)
    vm = runtime.VirtualMachine(runtime.compile(placed), simulate_missing=True)
    np.testing.assert_array_equal(vm.run("main", x), np.clip(np.triu(np.tril(x, 1), -1), -0.5, 0.5))
