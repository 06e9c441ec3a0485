"""Every ```python snippet in docs/ is true as written.

A snippet runs in a fresh namespace (one per page, shared by the page's
snippets in order), from a folder where ``examples/`` is the repository's
and files it writes land in a temporary directory.  A snippet that imports
an optional dependency (tvm, torch, ray, accelerate, transformers) is skipped when that is not installed.
A snippet marked ``<!-- excerpt: PATH -->`` on the line before it shows code
of the repository instead: each of its statements (comments aside) must be a
top-level statement of PATH.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SNIPPET = re.compile(r"(?:<!-- excerpt: (\S+) -->\n)?```python\n(.*?)```", re.S)
OPTIONAL = ("tvm", "torch", "ray", "accelerate", "transformers")
# vdplace functions that import an optional package themselves: a snippet calling one needs it too.
NEEDS = {"accelerate_map": "accelerate"}


def _pages() -> list[Path]:
    return [page for page in sorted((ROOT / "docs").glob("*.md")) if "```python" in page.read_text()]


def _optional_imports(tree: ast.Module) -> list[str]:
    """The optional top-level packages a snippet imports."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
            if node.module == "vdplace.tvm" or node.module.startswith("vdplace.tvm."):
                names.add("tvm")
            names.update(NEEDS[alias.name] for alias in node.names if alias.name in NEEDS)
    return sorted(names & set(OPTIONAL))


def _check_excerpt(page: Path, path: str, code: str) -> None:
    source = ast.parse((ROOT / path).read_text())
    known = {ast.dump(stmt) for stmt in source.body}
    missing = [ast.unparse(stmt) for stmt in ast.parse(code).body if ast.dump(stmt) not in known]
    assert not missing, f"{page.name}: not in {path}:\n" + "\n".join(missing)


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_every_python_snippet_in_docs_runs(page, tmp_path, monkeypatch, capsys):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    snippets = SNIPPET.findall(page.read_text())
    for excerpt, code in snippets:
        if excerpt:
            _check_excerpt(page, excerpt, code)
            continue
        missing = [name for name in _optional_imports(ast.parse(code)) if importlib.util.find_spec(name) is None]
        if missing:
            pytest.skip(f"{page.name} needs {', '.join(missing)}")
        exec(compile(code, str(page), "exec"), namespace)  # our own documentation, not user input
    capsys.readouterr()
    assert snippets


def test_the_conflict_snippet_reports_a_conflict(tmp_path, monkeypatch, capsys):
    """docs/conflicts.md's snippet reaches its `except` branch: it shows what it says it shows."""
    test_every_python_snippet_in_docs_runs(ROOT / "docs" / "conflicts.md", tmp_path, monkeypatch, capsys)
    assert "<svg" in (tmp_path / "report.html").read_text()
