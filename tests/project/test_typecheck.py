"""`.ci/typecheck`: mypy on the checkout laid out as it installs, run by `.ci/run` with every extra installed.

Running mypy itself takes a minute, so the suite leaves that out; these tests hold the
parts that would go wrong quietly: the layout (every package where it installs) and the paths
reported back (the checkout's, not the layout's).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import tomllib
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".ci" / "typecheck"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _script() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("vdplace_typecheck_script", str(SCRIPT))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_the_type_check_runs_with_mypy_from_the_dev_extra():
    assert os.access(SCRIPT, os.X_OK)
    assert any(dep.startswith("mypy") for dep in PYPROJECT["project"]["optional-dependencies"]["dev"])
    config = PYPROJECT["tool"]["mypy"]
    assert config["check_untyped_defs"] and config["warn_unused_ignores"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert '.venv/bin/pip install -q ".[dev]" && .venv/bin/python .ci/typecheck' in ci


def test_no_module_is_exempt_from_the_type_check():
    for override in PYPROJECT["tool"]["mypy"].get("overrides", []):
        assert not override.get("ignore_errors"), f"{override['module']} skips the type check"


def test_the_tree_holds_every_package_at_its_installed_name(tmp_path):
    script = _script()
    dirs = script.package_dirs()
    tree = tmp_path / "tree"
    script.build_tree(tree, dirs)
    script.build_tree(tree, dirs)  # a second run replaces the first
    for package in PYPROJECT["tool"]["setuptools"]["packages"]:
        init = tree.joinpath(*package.split("."), "__init__.py")
        assert init.is_file(), package
        assert init.resolve().is_relative_to(ROOT), package
    assert (tree / "vdplace" / "ir" / "expr.py").resolve() == ROOT / "ir" / "expr.py"
    assert (tree / "vdplace" / "runtime" / "ray" / "driver.py").resolve() == ROOT / "runtime" / "ray" / "driver.py"
    assert (tree / "vdplace" / "cli.py").resolve() == ROOT / "vdplace" / "cli.py"
    assert not (tree / "vdplace" / "__pycache__").exists()


def test_mypy_s_paths_come_back_as_the_checkout_s():
    script = _script()
    prefixes = script.tree_prefixes(script.package_dirs())
    report = {
        "vdplace/ir/expr.py:3: error: x  [attr-defined]": "ir/expr.py:3: error: x  [attr-defined]",
        "vdplace/placement/rewrite/realize.py:9: note: y": "placement/rewrite/realize.py:9: note: y",
        "vdplace/runtime/vm.py:1: error: z": "runtime/vm.py:1: error: z",
        "vdplace/tvm/convert.py:2: error: w": "vdplace/tvm/convert.py:2: error: w",
        "Success: no issues found in 230 source files": "Success: no issues found in 230 source files",
    }
    for line, want in report.items():
        assert script.checkout_path(line, prefixes) == want
