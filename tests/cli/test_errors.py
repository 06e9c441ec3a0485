"""Every mistake a command-line user can make is one line on stderr, nothing on stdout, and the documented status.

The README's table of exit statuses is checked against `vdplace.cli.EXIT_STATUSES`,
and every status that table promises is produced here by a real invocation.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.placement.test_fix import UNFIXABLE, unfixable_ops  # noqa: F401  (the fixture is used by name)
from vdplace import cli
from vdplace.cli import COMMON_STATUSES, EXIT_STATUSES, build_parser, exit_statuses, main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
MODELS = ROOT / "tests" / "models"


def mistake(capsys, *argv) -> tuple[int, str]:
    """Run `argv`; check that the outcome is one line on stderr and nothing on stdout; the status and that line."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert out == "", out
    assert err.startswith("error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return status, err


@pytest.fixture
def npz(tmp_path):
    def write(name: str, **arrays) -> Path:
        path = tmp_path / name
        np.savez(path, **arrays)
        return path

    return write


def test_a_time_limit_that_is_not_positive(capsys):
    for value in ("-1", "0", "nan", "soon"):
        status, err = mistake(capsys, "place", "--time-limit", value, EXAMPLES / "cost_offload.py")
        assert status == 2 and "--time-limit" in err and repr(value) in err


def test_inputs_of_the_wrong_shape_or_dtype_name_the_file_and_the_parameter(capsys, npz):
    wrong_shape = npz("shape.npz", x=np.ones((3, 3), "float32"), y=np.ones((2, 3), "float32"))
    status, err = mistake(capsys, "run", "--cpu", "--inputs", wrong_shape, EXAMPLES / "rfc_hint_copy.py")
    assert status == 2 and str(wrong_shape) in err and "input x has shape (3, 3)" in err and "(2, 3)" in err
    wrong_dtype = npz("dtype.npz", x=np.ones((2, 3), "float32"), y=np.ones((2, 3), "int64"))
    status, err = mistake(capsys, "run", "--cpu", "--inputs", wrong_dtype, EXAMPLES / "rfc_hint_copy.py")
    assert status == 2 and str(wrong_dtype) in err and "input y has dtype int64" in err and "float32" in err


def test_constants_without_values_point_to_the_params_option(capsys):
    status, err = mistake(capsys, "run", MODELS / "mlp" / "consts.py")
    assert status == 2 and "6 constant(s) have no value" in err
    assert "--params" in err and "params=" not in err and 'metadata["ir.GenericConst"][0] (line 9)' in err


def test_params_of_the_wrong_shape_name_the_file(capsys, npz):
    values = dict(np.load(MODELS / "mlp" / "consts.npz"))
    values["ir.GenericConst:0"] = np.ones((3, 3), "float32")
    path = npz("consts.npz", **values)
    status, err = mistake(capsys, "run", "--params", path, MODELS / "mlp" / "consts.py")
    assert status == 2 and f"cannot bind --params {path}" in err and "consts.py:9:13" in err


def test_bench_plot_without_matplotlib_fails_before_measuring(capsys, monkeypatch):
    import vdplace.bench.runner as runner

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ImportError

    def measured(*args, **kwargs):
        raise AssertionError("a benchmark ran before --plot was checked")

    monkeypatch.setattr(runner, "measure", measured)
    status, err = mistake(capsys, "bench", "--plot", "out.png", "--family", "chain", "--sizes", "10")
    assert status == 2 and "--plot needs matplotlib" in err and "vdplace[bench]" in err


def test_ray_takes_its_address_attached_so_a_file_after_it_is_the_file():
    parse = build_parser().parse
    args = parse(["run", "--ray", "model.py"])
    assert args.file == "model.py" and args.ray == "local"
    args = parse(["run", "model.py", "--ray=ray://head:10001", "--timeout", "20"])
    assert args.file == "model.py" and args.ray == "ray://head:10001" and args.timeout == 20
    assert parse(["run", "model.py"]).ray is None
    assert "--ray[=ADDRESS]" in build_parser().subparser("run").format_help()


def test_a_separate_ray_address_is_an_unexpected_argument(capsys):
    status, err = mistake(capsys, "run", "--ray", "auto", EXAMPLES / "rfc_hint_copy.py")
    assert status == 2 and "unexpected argument" in err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["plcae", "f.py"], "unknown command 'plcae'; did you mean 'place'?"),
        (["place", "--jsn", "f.py"], "unknown option '--jsn'; did you mean '--json'?"),
        (["run", "--simualte", "f.py"], "unknown option '--simualte'; did you mean '--simulate'?"),
        (["place", "--defualt=host", "f.py"], "unknown option '--defualt'; did you mean '--default'?"),
        (["place", "--default", "frist", "f.py"], "--default: unknown value 'frist'; did you mean 'first'?"),
        (["bench", "--family", "chian"], "unknown value 'chian'; did you mean 'chain'?"),
        (["place", "--color", "sometimes", "f.py"], "--color: unknown value 'sometimes'"),
        (["place"], "the following arguments are required: file"),
        ([], "the following arguments are required: COMMAND"),
        (["calibrate", "--repeat", "0", "f.py"], "--repeat: '0' must be at least 1"),
        (["run", "--microbatches", "two", "f.py"], "--microbatches: 'two' is not a whole number"),
        (["run", "--timeout", "-5", "f.py"], "--timeout: '-5' must be a positive number"),
        (["bench", "--sizes", "0"], "--sizes: '0' must be at least 1"),
        (["bench", "--plot", "p.png", "--encodings"], "it cannot be combined with --encodings"),
    ],
)
def test_command_line_mistakes_name_the_nearest_valid_word(capsys, argv, expected):
    status, err = mistake(capsys, *argv)
    assert status == 2 and expected in err


