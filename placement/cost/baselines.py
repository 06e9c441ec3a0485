"""The plans users get today, as yardsticks (benchmarks/bench_cost.py) and as the exact solver's first guess.

* `prefer_device`: every unit on one device type where it can run there,
  else on the first device it can run on: ONNX Runtime's and TensorFlow's
  placers (all supported ops on the GPU, per-op fallback to the CPU), and
  "everything on the CPU".  Memory limits are ignored, as those placers do.
* `greedy`: units in program order, each on the device where it finishes
  the program so far soonest (its compute plus the copies its inputs need
  from units already placed), among the devices where it still fits:
  Baechi's memory-constrained earliest-finish-time idea (m-ETF) for one
  stream.

Each returns one device per unit; `objective.plan_cost` says what it costs
and whether it fits.
"""

from __future__ import annotations

from vdplace.placement.cost.objective import allowed
from vdplace.placement.cost.problem import CostProblem


def prefer_device(p: CostProblem, device_type: str) -> list[int]:
    """Each unit on the first vdevice of `device_type` it can run on, else on its first allowed vdevice."""
    plan = []
    for u in range(p.num_units):
        a = allowed(p, u) or [0]
        typed = [d for d in a if p.vdevices[d].device_type == device_type]
        plan.append((typed or a)[0])
    return plan


def greedy(p: CostProblem) -> list[int]:
    """Memory-aware earliest finish, one unit at a time in program order (see the module docstring)."""
    inputs: list[list[int]] = [[] for _ in range(p.num_units)]
    for v, value in enumerate(p.values):
        for c in value.consumers:
            inputs[c].append(v)
    plan: list[int] = []  # the units placed so far, in order: a later unit has no device yet
    copied: list[set[int]] = [set() for _ in p.values]
    used = [0] * p.num_devices
    for u in range(p.num_units):
        best: tuple[bool, float, int] | None = None
        for d in allowed(p, u) or [0]:
            t = p.compute[u][d] or 0.0
            extra = p.memory[u]
            for v in inputs[u]:
                unit = p.values[v].unit
                home = plan[unit] if unit < u else None
                if home is not None and home != d and d not in copied[v]:
                    t += p.copy[v][home][d]
                    extra += p.values[v].nbytes
            limit = p.limits[d]
            fits = limit is None or used[d] + extra <= limit
            key = (not fits, t, d)
            if best is None or key < best:
                best = key
        assert best is not None, "a unit has a device to try"
        d = best[2]
        plan.append(d)
        used[d] += p.memory[u]
        for v in inputs[u]:
            unit = p.values[v].unit
            home = plan[unit] if unit <= u else None
            if home is not None and home != d and d not in copied[v]:
                copied[v].add(d)
                used[d] += p.values[v].nbytes
    return plan
