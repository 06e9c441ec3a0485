"""The dependencies are ranges that live with other packages: lower bounds only, no pins, no caps.

`.ci/run` installs the lowest versions these bounds allow in a second venv and runs
the suite there; the first run gets the newest releases.  The extras that pin
(tvm, frontend) pin what generated the bundled corpus and the TVM comparisons.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _bounds(spec: str) -> tuple[str, str]:
    name, constraint = re.match(r"^([A-Za-z0-9_.-]+)\s*(.*)$", spec).groups()
    return name, constraint


def test_the_core_dependencies_have_lower_bounds_only():
    for spec in PROJECT["dependencies"]:
        name, constraint = _bounds(spec)
        assert re.fullmatch(r">=[\d.]+", constraint), f"{spec}: a lower bound only (no ==, no <)"
    assert {_bounds(s)[0] for s in PROJECT["dependencies"]} == {"z3-solver", "networkx", "numpy", "scipy", "ortools"}


def test_ray_and_torch_are_ranges_that_admit_the_versions_ci_runs():
    extras = PROJECT["optional-dependencies"]
    assert extras["ray"] == ["ray>=2.40"]  # CI: 2.40 in the lowest run, the newest in the first
    assert extras["torch"] == ["torch>=2.13"]  # CI: the 2.13 CPU wheel
    assert any(s.startswith("jsonschema>=") for s in extras["test"])
