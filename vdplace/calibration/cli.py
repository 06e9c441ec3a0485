"""``vdplace calibrate``: its options and its run (the module, inputs and constants are read in `vdplace.cli`).

- ``--entry``, ``--inputs random|FILE.npz``, ``--params FILE.npz``: the
  reference run whose values the kernels are timed on; ``--values made-up``
  skips it;
- ``--vdevice KIND[:ID[:SCOPE]]``: a vdevice the module does not declare;
- ``--ray[=ADDRESS]``, ``--actor VDEVICE=KIND[@NODE]``: time on Ray actors,
  one per physical device, as ``vdplace run --ray`` runs them.

Nothing heavy is imported until the command runs.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vdplace.cli_parser import Parser


def add_arguments(p: Parser) -> None:
    """The options of ``vdplace calibrate`` after FILE, ``-o`` and ``--repeat``."""
    p.add_argument("--entry", default="main", help="the function whose reference run gives the values (default: main)")
    p.add_argument("--inputs", default="random", help="'random' or an .npz file with one array per parameter name")
    p.add_argument("--params", metavar="FILE.npz", help="values of the constants the text only references")
    p.add_argument(
        "--values",
        choices=("program", "made-up"),
        default="program",
        help="time each op on the arguments a reference run computes (default), or on made-up inputs",
    )
    p.add_argument(
        "--vdevice", action="append", default=[], metavar="KIND[:ID[:SCOPE]]", help="add a vdevice, e.g. cuda:0"
    )
    p.attached(
        "--ray",
        "local",
        metavar="ADDRESS",
        help="time on Ray actors, one per physical device, and the copies between them: a local cluster, or with "
        "--ray=ADDRESS the cluster there",
    )
    p.add_argument(
        "--actor",
        action="append",
        default=[],
        metavar="VDEVICE=KIND[@NODE]",
        help="with --ray: the actor of a vdevice (cpu, sim or gpu), optionally on the node with that IP",
    )


def calibrate(args: argparse.Namespace, mod: Any, inputs: list[Any] | None, params: Any) -> Any:
    """`mod` calibrated as the options say; its `Calibration`.

    A bad option or a reference run that fails is a `ParseError` (exit status 2); Ray actors that cannot
    start raise the runtime's `VMError` (the caller's exit status 1).
    """
    from vdplace import ir

    from .program import calibrate_program

    ray_actors, ray_address = None, None
    if args.ray is not None:
        from vdplace.runtime.ray.cli import LOCAL, actor_specs

        ray_actors, ray_address = actor_specs(args.actor), None if args.ray == LOCAL else args.ray
    elif args.actor:
        raise ir.ParseError("--actor needs --ray")
    try:
        return calibrate_program(
            mod,
            inputs,
            entry=args.entry,
            params=params,
            values=args.values,
            ray_actors=ray_actors,
            ray_address=ray_address,
            repeat=args.repeat,
            inputs_note=None if inputs is None else args.inputs,
        )
    except ValueError as err:
        raise ir.ParseError(f"cannot calibrate {args.file}: {err}") from None
