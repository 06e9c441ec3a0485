"""The `vdplace` command as a user runs it: exit statuses, outputs, reports."""

import argparse
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from vdplace.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def run_cli(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_place_prints_the_placed_module_and_its_copies(capsys):
    status, out, err = run_cli(capsys, "place", EXAMPLES / "rfc_hint_copy.py")
    assert status == 0
    assert 'x1: R.Tensor((2, 3), dtype="float32", vdevice="llvm:0:global") = x' in out
    assert "R.to_vdevice(s1" in out
    assert re.search(r"# copy: main:s2 \(line \d+\): llvm:0:global -> cuda:0:global, 24 bytes", err)


def test_place_json_has_module_copies_and_stats(capsys):
    status, out, _ = run_cli(capsys, "place", "--json", EXAMPLES / "rfc_hint_copy.py")
    data = json.loads(out)
    assert status == 0 and data["status"] == "placed"
    assert data["copies"][0]["src"] == "llvm:0:global" and data["copies"][0]["bytes"] == 24
    assert data["stats"]["sites"] > 0 and "realize" in data["stats"]["times"]


def test_conflict_exits_1_with_a_text_report_json_and_html(capsys, tmp_path):
    path = EXAMPLES / "conflict_add.py"
    status, out, err = run_cli(capsys, "place", path)
    assert status == 1 and out == ""  # `vdplace place f.py > placed.py` never writes the report into placed.py
    assert "error[E-conflict]" in err and "conflict_add.py:14:9" in err and "help:" in err
    status, out, _ = run_cli(capsys, "place", "--json", "--report", tmp_path / "r.html", path)
    assert status == 1
    assert json.loads(out)["conflicts"]  # with --json the document is the result, conflict or not
    assert "<svg" in (tmp_path / "r.html").read_text()


def test_a_conflict_leaves_the_output_file_alone_and_run_reports_on_stderr(capsys, tmp_path):
    target = tmp_path / "placed.py"
    status, out, err = run_cli(capsys, "place", "-o", target, EXAMPLES / "conflict_add.py")
    assert status == 1 and out == "" and not target.exists() and "error[E-conflict]" in err
    status, out, err = run_cli(capsys, "run", EXAMPLES / "conflict_add.py")
    assert status == 1 and out == "" and "error[E-conflict]" in err


def test_output_file_holds_the_placed_module_alone(capsys, tmp_path):
    target = tmp_path / "placed.py"
    status, out, err = run_cli(capsys, "place", "-o", target, EXAMPLES / "rfc_hint_copy.py")
    assert status == 0 and out == "" and "# copy: main:s2" in err
    status, printed, _ = run_cli(capsys, "place", EXAMPLES / "rfc_hint_copy.py")
    assert target.read_text() == printed
    status, _, _ = run_cli(capsys, "place", "--json", "-o", target, EXAMPLES / "rfc_hint_copy.py")
    assert status == 0 and json.loads(target.read_text())["status"] == "placed"


def test_an_unwritable_output_file_is_bad_input(capsys, tmp_path):
    status, out, err = run_cli(capsys, "place", "-o", tmp_path / "no" / "such" / "dir.py", EXAMPLES / "rfc_backward.py")
    assert status == 2 and out == "" and err.startswith("error: cannot write") and "Traceback" not in err


def test_output_to_a_device_or_a_pipe_writes_through_it(capsys, tmp_path):
    """`-o /dev/null` or a named pipe is written to, never replaced by a file (a rename over it would, as root)."""
    status, _, _ = run_cli(capsys, "place", "-o", os.devnull, EXAMPLES / "rfc_hint_copy.py")
    assert status == 0 and stat.S_ISCHR(os.stat(os.devnull).st_mode)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    read: list[str] = []
    reader = threading.Thread(target=lambda: read.append(pipe.read_text()), daemon=True)
    reader.start()
    status, _, _ = run_cli(capsys, "place", "-o", pipe, EXAMPLES / "rfc_hint_copy.py")
    reader.join(timeout=60)
    assert status == 0 and stat.S_ISFIFO(os.stat(pipe).st_mode)
    assert read and "@I.ir_module" in read[0]
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]  # no temporary file left beside it


