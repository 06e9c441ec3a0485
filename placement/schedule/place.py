"""The time objective's schedule named by the placed module's copies, and its check (`objective.Time.verify`).

`copy_names` names each copy of the schedule by the binding that makes it in
the module the plan was written into (`cost.rewrite`).  `check_schedule`
compares the schedule with the placed module alone, which
the solver never saw: every op call of the placed entry function is an op
event, in program order, on the vdevice the module puts it on, lasting what
the cost model says for that placed call; every copy of the placed module is
a copy event between the same vdevices lasting what the model says for its
bytes, its sender's share (`Event.send`) too, and there is no other copy but the uploads of runtime inputs.  A
difference is a `PlacementInternalError`, never a result.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from vdplace.ir.expr import Binding, Call, SeqExpr, TupleGetItem, Var
from vdplace.ir.module import IRModule
from vdplace.ir.op import Op
from vdplace.ir.struct_info import tensor_leaves
from vdplace.ir.vdevice import VDevice, vdevice_name
from vdplace.placement.cost.describe import op_info
from vdplace.placement.cost.problem import COPY_OPS, Coarsened
from vdplace.placement.cost.units import UnitObjective
from vdplace.placement.errors import PlacementInternalError
from vdplace.placement.rewrite.realize import Copy
from vdplace.placement.schedule.events import Event, Schedule
from vdplace.placement.schedule.graph import TaskGraph


def copy_names(
    g: TaskGraph, plan: list[int], placed_input: IRModule, co: Coarsened, names: set[str]
) -> dict[tuple[int, int], str]:
    """``(value, vdevice) -> name`` of every copy binding (a name in `names`) of the rewritten entry function.

    A copy reads the value's variable, or a holder bound to it (``v_h = t[i]`` / ``v_h = v``);
    the variables of the input module keep their sites (`co.ex.var_sites`).
    """
    var_sites = co.ex.var_sites
    holders: dict[Var, tuple[Var, tuple[int, ...]]] = {}
    out: dict[tuple[int, int], str] = {}
    index = {v: d for d, v in enumerate(g.vdevices)}

    def walk(seq: SeqExpr) -> None:
        for block in seq.blocks:
            for binding in block.bindings:
                _visit(binding)

    def _visit(binding: Binding) -> None:
        var, value = binding.var, binding.value
        if var in var_sites:
            return
        path: list[int] = []
        while type(value) is TupleGetItem:
            path.insert(0, value.index)
            value = value.tuple_value
        if isinstance(value, Var) and var.name not in names:
            base, inner = holders.get(value, (value, ()))
            holders[var] = (base, inner + tuple(path))
            return
        if var.name in names and type(value) is Call and type(value.op) is Op and value.op.name == "to_vdevice":
            src = value.args[0]
            if not isinstance(src, Var):
                return  # a copy of no variable names no value
            base, path_in = holders.get(src, (src, ()))
            site = _leaf(var_sites.get(base), path_in)
            v = None if site is None else g.value_at(site)
            d = index.get(value.attrs["dst_vdevice"])
            if v is not None and d is not None:
                out[v, d] = var.name

    walk(placed_input.functions[g.function].body)
    return out


def _leaf(tree: object, path: tuple[int, ...]) -> int | None:
    for i in path:
        if type(tree) is not tuple or not 0 <= i < len(tree):
            return None
        tree = tree[i]
    return tree if type(tree) is int else None


def check_schedule(schedule: Schedule, placed: IRModule, copies: list[Copy], objective: UnitObjective) -> None:
    """The schedule against the placed module alone, its durations by `objective.model` (module docstring)."""
    model, vds = objective.model, list(placed.vdevices)
    ops = [e for e in schedule.events if e.kind == "op"]
    function = ops[0].function if ops else next(iter(placed.functions), "")
    calls = list(_op_calls(placed.functions[function].body)) if function in placed.functions else []
    if len(calls) != len(ops):
        raise PlacementInternalError(f"the schedule has {len(ops)} op calls, the placed module {len(calls)}")
    by_name: dict[str, list] = {}
    for e in ops:
        by_name.setdefault(e.name, []).append(e)
    for binding in calls:
        var = binding.var
        call, vdevice = binding.value, list(tensor_leaves(var.struct_info))[0][1].vdevice
        if type(call) is not Call or vdevice is None:
            raise PlacementInternalError(f"{function}:{var.name} is not an op call on a vdevice")
        device = vdevice_name(vds, vdevice)
        found = by_name.get(var.name) or []
        event = next((e for e in found if e.device == device), None)
        if event is None:
            raise PlacementInternalError(f"{function}:{var.name} runs on {device} but the schedule says otherwise")
        found.remove(event)
        info = op_info(function, var.name, call, binding.span, var.struct_info)
        seconds = model.kernel(info, vdevice, vds)
        _same(seconds, event.duration, f"{function}:{var.name} on {device}")
    moved = sorted(
        (c.var, vdevice_name(vds, c.src), vdevice_name(vds, c.dst), c.nbytes) for c in copies if c.src is not None
    )
    scheduled = sorted(
        (e.name, e.device[0], e.device[1], e.nbytes)
        for e in schedule.events
        if e.kind == "copy" and not _is_upload(e, placed, function)
    )
    if [m[:3] for m in moved] != [s[:3] for s in scheduled]:
        raise PlacementInternalError(f"the schedule's copies {scheduled[:5]} are not the placed module's {moved[:5]}")
    durations = {e.name: e for e in schedule.events if e.kind == "copy"}
    for name, src, dst, nbytes in scheduled:
        ends = _vd(vds, src), _vd(vds, dst)
        _same(model.copy(nbytes, *ends, vds), durations[name].duration, f"the copy {name} from {src} to {dst}")
        _same(model.send(nbytes, *ends, vds), durations[name].send, f"the sender's share of the copy {name}")


def _op_calls(seq: SeqExpr) -> Iterator[Binding]:
    """The bindings of `seq` that call an op making a tensor, the copy ops excepted, in program order."""
    for block in seq.blocks:
        for binding in block.bindings:
            value = binding.value
            if type(value) is Call and type(value.op) is Op and value.op.name not in COPY_OPS:
                if any(True for _ in tensor_leaves(binding.var.struct_info)):
                    yield binding


def _is_upload(event: Event, placed: IRModule, function: str) -> bool:
    params = {p.name for p in placed.functions[function].params}
    return event.name in params


def _vd(vds: list[VDevice], name: str) -> VDevice:
    return next(v for v in vds if vdevice_name(vds, v) == name)


def _same(expected: float | None, got: float, what: str) -> None:
    if expected is None or not math.isclose(expected, got, rel_tol=1e-9, abs_tol=1e-15):
        raise PlacementInternalError(f"{what} lasts {got!r} s in the schedule but {expected!r} s by the cost model")
