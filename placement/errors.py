"""Errors placement raises: a proven conflict, bad input, or a bug caught by the checker.

`PlacementConflict` is the normal outcome for an unsatisfiable module: it
keeps the `ConstraintSet` and a minimal unsatisfiable subset of it (`core`)
so that richer reports (issue 4, `placement.diagnose`) can be built on top of
the same evidence the short message quotes.
"""

from __future__ import annotations

from vdplace.ir.errors import IRError

from .constraints import ConstraintSet, Domain, Equal, Pin, Prefer

Constraint = Pin | Equal | Prefer | Domain


class PlacementError(IRError):
    """The module cannot be placed because it is malformed (undeclared vdevice, undefined callee...).

    An `IRError`, so it carries a span and prints as ``file:line:col: reason``.
    """


class PlacementConflict(Exception):
    """No placement satisfies the module's hard constraints.

    `core` is one minimal unsatisfiable set of constraints (the pins, the
    chain of equalities that joins them, and any domain involved); `cores`
    holds one such set per independent conflict, `core` being the first.

    `conflicts` (at most `CONFLICT_LIMIT` `placement.diagnose.Conflict`s:
    pins, chain, checked fixes, in source terms) and `omitted` (how many
    more were found) are computed from `constraint_set` on first use;
    ``str()`` is their summary.  `module`, when given, lets the reports
    (`placement.report_text` / `_json` / `_html`) quote the source.
    """

    CONFLICT_LIMIT = 10

    def __init__(
        self,
        message: str,
        constraint_set: ConstraintSet,
        core: list[Constraint],
        cores: list[list[Constraint]] | None = None,
        module: object = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.constraint_set = constraint_set
        self.core = core
        self.cores = cores if cores is not None else [core]
        self.module = module
        self._explained: tuple[list, int] | None = None

    def _explain(self) -> tuple[list, int]:
        if self._explained is None:
            from .diagnose import find_conflicts  # diagnose imports this module

            self._explained = find_conflicts(self.constraint_set, limit=self.CONFLICT_LIMIT)
        return self._explained

    @property
    def conflicts(self) -> list:
        """The explained conflicts (`placement.diagnose.Conflict`), in source order."""
        return self._explain()[0]

    @property
    def omitted(self) -> int:
        """Conflicts found beyond `CONFLICT_LIMIT`, counted but not explained."""
        return self._explain()[1]

    def __str__(self) -> str:
        try:
            from .diagnose import summarize

            conflicts, omitted = self._explain()
        except Exception:  # noqa: BLE001 - the diagnostics must never hide the conflict itself
            return self.message
        source = None if self.module is None else self.module.source
        return summarize(conflicts, omitted, source) if conflicts else self.message


class PlacementInternalError(RuntimeError):
    """The solver's answer failed the independent checker: a bug in vdplace, never the user's fault."""
