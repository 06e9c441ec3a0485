"""The placed module's bindings in its schedule's order, so that the run does what the schedule predicts.

The compiler emits instructions in binding order (`runtime.compile`), the
local VM runs them in that order, and each Ray actor runs its own share of
them in that order (`runtime.ray.schedule`).  `schedule_order(mod,
schedule)` returns a new module whose scheduled function (the events'
``function``) has the bindings of each block in this order:

* **Priorities.**  An op call is taken at its event's start.  A copy (a
  ``to_vdevice`` / ``hint_on_device`` binding named by a copy event) at
  ``min(end, s)``: its end, where the receiver needs the data, unless an op
  of the sender's physical device starts at or after the copy's start and
  before its end: then at the first such op's start ``s``, just before it.
  A Ray actor sends by putting the value in the object store and receives
  by waiting for it, so a copy taken at its start would hold the receiver's
  ops that the schedule runs while the copy is in flight, and one taken at
  its end would hold the sender's send behind the ops it runs meanwhile.
  Ties: a copy before an op, then the vdevice (the copy's source) in the
  module's order, then source order.
* **Bindings with no event** (tuples, ``t[i]``, aliases, shapes, constants,
  ops that make no tensor) go as early as their operands allow.  They
  allocate no tensor, so going early never lengthens a tensor's life, and a
  value whose last reader is one of them (``R.shape_of(x)``) is freed as
  soon as its last timed reader is done.
* **Dependences.**  The order is a topological order of the data
  dependences within the block that takes, among the bindings whose
  operands are all bound, the one of least priority.  Every operand of an
  op or copy has a priority no later than the reader's, so on every device
  the op calls come in the order of their starts; only events that start
  at the same instant may be swapped, where a dependence says so.
* **What keeps its place.**  Blocks keep their order, and no binding leaves
  its dataflow block.  Consecutive plain blocks are one sequence (TVMScript
  prints them as one; they become one block), and the bindings of plain
  blocks after their last barrier may join the dataflow block right after
  them (the parameter copies the plan writes in a block of their own before
  the body, `cost.rewrite`, go where the schedule has them).  When no binding
  moves, the blocks are the input's.  A *barrier* keeps its place, and no
  binding moves across one: an impure call, a packed call, ``R.match_cast`` (it binds
  symbolic dims later struct infos name), a call of a module function and an
  ``R.If``.  The bindings between two barriers are reordered among
  themselves (a dataflow block has only ``R.match_cast`` and calls to stop
  at).  Other functions are unchanged: a called function is placed once
  and runs at each of its call sites, which the schedule may order
  differently, so its bindings keep their program order (`calls`); the
  events of its call sites (`Event.call` not empty) order nothing here.

So the VM's register lifetimes are those of the schedule or shorter: at
each binding, what the VM holds on a device was made by a binding taken no
later and is read by one taken later, which the schedule holds live at that
binding's priority too (a value from its producer's start, a copy's data
from the copy's start, each to its last reader's end); so the VM's peak on
a device is at most the schedule's (`tests/placement/test_schedule_order.py`
runs both).

The input module is never mutated: the new module shares the bindings
(spans and all) and builds new blocks, bodies and functions.  A schedule
event that names no binding of the function is a `ValueError`.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence

from vdplace.ir.expr import (
    Binding,
    BindingBlock,
    Call,
    DataflowVar,
    Expr,
    Function,
    If,
    SeqExpr,
    Tuple,
    TupleGetItem,
    Var,
)
from vdplace.ir.module import IRModule
from vdplace.ir.op import Op
from vdplace.ir.struct_info import TensorStructInfo, tensor_leaves
from vdplace.ir.vdevice import VDevice, vdevice_name
from vdplace.placement.cost.problem import COPY_OPS
from vdplace.placement.rewrite.module_pass import module_pass
from vdplace.placement.schedule.events import Event, Schedule

# A binding's priority: (time, rank, vdevice index, source index); rank 0 a copy, 1 an op (a copy goes first at
# a tie); a binding with no event is taken at time -infinity (as early as its operands allow).
Priority = tuple[float, int, int, int]
_COPY, _OP = 0, 1
_EARLY = float("-inf")
# Pure ops that are barriers all the same (module docstring).
_BARRIER_OPS = frozenset({"match_cast", "call_packed"})


@module_pass("ScheduleOrder")
def schedule_order(mod: IRModule, schedule: Schedule) -> IRModule:
    """A new module with the scheduled function's bindings in `schedule`'s order (module docstring)."""
    own = [e for e in schedule.events if not e.call]  # the entry function's own (`Event.call`)
    ops = [e for e in own if e.kind == "op"]
    function = ops[0].function if ops else next((e.function for e in own), None)
    if function is None or function not in mod.functions:
        return mod.replace()
    func = mod.functions[function]
    vds = list(mod.vdevices)
    names = {vdevice_name(vds, v): i for i, v in enumerate(vds)}
    physical = [v.physical for v in vds]
    timed = _events_of(func, own, vds, names)
    priority = _priorities(func, timed, names, physical)
    blocks = _ordered_blocks(func.body.blocks, priority)
    if blocks is None:
        return mod.replace()
    body = func.body
    seq = SeqExpr(blocks, body.body, body.struct_info, body.span)
    new = Function(func.params, seq, func.ret_struct_info, func.attrs, func.span, func.ret_span)
    return mod.replace(functions={**mod.functions, function: new})


# -- which binding each event is -----------------------------------------------------------------------------
def _bindings(func: Function) -> Iterator[Binding]:
    for block in func.body.blocks:
        yield from block.bindings


def _is_copy(binding: Binding) -> bool:
    value = binding.value
    return type(value) is Call and type(value.op) is Op and value.op.name in COPY_OPS


def _home(binding: Binding, vds: Sequence[VDevice], known: dict[VDevice, str]) -> str | None:
    """The vdevice name of an op call's first tensor leaf (where the schedule runs it), None without one;
    `known`: the names of `vds`, for speed."""
    sinfo = binding.var.struct_info
    for _, leaf in (((), sinfo),) if type(sinfo) is TensorStructInfo else tensor_leaves(sinfo):
        vdevice = leaf.vdevice
        return None if vdevice is None else known.get(vdevice) or vdevice_name(vds, vdevice)
    return None


def _events_of(
    func: Function, events: Sequence[Event], vds: Sequence[VDevice], names: dict[str, int]
) -> dict[int, Event]:
    """id(binding) -> its event: an op call by name and vdevice, a copy by the name of the binding it defines.

    Uploads (copy events named by a parameter) have no binding.  `ValueError` for another event that
    names no binding of `func`.
    """
    ops: dict[tuple[str, str], list[Event]] = {}
    copies: dict[str, Event] = {}
    params = {p.name for p in func.params}
    for e in events:
        if e.kind == "op":
            ops.setdefault((e.name, e.device), []).append(e)  # type: ignore[arg-type]
        elif e.name not in params:
            copies[e.name] = e
    out: dict[int, Event] = {}
    known = {v: vdevice_name(vds, v) for v in vds}
    for binding in _bindings(func):
        name = binding.var.name
        if _is_copy(binding):
            event = copies.pop(name, None)
            if event is not None:
                out[id(binding)] = event
            continue
        home = _home(binding, vds, known)
        queue = ops.get((name, home)) if home is not None else None
        if queue:
            out[id(binding)] = queue.pop(0)
    left = [e for found in ops.values() for e in found] + list(copies.values())
    if left:
        raise ValueError(f"the schedule's event {left[0]!r} names no binding of {left[0].function}")
    return out


def _priorities(
    func: Function, timed: dict[int, Event], names: dict[str, int], physical: Sequence[object]
) -> dict[int, Priority]:
    """id(binding) -> its priority (module docstring); a binding with no event is not in it."""
    starts: dict[object, list[float]] = {}
    for e in timed.values():
        if e.kind == "op":
            starts.setdefault(physical[names[e.device]], []).append(e.start)  # type: ignore[index]
    for times in starts.values():
        times.sort()
    out: dict[int, Priority] = {}
    for index, binding in enumerate(_bindings(func)):
        event = timed.get(id(binding))
        if event is None:
            continue
        if event.kind == "op":
            out[id(binding)] = (event.start, _OP, names[event.device], index)  # type: ignore[index]
            continue
        src = names[event.device[0]]
        at = min(event.end, _first_at_or_after(starts.get(physical[src], []), event.start))
        out[id(binding)] = (at, _COPY, src, index)
    return out


def _first_at_or_after(times: list[float], t: float) -> float:
    """The least of the sorted `times` that is >= t (infinity when none is)."""
    lo = bisect_left(times, t)
    return times[lo] if lo < len(times) else float("inf")


# -- the order of one block ----------------------------------------------------------------------------------
def _ordered_blocks(blocks: Sequence[BindingBlock], priority: dict[int, Priority]) -> list[BindingBlock] | None:
    """The blocks with their bindings in schedule order (module docstring), or None when no binding moves.

    Consecutive plain blocks become one block; the bindings of plain blocks after their last barrier
    join the dataflow block that follows them.
    """
    groups = list(_groups(blocks))
    segments: list[tuple[BindingBlock, list[Binding]]] = []  # (the block whose kind and span it takes, bindings)
    carry: list[Binding] = []
    for k, group in enumerate(groups):
        bindings = [b for block in group for b in block.bindings]
        if group[0].is_dataflow:
            segments.append((group[0], _ordered_run(carry + bindings, priority)))
            carry = []
            continue
        cut = 0
        if k + 1 < len(groups):  # a dataflow block follows: what comes after the last barrier may join it
            cut = next((i + 1 for i in range(len(bindings) - 1, -1, -1) if _is_barrier(bindings[i].value)), 0)
            bindings, carry = bindings[:cut], bindings[cut:]
        if bindings:
            segments.append((group[0], _ordered_run(bindings, priority)))
    old = [b for block in blocks for b in block.bindings]
    new = [b for _, bindings in segments for b in bindings]
    if all(a is b for a, b in zip(new, old, strict=True)):
        return None
    return [type(block)(bindings, block.span) for block, bindings in segments]


def _groups(blocks: Sequence[BindingBlock]) -> Iterator[list[BindingBlock]]:
    """A dataflow block alone, or consecutive plain blocks together (one sequence of bindings)."""
    group: list[BindingBlock] = []
    for block in blocks:
        if block.is_dataflow:
            if group:
                yield group
                group = []
            yield [block]
        else:
            group.append(block)
    if group:
        yield group


def _is_barrier(value: Expr) -> bool:
    """Whether a binding of `value` keeps its place (module docstring)."""
    if type(value) is Call:
        op = value.op
        return type(op) is not Op or not op.pure or op.name in _BARRIER_OPS
    return isinstance(value, If | SeqExpr | Function)


def _ordered_run(bindings: list[Binding], priority: dict[int, Priority]) -> list[Binding]:
    """`bindings` with each run between barriers in schedule order; the barriers where they are."""
    out: list[Binding] = []
    run: list[Binding] = []
    for binding in bindings:
        if _is_barrier(binding.value):
            out += _topological(run, priority)
            out.append(binding)
            run = []
        else:
            run.append(binding)
    return out + _topological(run, priority)


def _topological(run: list[Binding], priority: dict[int, Priority]) -> list[Binding]:
    """`run` (bindings with no barrier among them) as the least-priority-first topological order."""
    if len(run) < 2:
        return run
    index = {binding.var: i for i, binding in enumerate(run)}
    readers: list[list[int]] = [[] for _ in run]
    waiting = [0] * len(run)
    for i, binding in enumerate(run):
        value = binding.value
        operands: Iterable[Var]
        if type(value) is Call and all(type(a) is Var or type(a) is DataflowVar for a in value.args):
            operands = value.args  # type: ignore[assignment]  # a variable read twice counts twice, freed twice
        else:
            operands = set(_operands(value))
        for var in operands:
            j = index.get(var)
            if j is not None and j < i:
                readers[j].append(i)
                waiting[i] += 1
    keys: list[Priority] = [priority.get(id(b), (_EARLY, _COPY, 0, i)) for i, b in enumerate(run)]
    heap = [(keys[i], i) for i in range(len(run)) if waiting[i] == 0]
    heapq.heapify(heap)
    out: list[Binding] = []
    while heap:
        _, i = heapq.heappop(heap)
        out.append(run[i])
        for j in readers[i]:
            waiting[j] -= 1
            if waiting[j] == 0:
                heapq.heappush(heap, (keys[j], j))
    return out


def _operands(value: Expr) -> Iterator[Var]:
    """The variables `value` reads (through calls, tuples and tuple items)."""
    stack = [value]
    while stack:
        e = stack.pop()
        kind = type(e)
        if isinstance(e, Var):
            yield e
        elif kind is Call:
            stack.extend(e.args)  # type: ignore[attr-defined]
        elif kind is Tuple:
            stack.extend(e.fields)  # type: ignore[attr-defined]
        elif kind is TupleGetItem:
            stack.append(e.tuple_value)  # type: ignore[attr-defined]
