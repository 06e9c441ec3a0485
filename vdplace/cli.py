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

A new sub-command is made with `_command` (which adds ``--json``, ``-o`` and
``--color`` and records its exit statuses) and implemented as
``cmd_NAME(args, out) -> int``: it writes through `out`, and raises
`Failure` (or lets an ``ir.IRError`` / ``runtime.VMError`` through) for
anything that goes wrong; `main` turns every exception into one line or one
JSON document and its exit status.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from vdplace import progress
from vdplace.cli_output import (
    COLORS,
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    Failure,
    Output,
    json_text,
)
from vdplace.cli_parser import (
    Parser,
    UsageError,
    non_negative_int,
    positive_float,
    positive_int,
)

if TYPE_CHECKING:
    from vdplace.ir import IRModule
    from vdplace.placement import Placement, PlacementConflict

EXIT_CONFLICT = EXIT_FAILED
Command = Callable[[argparse.Namespace, Output], int]

# What each exit status of each command means; `exit_statuses` writes the README's column from it.  A new
# sub-command adds its row here (and to the README's table, which tests/test_cli_errors.py checks).
EXIT_STATUSES: dict[str, list[tuple[int, str]]] = {
    "place": [(0, "placed"), (1, "conflict"), (2, "bad input")],
    "run": [(0, "ran"), (1, "conflict or device error"), (2, "bad input")],
    "run --ray": [(0, "ran"), (1, "conflict, device or run error"), (2, "bad input")],
    "calibrate": [(0, "written"), (2, "bad input")],
    "bench": [(0, "measured"), (1, "a measurement failed"), (2, "bad input")],
    "--version": [(0, "")],
}
COMMON_STATUSES = [(3, "an internal error (a bug in vdplace: please report it)"), (130, "interrupted")]
DEBUG_ENV = "VDPLACE_DEBUG"  # set: an internal error shows its traceback


def exit_statuses(command: str) -> str:
    """``0 placed, 1 conflict, 2 bad input``: the exit statuses of `command` (``"run --ray"`` too)."""
    return ", ".join(f"{status} {meaning}".strip() for status, meaning in EXIT_STATUSES[command])


def _read_module(path: str) -> IRModule:
    """Parse FILE (``-``: stdin), turning every way it can be unreadable into one `ParseError`."""
    from vdplace import ir

    with progress.stage(f"parse {path}"):
        if path != "-":
            return ir.parse_file(path)
        try:
            text = sys.stdin.read()
        except (OSError, UnicodeDecodeError) as err:
            raise ir.ParseError(f"cannot read the module from stdin: {err}") from None
        return ir.parse(text, filename="<stdin>")


def _place(mod: IRModule, args: argparse.Namespace) -> Placement:
    """Place `mod` with the placement options of the command line; raises `PlacementConflict`."""
    from vdplace import placement

    mod = _with_vdevices(mod, args.vdevice)
    model = _cost_model(args)
    with progress.stage("place"):
        if model is not None:
            return placement.place(mod, cost=model, time_limit_s=args.time_limit)
        return placement.place(mod, strict_hints=args.strict, default=args.default, specialize=args.specialize)


def _with_vdevices(mod: IRModule, specs: Sequence[str]) -> IRModule:
    """`mod` with the ``--vdevice KIND[:ID[:SCOPE]]`` vdevices it does not declare appended to its list."""
    from vdplace import ir

    added = list(mod.vdevices)
    for spec in specs:
        kind, _, rest = spec.partition(":")
        index, _, scope = rest.partition(":")
        try:
            vdevice = ir.VDevice(kind, int(index or 0), scope or "global")
        except ValueError as err:
            raise ir.ParseError(f"--vdevice {spec!r}: {err} (write KIND[:ID[:SCOPE]], e.g. cuda:0)") from None
        if vdevice not in added:
            added.append(vdevice)
    return mod if len(added) == len(mod.vdevices) else mod.replace(vdevices=added)


def _cost_model(args: argparse.Namespace) -> Any:
    """``--cost FILE`` / ``--memory VDEV=SIZE``: the `CostModel` to place with, or None (the bytes objective).

    ``--memory`` without ``--cost`` limits the default roofline model (`CostModel.roofline`).
    """
    if getattr(args, "cost", None) is None and not getattr(args, "memory", None):
        return None
    from vdplace import ir
    from vdplace.placement.cost import CostModel, parse_bytes

    try:
        model = CostModel.from_json(args.cost) if args.cost else CostModel.roofline()
        for spec in args.memory or ():
            name, sep, size = spec.partition("=")
            if not sep or not name.strip():
                raise ValueError(f"--memory {spec!r}: write VDEVICE=SIZE, e.g. cuda:0=2GiB")
            model.memory[name.strip()] = parse_bytes(size)
    except (OSError, ValueError) as err:
        raise ir.ParseError(f"cannot use the cost model: {err}") from None
    return model


