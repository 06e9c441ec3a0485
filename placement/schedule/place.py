"""The time objective's schedule named by the placed module's copies, and its check (`objective.Time.verify`).

`copy_names` names each copy of the schedule by the binding that makes it in
the module the plan was written into (`cost.rewrite`), in every function the
run calls (the copy of each call site's instance, `calls`).  `check_schedule`
compares the schedule with the placed module alone, which the solver never
saw: the run of the placed entry function, each call of a module function
expanded into its callee's body at that call site, has each op call as an op
event of that function and call site on the vdevice the module puts it on,
lasting what the cost model says for that placed call; every copy of the
placed module, once per run of its function, is a copy event of that
function between the same vdevices lasting what the model says for its
bytes, its sender's share (`Event.send`) too, and there is no other copy but the uploads of runtime inputs.  A
difference is a `PlacementInternalError`, never a result.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from vdplace.ir.expr import Binding, Call, Function, GlobalVar, SeqExpr, TupleGetItem, Var
from vdplace.ir.module import IRModule
from vdplace.ir.op import Op
from vdplace.ir.sizes import Sizes
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
    """``(value, vdevice) -> name`` of every copy binding (a name in `names`) of the rewritten functions, for
    every instance of each (`calls.Instance`).

    A copy reads the value's variable, or a holder bound to it (``v_h = t[i]`` / ``v_h = v``);
    the variables of the input module keep their sites (`co.ex.var_sites`).
    """
    out: dict[tuple[int, int], str] = {}
    found: dict[str, list[tuple[int, int, str]]] = {}
    for k, inst in enumerate(g.instances):
        if inst.function not in found:
            found[inst.function] = _copy_sites(g, placed_input.functions[inst.function], co, names)
        for site, d, name in found[inst.function]:
            v = g.value_at(site, k)
            if v is not None:
                out[v, d] = name
    return out


def _copy_sites(g: TaskGraph, func: Function, co: Coarsened, names: set[str]) -> list[tuple[int, int, str]]:
    """``(site, vdevice, name)`` of every copy binding (a name in `names`) of `func` (`copy_names`)."""
    var_sites = co.ex.var_sites
    holders: dict[Var, tuple[Var, tuple[int, ...]]] = {}
    out: list[tuple[int, int, str]] = []
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
            d = index.get(value.attrs["dst_vdevice"])
            if site is not None and d is not None:
                out.append((site, d, var.name))

    walk(func.body)
    return out


def _leaf(tree: object, path: tuple[int, ...]) -> int | None:
    for i in path:
        if type(tree) is not tuple or not 0 <= i < len(tree):
            return None
        tree = tree[i]
    return tree if type(tree) is int else None


def check_schedule(
    schedule: Schedule, placed: IRModule, copies: list[Copy], objective: UnitObjective, sizes: Sizes | None = None
) -> None:
    """The schedule against the placed module alone, its durations by `objective.model` (module docstring), its
    symbolic dims sized by `sizes` (those the solver priced them at; default: the placed module's bounds)."""
    model, vds = objective.model, list(placed.vdevices)
    ops = [e for e in schedule.events if e.kind == "op"]
    entry = "main" if "main" in placed.functions else next(iter(placed.functions), "")  # `graph.entry_function`
    runs: dict[str, int] = {}  # function -> how many times the run calls it
    calls = list(_op_calls(placed, entry, (), runs)) if entry in placed.functions else []
    if len(calls) != len(ops):
        raise PlacementInternalError(f"the schedule has {len(ops)} op calls, the placed module {len(calls)}")
    by_name: dict[tuple[str, tuple[str, ...], str], list] = {}
    for e in ops:
        by_name.setdefault((e.function, e.call, e.name), []).append(e)
    device_names = {v: vdevice_name(vds, v) for v in vds}
    for function, at, binding in calls:
        var = binding.var
        call, vdevice = binding.value, next(tensor_leaves(var.struct_info))[1].vdevice
        if type(call) is not Call or vdevice is None:
            raise PlacementInternalError(f"{function}:{var.name} is not an op call on a vdevice")
        device = device_names.get(vdevice) or vdevice_name(vds, vdevice)
        found = by_name.get((function, at, var.name)) or []
        event = next((e for e in found if e.device == device), None)
        if event is None:
            raise PlacementInternalError(f"{function}:{var.name} runs on {device} but the schedule says otherwise")
        if len(found) == 1:
            found.clear()
        else:
            found.remove(event)
        info = op_info(function, var.name, call, binding.span, var.struct_info, sizes)
        seconds = model.kernel(info, vdevice, vds)
        if seconds is None or seconds != event.duration:
            _same(seconds, event.duration, f"{function}:{var.name} on {device}")
    moved = sorted(
        (c.function, c.var, vdevice_name(vds, c.src), vdevice_name(vds, c.dst))
        for c in copies
        if c.src is not None
        for _ in range(runs.get(c.function, 0))
    )
    uploads = {p.name for p in placed.functions[entry].params} if entry in placed.functions else set()
    timed = [e for e in schedule.events if e.kind == "copy" and not _is_upload(e, uploads, entry)]
    scheduled = sorted((e.function, e.name, e.device[0], e.device[1]) for e in timed)
    if moved != scheduled:
        raise PlacementInternalError(f"the schedule's copies {scheduled[:5]} are not the placed module's {moved[:5]}")
    by_device_name = {name: v for v, name in reversed(device_names.items())}  # `_vd`: the first of that name
    # The model's copy and sender's share are functions of their arguments (as `cost.problem` prices them):
    # asked once per size, link and layout.
    priced: dict[tuple[int, str, str, bool], tuple[float, float]] = {}
    for e in timed:
        src, dst = e.device[0], e.device[1]
        key = (e.nbytes, src, dst, e.strided)
        both = priced.get(key)
        if both is None:
            ends = by_device_name.get(src) or _vd(vds, src), by_device_name.get(dst) or _vd(vds, dst)
            both = priced[key] = model.copy(e.nbytes, *ends, vds), model.send(e.nbytes, *ends, vds, e.strided)
        if both[0] != e.duration:
            _same(both[0], e.duration, f"the copy {e.function}:{e.name} from {src} to {dst}")
        if both[1] != e.send:
            _same(both[1], e.send, f"the sender's share of the copy {e.function}:{e.name}")


def _op_calls(
    placed: IRModule, function: str, at: tuple[str, ...], runs: dict[str, int]
) -> Iterator[tuple[str, tuple[str, ...], Binding]]:
    """``(function, call site, binding)`` of every binding of the run of `function` at call site `at` that calls
    an op making a tensor (the copy ops excepted), a call of a module function expanded into its callee's
    body there (`calls.Instance`), in program order; `runs` counts the runs of every function."""
    runs[function] = runs.get(function, 0) + 1
    for block in placed.functions[function].body.blocks:
        for binding in block.bindings:
            value = binding.value
            if type(value) is not Call:
                continue
            if type(value.op) is GlobalVar and value.op.name in placed.functions:
                yield from _op_calls(placed, value.op.name, (*at, f"{function}:{binding.var.name}"), runs)
            elif type(value.op) is Op and value.op.name not in COPY_OPS:
                if next(tensor_leaves(binding.var.struct_info), None) is not None:
                    yield function, at, binding


def _is_upload(event: Event, entry_params: set[str], entry: str) -> bool:
    """A copy event of a runtime input of the entry function (`entry_params`: its parameters' names), named by
    its parameter."""
    return not event.call and event.function == entry and event.name in entry_params


def _vd(vds: list[VDevice], name: str) -> VDevice:
    return next(v for v in vds if vdevice_name(vds, v) == name)


def _same(expected: float | None, got: float, what: str) -> None:
    if expected is None or not math.isclose(expected, got, rel_tol=1e-9, abs_tol=1e-15):
        raise PlacementInternalError(f"{what} lasts {got!r} s in the schedule but {expected!r} s by the cost model")
