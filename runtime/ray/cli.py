"""``vdplace run --ray[=ADDRESS]``: the run on Ray (the options are parsed in `vdplace.cli`).

- ``--ray``: start a local Ray cluster; ``--ray=ADDRESS``: join that cluster
  (``auto``, ``ray://host:10001``, ``host:6379``; the value is attached, so
  ``--ray model.py`` reads model.py as the module);
- ``--actor VDEVICE=KIND[@NODE]`` (repeatable): the actor of a vdevice:
  ``cpu``, ``sim`` or ``gpu``, on the node with IP NODE;
- ``--microbatches K``: stream K micro-batches, results concatenated: the
  runtime inputs are split along axis 0, weights and flags are the same in
  each (`runtime.batch`); random inputs are drawn as one batch of K;
- ``--timeout S``: the run ends with an error after S seconds (starting the
  actors included); ``--retries N``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
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


def execute(
    executable: Any, draw: Callable[[int], list[Any]], args: argparse.Namespace, memory: Mapping[str, int] | None = None
) -> tuple[Any, str]:
    """Run `executable` on Ray as the options say; (outputs, profile table or "").

    `memory` (vdevice name -> bytes, ``--memory``) limits those vdevices' actors.

    `draw(k)` gives the inputs: a batch of k micro-batches (random inputs drawn
    so, `random_inputs(microbatches=k)`; a file's as they are).  The batch is
    split (`runtime.batch.split_batch`) before Ray starts: a batch that cannot
    be split is a `ParseError` naming the parameter (exit status 2).
    """
    from vdplace.runtime.batch import concat_results, split_batch
    from vdplace.runtime.errors import BatchError

    from . import load_executor

    k = args.microbatches
    if k < 1 or args.retries < 0 or not args.timeout > 0:
        raise ParseError("--microbatches must be >= 1, --retries >= 0 and --timeout > 0")
    address = None if args.ray == LOCAL else args.ray
    specs = actor_specs(args.actor)
    # --timeout bounds the whole run, the actors' start included (an actor no node can hold fails within it).
    start_timeout = min(START_TIMEOUT_S, args.timeout)
    fn = executable[args.entry]
    try:
        batches = split_batch(fn.params, fn.param_sinfo, fn.num_input, draw(k), k)
    except BatchError as err:
        raise ParseError(f"--microbatches {k}: {err}") from None
    RayExecutor = load_executor().RayExecutor  # noqa: N806
    options = {
        "address": address,
        "timeout": args.timeout,
        "retries": args.retries,
        "memory": memory,
        "start_timeout": start_timeout,
    }
    with RayExecutor(executable, specs, **options) as executor:
        results = executor.run_many(args.entry, batches, args.profile)
        table = executor.profile.table() if args.profile and executor.profile is not None else ""
    return (results[0] if k == 1 else concat_results(results)), table
