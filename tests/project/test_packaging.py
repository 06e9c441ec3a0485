"""One distribution, one import namespace: `vdplace` and nothing else at the top.

pyproject.toml maps the checkout's top-level folders ``ir/``, ``placement/`` and
``runtime/`` to ``vdplace.ir``, ``vdplace.placement`` and ``vdplace.runtime``
(``[tool.setuptools.package-dir]``) and lists every package by hand
(``packages = [...]``).  These tests hold that together:

* the ``packages`` list names exactly the folders that hold an ``__init__.py``,
  so a new sub-package cannot be left out of the wheel;
* the *installed* distribution (found by ``importlib.metadata``, whatever
  ``import vdplace`` resolves to) puts only ``vdplace``, its dist-info and the
  ``vdplace`` console script into the environment -- plus setuptools'
  ``__editable__*`` hook for an editable install, whose import mapping must
  itself name only ``vdplace`` packages;
* a regular install holds every listed package and the placement JSON schema;
* ``import vdplace`` offers the public API, and every ``vdplace.*`` module
  loaded comes from one tree (the checkout or site-packages, never a mix),
  with no bare ``ir`` / ``placement`` / ``runtime`` module imported.

The README's test command installs the checkout non-editable and then runs
pytest from the checkout root: there ``import vdplace`` finds the checkout
(through the search-path hook in ``vdplace/__init__.py``) while the
distribution checked here is the one in site-packages.  Under an editable
install both are the checkout.  A missing installation is a failure, not a
skip: the README's commands always install first.
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
import tomllib
from importlib import metadata
from pathlib import Path, PurePosixPath

import pytest

import vdplace

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
PACKAGE_DIR: dict[str, str] = SETUPTOOLS["package-dir"]
SUBPACKAGE_ROOTS = ("ir", "placement", "runtime")
PUBLIC_API = {
    "Placement",
    "PlacementConflict",
    "VirtualMachine",
    "compile",
    "parse",
    "parse_file",
    "place",
    "realize_vdevice",
    "script",
    "structural_equal",
}


def source_packages() -> dict[str, Path]:
    """Every package of the checkout by its installed name: folders under a package-dir root with an __init__.py."""
    found: dict[str, Path] = {}
    for name, folder in PACKAGE_DIR.items():
        root = ROOT / folder
        for init in root.rglob("__init__.py"):
            rel = init.parent.relative_to(root).parts
            found[".".join((name, *rel))] = init.parent
    return found


def installed_distribution() -> metadata.Distribution:
    """The installed `vdplace` distribution: the first on sys.path with a RECORD.

    A stale ``vdplace.egg-info`` left in the checkout by a build has no RECORD
    (its SOURCES.txt lists the source tree), so it is never taken for the install.
    """
    installed = [d for d in metadata.distributions(name="vdplace") if d.read_text("RECORD") is not None]
    assert installed, "vdplace is not installed in this environment: run `pip install '.[test]'` first"
    return installed[0]


def is_editable(dist: metadata.Distribution) -> bool:
    """Whether pip installed `dist` editable (its direct_url.json says so)."""
    direct_url = json.loads(dist.read_text("direct_url.json") or "{}")
    return bool(direct_url.get("dir_info", {}).get("editable", False))


def unexpected_files(dist: metadata.Distribution) -> list[str]:
    """Files of the distribution outside `vdplace/`, its dist-info and the console script."""
    dist_info = f"vdplace-{dist.version}.dist-info"
    allowed_tops = {"vdplace", dist_info}
    editable = is_editable(dist)
    bad = []
    for file in dist.files or []:
        path = PurePosixPath(str(file))
        if path.parts[0] == "..":
            ok = path.stem == "vdplace" and path.parent.name in ("bin", "Scripts")
        elif editable and path.name.startswith("__editable__"):
            ok = path.parts[0] in (path.name, "__pycache__")
        else:
            ok = path.parts[0] in allowed_tops
        if not ok:
            bad.append(str(path))
    return bad


def test_packages_list_names_every_package_folder():
    listed = SETUPTOOLS["packages"]
    assert len(listed) == len(set(listed)), f"duplicates in pyproject's packages list: {listed}"
    on_disk = set(source_packages())
    assert {"vdplace", "vdplace.ir", "vdplace.placement", "vdplace.runtime"} <= on_disk
    missing, extra = sorted(on_disk - set(listed)), sorted(set(listed) - on_disk)
    assert not missing and not extra, f"pyproject's packages list lacks {missing}, names non-packages {extra}"


def test_package_dir_maps_the_checkout_folders_under_vdplace():
    assert PACKAGE_DIR == {"vdplace": "vdplace", **{f"vdplace.{name}": name for name in SUBPACKAGE_ROOTS}}
    assert PYPROJECT["project"]["scripts"] == {"vdplace": "vdplace.cli:main"}


def test_installed_distribution_adds_only_vdplace():
    dist = installed_distribution()
    assert dist.version == PYPROJECT["project"]["version"]
    assert (dist.read_text("top_level.txt") or "").split() == ["vdplace"]
    files = [str(f) for f in dist.files or []]
    assert any(PurePosixPath(f).parts[:2] == ("..", "..") and PurePosixPath(f).stem == "vdplace" for f in files), files
    assert unexpected_files(dist) == []


def test_installed_distribution_holds_every_package():
    dist = installed_distribution()
    if is_editable(dist):
        assert_editable_mapping(dist)
        return
    files = {str(f) for f in dist.files or []}
    for name in source_packages():
        assert "/".join(name.split(".")) + "/__init__.py" in files, f"{name} is not installed"
    for schema in (ROOT / "placement").rglob("*.json"):
        installed = "vdplace/placement/" + schema.relative_to(ROOT / "placement").as_posix()
        assert installed in files, f"{installed} (placement's package data) is not installed"


def assert_editable_mapping(dist: metadata.Distribution) -> None:
    """An editable install's hook maps only `vdplace` names, each to its checkout folder; no .pth adds a path."""
    hooks = [f for f in dist.files or [] if f.name.startswith("__editable__") and f.parts[0] != "__pycache__"]
    finders = [f for f in hooks if f.suffix == ".py"]
    assert finders, f"no setuptools import hook among {hooks}"
    for pth in (f for f in hooks if f.suffix == ".pth"):
        for line in filter(None, map(str.strip, pth.read_text().splitlines())):
            assert line.startswith("import "), f"{pth} puts {line!r} on sys.path"
    for finder in finders:
        tree = ast.parse(finder.read_text())
        mapping = next(
            ast.literal_eval(node.value)
            for node in tree.body
            if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "MAPPING"
        )
        assert {name: Path(path) for name, path in mapping.items()} == {
            name: (ROOT / folder).resolve() for name, folder in PACKAGE_DIR.items()
        }


