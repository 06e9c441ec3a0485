"""Conflict diagnosis: why a module has no placement, as minimal unsatisfiable sets in source terms.

This is placement's one conflict engine.  The solver only decides *that* a
module has no placement (an equality class whose pins and domains have no
common device); `PlacementConflict`, its text and every report explain it
through a `Diagnosis` of the constraint set, built here:

    core.py      finds the independent conflicts over equality classes (integers only)
    conflict.py  the objects: `Conflict`, `Requirement`, `Step`, `Fix`, `Device`
    names.py     how devices and sites are named in every rendering
    verify.py    proofs that a conflict is a minimal unsatisfiable set (Z3 and structural)
    fixes.py     suggested edits, each re-checked on the constraint graph
    plans.py     where each fix's edit goes in the text (`Plan`, for `report.edits`)
    chain.py     how a long chain is shortened for people (`shorten`, `Gap`, its landmarks)
    quote.py     how a long source line is quoted around what a report marks
    find.py      `find_conflicts`: the steps above in order
    summary.py   ``str()`` of the error: `summarize`
    message.py   `PlacementConflict.message`: `conflict_message`
    explain.py   `Diagnosis` (found once, on first use) and `conflict_error`
"""

from vdplace.placement.diagnose.conflict import Conflict, Device, Fix, Requirement, Step
from vdplace.placement.diagnose.explain import CONFLICT_LIMIT, Diagnosis, conflict_error
from vdplace.placement.diagnose.find import find_conflicts
from vdplace.placement.diagnose.summary import summarize

__all__ = [
    "CONFLICT_LIMIT",
    "Conflict",
    "Device",
    "Diagnosis",
    "Fix",
    "Requirement",
    "Step",
    "conflict_error",
    "find_conflicts",
    "summarize",
]
