"""Placement: constraints -> Z3 -> a placed module with explicit copies (DESIGN.md, "placement")."""

from .annotate import annotate_ops
from .api import Placement, Stats, place, realize_vdevice
from .check import check
from .constraints import ConstraintSet, Domain, Equal, Pin, Prefer, Site
from .errors import PlacementConflict, PlacementError, PlacementInternalError
from .extract import extract
from .realize import Copy
from .update import update_vdevice

__all__ = [
    "ConstraintSet",
    "Copy",
    "Domain",
    "Equal",
    "Pin",
    "Placement",
    "PlacementConflict",
    "PlacementError",
    "PlacementInternalError",
    "Prefer",
    "Site",
    "Stats",
    "annotate_ops",
    "check",
    "extract",
    "place",
    "realize_vdevice",
    "update_vdevice",
]
