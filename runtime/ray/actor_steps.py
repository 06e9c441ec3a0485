"""The steps of one actor's share of a function (`schedule`): its own instructions, the replicated ones, and
placeholders for the rest.

An actor's registers hold its own device's arrays and every host value
(shapes, scalars, tuples); a register another actor's instruction writes
holds `ELSEWHERE`.  Steps are the local VM's (`runtime.steps`), so the same
kernels run, with the same device checks and memory accounting; three kinds
are the actor's own:

- a *skip* step for another actor's instruction: its results become `ELSEWHERE`;
- a *stop* step for a copy or a driver instruction: reaching one without the
  driver's command is a schedule error, never silent;
- `GetItem` of a tuple that lives elsewhere gives `ELSEWHERE`, and an
  `AllocTensor` shaped like a tensor that lives elsewhere leaves a `Pending`
  buffer, allocated when the copy's data arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..call_steps import closure_step
from ..frame import Frame, Step
from ..instructions import AllocTensor, DeviceCopy, GetItem, Instruction
from ..registers import acquire, drop
from ..steps import StepBuilder
from .schedule import COPY, DRIVER, REPLICATED, FunctionSchedule


class Elsewhere:
    """The value of a register that another actor holds (one instance, kept one across pickling)."""

    __slots__ = ()

    def __reduce__(self) -> tuple:
        return (_elsewhere, ())

    def __repr__(self) -> str:
        return "ELSEWHERE"


ELSEWHERE = Elsewhere()


def _elsewhere() -> Elsewhere:
    return ELSEWHERE


class Pending:
    """A copy's destination buffer whose shape is the source's: allocated when the data arrives."""

    __slots__ = ("dtype",)

    def __init__(self, dtype: str) -> None:
        self.dtype = dtype


class ScheduleError(Exception):
    """An actor reached a copy or driver instruction without the driver's command (an executor bug)."""


def closure(run: Callable[[list], int]) -> Step:
    return (closure_step, run)


def _skip(instr: Instruction, pc: int) -> Callable[[list], int]:
    defs, dropped, nxt = tuple(instr.defs()), tuple(instr.drop), pc + 1

    def step(regs: list) -> int:
        for r in defs:
            regs[r] = ELSEWHERE
        if dropped:
            drop(regs, dropped)
        return nxt

    return step


def _stop(frame: Frame, pc: int) -> Callable[[list], int]:
    def step(regs: list) -> int:
        raise ScheduleError(f"{frame.fn.name}:{pc}: reached without the driver's command")

    return step


def _getitem(instr: GetItem, pc: int) -> Callable[[list], int]:
    dst, src, index, dropped, nxt = instr.dst, instr.src, instr.index, tuple(instr.drop), pc + 1

    def step(regs: list) -> int:
        value = regs[src]
        value = value[index] if value.__class__ is tuple else ELSEWHERE
        acquire(value)
        regs[dst] = value
        if dropped:
            drop(regs, dropped)
        return nxt

    return step


def _pending(instr: AllocTensor, pc: int) -> Callable[[list], int]:
    dst, dtype, dropped, nxt = instr.dst, instr.dtype, tuple(instr.drop), pc + 1

    def step(regs: list) -> int:
        regs[dst] = Pending(dtype)
        if dropped:
            drop(regs, dropped)
        return nxt

    return step


def build_steps(frame: Frame, sched: FunctionSchedule, me: int, builder: StepBuilder) -> list[Step]:
    """The steps actor `me` runs for `frame`'s function: one per instruction, in program order."""
    steps: list[Step] = []
    for pc, instr in enumerate(frame.fn.instructions):
        owner = sched.owner[pc]
        if owner == DRIVER:
            steps.append(closure(_stop(frame, pc)))
        elif owner == COPY:
            involved = me in sched.copies[pc]
            steps.append(closure(_stop(frame, pc) if involved else _skip(instr, pc)))
        elif owner == REPLICATED:
            steps.append(
                closure(_getitem(instr, pc)) if isinstance(instr, GetItem) else builder.build(frame, pc, instr)
            )
        elif owner != me:
            steps.append(closure(_skip(instr, pc)))
        elif isinstance(instr, AllocTensor) and instr.like is not None and me not in sched.homes[instr.like]:
            steps.append(closure(_pending(instr, pc)))
        else:
            steps.append(builder.build(frame, pc, instr))
    return steps


def copy_of(frame: Frame, pc: int) -> DeviceCopy:
    instr = frame.fn.instructions[pc]
    if not isinstance(instr, DeviceCopy):
        raise ScheduleError(f"{frame.fn.name}:{pc} is not a copy")
    return instr


def local_device_map(actor_of: Sequence[int], me: int, device: object) -> list:
    """The step builder's vdevice -> device list: this actor's device for its vdevices, None for the rest."""
    return [device if a == me else None for a in actor_of]
