"""Errors of the Ray executor, on top of the runtime's own (`runtime.errors`).

A kernel that raises on an actor surfaces as the local VM's `KernelError`
(its message names the vdevice, the instruction and its source line); the
failures only a cluster has get their own classes here.  Every one is a
`VMError`, so ``vdplace run --ray`` reports it as one line, exit status 1.
"""

from __future__ import annotations

from ..errors import VMError


class RayRunError(VMError):
    """A run on Ray failed.  `vdevice` names the actor's vdevice(s), `instruction` where it was."""

    def __init__(self, message: str, vdevice: str = "", instruction: str = "") -> None:
        self.vdevice = vdevice
        self.instruction = instruction
        super().__init__(message)


class ActorDied(RayRunError):
    """The actor of a vdevice died, or its node left the cluster, before its work was done."""


class RunTimeout(RayRunError):
    """The run did not finish within the executor's `timeout`; the busy actors are named and restarted."""


class RemoteError(RayRunError):
    """A runtime error raised on an actor (a memory limit, a device mismatch); `kind` is its class name."""

    def __init__(self, message: str, vdevice: str = "", instruction: str = "", kind: str = "") -> None:
        self.kind = kind
        super().__init__(message, vdevice, instruction)


class Failure(Exception):
    """What an actor raises: one picklable payload, turned back into a `VMError` by the driver.

    `payload` holds ``kind`` (the original class name, or ``"abandoned"`` for a
    frame given up after an earlier failure), ``message``, ``vdevice`` and
    ``instruction``.
    """

    def __init__(self, payload: dict[str, str]) -> None:
        super().__init__(payload)
        self.payload = payload