def _placement_json(path: str, result: Placement) -> dict[str, Any]:
    """The `place --json` document of a successful placement (``docs/schemas/vdplace-place.json``)."""
    from vdplace import ir

    return {
        "schema": "vdplace-place/1",
        "status": "placed",
        "file": path,
        "module": ir.script(result.module),
        "copies": [copy.as_dict(result.module.vdevices) for copy in result.copies],
        "stats": result.stats.as_dict(),
        "clones": [clone.as_dict() for clone in result.clones],
        "cost": None if result.cost is None else result.cost.as_dict(),
    }


def _report_conflict(err: PlacementConflict, args: argparse.Namespace, out: Output) -> int:
    """Report a conflict: text on stderr, or the JSON document as the result; HTML when asked. Exit status 1."""
    from vdplace.placement.report import render_html, render_json, render_text

    with progress.stage("report the conflicts"):
        if args.report:
            _write_file(args.report, render_html(err))
        if args.json:
            document = render_json(err)
        else:
            text = render_text(err, color=out.color)
    if args.json:
        out.document(document)
    else:
        out.diagnostic(text)
    return EXIT_CONFLICT


def _write_file(path: str, text: str) -> None:
    """Write `text` to `path`; a file that cannot be written is bad input (exit status 2)."""
    from vdplace.cli_output import write_file

    write_file(path, text)


