"""vdplace: constraint-solved device placement for Relax programs.

The public API::

    import vdplace
    mod = vdplace.parse(text)                 # TVMScript -> IRModule (never executes the text)
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
(tests, benchmarks) imports the same names, the checkout's root is added to
this package's search path when the sub-packages are not installed inside it.
"""

import os as _os

_here = _os.path.dirname(_os.path.abspath(__file__))
_checkout = _os.path.dirname(_here)
if not _os.path.isdir(_os.path.join(_here, "ir")) and _os.path.isfile(_os.path.join(_checkout, "ir", "__init__.py")):
    __path__.append(_checkout)

from .api import (  # noqa: E402 - the search path above must be set first
    PlacementConflict,
    Placement,
    VirtualMachine,
    compile,
    parse,
    place,
    realize_vdevice,
    script,
    structural_equal,
)

__version__ = "0.1.0"

__all__ = [
    "Placement",
    "PlacementConflict",
    "VirtualMachine",
    "compile",
    "parse",
    "place",
    "realize_vdevice",
    "script",
    "structural_equal",
]