@pytest.mark.skipif(shutil.which("bash") is None, reason="closes descriptors with bash")
def test_a_closed_stdin_stdout_or_stderr_is_one_line_or_nothing(tmp_path):
    """Started without stdout (``>&-``): one line on stderr, exit status 2, unless -o takes the result; without
    stderr (``2>&-``): the diagnostics are lost and the exit status is the command's own; without stdin, ``-``
    is one line, exit status 2."""

    def status(redirect: str, *args: str) -> subprocess.CompletedProcess[str]:
        command = " ".join([shlex.quote(sys.executable), "-m", "vdplace", *map(shlex.quote, args), redirect])
        return subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)

    example = str(EXAMPLES / "rfc_hint_copy.py")
    closed = status(">&-", "place", example)
    assert (
        closed.returncode == 2
        and closed.stderr == "error: stdout is closed: there is nowhere to write the result (give -o FILE)\n"
    )
    assert status(">&-", "place", "-o", str(tmp_path / "p.py"), example).returncode == 0
    placed = status("2>&-", "place", example)
    assert placed.returncode == 0 and "@I.ir_module" in placed.stdout
    assert status("2>&-", "place", str(EXAMPLES / "conflict_add.py")).returncode == 1
    if Path("/dev/full").exists():  # a stdout that cannot take the result: one line, exit status 2
        for json_flag in ([], ["--json"]):
            full = status(">/dev/full", "place", *json_flag, example)
            assert full.returncode == 2 and "cannot write the result to stdout: No space left" in full.stderr
        rows = status(">/dev/full", "bench", "--family", "chain", "--sizes", "10")  # a table written row by row
        assert rows.returncode == 2 and "cannot write the result to stdout: No space left" in rows.stderr
    no_input = status("<&-", "place", "-")
    assert no_input.returncode == 2 and "cannot read the module from stdin: it is closed" in no_input.stderr


def test_output_file_keeps_its_mode_and_its_symbolic_link(capsys, tmp_path):
    """A file replaced through `-o` keeps its permissions, a link to it stays a link; a new file follows the
    umask, as a shell's redirection would make it."""
    real = tmp_path / "real.py"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    status, _, _ = run_cli(capsys, "place", "-o", link, EXAMPLES / "rfc_hint_copy.py")
    assert status == 0 and link.is_symlink() and "@I.ir_module" in real.read_text()
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    new = tmp_path / "new.py"
    umask = os.umask(0o027)
    try:
        status, _, _ = run_cli(capsys, "place", "-o", new, EXAMPLES / "rfc_hint_copy.py")
    finally:
        os.umask(umask)
    assert status == 0 and stat.S_IMODE(new.stat().st_mode) == 0o640


def test_report_on_a_module_that_places_describes_devices_copies_and_bytes(capsys, tmp_path):
    page = tmp_path / "placed.html"
    status, out, _ = run_cli(capsys, "place", "--report", page, EXAMPLES / "mlp_two_devices.py")
    assert status == 0 and "@I.ir_module" in out
    html = page.read_text()
    assert "<h2>Devices</h2>" in html and "<h2>Copies</h2>" in html
    assert "<code>llvm:0:global</code>" in html and "<code>cuda:0:global</code>" in html
    assert "1 copies moving 256 bytes across physical devices" in html
    assert re.search(
        r"<code>main:h2</code></td><td>\d+</td><td><code>llvm:0:global</code></td>"
        r"<td><code>cuda:0:global</code></td><td class=\"num\">256</td>",
        html,
    )
    status, _, _ = run_cli(
        capsys, "run", "--simulate", "--report", tmp_path / "run.html", EXAMPLES / "mlp_two_devices.py"
    )
    assert status == 0 and "<h2>Copies</h2>" in (tmp_path / "run.html").read_text()


def test_version(capsys):
    assert main(["--version"]) == 0
    from vdplace import __version__

    assert capsys.readouterr().out.strip() == f"vdplace {__version__}"


@pytest.mark.parametrize("option", ["--inputs", "--params"])
@pytest.mark.parametrize("content", [b"x = 1\n", b"\x93NUMPY-not-really", b"PK\x03\x04truncated zip"])
def test_inputs_and_params_that_are_not_npz_files_say_so(capsys, tmp_path, option, content):
    path = tmp_path / "data.npy"
    path.write_bytes(content)
    status, out, err = run_cli(capsys, "run", "--cpu", option, path, EXAMPLES / "rfc_hint_copy.py")
    assert status == 2 and out == "" and "Traceback" not in err and "pickle" not in err
    verb = "load" if option == "--inputs" else "bind"
    assert err.startswith(f"error: cannot {verb} {option} {path}: ")
    assert len(err.strip().splitlines()) == 1


