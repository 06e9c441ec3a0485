"""Which actor runs each instruction of a compiled function, and which actors hold each register.

The compiler guarantees that data moves between physical devices only by
`DeviceCopy` (every other instruction reads values on its own device), so a
function splits cleanly by actor:

- a `Call` / `AllocTensor` / device `LoadConst` runs on its device's actor;
- a `DeviceCopy` is a send on the source's actor and a receive on the
  destination's (`COPY`): the only place data crosses actors;
- register bookkeeping (`Move`, `MakeTuple`, `GetItem`, `Goto`), shapes,
  scalars and host calls are `REPLICATED`: every actor runs them on its own
  registers, where another actor's tensor is a placeholder;
- `If`, `Invoke` and `Ret` are the driver's (`DRIVER`): it reads the
  condition, starts the callee's frame on every actor, collects the result.

`homes[r]` is the set of actors that may hold a tensor of register ``r``:
where the driver reads an If's condition and fetches a result from.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import CompileError
from ..executable import CompiledFunction, DeviceTree, Executable
from ..instructions import (
    AllocTensor,
    Call,
    DeviceCopy,
    GetItem,
    Goto,
    If,
    Invoke,
    LoadConst,
    MakeTuple,
    Move,
    Ret,
)

REPLICATED = -1
DRIVER = -2
COPY = -3


def tree_actors(tree: DeviceTree, actor_of: Sequence[int]) -> frozenset[int]:
    """The actors of the vdevices in a device tree."""
    if tree is None:
        return frozenset()
    if isinstance(tree, tuple):
        return frozenset().union(*(tree_actors(t, actor_of) for t in tree))
    return frozenset((actor_of[tree],))


class FunctionSchedule:
    """`owner[pc]`: an actor index, `REPLICATED`, `DRIVER` or `COPY`; `copies[pc]`: (source, destination) actors.

    `next_stop[pc]` is the first pc at or after `pc` the driver must act on
    (a copy, a driver instruction or a Goto); `homes[r]` the actors holding register r.
    """

    __slots__ = ("fn", "owner", "copies", "homes", "next_stop")

    def __init__(self, fn: CompiledFunction, executable: Executable, actor_of: Sequence[int]) -> None:
        self.fn = fn
        self.owner: list[int] = [_owner(i, actor_of) for i in fn.instructions]
        self.copies = {
            pc: (actor_of[i.src_device], actor_of[i.dst_device])
            for pc, i in enumerate(fn.instructions)
            if isinstance(i, DeviceCopy)
        }
        self.homes = _homes(fn, executable, actor_of)
        self.next_stop = _next_stops(fn.instructions, self.owner)
        self._check_reads(executable)

    def _check_reads(self, executable: Executable) -> None:
        """A call reads only what its own actor holds (a host call: nothing any actor holds alone)."""
        for pc, instr in enumerate(self.fn.instructions):
            if not isinstance(instr, Call):
                continue
            mine = frozenset() if instr.device is None else frozenset((self.owner[pc],))
            for r in instr.args:
                if not self.homes[r] <= mine:
                    raise CompileError(
                        f"the Ray executor cannot run {self.fn.name}:{pc} "
                        f"`{instr.body(self.fn.reg_name, executable.device_name)}`"
                        + (f" ({instr.origin.describe()})" if instr.origin is not None else "")
                        + f": it reads {self.fn.reg_name(r)}, a value computed on another device's actor "
                        "without a copy; run it on the local VM"
                    )


def _owner(instr: object, actor_of: Sequence[int]) -> int:
    if isinstance(instr, DeviceCopy):
        return COPY
    if isinstance(instr, (If, Invoke, Ret)):
        return DRIVER
    if isinstance(instr, (Call, LoadConst)):
        return REPLICATED if instr.device is None else actor_of[instr.device]
    if isinstance(instr, AllocTensor):
        return actor_of[instr.device]
    return REPLICATED


def _homes(fn: CompiledFunction, executable: Executable, actor_of: Sequence[int]) -> list[frozenset[int]]:
    """Which actors each register's tensors may lie on (a union over every instruction that writes it)."""
    homes: list[frozenset[int]] = [frozenset()] * fn.num_registers
    for r, tree in enumerate(fn.param_devices):
        homes[r] = tree_actors(tree, actor_of)
    changed = True
    while changed:  # a branch's Move may write a register read before it in program order
        changed = False
        for instr in fn.instructions:
            for r, actors in _writes(instr, homes, executable, actor_of):
                if not actors <= homes[r]:
                    homes[r] = homes[r] | actors
                    changed = True
    return homes


def _writes(instr: object, homes: list[frozenset[int]], executable: Executable, actor_of: Sequence[int]):
    if isinstance(instr, (Call, LoadConst, AllocTensor)):
        dst = instr.out if isinstance(instr, Call) else instr.dst
        return [(dst, frozenset() if instr.device is None else frozenset((actor_of[instr.device],)))]
    if isinstance(instr, DeviceCopy):
        return [(instr.dst, frozenset((actor_of[instr.dst_device],)))]
    if isinstance(instr, (Move, GetItem)):
        return [(instr.dst, homes[instr.src])]
    if isinstance(instr, MakeTuple):
        return [(instr.dst, frozenset().union(*(homes[f] for f in instr.fields)))]
    if isinstance(instr, Invoke):
        return [(instr.out, tree_actors(executable[instr.function].ret_devices, actor_of))]
    return []


def _next_stops(code: Sequence[object], owner: list[int]) -> list[int]:
    """Copies, driver instructions and jumps (the driver follows control flow with the actors)."""
    stops = [len(owner)] * (len(owner) + 1)
    for pc in range(len(owner) - 1, -1, -1):
        stop = owner[pc] in (DRIVER, COPY) or isinstance(code[pc], Goto)
        stops[pc] = pc if stop else stops[pc + 1]
    return stops


def schedule(executable: Executable, actor_of: Sequence[int]) -> dict[str, FunctionSchedule]:
    """The schedule of every function; raises `CompileError` for what the executor cannot split."""
    return {name: FunctionSchedule(fn, executable, actor_of) for name, fn in executable.functions.items()}
