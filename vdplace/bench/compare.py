"""Plans side by side under one time model: accelerate's map, the `Time` plan, all on the host, bytes.

    from vdplace.bench.compare import activation_room, compare_plans, share_caps
    budgets = share_caps(weight_bytes, (0.35, 0.55))       # accelerate's max_memory: shares of the weights
    room = activation_room(mod, model)                      # what the program's activations need there
    plans = compare_plans(mod, torch_model, budgets[0] + room, model, max_memory=budgets[0])
    plans["time"].makespan, plans["accelerate"].peaks, plans["host"].fits

`mod` is a torch model's Relax program with its weights as parameters
(``from_torch(..., keep_params_as_input=True)``); `compare_plans` declares
two vdevices on it, the fast device ``cuda:0`` and the host ``llvm:0``, and
makes five plans, each evaluated by the same `CostModel` under the `Time`
objective (docs/schedule.md): its makespan, its peak memory per vdevice by
liveness, and whether the fast device's peak is within `cap`.

The cap rule (docs/accelerate.md, "Caps"): accelerate's ``max_memory``
budgets weights only, and its users leave the rest of the GPU to the
activations.  So the fast device's weights budget is a share of the model's
weight bytes (`share_caps`), given to accelerate as its ``max_memory``, and
the device's memory, `cap`, is that budget plus the room the program's
activations take when the whole program runs on that device
(`activation_room`).  Every plan, accelerate's included, fits when its peak
by liveness on the fast device is at most `cap`.

- ``accelerate``: what accelerate's ``dispatch_model`` runs for its map
  (`vdplace.tvm.accelerate_map`), the better (the faster of those that fit
  the cap) of its map under the literal ``max_memory`` (the weights budget)
  and under one raised as far as its weights still fit that budget (its
  ``raise_caps``): the weights where the map puts them, every op on the
  execution device (the fast device when the map puts anything there, else
  the host), the runtime inputs on the host, each weight on the host copied
  to the fast device where it is read (`accelerate_execution`).
- ``accelerate-cost``: the same map's pins, the ops placed by the cost
  objective (the least kernel and copy time added up, within the cap by a
  static count where it can): not what accelerate runs, a map placed as
  docs/accelerate.md places one.
- ``accelerate-time``: the same pins, the ops placed by the `Time` objective
  under the cap: accelerate's weights with the best op placement the time
  search finds for them.  `Time`'s own plan may place everything these pins
  fix, so a ``time`` plan slower than this one is a shortfall of the search.
- ``time``: ``place(mod, objective=Time(model, memory={"cuda:0": cap}))``.
- ``host``: every value on the host.
- ``bytes``: the bytes objective (``place(mod, default="host")``, the copies'
  bytes least) on accelerate's pins; a map that splits an op's operands has
  no such plan (its `error` says so).

A plan fixed in advance (``accelerate``, ``accelerate-cost``, ``host``, ``bytes``) is evaluated
with every binding's struct info made its written annotation (`pin_all`,
`evaluate_placed`): every tensor is then pinned as if the user wrote its
vdevice, so `Time` has nothing left to decide and schedules it.  (Printing
and parsing the module back would pin it too, but loses the shapes of the
metadata constants the text only references, and with them the op keys of
the calibrated table.)

The `Time` objective's task graph drops the reads of a constant bound to a
variable (``lv = R.const(...)``; the realized module then copies it, the
schedule does not, a `PlacementInternalError`), so `compare_plans` first
inlines such constants into their readers (`inline_bound_constants`), which
changes no value the program computes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vdplace.ir.expr import Binding, BindingBlock, Call, Constant, DataflowVar, Expr, Var
from vdplace.ir.module import IRModule
from vdplace.ir.mutator import ExprMutator
from vdplace.ir.struct_info import TensorStructInfo, replace_vdevices, tensor_leaves
from vdplace.ir.vdevice import VDevice, lookup_vdevice

FAST, HOST = VDevice("cuda", 0), VDevice("llvm", 0)
FAST_NAME, HOST_NAME = "cuda:0:global", "llvm:0:global"
SHARES = (0.35, 0.55)  # the fast device's caps: these shares of the model's weight bytes
PLANS = ("accelerate", "accelerate-cost", "accelerate-time", "time", "host", "bytes")


@dataclass
class PlanResult:
    """One plan of one (model, cap): its placed module and what the time model says of it, or why there is none."""

    label: str
    module: IRModule | None = None  # the placed module (every tensor on a vdevice)
    makespan: float | None = None  # seconds, the Time model's schedule of the plan
    peaks: dict[str, int] = field(default_factory=dict)  # vdevice name -> bytes at its worst moment (liveness)
    fits: bool | None = None  # the fast device's peak within the cap
    weight_bytes: dict[str, int] = field(default_factory=dict)  # vdevice name -> bytes of the weights placed there
    note: str = ""  # which of accelerate's maps; the Time schedule's status
    error: str = ""  # why there is no plan


def share_caps(weight_bytes: int, shares: Iterable[float] = SHARES) -> list[int]:
    """The fast device's caps for a model of `weight_bytes` bytes of weights: ``int(share * weight_bytes)`` each.

    A share outside (0, 1) would not force a split: `ValueError`.
    """
    caps = []
    for share in shares:
        if not 0 < share < 1:
            raise ValueError(f"a cap's share of the weights must be in (0, 1), not {share!r}")
        caps.append(int(share * weight_bytes))
    return caps


def activation_room(mod: IRModule, model: Any, time_limit_s: float = 10.0) -> int:
    """Bytes of `mod`'s non-weight values live at once on the fast device, at worst, when it runs there alone.

    Every value of `mod` (a torch model's program, its weights as
    parameters after its inputs) is placed on the fast device and the run is
    scheduled by `Time` under `model`; weights stay the whole run there
    (liveness), so its peak less the weights' bytes is the peak of the
    inputs, activations and outputs: the headroom a user leaves beside
    accelerate's ``max_memory`` for a device that runs the program.
    """
    from vdplace.placement import place

    mod = inline_bound_constants(with_two_devices(mod))
    placed = place(mod.replace(vdevices=[FAST]), default="first").module.replace(vdevices=[FAST, HOST])
    peak = evaluate_placed(placed, model, time_limit_s).peak_memory.get(FAST_NAME, 0)
    main = placed["main"]
    first = int(main.attrs.get("num_input", len(main.params)))
    return peak - sum(_tensor_bytes(p.struct_info) for p in main.params[first:])


def _tensor_bytes(info: Any) -> int:
    from vdplace.placement.cost.model import value_bytes

    return value_bytes(info) if isinstance(info, TensorStructInfo) else 0


def with_two_devices(mod: IRModule) -> IRModule:
    """`mod` declaring the fast device and the host (``cuda:0``, ``llvm:0``), and no other."""
    return mod.replace(vdevices=[FAST, HOST])


def inline_bound_constants(mod: IRModule) -> IRModule:
    """`mod` with every variable bound to a constant replaced by that constant where it is read (module docstring).

    The bindings themselves go; `mod` is not modified.
    """
    return mod.replace(functions={name: _Inline().mutate(f) for name, f in mod.functions.items()})


class _Inline(ExprMutator):
    def __init__(self) -> None:
        super().__init__()
        self.constants: dict[Var, Constant] = {}

    def visit_binding(self, binding: Binding, var: Var, value: Expr) -> Binding | Sequence[Binding]:
        if type(value) is Constant:
            self.constants[binding.var] = value
            return []
        return super().visit_binding(binding, var, value)

    def visit_var(self, var: Var) -> Expr:
        return self.constants.get(var) or super().visit_var(var)

    def visit_dataflow_var(self, var: DataflowVar) -> Expr:
        return self.constants.get(var) or super().visit_dataflow_var(var)


def pin_all(mod: IRModule) -> IRModule:
    """`mod` with every binding's struct info (its vdevice included) as its written annotation: all pinned.

    The parameters' struct infos are pins already; `mod` is not modified.
    """
    return mod.replace(functions={name: _PinAll().mutate(f) for name, f in mod.functions.items()})


class _PinAll(ExprMutator):
    def visit_binding(self, binding: Binding, var: Var, value: Expr) -> Binding:
        return Binding(var, value, var.struct_info, binding.span)


def evaluate_placed(
    placed: IRModule, model: Any, time_limit_s: float = 10.0, memory: Mapping[str, int] | None = None
) -> Any:
    """The `Time` schedule of `placed`, a module with every tensor placed, under `model` (a `CostModel`).

    Every binding's vdevice is made an annotation the user wrote (`pin_all`),
    so `Time` keeps them all and only orders the run.  `memory` (vdevice
    name -> bytes) bounds the order's peaks (a copy is then issued late
    enough to fit; `PlacementConflict` if no order fits); without it no
    memory limit applies: the peaks are what the plan needs.  `ValueError`
    if the placement moves a parameter or an op call off the vdevice
    `placed` gives it (its copies may be renamed, aliases added).
    """
    from vdplace.placement import Time, place

    objective = Time(model, memory=dict(memory)) if memory else Time(model)
    result = place(pin_all(placed), objective=objective, time_limit_s=time_limit_s)
    before, after = _devices_by_name(placed), _devices_by_name(result.module)
    if before != after:
        moved = sorted(n for n in before.keys() | after.keys() if before.get(n) != after.get(n))
        raise ValueError(f"the Time objective moved {', '.join(moved)} of a fully placed module: not a fixed plan")
    return result.schedule


def _devices_by_name(mod: IRModule) -> dict[str, tuple[str, str | None]]:
    """``main``'s parameters and op calls (the copies aside) by variable name, each with its op and vdevice.

    By name, not in order: the `Time` objective may emit independent bindings in another order."""
    from vdplace.ir.module import iter_bindings
    from vdplace.ir.op import Op
    from vdplace.ir.struct_info import tensor_leaves
    from vdplace.placement.cost.problem import COPY_OPS

    def where(sinfo: Any) -> str | None:
        leaves = list(tensor_leaves(sinfo))
        return str(leaves[0][1].vdevice) if leaves else None

    main = mod["main"]
    out = {p.name: ("param", where(p.struct_info)) for p in main.params}
    for binding in iter_bindings(main):
        value = binding.value
        if type(value) is Call and type(value.op) is Op and value.op.name not in COPY_OPS:
            out[binding.var.name] = (value.op.name, where(binding.var.struct_info))
    return out


def compare_plans(
    mod: IRModule,
    torch_model: Any,
    cap: int,
    model: Any,
    *,
    max_memory: int | None = None,
    host_bytes: int = 1 << 40,
    time_limit_s: float = 10.0,
    plans: Iterable[str] = PLANS,
) -> dict[str, PlanResult]:
    """The plans of `PLANS` (module docstring) for the fast device capped at `cap` bytes, under `model`.

    `max_memory` is the fast device's ``max_memory`` given to accelerate,
    a budget of weight bytes (default `cap`; the bench gives a share of the
    weights, `cap` adding the activations' room); `host_bytes` is the
    host's (large: the host holds the rest).  `cap` bounds the fast
    device's peak by liveness for every plan (`PlanResult.fits`).  Each
    label of `plans` maps to its `PlanResult`; a plan that cannot be made
    holds its `error` rather than raising.
    """
    from vdplace.placement import Time, place
    from vdplace.placement.errors import PlacementConflict

    mod = inline_bound_constants(with_two_devices(mod))
    wanted = list(plans)
    unknown = [p for p in wanted if p not in PLANS]
    if unknown:
        raise ValueError(f"unknown plan(s) {unknown}; the plans are {', '.join(PLANS)}")
    out: dict[str, PlanResult] = {}
    time_objective = Time(model, memory={FAST_NAME: cap})
    with_maps = {"accelerate", "accelerate-cost", "accelerate-time", "bytes"} & set(wanted)
    budget = cap if max_memory is None else max_memory
    maps = _accelerate_maps(mod, torch_model, budget, host_bytes) if with_maps else []
    if "accelerate" in wanted:
        out["accelerate"] = _best([_accelerate_run(note, pinned, model, cap, time_limit_s) for note, pinned in maps])
    if "accelerate-cost" in wanted:
        out["accelerate-cost"] = _best([_accelerate_cost(n, pinned, model, cap, time_limit_s) for n, pinned in maps])
    if "accelerate-time" in wanted:
        out["accelerate-time"] = _best([_accelerate_time(n, pinned, model, cap, time_limit_s) for n, pinned in maps])
    if "time" in wanted:
        row = PlanResult("time")
        try:
            result = place(mod, objective=time_objective, time_limit_s=time_limit_s)
            _fill(row, result.module, result.schedule, cap)
        except PlacementConflict as err:
            row.error = str(err).splitlines()[0]
        out["time"] = row
    if "host" in wanted:
        row = PlanResult("host")
        placed = place(mod.replace(vdevices=[HOST]), default="host").module.replace(vdevices=[FAST, HOST])
        _fill(row, placed, evaluate_placed(placed, model, time_limit_s), cap)
        out["host"] = row
    if "bytes" in wanted:
        chosen = out["accelerate"].note.split(";")[0] if "accelerate" in out else maps[0][0]
        note, pinned = next(m for m in maps if m[0] == chosen)
        row = PlanResult("bytes", note=note)
        try:
            placed = place(pinned, default="host").module
            _fill(row, placed, evaluate_placed(placed, model, time_limit_s), cap)
        except PlacementConflict as err:
            row.error = "no plan: " + str(err).splitlines()[0]
        out["bytes"] = row
    return out


def _best(rows: list[PlanResult]) -> PlanResult:
    """The fastest of `rows` that fit, else the fastest."""
    return min(rows, key=lambda r: (not r.fits, r.makespan))


def _accelerate_cost(note: str, pinned: IRModule, model: Any, cap: int, time_limit_s: float) -> PlanResult:
    """accelerate's pins, its ops placed by the cost objective (within `cap` if it can), timed by `Time`."""
    from vdplace.placement import Cost, CostModel, place
    from vdplace.placement.errors import PlacementConflict

    row = PlanResult("accelerate-cost", note=note)
    try:
        capped = CostModel.from_source(model.source, memory={FAST_NAME: cap})
        placed = place(pinned, objective=Cost(capped), time_limit_s=time_limit_s).module
    except PlacementConflict:  # its weights and the activations they need do not fit statically: uncapped
        placed = place(pinned, objective=Cost(model), time_limit_s=time_limit_s).module
    _fill(row, placed, evaluate_placed(placed, model, time_limit_s), cap)
    return row


def _accelerate_run(note: str, pinned: IRModule, model: Any, cap: int, time_limit_s: float) -> PlanResult:
    """What accelerate runs for the map `pinned` holds (`accelerate_execution`), ordered by `Time` within `cap`
    where an order fits, else without it (and not fitting)."""
    from vdplace.placement.errors import PlacementConflict

    row = PlanResult("accelerate", note=note)
    placed = accelerate_execution(pinned, model, time_limit_s)
    try:  # the copies in late enough to fit the cap, as the hooks copy a module's weights in just before it
        schedule = evaluate_placed(placed, model, time_limit_s, memory={FAST_NAME: cap})
    except PlacementConflict:  # no order of the run fits: its weights and activations exceed the cap
        schedule = evaluate_placed(placed, model, time_limit_s)
    _fill(row, placed, schedule, cap)
    return row


def accelerate_execution(pinned: IRModule, model: Any, time_limit_s: float = 10.0) -> IRModule:
    """What accelerate's ``dispatch_model`` runs for a map: `pinned` (its weights pinned by the map) fully placed.

    accelerate runs every module on its execution device, which for a module
    the map puts on the CPU is the main device (the first GPU of the map)
    when the map has one: its weights stay on the host and its hook copies
    them to the GPU before the module runs.  Only a map with no GPU entry
    runs on the host.  So: the execution device is the fast device if a
    weight parameter of ``main`` is pinned there, else the host; the runtime
    inputs (``main``'s first ``num_input`` parameters) are pinned to the
    host; every binding of a tensor is pinned to the execution device; each
    parameter elsewhere (a weight the map keeps on the host, an input) is
    read through a copy to the execution device bound before its first
    reader (one per binding block), which liveness frees after its last
    reader.  The cost objective under `model` (a `CostModel`) then has
    nothing left to decide and places the module as written.  `pinned` is
    not modified.
    """
    from vdplace.placement import Cost, place
    from vdplace.tvm.device_map import pin_parameters

    main = pinned["main"]
    first = int(main.attrs.get("num_input", len(main.params)))
    fast = lookup_vdevice(pinned.vdevices, FAST_NAME)
    on_fast = any(
        isinstance(p.struct_info, TensorStructInfo) and p.struct_info.vdevice == fast for p in main.params[first:]
    )
    device = fast if on_fast else lookup_vdevice(pinned.vdevices, HOST_NAME)
    inputs = {p.name: HOST_NAME for p in main.params[:first] if isinstance(p.struct_info, TensorStructInfo)}
    ops = pin_parameters(pinned, inputs)
    host = [
        p for p in ops["main"].params if isinstance(p.struct_info, TensorStructInfo) and p.struct_info.vdevice != device
    ]
    ops = ops.replace(functions={**ops.functions, "main": _PinOps(device, host).mutate(ops["main"])})
    return place(ops, objective=Cost(model), time_limit_s=time_limit_s).module


class _PinOps(ExprMutator):
    """Every binding of a tensor, or a tuple of tensors, annotated with `device` (each tensor of it); each
    parameter of `elsewhere` read through a copy to `device`, bound before its first reader in each block
    and read from there on in that block (a dataflow block's variables are not seen outside it)."""

    def __init__(self, device: VDevice, elsewhere: Iterable[Var]) -> None:
        super().__init__()
        self.device = device
        self.elsewhere = set(elsewhere)
        self.copies: dict[Var, Var] = {}
        self.pending: list[Binding] = []
        self.made = 0  # copies so far: each copy's name is unique
        self.kind: type[Var] = Var

    def enter_block(self, block: BindingBlock) -> None:
        self.copies = {}
        self.kind = DataflowVar if block.is_dataflow else Var

    def visit_var(self, var: Var) -> Expr:
        if var not in self.elsewhere:
            return super().visit_var(var)
        copy = self.copies.get(var)
        if copy is None:
            assert isinstance(var.struct_info, TensorStructInfo)
            moved = var.struct_info.with_vdevice(self.device)
            copy = self.copies[var] = self.kind(f"{var.name}_copy{self.made}", moved)
            self.made += 1
            call = Call(_to_vdevice(), [var], {"dst_vdevice": self.device}, moved)
            self.pending.append(Binding(copy, call, moved))
        return copy

    def visit_binding(self, binding: Binding, var: Var, value: Expr) -> Binding | Sequence[Binding]:
        new = super().visit_binding(binding, var, value)
        before, self.pending = self.pending, []
        if isinstance(new, Binding) and any(True for _ in tensor_leaves(new.var.struct_info)):
            pinned = replace_vdevices(new.var.struct_info, lambda _path, _leaf: self.device)
            new = Binding(new.var, new.value, pinned, new.span)
        if not before:
            return new
        return [*before, new] if isinstance(new, Binding) else [*before, *new]


def _to_vdevice() -> Any:
    from vdplace.ir.op import get_op

    return get_op("to_vdevice")


def _accelerate_time(note: str, pinned: IRModule, model: Any, cap: int, time_limit_s: float) -> PlanResult:
    """accelerate's pins, its ops placed by `Time` under `cap`; uncapped (and not fitting) if none fits."""
    from vdplace.placement import Time, place
    from vdplace.placement.errors import PlacementConflict

    row = PlanResult("accelerate-time", note=note)
    try:
        result = place(pinned, objective=Time(model, memory={FAST_NAME: cap}), time_limit_s=time_limit_s)
    except PlacementConflict:  # its weights and the activations they need do not fit: timed without the cap
        result = place(pinned, objective=Time(model), time_limit_s=time_limit_s)
    _fill(row, result.module, result.schedule, cap)
    return row


def _accelerate_maps(mod: IRModule, torch_model: Any, budget: int, host_bytes: int) -> list[tuple[str, IRModule]]:
    """accelerate's literal and raised maps with the fast device's ``max_memory`` `budget`, as pinned modules,
    labelled; the raised one if it differs."""
    from vdplace.tvm.device_map import accelerate_map

    devices: dict[int | str, str] = {0: "cuda:0", "cpu": "llvm:0"}
    caps: dict[int | str, int] = {0: budget, "cpu": host_bytes}
    literal = accelerate_map(mod, torch_model, caps, devices=devices)
    raised = accelerate_map(mod, torch_model, caps, devices=devices, raise_caps=True)
    maps = [("literal", literal.module)]
    if raised.pins != literal.pins:
        maps.append((f"raised to {raised.max_memory[0]} B", raised.module))
    return maps


def _fill(row: PlanResult, placed: IRModule, schedule: Any, cap: int) -> None:
    """`row` with `placed`, its schedule's makespan and peaks, whether it fits `cap`, its weights' bytes."""
    from vdplace.ir.vdevice import vdevice_name
    from vdplace.placement.cost.model import value_bytes

    row.module = placed
    row.makespan = schedule.makespan
    row.peaks = dict(schedule.peak_memory)
    row.fits = row.peaks.get(FAST_NAME, 0) <= cap
    main = placed["main"]
    first = int(main.attrs.get("num_input", len(main.params)))
    for p in main.params[first:]:
        info = p.struct_info
        if not isinstance(info, TensorStructInfo) or info.vdevice is None:
            continue
        name = vdevice_name(placed.vdevices, info.vdevice)
        row.weight_bytes[name] = row.weight_bytes.get(name, 0) + value_bytes(info)
    if schedule.status:
        gap = f", gap {schedule.gap:.0%}" if schedule.gap > 0.005 else ""
        row.note = f"{row.note}; {schedule.status}{gap}".lstrip("; ")


def speedup(reference: PlanResult, plan: PlanResult) -> float | None:
    """``reference.makespan / plan.makespan``: how many times faster `plan` is; None without both."""
    if not reference.makespan or not plan.makespan:
        return None
    return reference.makespan / plan.makespan


def weights_of(mod: IRModule, values: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of `values` that name weight parameters of `mod`'s ``main`` (after its ``num_input`` inputs)."""
    main = mod["main"]
    first = int(main.attrs.get("num_input", len(main.params)))
    return {p.name: values[p.name] for p in main.params[first:] if p.name in values}