def test_a_real_npy_file_is_not_taken_for_inputs(capsys, tmp_path):
    import numpy as np

    np.save(tmp_path / "x.npy", np.ones((2, 3), "float32"))
    status, _, err = run_cli(capsys, "run", "--cpu", "--inputs", tmp_path / "x.npy", EXAMPLES / "rfc_hint_copy.py")
    assert status == 2 and "not an .npz file" in err


UNKNOWN_OP = """@I.ir_module
class M:
    @R.function
    def f(x: R.Tensor((2,), "float32")):
        y = R.nosuch(x)
        return y
"""


@pytest.mark.parametrize(("text", "where"), [("this is not python(", ":1:"), (UNKNOWN_OP, ":5:")])
def test_bad_input_exits_2_with_file_line_col(capsys, tmp_path, text, where):
    path = tmp_path / "bad.py"
    path.write_text(text)
    status, out, err = run_cli(capsys, "place", path)
    assert status == 2 and out == ""
    assert err.startswith(f"error: {path}{where}") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_missing_file_exits_2(capsys, tmp_path):
    status, _, err = run_cli(capsys, "place", tmp_path / "nope.py")
    assert status == 2 and "cannot read" in err


def test_run_simulates_missing_devices_and_profiles(capsys):
    status, out, _ = run_cli(capsys, "run", "--simulate", "--profile", EXAMPLES / "mlp_two_devices.py")
    assert status == 0
    assert "out[0]: shape (4, 16) float32" in out and "out[1]: shape (4,) float32" in out
    assert re.search(r"cpu -> sim:cuda:0\s+1\s+256 B", out)


def test_run_without_the_device_is_a_clear_error(capsys):
    status, _, err = run_cli(capsys, "run", EXAMPLES / "rfc_hint_copy.py")
    assert status == 1
    assert "no runtime device for vdevice(s) cuda:0:global" in err and "--simulate" in err


def test_run_reads_inputs_from_npz(capsys, tmp_path):
    import numpy as np

    x = np.arange(6, dtype="float32").reshape(2, 3)
    np.savez(tmp_path / "in.npz", x=x, y=np.ones((2, 3), "float32"))
    status, out, _ = run_cli(capsys, "run", "--cpu", "--inputs", tmp_path / "in.npz", EXAMPLES / "rfc_hint_copy.py")
    assert status == 0
    # s = y + (x + x): min 1, max 11
    assert "min 1  max 11" in out
    np.savez(tmp_path / "bad.npz", x=x)
    status, _, err = run_cli(capsys, "run", "--cpu", "--inputs", tmp_path / "bad.npz", EXAMPLES / "rfc_hint_copy.py")
    assert status == 2 and "parameter(s) y" in err


def test_bench_passes_its_options_through_and_aligns_its_table(capsys):
    status, out, _ = run_cli(capsys, "bench", "--family", "chain", "two_chains", "--sizes", "200", "--no-tvm")
    assert status == 0
    lines = out.splitlines()
    assert re.match(r"^chain +\| +200 \|", lines[2]) and re.match(r"^two_chains +\| +200 \|", lines[3])
    # every row has its bars where the header has them
    bars = [[i for i, ch in enumerate(line) if ch == "|"] for line in lines]
    assert all(b == bars[0] for b in bars) and len(bars[0]) == 11  # a column per phase, `verify` included
    assert re.match(r"^-+ \| -+: \|", lines[1])  # Markdown: numbers right-aligned


def test_bench_compares_the_z3_encodings_and_writes_json(capsys, tmp_path):
    status, out, _ = run_cli(capsys, "bench", "--encodings", "--family", "chain", "--sizes", "60")
    assert status == 0
    assert re.search(r"^chain +\| +60 \| +1 \| +1 \| +0 \| +[\d.]+ \| +[\d.]+ \| +[\d.]+x$", out, re.M), out
    out_json = tmp_path / "encodings.json"
    argv = ["bench", "--encodings", "--family", "chain", "--sizes", "60", "--json", "-o", out_json]
    status, out, _ = run_cli(capsys, *argv)
    assert status == 0 and out == ""
    document = json.loads(out_json.read_text())
    assert document["schema"] == "vdplace-bench/1" and document["kind"] == "encodings"
    (row,) = document["rows"]
    assert row["family"] == "chain" and row["bv_solve_s"] > 0 and row["enum_solve_s"] > 0


