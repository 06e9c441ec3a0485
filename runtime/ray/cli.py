"""``vdplace run --ray[=ADDRESS]``: the run on Ray (the options are parsed in `vdplace.cli`).

- ``--ray``: start a local Ray cluster; ``--ray=ADDRESS``: join that cluster
  (``auto``, ``ray://host:10001``, ``host:6379``; the value is attached, so
  ``--ray model.py`` reads model.py as the module);
- ``--actor VDEVICE=KIND[@NODE]`` (repeatable): the actor of a vdevice:
  ``cpu``, ``sim`` or ``gpu``, on the node with IP NODE;
- ``--microbatches K``: stream K micro-batches (inputs from a file split
  along axis 0; random inputs K independent draws), results concatenated;
- ``--timeout S``: the run ends with an error after S seconds (starting the
  actors included); ``--retries N``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from vdplace.ir import ParseError

from .spec import KINDS, ActorSpec

LOCAL = "local"  # what `--ray` without an address means
START_TIMEOUT_S = 120.0  # how long actors may take to start, unless --timeout is shorter


def actor_specs(entries: Sequence[str]) -> dict[str, ActorSpec]:
    """``cuda:0=gpu@10.0.0.7`` -> {"cuda:0": ActorSpec("gpu", node="10.0.0.7")}; bad text is a `ParseError`."""
    specs: dict[str, ActorSpec] = {}
    for entry in entries:
        vdevice, sep, rest = entry.partition("=")
        kind, _, node = rest.partition("@")
        if not sep or not vdevice or kind not in KINDS:
            raise ParseError(f"--actor {entry!r}: want VDEVICE=KIND[@NODE] with KIND one of {', '.join(KINDS)}")
        specs[vdevice] = ActorSpec(kind, node=node or None)
    return specs


def execute(executable: Any, draw: Callable[[int], list[Any]], args: argparse.Namespace) -> tuple[Any, str]:
    """Run `executable` on Ray as the options say; (outputs, profile table or "").

    `draw(j)` gives the inputs: with ``--inputs random`` each micro-batch is its
    own draw (`RayExecutor.run_many`, results concatenated along axis 0);
    inputs from a file are split along axis 0 (`RayExecutor.run_pipelined`).
    """
    from . import load_executor

    executor_module = load_executor()
    RayExecutor, concat_results = executor_module.RayExecutor, executor_module.concat_results  # noqa: N806

    k = args.microbatches
    if k < 1 or args.retries < 0 or not args.timeout > 0:
        raise ParseError("--microbatches must be >= 1, --retries >= 0 and --timeout > 0")
    address = None if args.ray == LOCAL else args.ray
    specs = actor_specs(args.actor)
    # --timeout bounds the whole run, the actors' start included (an actor no node can hold fails within it).
    start_timeout = min(START_TIMEOUT_S, args.timeout)
    with RayExecutor(
        executable, specs, address=address, timeout=args.timeout, start_timeout=start_timeout, retries=args.retries
    ) as executor:
        if args.inputs != "random":
            outputs = executor.run_pipelined(draw(0), k, entry=args.entry, profile=args.profile)
        elif k == 1:
            outputs = executor.run(args.entry, *draw(0), profile=args.profile)
        else:
            outputs = concat_results(executor.run_many(args.entry, [draw(j) for j in range(k)], args.profile))
        table = executor.profile.table() if args.profile and executor.profile is not None else ""
    return outputs, table
