"""Every script the driver submits, and how a failure of any of them becomes one error, within a deadline.

`Tracker.submit` numbers scripts in submission order.  A script fails for
its own reason (a kernel raised, its actor died) or because one it depends
on failed (an import, or an earlier script of the same actor): failures
only flow forward in submission order, so the failed script with the
lowest number is the root cause, and that is the error the run raises:

- a kernel that raised: `KernelError`; another runtime error on an actor:
  `RemoteError` (both name the vdevice, the instruction and its source line);
- an actor that died, or a node that left (its objects lost): `ActorDied`,
  naming the vdevice and the instruction its script was running towards;
- nothing finished by the deadline: `RunTimeout`, naming each busy actor.

Nothing here waits without the deadline: a run ends, one way or another,
within the executor's `timeout`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import ray
from ray import exceptions as rex

from ..errors import KernelError, VMError
from .errors import ActorDied, Failure, RemoteError, RunTimeout

# Names an instruction from (function, pc): "main:5 `...` (main: binding lv at f.py:12:9)".
Describe = Callable[[str, int], str]


class Submitted:
    """One script: its number, reference, actor, run (batch) and the instruction it ends at.

    Only a script whose value the driver reads (`keep`: an If's condition, a
    part of a result) keeps its reference once done; dropping the others'
    lets Ray free each copy's data as soon as its receiver has it.
    """

    __slots__ = ("seq", "ref", "actor", "batch", "where", "keep", "done", "error", "value")

    def __init__(self, seq: int, ref: Any, actor: int, batch: int, where: tuple[str, int], keep: bool) -> None:
        self.seq = seq
        self.ref = ref
        self.keep = keep
        self.actor = actor
        self.batch = batch
        self.where = where
        self.done = False
        self.error: BaseException | None = None
        self.value: Any = None


class Tracker:
    """The scripts of one run on actors labelled `labels`; `deadline` is a `time.monotonic()` instant."""

    def __init__(self, labels: Sequence[str], describe: Describe, deadline: float) -> None:
        self.labels = labels
        self.describe = describe
        self.deadline = deadline
        self.subs: list[Submitted] = []
        self._by_ref: dict[Any, Submitted] = {}

    def submit(self, actor: int, ref: Any, batch: int, where: tuple[str, int], keep: bool) -> Any:
        sub = Submitted(len(self.subs), ref, actor, batch, where, keep)
        self.subs.append(sub)
        self._by_ref[ref] = sub
        return ref

    def get(self, ref: Any) -> Any:
        """The value of one script (a synchronization point of the run); raises the run's root error."""
        sub = self._by_ref[ref]
        self._settle([sub])
        if sub.error is not None or not sub.done:
            self.raise_root()
        return sub.value

    def wait_all(self) -> None:
        """Wait for every script; on a failure or at the deadline, raise the root error."""
        self._settle(self.subs)
        self.raise_root()

    def completed_batches(self) -> set[int]:
        """Batches every script of which finished without error."""
        bad = {s.batch for s in self.subs if not s.done or s.error is not None}
        return {s.batch for s in self.subs} - bad

    def _settle(self, subs: Sequence[Submitted]) -> None:
        """Wait for `subs` until they are done, one of them failed, or the deadline passed."""
        pending = [s.ref for s in subs if not s.done]
        while pending:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                return
            ready, pending = ray.wait(pending, num_returns=1, timeout=remaining)
            if ready and pending:
                more, pending = ray.wait(pending, num_returns=len(pending), timeout=0)
                ready += more
            if any(self._collect(r) for r in ready):
                self._settle_earlier()
                return

    def _collect(self, ref: Any) -> bool:
        """Record a ready script's value or error; True when it failed."""
        sub = self._by_ref[ref]
        try:
            value = ray.get(ref, timeout=0)
            if sub.keep:
                sub.value = value
        except Exception as err:  # noqa: BLE001  (every Ray failure is classified below)
            sub.error = err
        sub.done = True
        if not sub.keep:
            del self._by_ref[ref]
            sub.ref = None
        return sub.error is not None

    def _settle_earlier(self) -> None:
        """Wait (within the deadline) for the scripts submitted before the first failure: one may be its root."""
        first = min(s.seq for s in self.subs if s.error is not None)
        earlier = [s for s in self.subs[:first] if not s.done]
        if earlier:
            self._settle(earlier)

    def raise_root(self) -> None:
        failed = [(s, s.error) for s in self.subs if s.error is not None]
        if failed:
            root, error = min(failed, key=lambda pair: pair[0].seq)
            raise self._translate(root, error) from None
        busy = [s for s in self.subs if not s.done]
        if busy:
            raise self._timeout(busy)

    def _translate(self, sub: Submitted, err: BaseException) -> VMError:
        """The error to raise for `sub`, which failed with `err` (its `error`)."""
        label = self.labels[sub.actor]
        cause = getattr(err, "cause", None) if isinstance(err, rex.RayTaskError) else None
        if isinstance(cause, Failure):
            p = cause.payload
            if p["kind"] == "KernelError":
                return KernelError(p["message"], instruction=p["instruction"])
            return RemoteError(p["message"], p["vdevice"], p["instruction"], p["kind"])
        where = self.describe(*sub.where)
        if isinstance(err, (rex.RayActorError, rex.ObjectLostError)):
            what = "died" if isinstance(err, rex.RayActorError) else "lost its data (its node left the cluster)"
            return ActorDied(
                f"the actor of vdevice {label} {what} while running towards instruction {where}: "
                f"{type(err).__name__}: {_first_line(err)}",
                label,
                where,
            )
        return RemoteError(f"on vdevice {label}, towards {where}: {type(err).__name__}: {_first_line(err)}", label)

    def _timeout(self, busy: Sequence[Submitted]) -> RunTimeout:
        firsts: dict[int, Submitted] = {}
        for s in busy:
            firsts.setdefault(s.actor, s)
        parts = [f"{self.labels[a]} (towards {self.describe(*s.where)})" for a, s in sorted(firsts.items())]
        labels = ", ".join(self.labels[a] for a in sorted(firsts))
        return RunTimeout(
            "the run did not finish within its timeout; still busy: " + "; ".join(parts),
            labels,
            self.describe(*busy[0].where),
        )


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else ""
