# ruff: noqa: E501  (the TVMScript texts keep the lines TVM printed)
"""What a probe of TVM 0.27's PyTorch frontend found: R.stack, R.hamming_window, bool masks, bfloat16, int clip.

Each repro module is the frontend's printout (trimmed): it must parse, place
and run, and give what NumPy (and torch, where it is installed) computes for
the same inputs.  Kernel cases are in tests/cases_probe.py; R.assert_op and
R.print (bare statements) are in tests/test_bare_statements.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.cases_probe import bfloat16_ref, hamming_ref
from tests.test_ops import T, infer, rand
from vdplace import placement, runtime
from vdplace.ir import InferenceError, get_op, parse, script, structural_equal
from vdplace.ir.op import Work
from vdplace.ir.struct_info import PrimStructInfo, TupleStructInfo


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def run_module(text: str, *inputs: np.ndarray):
    """Parse, check the print round trip, place on the host and run `main`."""
    mod = parse(text)
    printed = script(mod)
    assert script(parse(printed)) == printed
    assert structural_equal(parse(printed), mod)
    vm = runtime.VirtualMachine(runtime.compile(placement.place(mod, default="host").module))
    return vm.run("main", *inputs)


def P(dtype: str, value) -> PrimStructInfo:
    return PrimStructInfo(dtype, value)


# -- stack ------------------------------------------------------------------------------------

STACK = """
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4, 3), dtype="float32"), b: R.Tensor((4, 3), dtype="float32")) -> R.Tensor((4, 2, 3), dtype="float32"):
        with R.dataflow():
            lv27: R.Tensor((4, 2, 3), dtype="float32") = R.stack((a, b), axis=1)
            R.output(lv27)
        return lv27
"""


def test_stack_repro_runs_as_numpy_stack():
    a, b = rand(4, 3), rand(4, 3)
    np.testing.assert_array_equal(run_module(STACK, a, b), np.stack((a, b), axis=1))
    assert "R.stack((a, b), axis=1)" in script(parse(STACK))
    torch = _torch()
    if torch is not None:
        want = torch.stack((torch.from_numpy(a), torch.from_numpy(b)), dim=1).numpy()
        np.testing.assert_array_equal(run_module(STACK, a, b), want)


def test_stack_inference():
    tup = TupleStructInfo
    assert infer("stack", tup([T((4, 3)), T((4, 3))]), axis=1) == T((4, 2, 3))
    assert infer("stack", tup([T((4, 3)), T((4, 3))]), axis=-1) == T((4, 3, 2))
    assert infer("stack", tup([T((4, 3)), T((4, 3))]), axis=2) == T((4, 3, 2))
    assert infer("stack", tup([T(("n", 3), "int64")] * 3)) == T((3, "n", 3), "int64")
    assert infer("stack", tup([T((5,))]), axis=None) == T((1, 5))
    # A symbolic dim that may differ from the other tensor's: only the rank is known, as in TVM.
    assert infer("stack", tup([T(("n", 3)), T((4, 3))])) == T(None, ndim=3)
    assert infer("stack", tup([T(None, ndim=2), T((4, 3))]), axis=-3) == T(None, ndim=3)
    assert infer("stack", tup([T(None), T(None)])) == T(None, ndim=-1)
    assert get_op("stack").work([tup([T((4, 3)), T((4, 3))])], T((4, 2, 3))) == Work(0, 96, 96)


@pytest.mark.parametrize(
    "tensors, axis, message",
    [
        ([T((4, 3)), T((4, 3), "float16")], 0, "R.stack: tensors have different dtypes float16, float32"),
        ([T((4, 3)), T((4,))], 0, r"R.stack: tensors have different ranks \[1, 2\]"),
        ([T((4, 3)), T((4, 2))], 0, r"R.stack: tensors must have one shape; \(4, 3\) and \(4, 2\) differ at axis 1"),
        ([T((4, 3)), T((4, 3))], 3, "R.stack: axis 3 is out of range for a tensor of rank 3"),
        ([T((4, 3)), T((4, 3))], -4, "R.stack: axis -4 is out of range"),
        ([], 0, "R.stack: needs at least one tensor, got an empty tuple"),
        ([T((4, 3)), P("int64", 1)], 0, "R.stack: field 1 of tensors must be a tensor"),
    ],
)
def test_stack_errors_name_the_mismatch(tensors, axis, message):
    with pytest.raises(InferenceError, match=message):
        infer("stack", TupleStructInfo(tensors), axis=axis)


def test_stack_of_a_non_tuple_is_an_error():
    with pytest.raises(InferenceError, match="R.stack: tensors must be a tuple of tensors"):
        infer("stack", T((4, 3)))


# -- hamming_window ---------------------------------------------------------------------------

HAMMING = """
@I.ir_module
class Module:
    @R.function
    def main(a_0: R.Tensor((2, 8), dtype="float32")) -> R.Tuple(R.Tensor((2, 8), dtype="float32")):
        R.func_attr({"num_input": 1, "params": []})
        with R.dataflow():
            lv: R.Tensor((8,), dtype="float32") = R.hamming_window(8, True, T.float64(0.54000000000000004), T.float64(0.46000000000000002), dtype="float32")
            lv1: R.Tensor((2, 8), dtype="float32") = R.multiply(a_0, lv)
            gv: R.Tuple(R.Tensor((2, 8), dtype="float32")) = (lv1,)
            R.output(gv)
        return gv
