"""Run a placed program across processes and hosts on Ray: one actor per physical device.

    from vdplace.runtime.ray import RayExecutor
    with RayExecutor(runtime.compile(placed), devices={"cuda:0": "sim"}) as exe:
        out = exe.run("main", *inputs, profile=True)
        print(exe.profile.table())

Ray (the ``ray`` extra) is imported only when an executor is made: importing
this package, or `vdplace.runtime`, does not import it.

Modules, one job each:

- `spec`: which actor owns which vdevices, and the Ray resources it asks for;
- `schedule`: each function split by actor, with the copies between them;
- `actor_steps`: an actor's steps (the local VM's, plus placeholders for
  what other actors hold); `commands`: the commands of a script;
  `counters`: what an actor counts; `actor`: the actor class;
- `driver`: the driver's walk of the control flow, submitting scripts;
- `faults`: waiting with a deadline, and a failure's root cause as one error;
- `profile`: the report and the timeline; `cluster`: connecting to Ray;
- `executor`: `RayExecutor`, tying them together.
"""

from __future__ import annotations

from typing import Any

from .errors import ActorDied, RayRunError, RemoteError, RunTimeout
from .spec import ActorSpec


def load_executor() -> Any:
    """The `executor` module, importing Ray; `DeviceUnavailable` saying how to install it when it is missing."""
    try:
        from . import executor
    except ModuleNotFoundError as err:
        if err.name != "ray":
            raise
        from ..errors import DeviceUnavailable

        raise DeviceUnavailable("the Ray executor needs Ray: pip install 'vdplace[ray]'") from None
    return executor


def __getattr__(name: str) -> Any:
    """`RayExecutor` on first use, importing Ray then."""
    if name != "RayExecutor":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return load_executor().RayExecutor


__all__ = ["ActorDied", "ActorSpec", "RayExecutor", "RayRunError", "RemoteError", "RunTimeout"]
