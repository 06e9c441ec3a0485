"""The names `import vdplace` offers at the top: the one-line path from text to a run."""

from vdplace.ir import parse, parse_file, script, structural_equal
from vdplace.placement import Placement, PlacementConflict, place, realize_vdevice
from vdplace.runtime import VirtualMachine, compile

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