def test_console_script_entry_point_runs():
    proc = subprocess.run(
        [sys.executable, "-m", "vdplace", "place", str(EXAMPLES / "rfc_backward.py")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert 'def callee(x: R.Tensor((2, 3), dtype="float32", vdevice="cuda:0:global"))' in proc.stdout


def test_a_kernel_failure_names_the_instruction_and_line(capsys, tmp_path):
    path = tmp_path / "big.py"
    path.write_text(
        """@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.zeros(R.shape([1000000, 1000000]), "float32")
        return y
"""
    )
    status, _, err = run_cli(capsys, "run", path)
    assert status == 1 and "Traceback" not in err
    assert "Call zeros(" in err and "(1000000, 1000000)" in err and f"{path}:7:9" in err and "memory_limit" in err


def test_the_readme_pytorch_example_runs_with_its_weights(capsys):
    """examples/pytorch_mlp.py: the frontend's printout plus one user hint; the weights in the .npz beside it."""
    status, out, err = run_cli(
        capsys,
        "run",
        EXAMPLES / "pytorch_mlp.py",
        "--inputs",
        str(EXAMPLES / "pytorch_mlp.npz"),
        "--simulate",
        "--profile",
    )
    assert status == 0, err
    assert "out[0]: shape (2, 8) float32" in out and "sim:cuda:0" in out


# -- conventions every command follows (docs/cli.md) ------------------------------------------------


def test_every_command_has_json_output_and_color_and_every_option_has_help():
    from vdplace.cli import build_parser

    parser = build_parser()
    for command in ("place", "run", "calibrate", "bench"):
        sub = parser.subparser(command)
        assert {"--json", "-o", "--output", "--color"} <= set(sub.options()), command
        for action in sub._actions:
            hidden = action.help == argparse.SUPPRESS and action.option_strings == ["--out"]
            assert action.help and (hidden or action.help != argparse.SUPPRESS), (command, action.option_strings)


def test_calibrate_writes_with_o_and_still_reads_the_old_out(capsys, tmp_path):
    for flag in ("-o", "--output", "--out"):
        target = tmp_path / f"costs{flag}.json"
        status, out, err = run_cli(capsys, "calibrate", "--repeat", "1", flag, target, EXAMPLES / "rfc_hint_copy.py")
        assert status == 0 and out == "" and "distinct op calls timed" in err
        assert json.loads(target.read_text())["format"] == "vdplace-cost/1"


def test_run_writes_its_outputs_to_the_output_file(capsys, tmp_path):
    target = tmp_path / "outputs.txt"
    status, out, _ = run_cli(capsys, "run", "--cpu", "-o", target, EXAMPLES / "rfc_backward.py")
    assert status == 0 and out == "" and target.read_text().startswith("out: shape (2, 3) float32")


def test_the_benchmark_family_names_are_its_generators():
    from vdplace.bench.generators import GENERATORS
    from vdplace.bench.names import FAMILIES, GENERATOR_NAMES

    assert tuple(GENERATORS) == GENERATOR_NAMES and set(FAMILIES) <= set(GENERATORS)


def test_bench_shows_which_measurement_runs(monkeypatch):
    import io
    import time

    import vdplace.bench.runner as runner
    from vdplace import progress

    def measure(kind, family, n, options, timeout):
        time.sleep(0.4)
        return {"family": family, "bindings": n, "place_s": 0.1, "phases": {}, "peak_rss_mb": 1.0, "variables": 0}

    monkeypatch.setattr(runner, "measure", measure)
    stream, table = io.StringIO(), io.StringIO()
    with progress.display(stream=stream, delay_s=0.0, force=True):
        runner.run(["chain"], [10, 20], tvm=False, out=table)
    shown = stream.getvalue()
    assert "bench › chain 10   0%" in shown and "bench › chain 20  50%" in shown and "1/2" in shown
    assert shown.endswith(progress.ERASE) and len(table.getvalue().splitlines()) == 4


def test_run_without_torch_devices_does_not_import_torch():
    """PyTorch takes a second or more to import: a run looks for CUDA only where a GPU driver is."""
    from vdplace.runtime.torch_device import gpu_driver_present

    code = (
        "import sys; from vdplace.cli import main; "
        f"assert main(['run', '--simulate', {str(EXAMPLES / 'mlp_two_devices.py')!r}, '-o', '/dev/null']) == 0; "
        f"assert main(['run', {str(EXAMPLES / 'rfc_backward.py')!r}, '--cpu', '-o', '/dev/null']) == 0; "
        "print('torch' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(gpu_driver_present())
