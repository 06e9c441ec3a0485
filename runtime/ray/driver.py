"""The driver's side of a run: it walks each function's control flow and sends every actor its scripts.

The driver never holds a tensor of the program.  It walks a function from
stop to stop (`FunctionSchedule.next_stop`): a copy, a jump, an If, a call,
a return; between stops the actors run on their own.  At a copy it ends the
sender's script with the send and hands the script's reference to the
receiver: the data goes from one actor's object store to the other actor,
and the driver passes only the `ObjectRef`.  Nothing is waited for, so
every actor works as far ahead as its data allows, and the scripts of the
next micro-batch queue behind this one's (`Ray` runs an actor's scripts in
submission order).  Each script has at most one export, at its end.

Control flow costs what it must: an If's condition lives on an actor, so the
driver reads it (one small round trip, and a synchronization point: the
driver submits nothing past the If until the value is back).  A call of a
module function is orchestrated by the driver: every actor starts a frame
for the callee and hands the result back to the caller's register, all
inside the actors, so a call costs two commands per actor and no transfer.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from ..callstack import call_depth_error
from ..errors import VMError
from ..instructions import Goto, If, Invoke, Ret
from .actor_steps import ELSEWHERE
from .faults import Tracker
from .schedule import COPY, FunctionSchedule


class Walker:
    """Submits the scripts of runs on `actors` (Ray actor handles), recording them in `tracker`."""

    def __init__(
        self,
        schedules: dict[str, FunctionSchedule],
        actors: Sequence[Any],
        tracker: Tracker,
        max_call_depth: int,
        ids: itertools.count,
    ) -> None:
        self.schedules = schedules
        self.actors = actors
        self.tracker = tracker
        self.max_call_depth = max_call_depth
        self.ids = ids
        self.condition_reads = 0
        self._commands: list[list[tuple]] = [[] for _ in actors]
        self._imports: list[list[Any]] = [[] for _ in actors]

    # -- scripts -----------------------------------------------------------------------
    def add(self, actor: int, command: tuple, *imports: Any) -> None:
        self._commands[actor].append(command)
        self._imports[actor].extend(imports)

    def flush(self, actor: int, batch: int, where: tuple[str, int], keep: bool = False) -> Any:
        """Submit `actor`'s pending script; its reference (None when there was nothing to send).

        `keep`: the driver will read the script's value (`Tracker.get`).
        """
        commands, imports = self._commands[actor], self._imports[actor]
        if not commands:
            return None
        self._commands[actor], self._imports[actor] = [], []
        # The imports travel inside a list, not as arguments: Ray does not resolve them before
        # the script starts, the actor fetches them (`VDeviceActor.run`).  Top-level ObjectRef
        # arguments race with an actor's death in Ray's driver (ray-project/ray#56123: a failed
        # task's references released twice aborts the driver process).
        ref = self.actors[actor].run.remote(commands, imports)
        return self.tracker.submit(actor, ref, batch, where, keep)

    # -- a run -------------------------------------------------------------------------
    def submit(self, entry: str, starts: Sequence[tuple[tuple, list, Any]], batch: int) -> dict[int, Any]:
        """Submit one run of `entry`; `starts[a]` is actor a's (arguments, input refs, symbolic dims).

        Returns actor -> the reference of its last script, whose export is its
        part of the result (arrays, `ELSEWHERE` for other actors' leaves).
        """
        fid = next(self.ids)
        for a, (args, refs, env) in enumerate(starts):
            self.add(a, ("start", fid, entry, args, env), *refs)
        stack: list[tuple[str, int, int]] = []
        name, f, pc = entry, fid, 0
        while True:
            sched = self.schedules[name]
            pc = sched.next_stop[pc]
            instr = sched.fn.instructions[pc]
            if sched.owner[pc] == COPY:
                src, dst = sched.copies[pc]
                self.add(src, ("send", f, pc))
                self.add(dst, ("recv", f, pc, 0, src), self.flush(src, batch, (name, pc)))
                pc += 1
            elif isinstance(instr, Goto):
                pc = instr.target
            elif isinstance(instr, If):
                taken = self._condition(sched, f, pc, batch)
                for a in range(len(self.actors)):
                    self.add(a, ("branch", f, pc, taken))
                pc = pc + 1 if taken else instr.else_target
            elif isinstance(instr, Invoke):
                if len(stack) >= self.max_call_depth:
                    chain = [n for n, _, _ in stack] + [name, instr.function]
                    raise call_depth_error(chain, [None] * len(chain), self.max_call_depth)
                g = next(self.ids)
                for a in range(len(self.actors)):
                    self.add(a, ("enter", f, pc, g))
                stack.append((name, f, pc))
                name, f, pc = instr.function, g, 0
            elif stack:  # Ret of a callee
                caller, cf, cpc = stack.pop()
                for a in range(len(self.actors)):
                    self.add(a, ("leave", f, pc, cf, cpc))
                name, f, pc = caller, cf, cpc + 1
            else:
                return self._finish(sched, f, pc, batch)

    def _condition(self, sched: FunctionSchedule, f: int, pc: int, batch: int) -> bool:
        """Read an If's condition from the actor(s) that may hold it: a synchronization point."""
        instr = sched.fn.instructions[pc]
        assert isinstance(instr, If), "the schedule stops at an If to read its condition"
        cond = instr.cond
        holders = sorted(sched.homes[cond]) or [0]
        refs = []
        for a in holders:
            self.add(a, ("read", f, pc))
            refs.append(self.flush(a, batch, (sched.fn.name, pc), keep=True))
        self.condition_reads += 1
        values = [self.tracker.get(r)[-1] for r in refs]
        found = [v for v in values if v is not None]
        if not found:  # the schedule's homes cover every register an If reads
            raise VMError(f"{sched.fn.name}:{pc}: no actor holds the If's condition (an executor bug)")
        return found[0]

    def _finish(self, sched: FunctionSchedule, f: int, pc: int, batch: int) -> dict[int, Any]:
        """End the frame on every actor; submit the scripts of those that hold part of the result.

        The others' last commands wait for their next script (the next run's,
        or `flush_all`): one remote call less per actor and run.
        """
        ret = sched.fn.instructions[pc]
        assert isinstance(ret, Ret), "the schedule ends a frame at its Ret"
        holders = set(sched.homes[ret.value]) or {0}
        refs = {}
        for a in range(len(self.actors)):
            self.add(a, ("ret", f, pc, a in holders))
            if a in holders:
                refs[a] = self.flush(a, batch, (sched.fn.name, pc), keep=True)
        return refs

    def flush_all(self, batch: int, where: tuple[str, int]) -> None:
        """Submit every actor's pending script (after the last run of a call)."""
        for a in range(len(self.actors)):
            self.flush(a, batch, where)


def merge(parts: Sequence[Any]) -> Any:
    """One result from the actors' parts: each leaf from the part that holds it."""
    tuples = [p for p in parts if p.__class__ is tuple]
    if tuples:  # an actor that holds none of a tuple's fields sees the whole tuple as ELSEWHERE
        return tuple(merge([p[i] for p in tuples]) for i in range(len(tuples[0])))
    for p in parts:
        if p is not ELSEWHERE:
            return p
    raise AssertionError("a result leaf no actor holds")  # the schedule's homes cover every leaf
