"""``R.match_cast`` after data-dependent ops (``R.nonzero``, ``R.unique``), as TVM's ONNX frontend prints them."""

from __future__ import annotations

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.ir import InferenceError
from vdplace.runtime.errors import KernelError

# What TVM 0.27's ONNX frontend printed for NonZero followed by Transpose (its symbol nonzero_numbers named n).
NONZERO = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32")) -> R.Tensor(dtype="int64", ndim=2):
        R.func_attr({"num_input": 1})
        n = T.int64()
        with R.dataflow():
            lv: R.Tensor((2, n), dtype="int64") = R.match_cast(R.nonzero(x), R.Tensor((2, n), dtype="int64"))
            gv: R.Tensor((n, 2), dtype="int64") = R.permute_dims(lv, axes=None)
            R.output(gv)
        return gv
"""

# A symbol bound by the match_cast and used by the shapes after it.
UNIQUE_RESHAPE = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            u: R.Tensor((n,), dtype="float32") = R.match_cast(R.unique(x, False), R.Tensor((n,), dtype="float32"))
            t: R.Tensor((n, 1), dtype="float32") = R.reshape(u, R.shape([n, 1]))
            z: R.Tensor((n, 2), dtype="float32") = R.concat((t, t), axis=1)
            R.output(z)
        return z
"""

# What TVM 0.27's ONNX frontend printed for Expand with a shape input (TVM's own parser refuses it: to its
# well-formed check the packed call is impure, inside a dataflow block).
EXPAND = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 1), dtype="float32"), s: R.Tensor((2,), dtype="int64")):
        R.func_attr({"num_input": 2})
        x_0 = T.int64()
        x_1 = T.int64()
        with R.dataflow():
            lv: R.Shape(ndim=2) = R.call_packed("vm.builtin.tensor_to_shape", s, ty_args=(R.Shape(ndim=2),))
            lv1: R.Shape([x_0, x_1]) = R.match_cast(lv, R.Shape([x_0, x_1]))
            gv: R.Tensor((x_0, x_1), dtype="float32") = R.broadcast_to(x, R.shape([x_0, x_1]))
            R.output(gv)
        return gv
"""

X = np.float32([[0, 1, 0, 2], [3, 0, 0, 0], [0, 0, 5, 0]])


def _run(text: str, *args: np.ndarray, **place) -> np.ndarray:
    placed = placement.place(ir.parse(text), **place).module
    assert ir.structural_equal(ir.parse(ir.script(placed)), placed)
    out = runtime.VirtualMachine(runtime.compile(placed), simulate_missing=True).run("main", *args)
    np.testing.assert_array_equal(out, runtime.run_reference(placed, "main", *args))  # the reference binds alike
    return out


def test_nonzero_then_transpose_runs_with_the_count_it_finds():
    np.testing.assert_array_equal(_run(NONZERO, X, default="host"), np.transpose(np.nonzero(X)))


def test_the_bound_symbol_sizes_the_shapes_after_it():
    out = _run(UNIQUE_RESHAPE, np.float32([3, 1, 3, 2, 1, 5]), default="host")
    np.testing.assert_array_equal(out, np.float32([[3, 3], [1, 1], [2, 2], [5, 5]]))


def test_match_cast_is_placed_with_its_value_and_printed_with_its_bindings_annotation():
    hinted = NONZERO.replace("R.match_cast(R.nonzero(x)", "R.match_cast(R.nonzero(R.hint_on_device(x, R.device(2, 0)))")
    placed = placement.place(ir.parse(hinted)).module
    text = ir.script(placed)
    line = next(t for t in text.splitlines() if "R.match_cast(" in t)
    annotation = line.split(": ", 1)[1].split(" = ")[0]
    assert 'vdevice="cuda:0:global"' in annotation and line.endswith(f", {annotation})")  # TVM wants them equal
    np.testing.assert_array_equal(
        runtime.VirtualMachine(runtime.compile(placed), simulate_missing=True).run("main", X),
        np.transpose(np.nonzero(X)),
    )


def test_a_shape_the_annotation_contradicts_fails_the_run_at_the_match_cast():
    text = NONZERO.replace('R.Tensor((2, n), dtype="int64"))', 'R.Tensor((2, 5), dtype="int64"))')
    vm = runtime.VirtualMachine(runtime.compile(ir.parse(text)))
    with pytest.raises(KernelError, match=r"axis 1 has length 4, the annotation says 5"):
        vm.run("main", X)


@pytest.mark.parametrize(
    ("annotation", "words"),
    [
        ('R.Tensor((2, n), dtype="float32")', "the value is int64, the annotation float32"),
        ('R.Tensor((n,), dtype="int64")', "the value has rank 2, the annotation 1"),
        ("R.Shape([n])", "a tensor.s annotation must be a tensor"),
    ],
)
def test_an_annotation_that_cannot_fit_is_a_located_inference_error(annotation, words):
    text = NONZERO.replace('R.Tensor((2, n), dtype="int64"))', annotation + ")", 1)
    with pytest.raises(InferenceError, match=words) as info:
        ir.parse(text)
    assert info.value.span.line == 9


def test_a_shape_read_from_a_tensor_names_its_dims_for_the_ops_after_it():
    x = np.float32([[1], [2], [3]])
    out = _run(EXPAND, x, np.int64([3, 4]), default="host")
    np.testing.assert_array_equal(out, np.broadcast_to(x, (3, 4)))


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ('"vm.builtin.tensor_to_shape"', '"vm.builtin.something_else"', "only the packed functions .* are read"),
        ("ty_args=(R.Shape(ndim=2),)", "ty_args=(R.Shape(ndim=3),)", "gives a shape of 2 dims"),
        ("R.Shape([x_0, x_1]))", "R.Shape([x_0]))", "the shape has 2 dims, the annotation 1"),
    ],
)
def test_a_packed_call_or_shape_cast_that_cannot_fit_is_a_located_error(old, new, words):
    with pytest.raises(InferenceError, match=words):
        ir.parse(EXPAND.replace(old, new))
