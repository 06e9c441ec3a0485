"""Why a cost-aware placement has no plan: a unit with no vdevice, or memory limits no plan fits.

* A unit whose pins and supported device types disagree is an ordinary
  placement conflict: `placement.diagnose` explains it over the hard facts
  that stay hard under cost (the relaxed operand ties taken out).
* A unit whose ops have no vdevice in common where every kernel runs is a
  `PlacementError` naming the ops and where each cannot run.
* Memory: a `PlacementConflict` whose explanation (`MemoryExplanation`)
  names the vdevice, the bytes that must live there (the values pinned
  there, with their source lines, and the values that something pinned
  there reads: each lives there or is copied there, wherever it runs) and
  the limit.  When no single vdevice is over its limit by pins alone, it
  says that the limits together admit no plan (proved by the solver), or
  that none was found within the time limit.
"""

from __future__ import annotations

import html
from typing import Any

from vdplace.ir.module import IRModule
from vdplace.ir.vdevice import vdevice_name
from vdplace.placement.cost.objective import allowed
from vdplace.placement.cost.problem import Coarsened
from vdplace.placement.diagnose import conflict_error
from vdplace.placement.errors import Constraint, PlacementConflict, PlacementError
from vdplace.placement.model.constraints import ConstraintSet, Pin, pin_columns


def no_device_error(co: Coarsened, stuck: list[int], mod: IRModule) -> Exception:
    """The error for units that no vdevice can take (see the module docstring)."""
    cs = co.ex.constraints
    hard = _hard_facts(co)
    of, p = co.classes.of, co.problem
    for u in stuck:
        devices = set(range(p.num_devices))
        for site, device in zip(*pin_columns(cs.pins), strict=True):
            if of[site] == u:
                devices &= {device}
        for dom in cs.domains:
            if of[dom.site] == u:
                devices &= dom.allowed
        if not devices:
            return conflict_error(hard, mod)
    u = stuck[0]
    names = [vdevice_name(p.vdevices, v) for v in p.vdevices]
    ops = [info for info, anchor in co.ops if of[anchor] == u]
    shown = ", ".join(f"{i.function}:{i.name} (R.{i.op})" for i in ops[:8]) or "no op"
    span = ops[0].span if ops else None
    return PlacementError(
        f"no vdevice can run every op that must share one ({shown}): the cost model's kernel_time is None "
        f"on each of {', '.join(names)} for at least one of them",
        span,
    )


def _hard_facts(co: Coarsened) -> ConstraintSet:
    cs = co.ex.constraints
    hard = ConstraintSet(cs.vdevices)
    hard.sites = cs.sites
    hard.pins = cs.pins
    hard.equals = [cs.equals[i] for i in co.kept]
    hard.domains = cs.domains
    return hard


class MemoryExplanation:
    """A `ConflictExplanation` of memory limits that no plan fits (no equality chain to draw).

    `vdevice`, `required` and `limit`: the vdevice over its limit by what
    must live there whatever the plan, or None (with `required` 0) when no
    single vdevice is and the limits together admit no plan; `items`: what
    must live there, one dict each (``label``, ``file``, ``line``, ``bytes``,
    ``why``); `message`: all of it as text.
    """

    def __init__(
        self,
        cs: ConstraintSet,
        module: Any,
        cores: list[list[Constraint]],
        text: str,
        where: tuple[str | None, int, int | None] = (None, 0, None),
        items: list[dict[str, Any]] | None = None,
    ) -> None:
        self.constraint_set = cs
        self.module = module
        self.conflicts: list[Any] = []
        self.omitted = 0
        self.cores = cores
        self.message = text
        self.vdevice, self.required, self.limit = where
        self.items = items or []

    def summary(self) -> str:
        return self.message

    def text(self) -> str:
        return self.message

    def as_dict(self) -> dict[str, object]:
        """The JSON document of `vdplace place --json` (docs/conflicts.md, "Memory limits")."""
        return {
            "status": "conflict",
            "kind": "memory",
            "vdevice": self.vdevice,
            "required_bytes": self.required,
            "limit_bytes": self.limit,
            "items": self.items,
            "message": self.message,
        }

    def html(self, title: str | None = None) -> str:
        body = html.escape(self.message)
        heading = html.escape(title or "vdplace: memory conflict")
        return f"<!doctype html><meta charset=utf-8><title>{heading}</title><pre>{body}</pre>\n"


