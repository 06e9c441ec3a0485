"""Calibration on the program's own values (`vdplace.calibration`), the cost file's origins, small-op warnings."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from vdplace import ir
from vdplace.calibration import calibrate_program, program_values
from vdplace.cli import main as cli_main
from vdplace.placement import CostModel
from vdplace.placement.cost import Roofline, calibrate, describe_ops, op_key
from vdplace.placement.cost.calibrate import available_devices
from vdplace.placement.cost.jsonfile import loads
from vdplace.placement.cost.links import fit_link

ROOT = Path(__file__).resolve().parents[2]

# The op whose time depends on the sign of its input (NumPy's power of negative floats is far slower) reads
# an activation the program computes: negative whatever positive x is given.
CUBE = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((64,), "float32")):
        n = R.negative(x)
        p = R.power(n, R.const(3.0, "float32"))
        return p
"""
POWER_KEY = "power(float32[64], float32[])"
SLOW = 0.005  # seconds the patched power kernel sleeps on a negative input


@pytest.fixture
def recorded_power(monkeypatch):
    """The power op's kernel, patched to record its first argument and to sleep on negative values."""
    op = ir.get_op("power")
    kernel, seen = op.kernel, []

    def record(a, b, **attrs):
        seen.append(np.array(a, copy=True))
        if np.any(np.asarray(a) < 0):
            time.sleep(SLOW)
        return kernel(a, b, **attrs)

    monkeypatch.setattr(op, "kernel", record)
    return seen


def test_the_timed_kernel_gets_the_activation_the_reference_run_computes(recorded_power):
    mod = ir.parse(CUBE)
    x = np.linspace(0.5, 2.0, 64, dtype=np.float32)
    result = calibrate_program(mod, [x], devices=["cpu"], repeat=2)
    assert len(recorded_power) >= 3  # the reference run's call, the warm-up, the timed calls
    for value in recorded_power:  # every call, the timed ones included, saw -x: the program's activation
        np.testing.assert_array_equal(value, -x)
    assert result.table.times["cpu"][POWER_KEY] >= SLOW  # the slow path the program takes is what was timed
    assert result.values and result.made_up == []
    assert result.model.about["inputs"] == "given by the caller"


def test_made_up_inputs_miss_the_slow_path_the_program_takes(recorded_power):
    result = calibrate_program(ir.parse(CUBE), devices=["cpu"], repeat=2, values="made-up")
    assert all(np.all(v >= 0.5) for v in recorded_power)  # [0.5, 1.5): never the program's negative values
    assert result.table.times["cpu"][POWER_KEY] < SLOW
    assert result.model.about["values"].startswith("made up")
    assert "values: made up" in result.summary()


def test_drawn_inputs_go_through_the_program_too(recorded_power):
    result = calibrate_program(ir.parse(CUBE), devices=["cpu"], repeat=1, seed=3)
    want = -np.asarray(ir_random_x(seed=3))
    np.testing.assert_array_equal(recorded_power[0], want)
    assert result.model.about["inputs"] == "drawn by runtime.random_inputs (seed 3)"


def ir_random_x(seed: int) -> np.ndarray:
    from vdplace.runtime import random_inputs

    return random_inputs(ir.parse(CUBE), rng=np.random.default_rng(seed))[0]


def test_calls_the_run_does_not_reach_are_timed_on_made_up_inputs_and_listed():
    mod = ir.parse(
        """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), "float32"), c: R.Tensor((), "bool")):
        if c:
            r = R.exp(x)
        else:
            r = R.nn.relu(x)
        return r
"""
    )
    result = calibrate_program(mod, [np.ones(8, np.float32), np.array(True)], devices=["cpu"], repeat=1)
    assert set(result.table.times["cpu"]) == {"exp(float32[8])", "nn.relu(float32[8])"}
    assert result.made_up == ["nn.relu(float32[8])"]
    assert result.model.about["made up"] == ["nn.relu(float32[8])"]
    assert "1 on made-up inputs (the run did not reach them)" in result.summary()


def test_values_of_bound_constants_are_keyed_as_the_placement_looks_them_up():
    folder = ROOT / "tests" / "models" / "cnn_bn"
    mod = ir.parse_file(str(folder / "params.py"))
    data = dict(np.load(folder / "params.npz"))
    inputs = [data[p.name] for p in mod["main"].params]
    keys = {op_key(op) for op in describe_ops(mod)}
    norm = next(k for k in keys if k.startswith("nn.batch_norm"))
    assert "?[?]" in norm  # the metadata constants have no shape in the text
    found = program_values(mod, inputs, params=str(folder / "params.npz"))
    assert norm in found and set(found) <= keys


def test_a_reference_run_that_fails_is_an_error_naming_the_op_call(tmp_path, capsys):
    text = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), s: R.Tensor((1,), "int64")):
        r = R.dynamic_strided_slice(x, s, s, s)
        return r
