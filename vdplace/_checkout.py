"""Import `vdplace.ir`, `vdplace.placement` and `vdplace.runtime` from a source checkout.

In the repository the three sub-packages are the top-level folders ``ir/``,
``placement/`` and ``runtime/`` beside ``vdplace/``; an install maps them under
``vdplace`` (pyproject's package-dir), so an installed tree never needs this.
`install` adds one finder to ``sys.meta_path`` that answers for exactly those
three names and nothing else: ``vdplace.tests`` or ``vdplace.benchmarks`` stay
unimportable, as they are from an install.  Their sub-modules are then found
through the package's own ``__path__`` as usual.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence

SUBPACKAGES = ("ir", "placement", "runtime")


class CheckoutFinder:
    """A meta-path finder for ``vdplace.<name>`` with `name` in `SUBPACKAGES`, read from `root`/<name>/."""

    def __init__(self, root: str) -> None:
        self.root = root

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        parent, _, name = fullname.rpartition(".")
        if parent != "vdplace" or name not in SUBPACKAGES:
            return None
        folder = os.path.join(self.root, name)
        return importlib.util.spec_from_file_location(
            fullname, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder]
        )


def install(package_dir: str) -> None:
    """Add the finder when `package_dir` (the ``vdplace`` folder) sits in a checkout without installed sub-packages."""
    root = os.path.dirname(package_dir)
    installed = os.path.isdir(os.path.join(package_dir, "ir"))
    in_checkout = all(os.path.isfile(os.path.join(root, name, "__init__.py")) for name in SUBPACKAGES)
    if installed or not in_checkout:
        return
    if not any(isinstance(f, CheckoutFinder) and f.root == root for f in sys.meta_path):
        sys.meta_path.insert(0, CheckoutFinder(root))