"""


def test_hamming_window_repro_matches_torch():
    a = rand(2, 8)
    (out,) = run_module(HAMMING, a)
    window = np.float32(hamming_ref(8, True, 0.54, 0.46))
    np.testing.assert_allclose(out, a * window, rtol=1e-6, atol=1e-7)
    torch = _torch()
    if torch is not None:
        want = (torch.from_numpy(a) * torch.hamming_window(8)).numpy()
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-7)
    text = script(parse(HAMMING))
    assert "R.hamming_window(R.prim_value(8), R.prim_value(True), R.prim_value(0.54), R.prim_value(0.46)" in text


@pytest.mark.parametrize("n, periodic", [(1, True), (2, False), (7, False), (16, True), (33, True)])
def test_hamming_window_values_match_the_definition_and_torch(n, periodic):
    kernel = get_op("hamming_window").kernel
    out = kernel(np.int64(n), np.bool_(periodic), np.float64(0.54), np.float64(0.46), dtype="float64")
    np.testing.assert_allclose(out, hamming_ref(n, periodic, 0.54, 0.46), rtol=1e-12, atol=1e-15)
    torch = _torch()
    if torch is not None:
        want = torch.hamming_window(n, periodic, 0.54, 0.46, dtype=torch.float64).numpy()
        np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-15)


def test_hamming_window_inference_and_errors():
    args = (P("int64", 8), P("bool", True), P("float64", 0.54), P("float64", 0.46))
    assert infer("hamming_window", *args, dtype="float32") == T((8,), "float32")
    assert infer("hamming_window", P("int64", "n"), *args[1:], dtype="float16") == T(("n",), "float16")
    assert infer("hamming_window", P("int64", None), *args[1:], dtype="float16") == T(None, "float16", ndim=1)
    for sinfos, dtype, message in [
        (args, "int32", "R.hamming_window: dtype must be a float type, got int32"),
        (args, "bool", "R.hamming_window: dtype must be a float type, got bool"),
        ((P("int64", 0), *args[1:]), "float32", "R.hamming_window: window_size must be at least 1, got 0"),
        ((P("float64", 8.0), *args[1:]), "float32", "R.hamming_window: window_size must be an integer"),
        ((T((8,)), *args[1:]), "float32", "R.hamming_window: window_size must be a prim value"),
        ((*args[:2], P("int64", "n"), args[3]), "float32", "R.hamming_window: alpha must be a number"),
    ]:
        with pytest.raises(InferenceError, match=message):
            infer("hamming_window", *sinfos, dtype=dtype)


# -- bool masks ---------------------------------------------------------------------------------

BOOL_ARITH = """
@I.ir_module
class Module:
    @R.function
    def main(a_0: R.Tensor((3, 4), dtype="float32"), a_1: R.Tensor((3, 4), dtype="bool"), a_2: R.Tensor((3, 4), dtype="bool")) -> R.Tuple(R.Tensor((3, 4), dtype="bool"), R.Tensor((3, 4), dtype="bool")):
        R.func_attr({"num_input": 3, "params": []})
        with R.dataflow():
            lv: R.Tensor((3, 4), dtype="float32") = R.abs(a_0)
            lv1: R.Tensor((3, 4), dtype="bool") = R.not_equal(lv, R.const("inf", "float32"))
            lv2: R.Tensor((3, 4), dtype="bool") = R.equal(a_0, a_0)
            lv3: R.Tensor((3, 4), dtype="bool") = R.multiply(lv2, lv1)
            lv5: R.Tensor((3, 4), dtype="bool") = R.add(a_1, a_2)
            gv: R.Tuple(R.Tensor((3, 4), dtype="bool"), R.Tensor((3, 4), dtype="bool")) = lv3, lv5
            R.output(gv)
        return gv