"""
    with pytest.raises(
        ValueError, match=r"reference run of main .* failed at <string>:6:\d+ \(R.dynamic_strided_slice\)"
    ):
        calibrate_program(ir.parse(text), [np.ones(4, np.float32), np.zeros(1, np.int64)], devices=["cpu"])
    path, inputs = tmp_path / "slice.py", tmp_path / "inputs.npz"
    path.write_text(text)
    np.savez(inputs, x=np.ones(4, np.float32), s=np.zeros(1, np.int64))
    assert cli_main(["calibrate", str(path), "--inputs", str(inputs)]) == 2
    err = capsys.readouterr().err
    assert f"cannot calibrate {path}: the reference run of main for the program's values failed at {path}:6:" in err
    assert cli_main(["calibrate", str(path), "--values", "made-up", "--repeat", "1"]) == 0  # made-up inputs time it


def test_the_cli_times_on_given_inputs_and_says_so(tmp_path, capsys, recorded_power):
    path, inputs, out = tmp_path / "cube.py", tmp_path / "x.npz", tmp_path / "costs.json"
    path.write_text(CUBE)
    x = np.linspace(0.5, 2.0, 64, dtype=np.float32)
    np.savez(inputs, x=x)
    assert cli_main(["calibrate", str(path), "--inputs", str(inputs), "--repeat", "1", "--out", str(out)]) == 0
    about = json.loads(out.read_text())["about"]
    assert about["inputs"] == str(inputs) and about["values"].startswith("the program's")
    assert all(np.array_equal(v, -x) for v in recorded_power)
    assert "values: 2 of 2 distinct op calls timed on the program's values" in capsys.readouterr().err
    assert cli_main(["calibrate", str(path), "--actor", "cuda:0=sim"]) == 2
    assert "--actor needs --ray" in capsys.readouterr().err


# -- what the file says was measured -----------------------------------------------------------------


@pytest.mark.skipif("cuda" in available_devices(), reason="this machine has PyTorch with a GPU")
def test_the_file_marks_the_default_cuda_roofline_and_links_and_stderr_says_so(tmp_path, capsys):
    path, out = tmp_path / "cube.py", tmp_path / "costs.json"
    path.write_text(CUBE)
    assert cli_main(["calibrate", str(path), "--repeat", "1", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "cuda: not measured here (no GPU that PyTorch sees on this machine)" in err
    assert "the file's cuda roofline is vdplace's declared default" in err
    document = json.loads(out.read_text())
    assert document["devices"]["cpu"]["origin"] == "measured"
    assert document["devices"]["cuda"]["origin"] == "default"
    assert [link["origin"] for link in document["links"]] == ["default"]
    assert any(note.startswith("cuda: not measured here") for note in document["about"]["defaults"])
    fallback = CostModel.from_json(str(out)).source.fallback
    assert fallback.origins == {"cpu": "measured", "cuda": "default"}
    assert fallback.link_origins == {("*", "*"): "default"}
    assert json.loads(CostModel.from_json(str(out)).to_json())["devices"] == document["devices"]  # kept


def test_origins_are_checked_where_they_are_written():
    head = '{"format": "vdplace-cost/1", "devices": {"cpu": {"flops": 1e9, "bandwidth": 1e9, "origin": '
    model, _, _, _ = loads(head + '{"flops": "default", "overhead": "measured"}}}}')
    assert model.origins == {"cpu": {"flops": "default", "overhead": "measured"}}
    with pytest.raises(ValueError, match=r"\$\.devices\.cpu\.origin: expected one of 'measured', 'default'"):
        loads(head + '"guessed"}}}')
    with pytest.raises(ValueError, match=r"\$\.devices\.cpu\.origin: unknown key 'peak'"):
        loads(head + '{"peak": "measured"}}}}')
    with pytest.raises(ValueError, match=r"\$\.links\[0\]\.origin: expected one of"):
        loads(
            '{"format": "vdplace-cost/1", "links": [{"src": "*", "dst": "*", "latency": 0, "bandwidth": 1, '
            '"origin": {"latency": "measured"}}]}'
        )
    assert Roofline({"cpu": {"flops": 1, "bandwidth": 1}}).origins == {}  # no origin: nothing said


def test_a_rate_from_calls_too_small_to_fit_a_roofline_is_a_warning():
    tiny = ir.parse(
        """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), "float32")):
        m = R.matmul(x, x)
        return m
"""
    )
    result = calibrate(tiny, devices=["cpu"], repeat=1)
    (warning,) = result.warnings
    assert warning.startswith("cpu: ops too small to fit a roofline: flops ") and "lower bounds" in warning
    assert warning in result.summary() and result.model.about["warnings"] == [warning]
    big = ir.parse(
        """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((256, 256), "float32"), y: R.Tensor((1,), "float32")):
        m = R.matmul(x, x)
        a = R.add(y, y)
        return (m, a)
"""
    )
    assert calibrate(big, devices=["cpu"], repeat=3).warnings == []


def test_a_link_is_fitted_through_two_copies():
    link = fit_link(8, 1e-3, 8 + 10**9, 1e-3 + 0.5)
    assert link.latency == 1e-3 and link.bandwidth == pytest.approx(2e9)
    assert fit_link(8, 2e-3, 1024, 1e-3).bandwidth == pytest.approx(1024 / 1e-3)  # noise: bytes over time
