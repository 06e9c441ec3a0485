"""The README and the docs stay true: the Python example runs, CI runs the test command, paths exist."""

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOP_FOLDERS = ("vdplace", "ir", "placement", "runtime", "tests", "docs", "examples", "benchmarks", ".ci")
REPO_PATH = re.compile(rf"`((?:{'|'.join(re.escape(f) for f in TOP_FOLDERS)})/[\w./-]*)`")
OUTSIDE = re.compile(r"\.\./|DESIGN\.md|\bseeds?/|\bseed 0\d\d|founders")


def test_python_example_runs(capsys, monkeypatch):
    section = README[README.index("## Using it from Python") :]
    block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert "import vdplace\n" in block
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


def test_the_layout_names_the_design_document():
    layout = README.split("## Layout", 1)[1].split("\n## ", 1)[0]
    assert "design.md" in layout and (ROOT / "docs" / "design.md").is_file()


def test_docs_name_only_paths_that_exist():
    missing = [
        f"{doc.relative_to(ROOT)}: {path}"
        for doc in DOCS
        for path in REPO_PATH.findall(doc.read_text())
        if not (ROOT / path).exists()
    ]
    assert not missing, "\n".join(missing)


def test_docs_point_only_inside_the_repository():
    outside = [
        f"{doc.relative_to(ROOT)}:{n}: {line.strip()}"
        for doc in DOCS
        for n, line in enumerate(doc.read_text().splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not outside, "\n".join(outside)


def test_the_docs_index_lists_every_page():
    index = (ROOT / "docs" / "README.md").read_text()
    pages = {doc.name for doc in DOCS if doc.parent.name == "docs" and doc.name != "README.md"}
    unlisted = sorted(page for page in pages if f"]({page})" not in index)
    assert pages and not unlisted, f"docs/README.md does not list {unlisted}"


def test_the_cost_aware_plan_shown_is_what_the_example_gives(capsys, monkeypatch):
    """The README's plan for examples/cost_offload.py is the command's stderr (the solve time aside)."""
    from vdplace.cli import main

    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text()
    command = "vdplace place examples/cost_offload.py --cost examples/cost_offload.json --memory cuda:0=16MiB"
    assert command in readme
    block = readme.split(command, 1)[1].split("```\n", 2)[1]
    assert main(command.split()[1:] + ["-o", os.devnull]) == 0
    shown = re.sub(r"\d+\.\d+ s\)", "S s)", block)
    printed = re.sub(r"\d+\.\d+ s\)", "S s)", capsys.readouterr().err)
    assert shown.strip() and shown == printed


def test_ci_installs_chromium_and_runs_the_suite_on_the_lowest_allowed_versions():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "apt-get install -y -qq chromium" in ci
    assert "--resolution lowest-direct" in ci and re.search(r'"\$lowest/bin/python" -m pytest$', ci, re.M)
    assert "torch.version.cuda is None" in ci  # the torch extra's tests run on the CPU wheel
