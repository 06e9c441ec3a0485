# ruff: noqa: E501  (the TVMScript text keeps TVM's printed lines)
"""Constants the text only references (``metadata[kind][i]``): parse, place, print back, bind, run.

TVM's PyTorch frontend prints weights this way when the module keeps them as
constants; their values come separately (`ir.bind_constants`, ``params=``,
``vdplace run --params``).
"""

from __future__ import annotations

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.cli import main as cli_main
from vdplace.ir import MetadataRef, bind_constants, missing_constants
from vdplace.ir.bind_constants import constant_refs

CONSTS_MLP = """
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 8), dtype="float32")) -> R.Tuple(R.Tensor((3, 2, 2), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((8, 16), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][0], axes=[1, 0])
            lv1: R.Tensor((3, 16), dtype="float32") = R.matmul(x, lv, out_dtype="float32")
            lv2: R.Tensor((3, 16), dtype="float32") = R.add(metadata["ir.GenericConst"][1], lv1)
            lv3: R.Tensor((3, 16), dtype="float32") = R.nn.relu(lv2)
            lv6: R.Tensor((16, 4), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][2], axes=[1, 0])
            lv7: R.Tensor((3, 4), dtype="float32") = R.matmul(lv3, lv6, out_dtype="float32")
            lv8: R.Tensor((3, 4), dtype="float32") = R.add(metadata["ir.GenericConst"][3], lv7)
            lv9: R.Tensor((3, 2, 2), dtype="float32") = R.reshape(lv8, R.shape([3, 2, 2]))
            lv10: R.Tensor((3, 2, 2), dtype="float32") = R.multiply(lv9, R.const(2.0, "float32"))
            gv: R.Tuple(R.Tensor((3, 2, 2), dtype="float32")) = (lv10,)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
"""

RNG = np.random.default_rng(7)
VALUES = {
    "ir.GenericConst:0": RNG.standard_normal((16, 8)).astype("float32"),
    "ir.GenericConst:1": RNG.standard_normal((16,)).astype("float32"),
    "ir.GenericConst:2": RNG.standard_normal((4, 16)).astype("float32"),
    "ir.GenericConst:3": RNG.standard_normal((4,)).astype("float32"),
}
X = RNG.standard_normal((3, 8)).astype("float32")


def _expected(x: np.ndarray) -> np.ndarray:
    h = np.maximum(x @ VALUES["ir.GenericConst:0"].T + VALUES["ir.GenericConst:1"], 0)
    return (h @ VALUES["ir.GenericConst:2"].T + VALUES["ir.GenericConst:3"]).reshape(3, 2, 2) * 2


def test_references_parse_print_back_and_compare_by_reference():
    mod = ir.parse(CONSTS_MLP)
    printed = ir.script(mod)
    assert 'R.permute_dims(metadata["ir.GenericConst"][0], axes=[1, 0])' in printed
    assert ir.structural_equal(ir.parse(printed), mod)
    other = printed.replace('"ir.GenericConst"][1]', '"ir.GenericConst"][5]')
    assert not ir.structural_equal(ir.parse(other), mod)
    assert [ref for ref, _ in missing_constants(mod)] == [MetadataRef("ir.GenericConst", i) for i in range(4)]


def test_running_without_values_names_every_missing_constant_and_its_line():
    mod = ir.parse(CONSTS_MLP, filename="mlp.py")
    with pytest.raises(runtime.MissingConstantError) as err:
        runtime.compile(mod)
    message = str(err.value)
    assert "4 constant(s)" in message
    assert 'metadata["ir.GenericConst"][2] (first used at mlp.py:14:' in message
    assert [ref for ref, _ in err.value.missing][0] == 'metadata["ir.GenericConst"][0]'
    with pytest.raises(runtime.MissingConstantError, match=r"GenericConst\"\]\[3\]"):
        runtime.compile(mod, params={k: v for k, v in VALUES.items() if not k.endswith(":3")})


