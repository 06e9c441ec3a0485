"""How much two Ray actors on one machine slow each other: the program's kernels on both at once against alone.

Calibration times each kernel, and the program, on one actor at a time; in
a run whose plan keeps two actors busy together, they share the machine's
cores (and its memory bandwidth, the driver's and Ray's own work), and each
runs slower than its calibrated time.  `measure_contention(devices,
values)` measures that for every pair of CPU actors (``cpu``, ``sim``) on
one Ray node: the program's distinct op calls (`values`: op key ->
arguments and attributes, the program's own values) run as one *pass* of
their NumPy kernels, each once, inside an actor (`TimingActor.run_calls`).
In each of `rounds` rounds, the pass runs `passes` times on the first actor
alone, then on the second alone, then on both, started at one wall-clock
instant; an actor's slowdown is the median of its passes whose middle came while
the other actor was running its own (the both run) over the median of its
passes alone.  The pair's factor is the mean of the two slowdowns,
at least 1: `CostModel.contention` (docs/cost.md, "Calibration"), which the
`Time` objective's schedule applies where both actors work at once
(`placement.schedule.contention`).  `passes` fills about `seconds` of a
run (4 to 50), from one pass timed alone first.
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .ray_actors import CALL_TIMEOUT, Call, RayDevices

START_DELAY = 0.05  # seconds between submitting the both run and its start, so that both actors start together
MIN_PASSES, MAX_PASSES = 4, 50


@dataclass
class Contention:
    """One pair of actors' measurement (module docstring); times in seconds."""

    keys: tuple[str, str]  # a device key of each actor
    factor: float  # the mean of `slowdowns`, at least 1
    slowdowns: tuple[float, float]  # each actor's median pass with the other busy, over alone
    alone: tuple[float, float]  # each actor's median pass alone
    together: tuple[float, float]  # each actor's median pass while the other ran
    passes: int
    rounds: int
    calls: int  # distinct op calls in a pass

    def as_about(self) -> dict[str, Any]:
        """The JSON-able record kept in the cost file's ``about["ray contention"]``."""
        a, b = self.keys
        return {
            "devices": [a, b],
            "factor": self.factor,
            "slowdown": {a: self.slowdowns[0], b: self.slowdowns[1]},
            "pass seconds alone": {a: self.alone[0], b: self.alone[1]},
            "pass seconds together": {a: self.together[0], b: self.together[1]},
            "passes": self.passes,
            "rounds": self.rounds,
            "calls a pass": self.calls,
        }


def program_calls(values: Mapping[str, tuple[list[Any], dict[str, Any]]]) -> list[Call]:
    """The calls of `values` (op key -> arguments, attributes) whose op has a NumPy kernel, in key order."""
    from vdplace.ir import get_op

    out: list[Call] = []
    for key in sorted(values):
        name = key.split("(", 1)[0]
        try:
            registry = get_op(name)
        except Exception:  # noqa: BLE001  (an op the registry does not know: not run)
            continue
        if registry.kernel is not None and registry.device_rule != "explicit":
            args, attrs = values[key]
            out.append((name, list(args), dict(attrs)))
    return out


def measure_contention(
    devices: RayDevices,
    values: Mapping[str, tuple[list[Any], dict[str, Any]]],
    *,
    rounds: int = 3,
    seconds: float = 0.15,
) -> list[Contention]:
    """The contention of every pair of CPU actors of `devices` on one node, on `values` (module docstring)."""
    import ray

    calls = program_calls(values)
    actors = [i for i, p in enumerate(devices.plans) if p.spec.kind in ("cpu", "sim")]
    if not calls or len(actors) < 2:
        return []
    nodes = ray.get([devices.actors[i].node.remote() for i in actors], timeout=CALL_TIMEOUT)
    node_of = dict(zip(actors, nodes, strict=True))
    ref = ray.put(calls)
    out = []
    for i, j in itertools.combinations(actors, 2):
        if node_of[i] == node_of[j]:
            out.append(_pair(devices, i, j, ref, len(calls), rounds, seconds))
    return out


def _pair(devices: RayDevices, i: int, j: int, ref: Any, calls: int, rounds: int, seconds: float) -> Contention:
    import ray

    a, b = devices.actors[i], devices.actors[j]

    def run(actor: Any, passes: int) -> list[tuple[float, float]]:
        return ray.get(actor.run_calls.remote(ref, passes, 0.0), timeout=CALL_TIMEOUT)

    run(a, 1), run(b, 1)  # warm-up: the calls' arguments fetched, the kernels' first calls
    one = min(_lengths(run(a, 1)) + _lengths(run(b, 1)))
    passes = max(MIN_PASSES, min(MAX_PASSES, math.ceil(seconds / max(one, 1e-6))))
    alone: tuple[list[float], list[float]] = ([], [])
    together: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        alone[0].extend(_lengths(run(a, passes)))
        alone[1].extend(_lengths(run(b, passes)))
        start = time.time() + START_DELAY
        both = ray.get([x.run_calls.remote(ref, passes, start) for x in (a, b)], timeout=CALL_TIMEOUT)
        together[0].extend(_within(both[0], both[1]))
        together[1].extend(_within(both[1], both[0]))
    base = statistics.median(alone[0]), statistics.median(alone[1])
    with_other = statistics.median(together[0]), statistics.median(together[1])
    slowdowns = with_other[0] / base[0], with_other[1] / base[1]
    keys = devices.keys[i][0], devices.keys[j][0]
    factor = max(1.0, (slowdowns[0] + slowdowns[1]) / 2)
    return Contention(keys, factor, slowdowns, base, with_other, passes, rounds, calls)


def _lengths(passes: list[tuple[float, float]]) -> list[float]:
    return [end - start for start, end in passes]


def _within(mine: list[tuple[float, float]], other: list[tuple[float, float]]) -> list[float]:
    """The lengths of the passes of `mine` whose middle came while `other` ran its passes; all of them if none
    did (the two runs did not meet: each then ran as if alone, which its lengths say)."""
    first, last = other[0][0], other[-1][1]
    found = [end - start for start, end in mine if first <= (start + end) / 2 <= last]
    return found or _lengths(mine)


def contention_about(found: list[Contention]) -> dict[str, Any]:
    """The cost file's ``about["ray contention"]``: each pair's measurement, and how it was made."""
    return {
        "pairs": [c.as_about() for c in found],
        "how": (
            "the program's distinct op calls, each once a pass, run on each CPU actor alone and on both at "
            "once (contention.py); factor: the mean over the two actors of the median pass with the other "
            "busy over the median pass alone, at least 1"
        ),
    }
