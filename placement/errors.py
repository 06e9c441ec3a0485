"""Errors placement raises: a proven conflict, bad input, or a bug caught by the checker.

`PlacementConflict` is the normal outcome for an unsatisfiable module.  It
says nothing of its own: everything it reports (the conflicts, their
constraints, its text) comes from the `ConflictExplanation` it is raised
with, which `placement.diagnose` builds.  This module imports no diagnosis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from vdplace.ir.errors import IRError
from vdplace.ir.expr import Var
from vdplace.ir.span import Span
from vdplace.placement.model.constraints import ConstraintSet, Domain, Equal, Pin, Prefer

Constraint = Pin | Equal | Prefer | Domain


class PlacementError(IRError):
    """The module cannot be placed because it is malformed (undeclared vdevice, undefined callee...).

    An `IRError`, so it carries a span and prints as ``file:line:col: reason``.
    """


class CostModelError(PlacementError, ValueError):
    """The cost model cannot price what the module needs: no entry for one of its vdevices or links, or a
    callable of the model that raised `ValueError` or returned no number of seconds.  Bad input (a
    `PlacementError`, located at the op where there is one) and a `ValueError`, as the model's own errors are."""


def bound_twice(var: Var, func: str, span: Span | None) -> PlacementError:
    """The error for a variable object bound a second time (here in function `func`)."""
    return PlacementError(
        f"variable {var.name!r} is bound more than once (again in function {func!r}): "
        "each variable is bound once, by one parameter or one binding of one function",
        span,
    )


class ConflictExplanation(Protocol):
    """What a `PlacementConflict` reports; `placement.diagnose.Diagnosis` is the implementation.

    Every member may be computed on first use (raising the error then costs
    nothing); each is the same on every access.
    """

    @property
    def constraint_set(self) -> ConstraintSet: ...

    @property
    def module(self) -> Any: ...

    @property
    def conflicts(self) -> Sequence[Any]: ...

    @property
    def omitted(self) -> int: ...

    @property
    def cores(self) -> list[list[Constraint]]: ...

    @property
    def message(self) -> str: ...

    def summary(self) -> str: ...


class PlacementConflict(Exception):
    """No placement satisfies the module's hard constraints.

    `conflicts` are the independent conflicts explained (`placement.diagnose.Conflict`:
    pins, chain, checked fixes, in source terms; at most 10), `omitted` how
    many more were found; `cores` holds each explained conflict as a minimal
    unsatisfiable set of constraints (its pins and domains, then the chain of
    equalities joining them), `core` the first.  ``str()`` is the summary
    naming every pin and chain; `message` the terse form quoting each fact's
    source line.  `constraint_set` is what was solved; `module`, when known,
    lets the reports (`placement.report`) quote the source.
    """

    def __init__(self, explanation: ConflictExplanation) -> None:
        super().__init__()
        self.explanation = explanation

    @property
    def constraint_set(self) -> ConstraintSet:
        return self.explanation.constraint_set

    @property
    def module(self) -> Any:
        return self.explanation.module

    @property
    def conflicts(self) -> Sequence[Any]:
        """The explained conflicts (`placement.diagnose.Conflict`), in source order."""
        return self.explanation.conflicts

    @property
    def omitted(self) -> int:
        """Conflicts found beyond those explained, counted but not built."""
        return self.explanation.omitted

    @property
    def cores(self) -> list[list[Constraint]]:
        return self.explanation.cores

    @property
    def core(self) -> list[Constraint]:
        cores = self.cores
        return cores[0] if cores else []

    @property
    def message(self) -> str:
        return self.explanation.message

    def __str__(self) -> str:
        try:
            return self.explanation.summary()
        except Exception as err:  # noqa: BLE001 - a failing explanation must never hide the conflict itself
            return f"no placement exists (explaining the conflict failed: {type(err).__name__}: {err})"


class PlacementInternalError(RuntimeError):
    """The solver's answer failed the independent checker: a bug in vdplace, never the user's fault."""
