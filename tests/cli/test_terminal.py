"""The command line on a real terminal: progress lines and colours, checked byte for byte under a pseudo-terminal.

`run_in_pty` runs ``python -m vdplace ...`` with stdin, stdout and stderr on
one pseudo-terminal, as in an interactive shell, and returns every byte the
terminal received; `screen` replays them the way a terminal does (carriage
return, erase to the end of the line, newline) and returns the lines left
on the screen.  A progress line that was not erased, or that shared a line
with output, shows on that screen.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SGR = re.compile(rb"\x1b\[[0-9;]*m")  # colours
ERASE_LINE = b"\x1b[K"


def run_in_pty(argv: list[str], env: dict[str, str] | None = None, timeout: float = 120.0) -> tuple[int, bytes]:
    """Run ``python -m vdplace argv`` on a fresh 100x30 pseudo-terminal; its exit status and every byte it wrote."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "VDPLACE_PROGRESS_DELAY")}
    environment.update(env or {})
    proc = subprocess.Popen(
        [sys.executable, "-m", "vdplace", *argv],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        cwd=ROOT,
        env=environment,
        close_fds=True,
    )
    os.close(follower)
    chunks, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed its end of the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.wait(timeout=max(1.0, deadline - time.monotonic())), b"".join(chunks)


def screen(raw: bytes) -> list[str]:
    """The lines a terminal shows after receiving `raw` (colours dropped)."""
    lines, row, col = [""], 0, 0
    data = SGR.sub(b"", raw).decode()
    i = 0
    while i < len(data):
        if data.startswith("\x1b[K", i):
            lines[row] = lines[row][:col]
            i += 3
            continue
        ch = data[i]
        if ch == "\r":
            col = 0
        elif ch == "\n":
            row += 1
            col = 0
            if row == len(lines):
                lines.append("")
        else:
            line = lines[row].ljust(col)
            lines[row] = line[:col] + ch + line[col + 1 :]
            col += 1
        i += 1
    return lines[:-1] if lines[-1] == "" else lines


def conflict_chain(path: Path, n: int) -> Path:
    """A module of `n` bindings whose input is pinned to the CPU and whose result to the GPU: one long conflict."""
    body = "\n".join(f"        y{i} = R.exp(y{i - 1})" for i in range(1, n))
    path.write_text(
        "@I.ir_module\nclass Module:\n"
        '    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})\n\n'
        "    @R.function\n"
        '    def main(x: R.Tensor((2, 3), "float32", "llvm")) -> R.Tensor((2, 3), "float32", "cuda"):\n'
        "        y0 = R.exp(x)\n" + body + f"\n        return y{n - 1}\n"
    )
    return path


def plain(argv: list[str]) -> str:
    """What the command writes with its output and stderr redirected, as one text (no progress, no colour)."""
    proc = subprocess.run([sys.executable, "-m", "vdplace", *argv], capture_output=True, text=True, cwd=ROOT)
    return proc.stdout + proc.stderr


def test_progress_lines_are_drawn_then_erased_and_never_share_a_line_with_output(tmp_path):
    module = str(conflict_chain(tmp_path / "chain.py", 30_000))
    status, raw = run_in_pty(["place", "--color", "never", module], env={"VDPLACE_PROGRESS_DELAY": "0"})
    assert status == 1
    drawn = re.findall(rb"\r([^\r\n\x1b]*\[\d\d:\d\d\])\x1b\[K", raw)
    assert any(line.startswith(b"parse ") for line in drawn) and any(b"place" in line for line in drawn), raw[:400]
    assert screen(raw) == plain(["place", module]).splitlines()  # every line erased, every output line whole
    # The same with the placed module on stdout and the copies on stderr.
    status, raw = run_in_pty(["place", str(EXAMPLES / "mlp_two_devices.py")], env={"VDPLACE_PROGRESS_DELAY": "0"})
    assert status == 0
    assert screen(raw) == plain(["place", str(EXAMPLES / "mlp_two_devices.py")]).splitlines()


def test_work_under_the_delay_shows_no_progress_at_all():
    # The stages of conflict_add.py take well under a second; 10 s keeps a loaded machine from drawing.
    status, raw = run_in_pty(["place", str(EXAMPLES / "conflict_add.py")], env={"VDPLACE_PROGRESS_DELAY": "10"})
    assert status == 1
    assert ERASE_LINE not in raw and b"[00:" not in raw
    assert raw.replace(b"\r\n", b"\n").count(b"\r") == 0  # the terminal's own CR LF aside, no carriage return


def test_a_conflict_report_is_coloured_on_a_terminal_or_when_asked():
    argv = ["place", str(EXAMPLES / "conflict_add.py")]
    _, raw = run_in_pty(argv)
    assert SGR.search(raw)  # a terminal: colour
    _, raw = run_in_pty([*argv, "--color", "never"])
    assert not SGR.search(raw)
    piped = subprocess.run([sys.executable, "-m", "vdplace", *argv, "--color", "always"], capture_output=True, cwd=ROOT)
    assert SGR.search(piped.stderr) and piped.stdout == b""
    piped = subprocess.run([sys.executable, "-m", "vdplace", *argv], capture_output=True, cwd=ROOT)
    assert not SGR.search(piped.stderr)  # auto, not a terminal


def test_an_error_line_is_red_on_a_terminal_unless_no_color_is_set():
    argv = ["place", "--jsn", "f.py"]
    _, raw = run_in_pty(argv)
    assert raw.startswith(b"\x1b[1;31merror\x1b[0m: vdplace place: unknown option '--jsn'")
    _, raw = run_in_pty(argv, env={"NO_COLOR": "1"})
    assert raw.startswith(b"error: vdplace place: unknown option")
    _, raw = run_in_pty(argv, env={"NO_COLOR": ""})  # set but empty: no effect (no-color.org)
    assert SGR.search(raw)
    _, raw = run_in_pty([*argv, "--color=never"])
    assert not SGR.search(raw)


@pytest.mark.parametrize("command", ["place", "run"])
def test_the_module_can_come_from_stdin(command, tmp_path):
    text = (EXAMPLES / "rfc_backward.py").read_text()
    proc = subprocess.run(
        [sys.executable, "-m", "vdplace", command, "-", "--simulate" if command == "run" else "--strict"],
        input=text,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert ("vdevice=" in proc.stdout) if command == "place" else proc.stdout.startswith("out: shape (2, 3)")
    proc = subprocess.run(
        [sys.executable, "-m", "vdplace", command, "-"], input="not a module(", capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 2 and proc.stderr.startswith("error: <stdin>:1:") and proc.stdout == ""