def memory_conflict(co: Coarsened, mod: IRModule, *, proved: bool) -> PlacementConflict:
    """The conflict for limits that no plan fits (`proved`) or that no plan found within the time limit fits."""
    p, cs = co.problem, co.ex.constraints
    fixed = [a[0] if len(a) == 1 else None for a in (allowed(p, u) for u in range(p.num_units))]
    names = [vdevice_name(p.vdevices, v) for v in p.vdevices]
    for d, limit in enumerate(p.limits):
        if limit is None:
            continue
        units = [u for u in range(p.num_units) if fixed[u] == d and p.memory[u]]
        forced = sum(p.memory[u] for u in units)
        copies = [
            val for val in p.values if fixed[val.unit] != d and any(fixed[c] == d for c in val.consumers) and val.nbytes
        ]
        forced += sum(val.nbytes for val in copies)
        if forced > limit:
            pins = _pins_in(cs, co, set(units))
            items = _items(pins, copies, co, mod)
            text = _text(names[d], forced, limit, items)
            return PlacementConflict(MemoryExplanation(cs, mod, [pins], text, (names[d], forced, limit), items))
    limited = ", ".join(f"{names[d]} <= {lim} bytes" for d, lim in enumerate(p.limits) if lim is not None)
    if proved:
        text = f"no placement fits the memory limits together ({limited}): every plan exceeds one of them"
    else:
        text = f"no placement that fits the memory limits ({limited}) was found within the time limit"
    return PlacementConflict(MemoryExplanation(cs, mod, [], text + "\n"))


def _pins_in(cs: ConstraintSet, co: Coarsened, units: set[int]) -> list[Pin]:
    of = co.classes.of
    site_col, _ = pin_columns(cs.pins)
    return [cs.pins[i] for i, site in enumerate(site_col) if of[site] in units]


def _items(pins: list[Pin], copies: list, co: Coarsened, mod: IRModule) -> list[dict[str, Any]]:
    """What must live on the vdevice: each pinned unit once (by its first pin), then each value pins read."""
    sites = co.ex.constraints.sites
    items: list[dict[str, Any]] = []
    seen: set[int] = set()
    for pin in pins:
        unit = co.classes.of[pin.site]
        if unit in seen:
            continue
        seen.add(unit)
        line = None if pin.span is None else pin.span.line
        why = f"pinned there ({pin.rule.text}), with its ties"
        items.append(
            {
                "label": sites[pin.site].label,
                "file": mod.filename,
                "line": line,
                "bytes": co.problem.memory[unit],
                "why": why,
            }
        )
    fixed_elsewhere = {val.unit for val in copies if len(allowed(co.problem, val.unit)) == 1}
    for val in copies:
        home = "pinned elsewhere" if val.unit in fixed_elsewhere else "lives there or is copied there"
        site = sites[val.root]
        line = None if site.span is None else site.span.line
        why = f"{home}; read there by a pinned value"
        items.append({"label": site.label, "file": mod.filename, "line": line, "bytes": val.nbytes, "why": why})
    return items


def _text(name: str, forced: int, limit: int, items: list[dict[str, Any]]) -> str:
    lines = [f"memory limit of {name} exceeded: {forced} bytes must live there, the limit is {limit} bytes"]
    for item in items:
        where = f"{item['file'] or '<module>'}:{item['line']}: " if item["line"] is not None else ""
        lines.append(f"  {where}{item['label']}: {item['bytes']} bytes, {item['why']}")
    return "\n".join(lines) + "\n"