def test_place_then_run_with_values_matches_numpy():
    placed = placement.place(ir.parse(CONSTS_MLP), default="host").module
    assert 'metadata["ir.GenericConst"][3]' in ir.script(placed)
    vm = runtime.VirtualMachine(runtime.compile(placed, params=VALUES))
    (got,) = vm.run("main", X)
    np.testing.assert_allclose(np.asarray(got), _expected(X), rtol=1e-5, atol=1e-5)
    (ref,) = runtime.run_reference(ir.parse(CONSTS_MLP), "main", X, params=VALUES)
    np.testing.assert_allclose(ref, _expected(X), rtol=1e-5, atol=1e-5)


def test_bound_constants_carry_their_struct_info_and_bytes_and_still_print_as_references():
    mod = ir.parse(CONSTS_MLP)
    bound = bind_constants(mod, VALUES)
    assert bound is not mod and missing_constants(bound) == []
    assert missing_constants(mod)  # the input is untouched
    consts = [
        b.value.args[0]
        for b in ir.iter_bindings(bound["main"])
        if isinstance(b.value, ir.Call) and b.value.args and isinstance(b.value.args[0], ir.Constant)
    ]
    assert [c.struct_info.shape for c in consts] == [(16, 8), (16,), (4, 16), (4,)]
    assert ir.script(bound) == ir.script(mod)


def test_keys_by_bare_index_by_reference_and_from_an_npz(tmp_path):
    mod = ir.parse(CONSTS_MLP)
    by_index = {int(k.split(":")[1]): v for k, v in VALUES.items()}
    by_ref = {MetadataRef("ir.GenericConst", int(k.split(":")[1])): v for k, v in VALUES.items()}
    path = tmp_path / "consts.npz"
    np.savez(path, x=X, **VALUES)  # an inputs file may hold the constants too: other keys are ignored
    for values in (by_index, by_ref, str(path)):
        (got,) = runtime.run_reference(mod, "main", X, params=values)
        np.testing.assert_allclose(got, _expected(X), rtol=1e-5, atol=1e-5)


def test_a_key_naming_no_constant_or_a_misfit_value_is_a_clear_error():
    mod = ir.parse(CONSTS_MLP, filename="mlp.py")
    with pytest.raises(ValueError, match=r'no constant metadata\["ir.GenericConst"\]\[9\]'):
        bind_constants(mod, {"ir.GenericConst:9": VALUES["ir.GenericConst:0"]})
    with pytest.raises(ValueError, match="unsupported dtype"):
        bind_constants(mod, {"ir.GenericConst:0": np.zeros((16, 8), dtype=np.complex64)})
    wrong = {**VALUES, "ir.GenericConst:0": np.zeros((16, 9), dtype="float32")}
    with pytest.raises(ir.InferenceError, match=r"^mlp.py:\d+:\d+: .*after binding the module's constants"):
        bind_constants(mod, wrong)


def test_bare_indices_are_ambiguous_with_two_kinds():
    text = CONSTS_MLP.replace('metadata["ir.GenericConst"][3]', 'metadata["relax.expr.Constant"][0]')
    with pytest.raises(ValueError, match="write it as 'kind:0'"):
        bind_constants(ir.parse(text), {0: VALUES["ir.GenericConst:0"]})


def test_cli_run_takes_params_and_reports_missing_ones(tmp_path, capsys):
    src = tmp_path / "mlp.py"
    src.write_text(CONSTS_MLP)
    np.savez(tmp_path / "data.npz", x=X, **VALUES)
    assert cli_main(["run", str(src), "--params", str(tmp_path / "data.npz")]) == 0
    assert "out[0]: shape (3, 2, 2) float32" in capsys.readouterr().out
    assert cli_main(["run", str(src)]) == 2  # bad input: the values the command line must give
    err = capsys.readouterr().err
    assert "have no value" in err and 'metadata["ir.GenericConst"][0] (line 10)' in err and "--params" in err
    assert cli_main(["run", str(src), "--params", str(tmp_path / "nope.npz")]) == 2
    assert "cannot bind --params" in capsys.readouterr().err


