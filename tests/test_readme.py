"""The README stays true: its Python example runs, and CI runs its test command."""

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_python_example_runs(capsys, monkeypatch):
    block = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    monkeypatch.chdir(ROOT)
    exec(compile(block, "README.md", "exec"), {})  # our own documentation, not user input
    out = capsys.readouterr().out
    assert '`x1` must be on "llvm:0" but `y1` on "cuda:0"' in out
    assert 'R.to_vdevice(s1, dst_vdevice="cuda:0:global")' in out
    assert re.search(r"cpu -> sim:cuda:0\s+1\s+24 B", out), out


def test_ci_runs_the_readme_test_command():
    commands = re.findall(r"^    (python3 -m venv .*)$", README, re.M)
    assert len(commands) == 2, commands
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci.splitlines()
    assert "vdplace place examples/" in commands[0]
    assert os.access(ROOT / ".ci" / "run", os.X_OK)