"""


def test_bool_masks_add_as_or_and_multiply_as_and():
    x = rand(3, 4)
    x[0, 0], x[1, 1], x[2, 2] = np.inf, -np.inf, np.nan
    m1, m2 = rand(3, 4) > 0, rand(3, 4) > 0
    finite, either = run_module(BOOL_ARITH, x, m1, m2)
    assert finite.dtype == either.dtype == np.bool_
    np.testing.assert_array_equal(finite, np.isfinite(x))
    np.testing.assert_array_equal(either, m1 | m2)
    torch = _torch()
    if torch is not None:
        tx, t1, t2 = (torch.from_numpy(v) for v in (x, m1, m2))
        np.testing.assert_array_equal(finite, torch.isfinite(tx).numpy())
        np.testing.assert_array_equal(either, (t1 + t2).numpy())
        np.testing.assert_array_equal(
            run_module(BOOL_ARITH, x, m1, m2)[0], ((tx == tx) * (tx.abs() != math.inf)).numpy()
        )


def test_bool_arithmetic_inference():
    assert infer("add", T((3, 1), "bool"), T((4,), "bool")) == T((3, 4), "bool")
    assert infer("multiply", T(("n",), "bool"), T(("n",), "bool")) == T(("n",), "bool")
    with pytest.raises(InferenceError, match="R.multiply: dtypes bool and int32 differ"):
        infer("multiply", T((3,), "bool"), T((3,), "int32"))
    with pytest.raises(InferenceError, match="R.subtract: arithmetic on bool tensors .* R.logical_xor"):
        infer("subtract", T((3,), "bool"), T((3,), "bool"))
    with pytest.raises(InferenceError, match="R.negative: arithmetic on bool tensors"):
        infer("negative", T((3,), "bool"))


# -- bfloat16 ------------------------------------------------------------------------------------

BF16 = """
@I.ir_module
class Module:
    @R.function
    def main(a_0: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4,), dtype="bfloat16") = R.astype(a_0, dtype="bfloat16")
            lv2: R.Tensor((4,), dtype="float32") = R.astype(lv, dtype="float32")
            R.output(lv2)
        return lv2
"""


def test_astype_to_bfloat16_and_back_rounds_like_torch():
    x = np.float32([0.12573022, -0.13210486, 1.00390625, 8.0625])  # 1.00390625 is a tie: even is 1.0
    out = run_module(BF16, x)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [bfloat16_ref(float(v)) for v in x])
    np.testing.assert_array_equal(out, [0.1259765625, -0.1318359375, 1.0, 8.0625])
    torch = _torch()
    if torch is not None:
        np.testing.assert_array_equal(out, torch.from_numpy(x).bfloat16().float().numpy())


def test_bfloat16_rounding_of_every_kind_of_value():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 2**32, size=4096, dtype=np.uint64).astype(np.uint32).view(np.float32)
    specials = [0.0, -0.0, np.inf, -np.inf, 3.4028235e38, -3.3961776e38, 1e-45, -1e-40, 1.17549435e-38, 2.0**-133]
    x = np.concatenate([x, np.float32(specials)])
    out = get_op("astype").kernel(x, dtype="bfloat16")
    finite = ~np.isnan(x)
    assert np.isnan(out[~finite]).all()
    np.testing.assert_array_equal(out[finite], [bfloat16_ref(float(v)) for v in x[finite]])
    torch = _torch()
    if torch is not None:
        want = torch.from_numpy(x).bfloat16().float().numpy()
        np.testing.assert_array_equal(out[finite], want[finite])


# -- clip of an integer tensor ---------------------------------------------------------------------

CLIP = """
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3,), dtype="int64")) -> R.Tuple(R.Tensor((3,), dtype="int64"), R.Tensor((3,), dtype="int64")):
        with R.dataflow():
            lv: R.Tensor((3,), dtype="int64") = R.clip(a, 0, T.float64("inf"))
            lv1: R.Tensor((3,), dtype="int64") = R.clip(a, T.float64("-inf"), 1)
            gv: R.Tuple(R.Tensor((3,), dtype="int64"), R.Tensor((3,), dtype="int64")) = (lv, lv1)
            R.output(gv)
        return gv
"""


def test_clip_of_an_integer_tensor_with_infinite_bounds():
    a = np.int64([3, -2, 2**62])
    with np.errstate(invalid="raise", over="raise"):
        low, high = run_module(CLIP, a)
    np.testing.assert_array_equal(low, [3, 0, 2**62])
    np.testing.assert_array_equal(high, [1, -2, 1])
    torch = _torch()
    if torch is not None:
        t = torch.from_numpy(a)
        np.testing.assert_array_equal(low, torch.clamp(t, min=0).numpy())
        np.testing.assert_array_equal(high, torch.clamp(t, max=1).numpy())


def test_clip_bounds_saturate_instead_of_wrapping():
    kernel = get_op("clip").kernel
    np.testing.assert_array_equal(kernel(np.int8([-100, 5, 100]), np.int64(-1000), np.int64(3)), [-100, 3, 3])
    np.testing.assert_array_equal(kernel(np.uint8([0, 5, 200]), np.int64(-5), np.int64(300)), [0, 5, 200])
    with np.errstate(over="raise"):
        np.testing.assert_array_equal(kernel(np.float16([1, -6e4]), np.float64(-1e10), np.float64(1e10)), [1, -6e4])
    with pytest.raises(InferenceError, match="R.clip: max is NaN, which bounds no int64 value"):
        infer("clip", T((3,), "int64"), P("int64", 0), P("float64", math.nan))
    with pytest.raises(ValueError, match="R.clip: a NaN bound on a int32 tensor"):
        kernel(np.int32([1]), np.float64(math.nan), np.int64(2))


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
