"""`Bytes()`: the default objective, the fewest bytes copied across physical devices.

Every hard equality holds; copies appear only where the program allows one
(``hint_on_device``, ``to_vdevice``), and the objective is the bytes they
move.  Its steps (`placement.objective` has the contract):

* collapse: every hard equality into classes (`model.classes.collapse`);
* solve: pins and domains per class (a class they leave without a device is
  a `PlacementConflict`, explained by `placement.diagnose`), the default
  policy, propagation, and the backend for what is left
  (`placement.solve.solve`; a backend deciding `Problem`s, ``"z3"`` by
  default);
* conflict_functions: the functions with a parameter or result in a class
  with no device, for the driver's specialization advice;
* verify: the bytes the solver minimized (`solve.check.copy_bytes`) must be
  the bytes the placed module's copies move.
"""

from __future__ import annotations

from vdplace.ir.fill_vdevice import HOST_VDEVICE
from vdplace.ir.module import IRModule
from vdplace.placement.diagnose import conflict_error
from vdplace.placement.errors import PlacementInternalError
from vdplace.placement.extract.extraction import Extraction, tree_leaves
from vdplace.placement.model.classes import Classes, collapse
from vdplace.placement.model.entry import uploaded_bytes
from vdplace.placement.objective import Decision, Objective, Settings
from vdplace.placement.rewrite.realize import Copy
from vdplace.placement.solve.backend import Problem
from vdplace.placement.solve.check import copy_bytes, upload_bytes
from vdplace.placement.solve.solve import POLICIES, class_facts, solve


class Bytes(Objective):
    """The fewest bytes copied (module docstring); takes ``strict_hints``, ``default`` and ``specialize``."""

    name = "bytes"
    options = frozenset(("strict_hints", "default", "specialize"))
    problem_kind = Problem
    default_backend = "z3"

    def prepare(self, mod: IRModule, settings: Settings) -> IRModule:
        if settings.default not in POLICIES:
            raise ValueError(f"unknown default policy {settings.default!r}; use one of {', '.join(POLICIES)}")
        if settings.default == "host" and not mod.vdevices:
            return mod.replace(vdevices=[HOST_VDEVICE])
        return mod

    def collapse(self, ex: Extraction, settings: Settings) -> Classes:
        cs = ex.constraints
        return collapse(len(cs.sites), cs.equals)

    def solve(self, problem: Classes, ex: Extraction, settings: Settings) -> Decision:
        cs = ex.constraints
        limit = settings.time_limit_s
        timeout_ms = None if limit is None else max(1, round(limit * 1000))
        solution = solve(
            cs, problem, settings.backend, default=settings.default, propagate=settings.propagate, timeout_ms=timeout_ms
        )
        if solution.conflicting:
            raise conflict_error(cs, ex.module)
        out = Decision(ex, problem.expand(solution.devices), len(problem))
        if solution.status != "unused":
            out.backend = settings.backend.name
        out.variables, out.soft, out.status = solution.variables, solution.soft, solution.status
        return out

    def conflict_functions(self, problem: Classes, ex: Extraction) -> frozenset[str]:
        conflicting = set(class_facts(ex.constraints, problem).conflicting)
        of = problem.of
        out = set()
        for name, func in ex.module.functions.items():
            trees = [ex.var_sites[p] for p in func.params] + [ex.ret_sites[name]]
            if any(of[site] in conflicting for tree in trees for site in tree_leaves(tree)):
                out.add(name)
        return frozenset(out)

    def verify(self, decision: Decision, placed: IRModule, copies: list[Copy]) -> None:
        ex = decision.extraction
        solved = copy_bytes(ex.constraints, decision.assignment) + upload_bytes(ex.constraints, decision.assignment)
        uploaded = uploaded_bytes(ex.module, placed, ex.sizes)
        realized = sum(c.nbytes for c in copies if c.physical) + uploaded
        if solved != realized:
            raise PlacementInternalError(f"the objective counted {solved} bytes but the placed module moves {realized}")