BF16 = """
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 2), dtype="float32")) -> R.Tensor((2, 2), dtype="bfloat16"):
        with R.dataflow():
            lv: R.Tensor((2, 2), dtype="bfloat16") = R.astype(a, dtype="bfloat16")
            gv: R.Tensor((2, 2), dtype="bfloat16") = R.add(lv, metadata["ir.GenericConst"][0])
            R.output(gv)
        return gv
"""


def test_a_bfloat16_constant_saved_by_tvm_as_raw_two_byte_items_binds_as_bfloat16(tmp_path):
    # bfloat16 1.0, -2.5, 0.0078125, 3.0e38 (upper halves of their float32 bits), as TVM's .numpy() gives them
    bits = np.array([[0x3F80, 0xC020], [0x3C00, 0x7F62]], dtype=np.uint16)
    path = tmp_path / "consts.npz"
    np.savez(path, **{"ir.GenericConst:0": bits.view("V2")})
    assert np.load(path)["ir.GenericConst:0"].dtype == np.dtype("V2")
    bound = bind_constants(ir.parse(BF16), str(path))
    (const,) = [b.value.args[1] for b in ir.iter_bindings(bound["main"]) if b.var.name == "gv"]
    assert const.struct_info.dtype == "bfloat16"
    want = np.array([[1.0, -2.5], [0.0078125, 3.0024e38]], dtype=np.float32)
    np.testing.assert_allclose(const.data, want, rtol=1e-3)
    got = runtime.run_reference(ir.parse(BF16), "main", np.zeros((2, 2), "float32"), params=str(path))
    np.testing.assert_allclose(got, want, rtol=1e-3)


def test_constant_values_gives_every_bound_constant_by_key_and_parse_takes_them_back(tmp_path):
    mod = bind_constants(ir.parse(CONSTS_MLP), VALUES)
    values = ir.constant_values(mod)
    assert sorted(values) == sorted(VALUES)
    for key, value in VALUES.items():
        np.testing.assert_array_equal(values[key], value)
    assert ir.constant_values(ir.parse(CONSTS_MLP)) == {}  # references without values: nothing to give

    text = ir.script(placement.place(mod, default="host").module)  # the text holds references, not values
    assert missing_constants(ir.parse(text))
    again = ir.parse(text, constants=values)
    assert not missing_constants(again)
    vm = runtime.VirtualMachine(runtime.compile(again), devices="cpu")
    (out,) = vm.run("main", X)
    np.testing.assert_allclose(out, _expected(X), rtol=1e-5)

    # an .npz of them is a --params file, and parse_file takes one too
    np.savez(tmp_path / "consts.npz", **values)
    (tmp_path / "mlp.py").write_text(text)
    assert ir.structural_equal(ir.parse_file(tmp_path / "mlp.py", constants=tmp_path / "consts.npz"), again)


def test_parse_with_constants_ignores_values_an_edit_left_unused_and_locates_a_misfit():
    values = ir.constant_values(bind_constants(ir.parse(CONSTS_MLP), VALUES))
    edited = CONSTS_MLP.replace('R.add(metadata["ir.GenericConst"][3], lv7)', "R.add(lv7, lv7)")
    mod = ir.parse(edited, constants=values)  # metadata[...][3] is no longer used
    assert not missing_constants(mod)
    assert {r.index for r, _, _ in constant_refs(mod)} == {0, 1, 2}
    with pytest.raises(ir.InferenceError, match=r"^edited\.py:12:55: R\.add: shapes \(3,\) and \(3, 16\)"):
        ir.parse(CONSTS_MLP, "edited.py", constants={**values, "ir.GenericConst:1": np.zeros(3, "float32")})


def test_constant_values_keeps_a_bfloat16_constant_bfloat16():
    bits = np.array([[0x3F80, 0xC020], [0x3C00, 0x7F62]], dtype=np.uint16).view("V2")
    mod = bind_constants(ir.parse(BF16), {"ir.GenericConst:0": bits})
    values = ir.constant_values(mod)
    assert values["ir.GenericConst:0"].dtype == np.dtype("V2")
    np.testing.assert_array_equal(values["ir.GenericConst:0"].view(np.uint16), bits.view(np.uint16))
    assert ir.structural_equal(ir.parse(ir.script(mod), constants=values), mod)
