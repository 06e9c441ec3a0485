"""Micro-batches (runtime/batch.py): only the runtime inputs are split; weights and flags are the same in each.

The rules, each pinned here: with ``num_input`` the first N parameters are
split and nothing else; without it the inputs with K times their
parameter's rows are; a runtime input with nothing to split, a batch K does
not divide, and a batch with nothing to split at all are one `BatchError`
(a `ValueError`) naming the parameter, and exit status 2 from
``vdplace run --ray --microbatches K``, before Ray starts.  A random batch
(`random_inputs(microbatches=K)`) draws weights and flags once.  The Ray
runs themselves are in test_ray.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.cli import main
from vdplace.runtime.batch import concat_results, split_batch
from vdplace.runtime.errors import BatchError

MARKED = """
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(
        x: R.Tensor((4, 4), "float32"), w: R.Tensor((4, 4), "float32"), flag: R.Tensor((), "bool")
    ) -> R.Tensor((4, 4), "float32"):
        R.func_attr({"num_input": 1})
        y = R.matmul(x, w)
        z = R.where(flag, y, R.negative(y))
        return z
"""

UNMARKED = MARKED.replace('        R.func_attr({"num_input": 1})\n', "")

SYMBOLIC = """
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), w: R.Tensor((4, 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        y = R.matmul(x, w)
        return y
"""


def entry(text: str) -> runtime.CompiledFunction:
    return runtime.compile(placement.place(ir.parse(text), default="host").module)["main"]


def split(text: str, inputs: list, k: int) -> list[tuple]:
    fn = entry(text)
    return split_batch(fn.params, fn.param_sinfo, fn.num_input, inputs, k)


def arrays(rows: int = 8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((rows, 4)).astype("float32")
    w = rng.standard_normal((4, 4)).astype("float32")
    return x, w, np.array(True)


def test_num_input_is_read_into_the_compiled_function():
    assert entry(MARKED).num_input == 1 and entry(UNMARKED).num_input is None
    bad = MARKED.replace('"num_input": 1', '"num_input": 7')
    with pytest.raises(runtime.CompileError, match="num_input = 7, but main has 3 parameter"):
        entry(bad)


@pytest.mark.parametrize("text", [MARKED, UNMARKED], ids=["num_input", "no num_input"])
def test_only_the_runtime_input_is_split_and_weights_and_flags_are_the_same_objects(text: str):
    x, w, flag = arrays()
    batches = split(text, [x, w, flag], 2)
    assert [b[0].shape for b in batches] == [(4, 4), (4, 4)]
    np.testing.assert_array_equal(np.concatenate([b[0] for b in batches]), x)
    assert all(b[1] is w and b[2] is flag for b in batches)


def test_with_num_input_a_weight_the_size_of_x_is_never_split():
    """x and w are both (4, 4): with num_input the weight goes whole even when given twice the rows."""
    x, w, flag = arrays()
    with pytest.raises(runtime.InputError):  # a weight of the wrong shape is the run's input error, not split
        runtime.VirtualMachine(runtime.compile(placement.place(ir.parse(MARKED), default="host").module)).run(
            "main", *split(MARKED, [x, np.concatenate([w, w]), flag], 2)[0]
        )


def test_an_input_of_its_parameters_size_is_not_taken_for_a_weight():
    x, w, flag = arrays(rows=4)  # x exactly the parameter's size
    with pytest.raises(BatchError, match=r"input x has 4 rows .* nothing to split into 2 .*give it 8"):
        split(MARKED, [x, w, flag], 2)
    with pytest.raises(ValueError, match=r"input x is not a batch of 2 .*num_input"):
        split(UNMARKED, [x, w, flag], 2)


def test_a_batch_k_does_not_divide_is_an_error_naming_the_parameter():
    x, w, flag = arrays(rows=9)
    with pytest.raises(BatchError, match=r"input x has 9 rows along axis 0 \(2 micro-batches do not divide them\)"):
        split(MARKED, [x, w, flag], 2)
    with pytest.raises(BatchError, match=r"input x has 6 rows .*want 2 x 4 = 8"):
        split(MARKED, [arrays(rows=6)[0], w, flag], 2)
    with pytest.raises(BatchError, match=r"input x has 5 rows along axis 0, which 2 micro-batches do not divide"):
        split(SYMBOLIC, [np.ones((5, 4), "float32"), w], 2)
    assert [b[0].shape for b in split(SYMBOLIC, [np.ones((6, 4), "float32"), w], 3)] == [(2, 4)] * 3


def test_a_runtime_input_with_no_leading_axis_is_an_error():
    text = MARKED.replace('"num_input": 1', '"num_input": 3')
    x, w, flag = arrays()
    with pytest.raises(BatchError, match=r"input w has 4 rows"):
        split(text, [x, w, flag], 2)
    with pytest.raises(BatchError, match=r"input flag has no leading axis"):
        split(text, [x, np.concatenate([w, w]), flag], 2)


def test_one_micro_batch_is_the_inputs_as_they_are_and_results_concatenate_by_field():
    x, w, flag = arrays(rows=4)
    assert split(MARKED, [x, w, flag], 1) == [(x, w, flag)]
    got = concat_results([(np.ones((2, 3)), np.float32(1)), (np.zeros((2, 3)), np.float32(2))])
    assert got[0].shape == (4, 3) and got[1].tolist() == [1.0, 2.0]


@pytest.mark.parametrize("text", [MARKED, UNMARKED], ids=["num_input", "no num_input"])
def test_a_random_batch_draws_weights_and_flags_once_and_starts_with_the_unbatched_draw(text: str):
    mod = ir.parse(text)
    one = runtime.random_inputs(mod, rng=np.random.default_rng(0))
    three = runtime.random_inputs(mod, rng=np.random.default_rng(0), microbatches=3)
    assert three[0].shape == (12, 4)
    np.testing.assert_array_equal(three[0][:4], one[0])  # micro-batch 0 is the unbatched input
    assert not np.array_equal(three[0][4:8], one[0])  # the others are drawn, not repeated
    np.testing.assert_array_equal(three[1], one[1])
    np.testing.assert_array_equal(three[2], one[2])


def test_a_random_batch_of_a_scalar_runtime_input_is_an_error():
    mod = ir.parse(MARKED.replace('"num_input": 1', '"num_input": 3'))
    with pytest.raises(BatchError, match="input flag has no leading axis"):
        runtime.random_inputs(mod, rng=np.random.default_rng(0), microbatches=2)


def test_the_cli_reports_a_batch_it_cannot_split_in_one_line_with_exit_status_2(tmp_path, capsys):
    """Checked before Ray starts: these need no cluster."""
    source = tmp_path / "marked.py"
    source.write_text(MARKED)
    x, w, flag = arrays(rows=4)
    np.savez(tmp_path / "same.npz", x=x, w=w, flag=flag)
    np.savez(tmp_path / "odd.npz", x=arrays(rows=9)[0], w=w, flag=flag)
    for inputs, want in (("same.npz", "input x has 4 rows"), ("odd.npz", "input x has 9 rows")):
        argv = ["run", str(source), "--ray", "--microbatches", "2", "--inputs", str(tmp_path / inputs)]
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: --microbatches 2: ") and want in err and "\n" not in err