def test_bad_input_files_and_values(capsys, tmp_path):
    cases = [
        (["place", tmp_path / "missing.py"], "cannot read"),
        (["place", "--vdevice", "quantum:x", EXAMPLES / "rfc_backward.py"], "--vdevice 'quantum:x'"),
        (["run", "--entry", "nosuch", EXAMPLES / "rfc_backward.py"], "no function 'nosuch'"),
        (["place", "-o", tmp_path / "no" / "dir" / "out.py", EXAMPLES / "rfc_backward.py"], "cannot write"),
        (["place", "--cost", tmp_path / "missing.json", EXAMPLES / "cost_offload.py"], "cannot use the cost model"),
        (["place", "--memory", "cuda:0=lots", EXAMPLES / "cost_offload.py"], "--memory 'cuda:0=lots': not a size"),
        (["run", "--cpu", "--memory", "cuda:0=1.5", EXAMPLES / "cost_offload.py"], "not a whole number of bytes"),
        (["place", "--cost", "roofline", EXAMPLES / "rfc_vdevice_names.py"], "the cost model cannot time main:"),
        (["place", "--objective", "time", "--cost", "roofline", EXAMPLES / "rfc_vdevice_names.py"], "on metal:0"),
    ]
    for argv, expected in cases:
        status, err = mistake(capsys, *argv)
        assert status == 2 and expected in err, (argv, err)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_without_end_as_any_input_file_is_refused_at_once(capsys):
    """A module, a cost table, inputs or params read from /dev/zero: one line each, not a read without end."""
    cases = [
        (["place", "/dev/zero"], "/dev/zero:1:1: the text contains a NUL byte"),
        (["fix", "/dev/zero"], "/dev/zero:1:1: the text contains a NUL byte"),
        (["place", "--cost", "/dev/zero", EXAMPLES / "cost_offload.py"], "/dev/zero:1:1: invalid JSON"),
        (["run", "--cpu", "--inputs", "/dev/zero", EXAMPLES / "rfc_backward.py"], "/dev/zero: not a regular file"),
        (["run", "--cpu", "--params", "/dev/zero", EXAMPLES / "rfc_backward.py"], "/dev/zero: not a regular file"),
    ]
    for argv, expected in cases:
        status, err = mistake(capsys, *argv)
        assert status == 2 and expected in err, (argv, err)


def test_an_internal_error_is_one_line_and_status_3(capsys, monkeypatch):
    def broken(args, out):
        raise KeyError("oops")

    monkeypatch.setattr(cli, "cmd_place", broken)
    status, err = mistake(capsys, "place", EXAMPLES / "rfc_backward.py")
    assert status == 3 and "internal error: KeyError" in err and cli.DEBUG_ENV in err
    monkeypatch.setenv(cli.DEBUG_ENV, "1")
    with pytest.raises(KeyError):
        main(["place", str(EXAMPLES / "rfc_backward.py")])