def _write_module(mod: IRModule, output: str | None) -> None:
    """The placed module's text, then an empty line: streamed to `output` (``-o``, replaced whole), else stdout.

    `ir.write_script` holds a bounded part of the text in memory at a time;
    a file is written beside `output` and renamed over it once complete.
    """
    import tempfile

    from vdplace import ir

    if not output or output == "-":
        with progress.paused() if sys.stdout.isatty() else _nothing():
            ir.write_script(mod, sys.stdout)
            sys.stdout.write("\n")
        return
    folder = os.path.dirname(os.path.abspath(output))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".vdplace-", suffix=".py", dir=folder)
    except OSError as err:
        raise Failure(f"cannot write {output}: {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            ir.write_script(mod, f)
            f.write("\n")
        os.replace(tmp, output)
    except OSError as err:
        raise Failure(f"cannot write {output}: {err.strerror or err}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _nothing() -> Any:
    from contextlib import nullcontext

    return nullcontext()


def cmd_place(args: argparse.Namespace, out: Output) -> int:
    """`vdplace place`: the placed module (or JSON) on stdout or ``-o``; copies and conflicts on stderr."""
    from vdplace.placement import PlacementConflict

    with progress.display(enabled=not args.json):
        mod = _read_module(args.file)
        try:
            result = _place(mod, args)
        except PlacementConflict as err:
            return _report_conflict(err, args, out)
        _report_placement(result, args)
        if args.json:
            out.document(_placement_json(args.file, result))
            return EXIT_OK
        placed, copies, clones, plan = result.module, result.copies, result.clones, result.cost
        del mod, result  # the input module and the solved constraints: freed before the text is written
        with progress.stage("print"):
            _write_module(placed, args.output)
    if plan is not None:  # the plan lists every copy, with its time
        out.diagnostic("".join(f"# {line}\n" for line in plan.describe().splitlines()))
    else:
        out.diagnostic("".join(f"# copy: {copy.describe(placed.vdevices)}\n" for copy in copies))
    out.diagnostic("".join(f"# clone: {clone.describe()}\n" for clone in clones))
    return EXIT_OK


def _report_placement(result: Placement, args: argparse.Namespace) -> None:
    """``--report OUT.html`` for a module that places: the placement page (graph, devices, copies, bytes)."""
    if args.report:
        from vdplace.placement.report.placed_html import placement_html

        with progress.stage("write the report"):
            _write_file(args.report, placement_html(result, args.file))


def _read_npz(path: str, what: str) -> dict[str, Any]:
    """Every array of the .npz file `path`; anything else (a .npy, text, a pickle) is a `ParseError` saying so.

    `what` starts each message: ``"cannot load --inputs"``, ``"cannot bind --params"``.
    """
    import zipfile

    import numpy as np

    from vdplace import ir

    try:
        with open(path, "rb") as f:
            is_zip = zipfile.is_zipfile(f)
        if not is_zip:
            raise ir.ParseError(f"{what} {path}: not an .npz file (a zip of .npy arrays, as numpy.savez writes)")
        with np.load(path, allow_pickle=False) as data:
            return {name: data[name] for name in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        raise ir.ParseError(f"{what} {path}: {err}") from None


def _load_inputs(spec: str, mod: IRModule, entry: str, seed: int = 0) -> list[Any]:
    """The arguments of `entry`: random (seeded) or one array per parameter name from an .npz file."""
    import numpy as np

    from vdplace import ir
    from vdplace.runtime import random_inputs

    if spec == "random":
        return random_inputs(mod, entry, rng=np.random.default_rng(seed))
    data = _read_npz(spec, "cannot load --inputs")
    names = [p.name for p in mod[entry].params]
    missing = [n for n in names if n not in data]
    if missing:
        raise ir.ParseError(
            f"cannot load inputs: {spec} has no array for parameter(s) {', '.join(missing)}; it has {sorted(data)}"
        )
    return [data[n] for n in names]


def _output_records(value: Any, prefix: str = "out") -> list[dict[str, Any]]:
    """One record per output array: its name, shape, dtype and min / max / mean (or its first values)."""
    import numpy as np

    if isinstance(value, tuple):
        records = []
        for i, v in enumerate(value):
            records.extend(_output_records(v, f"{prefix}[{i}]"))
        return records
    arr = np.asarray(value)
    record: dict[str, Any] = {"name": prefix, "shape": list(arr.shape), "dtype": str(arr.dtype)}
    if arr.size and np.issubdtype(arr.dtype, np.number) and not np.issubdtype(arr.dtype, np.complexfloating):
        record.update(min=arr.min().item(), max=arr.max().item(), mean=arr.mean().item())
    else:
        record["first"] = np.array2string(arr.ravel()[:8], threshold=8)
    return [record]


def _summarize(value: Any, prefix: str = "out") -> list[str]:
    """One line per output array: its shape, dtype and min / max / mean (or first values)."""
    lines = []
    for r in _output_records(value, prefix):
        if "min" in r:
            stats = "  ".join(f"{k} {r[k]:.6g}" for k in ("min", "max", "mean"))
        else:
            stats = r["first"]
        lines.append(f"{r['name']}: shape {tuple(r['shape'])} {r['dtype']}  {stats}")
    return lines


def cmd_run(args: argparse.Namespace, out: Output) -> int:
    """`vdplace run`: place, compile and run the entry function; print its outputs (and profile)."""
    from vdplace.placement import PlacementConflict

    with progress.display(enabled=not args.json):
        mod = _read_module(args.file)
        if args.entry not in mod:
            raise Failure(f"{args.file}: no function {args.entry!r}; the module has {', '.join(mod) or 'none'}")
        try:
            result = _place(mod, args)
        except PlacementConflict as err:
            return _report_conflict(err, args, out)
        _report_placement(result, args)
    return _execute(result.module, mod, args, out)


def _execute(placed: IRModule, mod: IRModule, args: argparse.Namespace, out: Output) -> int:
    """Compile and run `placed`; write the outputs (and profile) as the result."""
    from vdplace import ir, runtime

    params = None if args.params is None else _read_npz(args.params, "cannot bind --params")
    try:
        executable = runtime.compile(placed, params=params)
    except runtime.MissingConstantError as err:
        raise Failure(_missing_constants(err, args.file)) from None
    except (ValueError, ir.IRError) as err:  # a key naming no constant, a value of the wrong dtype or shape
        if params is None:
            raise
        span = getattr(err, "span", None)
        location = None if span is None else (span.file, span.line, span.col)
        raise Failure(f"cannot bind --params {args.params}: {err}", location=location) from None
    if args.ray is not None:
        from vdplace.runtime.ray.cli import execute

        outputs, table = execute(executable, lambda j: _inputs(args, mod, seed=j), args)
        return _write_outputs(outputs, table or None, None, args, out)
    devices = "cpu" if args.cpu else None
    vm = runtime.VirtualMachine(executable, devices=devices, simulate_missing=args.simulate)
    inputs = _inputs(args, mod)
    try:
        outputs = vm.run(args.entry, *inputs, profile=args.profile)
    except runtime.InputError as err:
        if args.inputs == "random":
            raise
        raise Failure(f"--inputs {args.inputs}: {err}") from None
    return _write_outputs(outputs, vm.profile.table() if args.profile else None, vm.profile, args, out)


def _inputs(args: argparse.Namespace, mod: IRModule, seed: int = 0) -> list[Any]:
    return _load_inputs(args.inputs, mod, args.entry, seed=seed)


def _missing_constants(err: Any, path: str) -> str:
    """One line for constants without values, in the command line's terms (``--params``, not ``params=``)."""
    refs = [f"{ref} (line {where.rsplit(':', 2)[-2]})" if where else ref for ref, where in err.missing]
    shown = ", ".join(refs[:3]) + (f" and {len(refs) - 3} more" if len(refs) > 3 else "")
    return (
        f"{path}: {len(refs)} constant(s) have no value: {shown}; "
        "give their values with --params FILE.npz (one array per constant, keyed like 'ir.GenericConst:0')"
    )


def _write_outputs(outputs: Any, table: str | None, profile: Any, args: argparse.Namespace, out: Output) -> int:
    """`run`'s result: a line per output and the profile table, or the ``--json`` document."""
    if args.json:
        document = {
            "schema": "vdplace-run/1",
            "status": "ran",
            "file": args.file,
            "entry": args.entry,
            "ray": args.ray is not None,
            "outputs": _output_records(outputs),
            "profile": None if table is None else _profile_json(table, profile),
        }
        out.document(document)
        return EXIT_OK
    text = "".join(f"{line}\n" for line in _summarize(outputs))
    if table is not None:
        text += f"\n{table}\n"
    out.result(text)
    return EXIT_OK


def _profile_json(table: str, profile: Any) -> dict[str, Any]:
    """The profile in the ``run --json`` document: its table, and the local VM's figures."""
    document: dict[str, Any] = {"table": table}
    if profile is not None:
        document.update(
            seconds=profile.total_seconds,
            copies=profile.num_copies,
            bytes_copied=profile.bytes_copied,
            peak_bytes=profile.peak_bytes,
            by_device={name: {"count": n, "seconds": s} for name, (n, s) in profile.by_device.items()},
        )
    return document


def cmd_calibrate(args: argparse.Namespace, out: Output) -> int:
    """`vdplace calibrate`: time the op calls here; the cost table (JSON) as the result, a summary on stderr."""
    from vdplace import ir
    from vdplace.placement.cost import calibrate

    with progress.display(enabled=not args.json):
        mod = _read_module(args.file)
        with progress.stage("calibrate"):
            try:
                result = calibrate(mod, repeat=args.repeat)
            except ValueError as err:
                raise ir.ParseError(f"cannot calibrate {args.file}: {err}") from None
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
        default=default_policy,
        help="device for tensors nothing constrains: leave unannotated (TVM's behaviour), the first vdevice "
        f"(the RFC's), or the host (default: {default_policy})",
    )
    p.add_argument(
        "--vdevice",
        action="append",
        default=[],
        metavar="KIND[:ID[:SCOPE]]",
        help="add a vdevice the module does not declare, e.g. cuda:0 (repeatable; frontend output declares none)",
    )
    p.add_argument(
        "--report",
        metavar="OUT.html",
        help="also write an HTML report: of the conflicts, or of the placement (graph, devices, copies, bytes)",
    )


def _cost_options(p: argparse.ArgumentParser) -> None:
    """``--cost``, ``--memory`` and ``--time-limit``: cost-aware placement (`_cost_model`)."""
    p.add_argument("--cost", metavar="COSTS.json", help="place by estimated time with this model (docs/cost.md)")
    p.add_argument(
        "--memory",
        action="append",
        metavar="VDEV=SIZE",
        help="a memory limit for cost-aware placement, e.g. cuda:0=2GiB (repeatable)",
    )
    p.add_argument(
        "--time-limit",
        type=positive_float,
        default=60.0,
        metavar="S",
        help="cost solvers' time limit in seconds, > 0 (default: 60)",
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
    """The `vdplace` parser: sub-commands place, run, calibrate and bench."""
    from vdplace import __version__
    from vdplace.bench.cli import add_options as add_bench_options

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

    calibrate = _command(
        sub,
        "calibrate",
        cmd_calibrate,
        "time a module's op calls on this machine and write a cost table",
        "write the cost table (JSON) to FILE, not stdout",
    )
    calibrate.add_argument("file", help="a TVMScript module (.py); '-' reads it from stdin")
    calibrate.add_argument("--out", dest="output", help=argparse.SUPPRESS)  # the old name of -o
    calibrate.add_argument(
        "--repeat", type=positive_int, default=5, help="timed calls per op after a warm-up (default: 5)"
    )

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
    parser = build_parser()
    out = Output(_command_of(argv), json="--json" in argv, color=_color_of(argv))
    args = None
    try:
        args = parser.parse(argv)
        out = Output(args.command, json=args.json, path=args.output, color=args.color)
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


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that Python's flush at exit does not fail on the closed pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


__all__ = ["EXIT_BAD_INPUT", "EXIT_CONFLICT", "EXIT_OK", "EXIT_STATUSES", "build_parser", "json_text", "main"]
