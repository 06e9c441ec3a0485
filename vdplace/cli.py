"""The `vdplace` command: place, run and benchmark TVMScript modules.

Exit status: `EXIT_STATUSES` per sub-command (the README's table is checked
against it): 0 success, 1 a placement conflict or a failed run, 2 bad input
or a mistake on the command line; for every command 3 an internal error (a
bug) and 130 an interrupt.

Streams (`vdplace.cli_output.Output`): the result alone goes to stdout, or to
``-o FILE`` (the placed module, the ``--json`` document, `run`'s outputs, the
cost table, the benchmark table); every diagnostic (conflict reports, copies,
errors) goes to stderr.  With ``--json`` the result is one JSON document,
success or failure (``docs/schemas/``).  FILE ``-`` reads the module from
stdin.  ``--report OUT.html`` writes the conflict page, or the placement page
when the module places.

The commands live beside this module: `vdplace.cli_place` (place, and the
reading, placing and reporting run shares), `vdplace.cli_run`,
`vdplace.bench.cli`; the grammar (one-line errors, suggestions) is
`vdplace.cli_parser`, the streams `vdplace.cli_output`.

A new sub-command is made with `_command` (which adds ``--json``, ``-o`` and
``--color``, and closes its help with its row of `EXIT_STATUSES`) and
implemented as ``cmd_NAME(args, out) -> int``: it writes through `out`, and
raises `Failure` (or lets an ``ir.IRError`` / ``runtime.VMError`` through)
for anything that goes wrong; `main` turns every exception into one line or
one JSON document and its exit status.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from vdplace import cli_figures as figures
from vdplace import progress
from vdplace.cli_fix import add_fix_options, cmd_fix
from vdplace.cli_output import COLORS, EXIT_BAD_INPUT, EXIT_OK, Failure, Output, json_text
from vdplace.cli_parser import Parser, UsageError, non_negative_int, positive_float, positive_int
from vdplace.cli_place import EXIT_CONFLICT, _read_module, cmd_place
from vdplace.cli_run import cmd_run

Command = Callable[[argparse.Namespace, Output], int]

# What each exit status of each command means; `exit_statuses` writes the README's column from it.  A new
# sub-command adds its row here (and to the README's table, which tests/cli/test_errors.py checks).
EXIT_STATUSES: dict[str, list[tuple[int, str]]] = {
    "place": [(0, "placed"), (1, "conflict"), (2, "bad input")],
    "run": [(0, "ran"), (1, "conflict or device error"), (2, "bad input")],
    "run --ray": [(0, "ran"), (1, "conflict, device or run error"), (2, "bad input")],
    "fix": [(0, "places"), (1, "a conflict has no fix"), (2, "bad input")],
    "calibrate": [(0, "written"), (1, "device error"), (2, "bad input")],
    "bench": [(0, "measured"), (1, "a measurement failed"), (2, "bad input")],
    "--version": [(0, "")],
}
COMMON_STATUSES = [(3, "an internal error (a bug in vdplace: please report it)"), (130, "interrupted")]
DEBUG_ENV = "VDPLACE_DEBUG"  # set: an internal error shows its traceback


def exit_statuses(command: str) -> str:
    """``0 placed, 1 conflict, 2 bad input``: the exit statuses of `command` (``"run --ray"`` too)."""
    return ", ".join(f"{status} {meaning}".strip() for status, meaning in EXIT_STATUSES[command])


def cmd_calibrate(args: argparse.Namespace, out: Output) -> int:
    """`vdplace calibrate` (`vdplace.calibration.cli`): the cost table (JSON) as the result, a summary on stderr."""
    from vdplace import ir
    from vdplace.calibration.cli import calibrate
    from vdplace.cli_place import _with_vdevices
    from vdplace.cli_run import _load_inputs, _read_npz

    with progress.display(enabled=not args.json):
        mod = _with_vdevices(_read_module(args.file), args.vdevice)
        if args.entry not in mod:
            raise ir.ParseError(f"{args.file}: no function {args.entry!r}; the module has {', '.join(mod) or 'none'}")
        params = None if args.params is None else _read_npz(args.params, "cannot bind --params")
        given = args.inputs != "random" and args.values == "program"
        inputs = _load_inputs(args.inputs, mod, args.entry) if given else None
        with progress.stage("calibrate"):
            result = calibrate(args, mod, inputs, params)  # Ray actors that cannot start: a VMError, exit status 1
    out.result(result.model.to_json())
    out.diagnostic(result.summary())
    return EXIT_OK


def cmd_bench(args: argparse.Namespace, out: Output) -> int:
    """`vdplace bench`: the placement benchmarks (`vdplace.bench.cli`)."""
    from vdplace.bench.cli import run_command

    return run_command(args, out)


def _placement_options(p: argparse.ArgumentParser, default_policy: str) -> None:
    """The FILE argument and the options `place` and `run` share."""
    p.add_argument("file", help="a TVMScript module (.py); '-' reads it from stdin")
    p.add_argument("--strict", action="store_true", help="make hint_on_device a hard constraint")
    p.add_argument(
        "--specialize",
        action="store_true",
        help="when no placement exists, clone functions per device signature their call sites need",
    )
    p.add_argument(
        "--default",
        choices=("none", "first", "host"),
        default=None,
        help="device for tensors nothing constrains: leave unannotated (TVM's behaviour), the first vdevice "
        f"(the RFC's), or the host (default: {default_policy}; not with --cost, which places every tensor)",
    )
    p.set_defaults(default_policy=default_policy)
    p.add_argument(
        "--vdevice",
        action="append",
        default=[],
        metavar="KIND[:ID[:SCOPE]]",
        help="add a vdevice the module does not declare, e.g. cuda:0 (repeatable; frontend output declares none)",
    )
    p.add_argument(
        "--dim",
        action="append",
        default=[],
        metavar="NAME=SIZE",
        help="the size of a symbolic dim, e.g. n=1024, for every byte and time figure (repeatable; default: the "
        "function's tir_var_upper_bound, else 4, with a warning; `run` also makes its random inputs so)",
    )
    p.add_argument(
        "--report",
        metavar="OUT.html",
        help="also write an HTML report: of the conflicts, or of the placement (graph, devices, copies, bytes)",
    )


def _cost_options(p: argparse.ArgumentParser) -> None:
    """``--cost``, ``--memory``, ``--time-limit`` and ``--objective``: cost-aware placement (`_cost_model`)."""
    p.add_argument(
        "--cost",
        metavar="roofline|COSTS.json",
        help="place by estimated time with this model (docs/cost.md); 'roofline': the default roofline",
    )
    p.add_argument(
        "--objective",
        choices=("time",),
        help="time: least makespan of the predicted schedule, memory by liveness (docs/schedule.md); "
        "--report then draws the schedule",
    )
    p.add_argument(
        "--memory",
        action="append",
        metavar="VDEV=SIZE",
        help="a device's memory, e.g. cuda:0=2GiB (repeatable): the plan's limit, and with run the bytes live "
        "on the device at once",
    )
    p.add_argument(
        "--time-limit",
        type=positive_float,
        default=None,
        metavar="S",
        help="the solver's time limit in seconds, > 0, past which its best answer is used (default: 60 with --cost, "
        "none otherwise); with --objective time, the whole command's placement (docs/schedule.md)",
    )


def _ray_options(run: Parser) -> None:
    """``--ray[=ADDRESS]`` and its options (`runtime.ray.cli` runs it; Ray is imported only by a run on it)."""
    run.attached(
        "--ray",
        "local",
        metavar="ADDRESS",
        help="run on Ray, one actor per device: a local cluster, or with --ray=ADDRESS the cluster there "
        "(auto, HOST:PORT, ray://HOST:PORT; the ray extra)",
    )
    run.add_argument(
        "--actor",
        action="append",
        default=[],
        metavar="VDEVICE=KIND[@NODE]",
        help="with --ray: the actor of a vdevice (cpu, sim or gpu), optionally on the node with that IP",
    )
    run.add_argument(
        "--microbatches", type=positive_int, default=1, metavar="K", help="with --ray: stream K micro-batches"
    )
    run.add_argument(
        "--timeout",
        type=positive_float,
        default=600.0,
        metavar="S",
        help="with --ray: fail after S seconds, actors' start included (default: 600)",
    )
    run.add_argument(
        "--retries", type=non_negative_int, default=0, metavar="N", help="with --ray: re-run a failed micro-batch"
    )


def _command(
    sub: Any,
    name: str,
    func: Command,
    help: str,
    output_help: str = "write the result to FILE, not stdout",
) -> Parser:
    """Sub-command `name` with the options every command has (``--json``, ``-o``, ``--color``); its exit
    statuses (`EXIT_STATUSES`) close its ``--help``."""
    epilog = f"exit status: {exit_statuses(name)}; {', '.join(f'{s} {m}' for s, m in COMMON_STATUSES)}"
    p = sub.add_parser(name, help=help, description=help[:1].upper() + help[1:] + ".", epilog=epilog)
    p.add_argument(
        "--json", action="store_true", help="print the result as one JSON document, success or failure (docs/cli.md)"
    )
    p.add_argument("-o", "--output", metavar="FILE", help=output_help)
    p.add_argument(
        "--color",
        choices=COLORS,
        default="auto",
        help="colour diagnostics: auto (on a terminal, unless NO_COLOR is set), always or never",
    )
    p.set_defaults(func=func)
    return p


def build_parser() -> Parser:
    """The `vdplace` parser: sub-commands place, run, fix, calibrate and bench."""
    from vdplace import __version__
    from vdplace.bench.cli import add_options as add_bench_options
    from vdplace.calibration.cli import add_arguments as calibrate_arguments

    parser = Parser(prog="vdplace", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"vdplace {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)

    place = _command(
        sub,
        "place",
        cmd_place,
        "place a module and print it, or explain why no placement exists",
        "write the placed module (or --json) to FILE, not stdout",
    )
    _placement_options(place, "none")
    _cost_options(place)

    run = _command(
        sub,
        "run",
        cmd_run,
        "place, compile and run a module",
        "write the outputs (and profile, or --json) to FILE, not stdout",
    )
    # A program can only run once every tensor has a device: what nothing
    # constrains (an If condition, say) goes to the host unless told otherwise.
    _placement_options(run, "host")
    run.add_argument("--entry", default="main", help="function to run (default: main)")
    run.add_argument("--inputs", default="random", help="'random' or an .npz file with one array per parameter name")
    run.add_argument(
        "--params",
        metavar="FILE.npz",
        help="values of the constants the text only references (metadata[kind][i]), keyed 'kind:index'",
    )
    run.add_argument("--simulate", action="store_true", help="simulate devices this machine does not have")
    run.add_argument("--cpu", action="store_true", help="run every vdevice on the CPU (a reference run)")
    run.add_argument("--profile", action="store_true", help="print time, copies and memory per device")
    _cost_options(run)
    _ray_options(run)

    fix = _command(
        sub,
        "fix",
        cmd_fix,
        "apply the first checked fix of every conflict, until the module places",
        "write the fixed module (or --json) to FILE, not stdout",
    )
    add_fix_options(fix)

    calibrate = _command(
        sub,
        "calibrate",
        cmd_calibrate,
        "time a module's op calls on the run's devices and write a cost table",
        "write the cost table (JSON) to FILE, not stdout",
    )
    calibrate.add_argument("file", help="a TVMScript module (.py); '-' reads it from stdin")
    calibrate.add_argument("--out", dest="output", help=argparse.SUPPRESS)  # the old name of -o
    calibrate.add_argument(
        "--repeat", type=positive_int, default=5, help="timed calls per op after a warm-up (default: 5)"
    )
    calibrate_arguments(calibrate)

    bench = _command(
        sub,
        "bench",
        cmd_bench,
        "run the placement benchmarks and print the table",
        "write the table (or --json) to FILE, not stdout",
    )
    add_bench_options(bench)
    return parser


def _failure(err: BaseException, args: argparse.Namespace | None) -> Failure:
    """The `Failure` an exception from a command stands for (every exception is one; see `main`)."""
    from vdplace import ir

    if isinstance(err, Failure):
        return err
    if isinstance(err, UsageError):
        return Failure(str(err), "usage")
    if isinstance(err, KeyboardInterrupt):
        return Failure("interrupted", "interrupted")
    if isinstance(err, ir.IRError):  # bad input; a placement error with no position gets the module's file name
        span = err.span
        named = span is not None or isinstance(err, ir.ParseError)  # the command line's own errors name theirs
        file = getattr(args, "file", None)
        where = "" if named or not file else f"{file}: "
        location = (span.file, span.line, span.col) if span is not None else None
        return Failure(f"{where}{err}", "bad-input", location)
    runtime = sys.modules.get("vdplace.runtime")
    if runtime is not None and isinstance(err, runtime.VMError):
        return Failure(str(err), "device" if isinstance(err, runtime.DeviceUnavailable) else "run")
    return Failure(
        f"internal error: {type(err).__name__}: {err} (a bug in vdplace; {DEBUG_ENV}=1 shows the traceback)",
        "internal",
    )


def _command_of(argv: Sequence[str]) -> str:
    """The sub-command `argv` names (for reporting a mistake before it is parsed), else ``"vdplace"``."""
    words = [w for w in argv if not w.startswith("-")]
    return words[0] if words and words[0] in EXIT_STATUSES else "vdplace"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command `argv` names (default: ``sys.argv[1:]``); the exit status (`EXIT_STATUSES`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    stdout_closed = _open_missing_streams()
    figures.warnings_to_stderr()
    parser = build_parser()
    out = Output(_command_of(argv), json="--json" in argv, color=_color_of(argv))
    args = None
    try:
        args = parser.parse(argv)
        out = Output(args.command, json=args.json, path=args.output, color=args.color)
        if stdout_closed and args.output in (None, "-"):
            raise Failure("stdout is closed: there is nowhere to write the result (give -o FILE)", "bad-input")
        return args.func(args, out)
    except BrokenPipeError:  # `vdplace place big.py | head`: the reader left; nothing more to say
        _silence_stdout()
        return EXIT_OK
    except SystemExit as exit:  # --help, --version
        return exit.code if isinstance(exit.code, int) else EXIT_BAD_INPUT
    except BaseException as err:  # noqa: BLE001  (every failure is one line or one document, never a traceback)
        failure = _failure(err, args)
        if failure.kind == "internal" and os.environ.get(DEBUG_ENV):
            raise
        return out.fail(failure)


def _color_of(argv: Sequence[str]) -> str:
    """``--color`` as written in `argv` (for a mistake reported before parsing), else ``auto``."""
    for i, word in enumerate(argv):
        if word.startswith("--color="):
            return word.split("=", 1)[1]
        if word == "--color" and i + 1 < len(argv):
            return argv[i + 1]
    return "auto"


def _open_missing_streams() -> bool:
    """Give a standard stream the process was started without (``2>&-``: `sys.stderr` is None) /dev/null, so
    that what would go there is lost and the command runs as it would with it; whether stdout was missing."""
    missing = sys.stdout is None
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115  (the process's, to its end)
    return missing


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that Python's flush at exit does not fail on the closed pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


__all__ = ["EXIT_BAD_INPUT", "EXIT_CONFLICT", "EXIT_OK", "EXIT_STATUSES", "build_parser", "json_text", "main"]
