"""vdplace: constraint-solved device placement for Relax programs.

The public API::

    import vdplace
    mod = vdplace.parse(text)                 # TVMScript -> IRModule (never executes the text)
    mod = vdplace.parse_file("model.py")      # the same from a file, its text left on disk
    result = vdplace.place(mod)               # solve; raises vdplace.PlacementConflict
    print(vdplace.script(result.module))      # the placed module as TVMScript
    exe = vdplace.compile(result.module)      # VM instructions
    vm = vdplace.VirtualMachine(exe, simulate_missing=True)

The sub-packages hold the rest: `vdplace.ir` (IR, parser, printer, ops),
`vdplace.placement` (constraints, solving, diagnosis, reports, rewrites) and
`vdplace.runtime` (compiler, VM, devices).

In a source checkout the sub-packages are the top-level folders ``ir/``,
``placement/`` and ``runtime/`` beside this one; installing maps them under
``vdplace`` (pyproject's package-dir).  So that code run from a checkout
(tests, benchmarks) imports the same names, `vdplace._checkout` maps exactly
those three names to the folders when they are not installed inside this one.
"""

import logging as _logging
import os as _os

from . import _checkout

# The library warns through the ``vdplace`` logger (e.g. a symbolic dim with no size); it prints nothing
# unless the application shows the logger (the `vdplace` command does, on stderr).
_logging.getLogger(__name__).addHandler(_logging.NullHandler())

_checkout.install(_os.path.dirname(_os.path.abspath(__file__)))

__version__ = "0.1.0"

__all__ = [
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
]


def __getattr__(name: str) -> object:
    """The public API, imported on first use, so that ``import vdplace.ir`` does not load Z3 or the runtime."""
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'vdplace' has no attribute {name!r}")
