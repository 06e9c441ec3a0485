"""A Z3 ``Optimize`` problem solved in a child Python, killed at a hard deadline.

``Optimize.check`` is deaf to ``Context.interrupt`` inside Z3's
pseudo-Boolean propagation (seen with Z3 5.4: a 1 s limit, minutes of
``pb::solver::propagated``), so a search with a time limit that must be
kept runs here: the problem travels as SMT-LIB2 text (``Optimize.sexpr()``:
declarations, hard assertions, weighted soft assertions), the child parses
it (``Optimize.from_string``; SMT-LIB, never Python), sets the initial
values given, checks with the time limit, and answers with the status, the
Boolean values asked for by name and the first objective's proved lower
bound (a fraction), as JSON (`placement.solve.child_process`).  The child
runs `z3_worker.py` as a script: it imports Z3 and nothing of vdplace.

Contract: `optimize_by(text, names, deadline, hint=...)` returns a
`Z3Answer` or None when the child did not answer by the deadline (it is
killed) or failed.  ``Z3Answer.values`` is None when Z3 found no model.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TypedDict

from vdplace.placement.solve.child_process import run_by_deadline

WORKER = Path(__file__).with_name("z3_worker.py")


@dataclass(frozen=True)
class Z3Answer:
    """``status`` ("sat", "unsat" or "unknown"), ``values`` of the named Booleans in the model (None: no
    model), ``lower`` the first objective's proved lower bound (None when Z3 gave none)."""

    status: str
    values: dict[str, bool] | None
    lower: Fraction | None


class _Request(TypedDict):
    text: str
    names: list[str]
    deadline: float
    hint: dict[str, bool]


def optimize_by(
    text: str, names: Sequence[str], deadline: float, hint: Mapping[str, bool] | None = None
) -> Z3Answer | None:
    """Z3's answer to the SMT-LIB2 optimization `text` by `deadline` (`time.time()`), or None (module docstring)."""
    request: _Request = {"text": text, "names": list(names), "deadline": deadline, "hint": dict(hint or {})}
    out = run_by_deadline(WORKER, json.dumps(request).encode(), deadline)
    if out is None:
        return None
    got = json.loads(out)
    lower = None if got["lower"] is None else Fraction(got["lower"][0], got["lower"][1])
    return Z3Answer(got["status"], got["values"], lower)
