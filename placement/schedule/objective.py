"""`Time(cost_model, memory=...)`: place to minimize the makespan of a schedule, memory by liveness.

``place(mod, objective=Time(model))`` decides a vdevice for every unpinned
value, as the cost objective does, and the schedule of the run it predicts
(docs/schedule.md); `Placement.schedule` holds it.  `memory` adds limits
(vdevice name -> bytes or ``"2GiB"``) to the model's own, the lower one
winning where both name a vdevice; `exact=False` skips the exact solver
(CP-SAT), leaving the placement search and its proved lower bound.
"""

from __future__ import annotations

from collections.abc import Mapping

from vdplace.placement.cost.model import CostModel, parse_bytes


class Time:
    """The time objective: `model` (a `CostModel`), `memory` (bytes per vdevice name), `exact`."""

    __slots__ = ("model", "memory", "exact")

    def __init__(
        self, cost_model: CostModel, memory: Mapping[str, int | str] | None = None, *, exact: bool = True
    ) -> None:
        if not isinstance(cost_model, CostModel):
            raise TypeError(f"Time() takes a placement.CostModel, not {type(cost_model).__name__}")
        self.model = cost_model
        self.memory: dict[str, int] = {name: parse_bytes(size) for name, size in (memory or {}).items()}
        self.exact = bool(exact)

    def __repr__(self) -> str:
        return f"Time(memory={self.memory!r}, exact={self.exact})"
