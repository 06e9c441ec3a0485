"""The time objective: place so that the predicted schedule's makespan is least, memory by liveness.

`objective.Time` is the objective (`vdplace.placement.Time`); `solve.solve_time`
decides a vdevice per unit and the schedule; `events` holds what it
predicts (`Schedule`, `Event`).  One job per module: `graph` (the task graph
of a coarsened program), `simulate` (the exact float simulator),
`liveness` (memory), `list_scheduler` (HEFT), `search` (placement search),
`bounds` (proved lower bounds), `cpsat` and `cpsat_memory` (the exact
solver), `conflict`
(limits no plan fits), `place` (the pipeline and its check), `order` (the
placed module's bindings in the schedule's order), `gantt` (the HTML picture).  docs/schedule.md describes the model.
"""

from .events import Event, Live, Peak, Schedule
from .objective import Time

__all__ = ["Event", "Live", "Peak", "Schedule", "Time"]