def test_import_vdplace_offers_the_public_api():
    assert set(vdplace.__all__) == PUBLIC_API
    for name in PUBLIC_API:
        assert getattr(vdplace, name) is not None, name
    assert vdplace.parse is vdplace.ir.parse and vdplace.parse_file is vdplace.ir.parse_file
    assert vdplace.place is vdplace.placement.place
    assert vdplace.compile is vdplace.runtime.compile
    assert vdplace.__version__ == PYPROJECT["project"]["version"]


@pytest.mark.parametrize("package", sorted(SETUPTOOLS["packages"]))
def test_every_package_imports_under_vdplace_from_one_tree(package):
    module = importlib.import_module(package)
    assert module.__name__ == package
    home = Path(vdplace.__file__).resolve().parent
    installed_tree = home.name == "vdplace" and (home / "ir").is_dir()
    if installed_tree:
        expected = home.joinpath(*package.split(".")[1:])
    else:
        expected = source_packages()[package].resolve()
    assert Path(module.__file__).resolve().parent == expected


def test_no_bare_subpackage_names_are_imported():
    for package in SETUPTOOLS["packages"]:
        importlib.import_module(package)
    bare = [name for name in SUBPACKAGE_ROOTS if name in sys.modules]
    assert not bare, f"imported outside the vdplace namespace: {bare}"
