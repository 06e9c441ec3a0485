"""Placement: constraints -> the objective's problem -> a backend -> a placed module with explicit copies.

One driver, `place(mod, objective=...)`: `Bytes()` (the default) or
`Cost(model, memory=...)`, two implementations of the `Objective` contract
(`placement/objective.py`).  See docs/placement.md for the pipeline, the
rules and the solving strategy.
"""

from vdplace.placement.api import Placement, Stats, place, realize_vdevice, specialize
from vdplace.placement.bytes_objective import Bytes
from vdplace.placement.cost import CostModel
from vdplace.placement.cost.cost_objective import Cost
from vdplace.placement.cost.plan_problem import PlanProblem, PlanResult
from vdplace.placement.errors import CostModelError, PlacementConflict, PlacementError, PlacementInternalError
from vdplace.placement.extract.extract import extract
from vdplace.placement.model.constraints import ConstraintSet, Domain, Equal, Pin, Prefer, Site
from vdplace.placement.objective import Decision, Objective, Settings
from vdplace.placement.rewrite.annotate import annotate_ops
from vdplace.placement.rewrite.module_pass import ModulePass
from vdplace.placement.rewrite.realize import Copy
from vdplace.placement.rewrite.update import update_vdevice
from vdplace.placement.schedule.objective import Time
from vdplace.placement.solve.backend import (
    Backend,
    BackendResult,
    Problem,
    SoftEdge,
    backend_names,
    register_backend,
)
from vdplace.placement.solve.check import check
from vdplace.placement.solve.z3_backend import Z3Backend

__all__ = [
    "Backend",
    "BackendResult",
    "Bytes",
    "ConstraintSet",
    "Cost",
    "CostModel",
    "CostModelError",
    "Copy",
    "Decision",
    "Domain",
    "Equal",
    "ModulePass",
    "Objective",
    "Pin",
    "PlanProblem",
    "PlanResult",
    "Placement",
    "PlacementConflict",
    "PlacementError",
    "PlacementInternalError",
    "Prefer",
    "Problem",
    "Settings",
    "Site",
    "SoftEdge",
    "Stats",
    "Time",
    "Z3Backend",
    "annotate_ops",
    "backend_names",
    "check",
    "extract",
    "place",
    "realize_vdevice",
    "register_backend",
    "specialize",
    "update_vdevice",
]
