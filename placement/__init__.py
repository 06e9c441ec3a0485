"""Placement: constraints -> equality classes -> a backend (Z3 by default) -> a placed module with explicit copies.

See docs/placement.md for the pipeline, the rules and the solving strategy.
"""

from vdplace.placement.api import Placement, Stats, place, realize_vdevice
from vdplace.placement.cost import CostModel
from vdplace.placement.errors import PlacementConflict, PlacementError, PlacementInternalError
from vdplace.placement.extract.extract import extract
from vdplace.placement.model.constraints import ConstraintSet, Domain, Equal, Pin, Prefer, Site
from vdplace.placement.rewrite.annotate import annotate_ops
from vdplace.placement.rewrite.module_pass import ModulePass
from vdplace.placement.rewrite.realize import Copy
from vdplace.placement.rewrite.update import update_vdevice
from vdplace.placement.schedule.objective import Time
from vdplace.placement.solve.backend import Backend, BackendResult, Problem, SoftEdge, register_backend
from vdplace.placement.solve.check import check
from vdplace.placement.solve.z3_backend import Z3Backend

__all__ = [
    "Backend",
    "BackendResult",
    "ConstraintSet",
    "CostModel",
    "Copy",
    "Domain",
    "Equal",
    "ModulePass",
    "Pin",
    "Placement",
    "PlacementConflict",
    "PlacementError",
    "PlacementInternalError",
    "Prefer",
    "Problem",
    "Site",
    "SoftEdge",
    "Stats",
    "Time",
    "Z3Backend",
    "annotate_ops",
    "check",
    "extract",
    "place",
    "realize_vdevice",
    "register_backend",
    "update_vdevice",
]