def test_an_interrupt_is_one_line_and_status_130(capsys, monkeypatch):
    def interrupted(args, out):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "cmd_run", interrupted)
    status, err = mistake(capsys, "run", EXAMPLES / "rfc_backward.py")
    assert status == 130 and err == "error: interrupted\n"


# -- the README's table of exit statuses -------------------------------------------------------


def _readme_rows() -> dict[str, str]:
    """The command-line table of the README: command key -> its exit status cell."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## The command line", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        match = re.match(r"^\| `vdplace ([^`]*)` \|.*\| ([^|]+) \|$", line)
        if match:
            words = match.group(1).split()
            key = "run --ray" if words[0] == "run" and "--ray" in match.group(1) else words[0]
            rows[key] = match.group(2).strip()
    return rows


def test_the_readme_table_of_exit_statuses_is_the_command_lines():
    assert _readme_rows() == {command: exit_statuses(command) for command in EXIT_STATUSES}
    common = "; ".join(f"{status} {meaning}" for status, meaning in COMMON_STATUSES)
    assert f"Every command exits with {common}." in (ROOT / "README.md").read_text()


def test_each_command_shows_its_exit_statuses_in_its_help():
    parser = build_parser()
    for command in ("place", "run", "calibrate", "bench"):
        text = " ".join(parser.subparser(command).format_help().split())
        assert f"exit status: {exit_statuses(command)}" in text


BENCH = ["--family", "chain", "--sizes", "30", "--no-tvm"]


def _statuses(tmp_path) -> dict[tuple[str, int], list[str]]:
    """An invocation for each (command, status) the table promises (``run --ray``: tests/runtime/test_ray.py)."""
    return {
        ("place", 0): ["place", EXAMPLES / "rfc_hint_copy.py"],
        ("place", 1): ["place", EXAMPLES / "conflict_add.py"],
        ("place", 2): ["place", tmp_path / "missing.py"],
        ("run", 0): ["run", "--simulate", EXAMPLES / "mlp_two_devices.py"],
        ("run", 1): ["run", EXAMPLES / "rfc_hint_copy.py"],  # its GPU, neither here nor simulated
        ("run", 2): ["run", tmp_path / "missing.py"],
        ("fix", 0): ["fix", "-o", tmp_path / "fixed.py", EXAMPLES / "conflict_add.py"],
        ("fix", 1): ["fix", tmp_path / "unfixable.py"],  # a cycle through two ops that cannot move: no fix
        ("fix", 2): ["fix", tmp_path / "missing.py"],
        ("calibrate", 0): ["calibrate", "--repeat", "1", "-o", tmp_path / "costs.json", EXAMPLES / "rfc_hint_copy.py"],
        ("calibrate", 1): ["calibrate", "--ray", "--actor", "cuda:0=gpu", EXAMPLES / "rfc_hint_copy.py"],  # below
        ("calibrate", 2): ["calibrate", tmp_path / "missing.py"],
        ("bench", 0): ["bench", *BENCH],
        ("bench", 1): ["bench", *BENCH],  # with a measurement that fails, below
        ("bench", 2): ["bench", "--sizes", "-3"],
        ("--version", 0): ["--version"],
    }


@pytest.mark.usefixtures("unfixable_ops")
def test_every_documented_exit_status_happens(capsys, monkeypatch, tmp_path):
    cases = _statuses(tmp_path)
    (tmp_path / "unfixable.py").write_text(UNFIXABLE)
    documented = {(c, s) for c, rows in EXIT_STATUSES.items() for s, _ in rows if c != "run --ray"}
    assert set(cases) == documented
    import vdplace.bench.runner as runner

    for (command, status), argv in cases.items():
        if (command, status) == ("bench", 1):

            def fails(*args, **kwargs):
                raise RuntimeError("vdplace benchmark chain/30 failed:\nMemoryError")

            monkeypatch.setattr(runner, "measure", fails)
        if (command, status) == ("calibrate", 1):  # Ray's actors, which need the ray extra, cannot start

            def no_gpu(*args, **kwargs):
                from vdplace.runtime import DeviceUnavailable

                raise DeviceUnavailable("the actor(s) of cuda:0:global need 1 GPU(s) and the Ray cluster has 0")

            monkeypatch.setattr("vdplace.calibration.cli.calibrate", no_gpu)
        assert main([str(a) for a in argv]) == status, (command, status)
        capsys.readouterr()
