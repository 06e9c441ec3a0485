"""The `vdplace` command: place, run and benchmark TVMScript modules.

Exit status: 0 success, 1 placement conflict (or a runtime device error),
2 bad input (unreadable file, parse error, unknown option value).

Streams: the result alone goes to stdout (the placed module, the ``--json``
document, or `run`'s outputs), or to ``-o FILE`` for `place`; every
diagnostic (conflict reports, copies, errors) goes to stderr.  With
``--json`` the JSON document is the result, conflict or not.  ``--report
OUT.html`` writes the conflict page, or the placement page when the module
places.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vdplace import progress

if TYPE_CHECKING:
    from vdplace.ir import IRModule
    from vdplace.placement import Placement, PlacementConflict

EXIT_OK, EXIT_CONFLICT, EXIT_BAD_INPUT = 0, 1, 2


def _read_module(path: str) -> IRModule:
    """Parse FILE, turning every way it can be unreadable into one `ParseError`."""
    from vdplace import ir

    with progress.stage(f"parse {path}"):
        return ir.parse_file(path)


def _place(mod: IRModule, args: argparse.Namespace) -> Placement:
    """Place `mod` with the placement options of the command line; raises `PlacementConflict`."""
    from vdplace import placement

    mod = _with_vdevices(mod, args.vdevice)
    model = _cost_model(args)
    with progress.stage("place"):
        if getattr(args, "objective", None) == "time":
            from vdplace.placement import Time

            return placement.place(mod, objective=Time(model), time_limit_s=args.time_limit)
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
        if getattr(args, "objective", None) != "time":
            return None
    from vdplace import ir
    from vdplace.placement.cost import CostModel, parse_bytes

    try:
        model = CostModel.from_json(args.cost) if args.cost and args.cost != "roofline" else CostModel.roofline()
        for spec in args.memory or ():
            name, sep, size = spec.partition("=")
            if not sep or not name.strip():
                raise ValueError(f"--memory {spec!r}: write VDEVICE=SIZE, e.g. cuda:0=2GiB")
            model.memory[name.strip()] = parse_bytes(size)
    except (OSError, ValueError) as err:
        raise ir.ParseError(f"cannot use the cost model: {err}") from None
    return model


def _placement_json(path: str, result: Placement) -> dict[str, Any]:
    """The `place --json` document of a successful placement."""
    from vdplace import ir

    return {
        "status": "placed",
        "file": path,
        "module": ir.script(result.module),
        "copies": [copy.as_dict(result.module.vdevices) for copy in result.copies],
        "stats": result.stats.as_dict(),
        "clones": [clone.as_dict() for clone in result.clones],
        "cost": None if result.cost is None else result.cost.as_dict(),
        "schedule": None if result.schedule is None else result.schedule.as_dict(),
    }


def _report_conflict(err: PlacementConflict, args: argparse.Namespace) -> int:
    """Report a conflict: text on stderr, or the JSON document as the output; HTML when asked. Exit status 1."""
    from vdplace.placement.report import render_html, render_json, render_text

    with progress.stage("report the conflicts"):
        if args.report:
            _write_file(args.report, render_html(err))
        if args.json:
            document = json.dumps(render_json(err), indent=2) + "\n"
        else:
            text = render_text(err, color=None)
    if args.json:
        _emit(document, getattr(args, "output", None))
    else:
        print(text, end="", file=sys.stderr)
    return EXIT_CONFLICT


def _write_file(path: str, text: str) -> None:
    """Write `text` to `path`; a file that cannot be written is bad input (`ParseError`, exit status 2)."""
    from vdplace import ir

    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as err:
        raise ir.ParseError(f"cannot write {path}: {err}") from None


def _write_module(mod: IRModule, output: str | None) -> None:
    """The placed module's text, then an empty line: streamed to `output` (``-o``, replaced whole), else stdout.

    `ir.write_script` holds a bounded part of the text in memory at a time;
    a file is written beside `output` and renamed over it once complete.
    """
    import os
    import tempfile

    from vdplace import ir

    if not output:
        ir.write_script(mod, sys.stdout)
        sys.stdout.write("\n")
        return
    folder = os.path.dirname(os.path.abspath(output))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".vdplace-", suffix=".py", dir=folder)
    except OSError as err:
        raise ir.ParseError(f"cannot write {output}: {err}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            ir.write_script(mod, f)
            f.write("\n")
        os.replace(tmp, output)
    except OSError as err:
        raise ir.ParseError(f"cannot write {output}: {err}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _emit(text: str, output: str | None) -> None:
    """The command's result: to the file `output` names (``-o``), else to stdout."""
    if output:
        _write_file(output, text)
    else:
        sys.stdout.write(text)


def cmd_place(args: argparse.Namespace) -> int:
    """`vdplace place`: the placed module (or JSON) on stdout or ``-o``; copies and conflicts on stderr."""
    from vdplace.placement import PlacementConflict

    with progress.display(enabled=not args.json):
        mod = _read_module(args.file)
        try:
            result = _place(mod, args)
        except PlacementConflict as err:
            return _report_conflict(err, args)
        _report_placement(result, args)
        if args.json:
            _emit(json.dumps(_placement_json(args.file, result), indent=2) + "\n", args.output)
            return EXIT_OK
        placed, copies, clones, plan = result.module, result.copies, result.clones, result.cost or result.schedule
        del mod, result  # the input module and the solved constraints: freed before the text is written
        with progress.stage("print"):
            _write_module(placed, args.output)
    if plan is not None:  # the plan lists every copy, with its time; the schedule its makespan, bound, devices
        print("".join(f"# {line}\n" for line in plan.describe().splitlines()), end="", file=sys.stderr)
    else:
        for copy in copies:
            print(f"# copy: {copy.describe(placed.vdevices)}", file=sys.stderr)
    for clone in clones:
        print(f"# clone: {clone.describe()}", file=sys.stderr)
    return EXIT_OK


def _report_placement(result: Placement, args: argparse.Namespace) -> None:
    """``--report OUT.html`` for a module that places: the placement page (devices, copies, bytes)."""
    if args.report and result.schedule is not None:
        from vdplace.placement.schedule.gantt import gantt_html

        with progress.stage("write the report"):
            _write_file(args.report, gantt_html(result.schedule, args.file))
    elif args.report:
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


def _summarize(value: Any, prefix: str = "out") -> list[str]:
    """One line per output array: its shape, dtype and min / max / mean (or first values)."""
    import numpy as np

    if isinstance(value, tuple):
        lines = []
        for i, v in enumerate(value):
            lines.extend(_summarize(v, f"{prefix}[{i}]"))
        return lines
    arr = np.asarray(value)
    if arr.size and np.issubdtype(arr.dtype, np.number):
        stats = f"min {arr.min():.6g}  max {arr.max():.6g}  mean {arr.mean():.6g}"
    else:
        stats = np.array2string(arr.ravel()[:8], threshold=8)
    return [f"{prefix}: shape {tuple(arr.shape)} {arr.dtype}  {stats}"]


def cmd_run(args: argparse.Namespace) -> int:
    """`vdplace run`: place, compile and run the entry function; print its outputs (and profile)."""
    from vdplace import ir
    from vdplace.placement import PlacementConflict

    with progress.display(enabled=not args.json):
        mod = _read_module(args.file)
        if args.entry not in mod:
            raise ir.ParseError(f"{args.file}: no function {args.entry!r}; the module has {', '.join(mod) or 'none'}")
        try:
            result = _place(mod, args)
        except PlacementConflict as err:
            return _report_conflict(err, args)
        _report_placement(result, args)
    return _execute(result.module, mod, args)


def _execute(placed: IRModule, mod: IRModule, args: argparse.Namespace) -> int:
    """Compile and run `placed`; a VM error (a device mismatch, a failing kernel) is one line and exit status 1."""
    from vdplace import runtime

    params = None if args.params is None else _read_npz(args.params, "cannot bind --params")
    try:
        executable = runtime.compile(placed, params=params)
        if args.ray is not None:
            return _execute_on_ray(executable, mod, args)
        devices = "cpu" if args.cpu else None
        vm = runtime.VirtualMachine(executable, devices=devices, simulate_missing=args.simulate)
        inputs = _load_inputs(args.inputs, mod, args.entry)
        outputs = vm.run(args.entry, *inputs, profile=args.profile)
    except runtime.VMError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_CONFLICT
    except ValueError as err:  # a --params key naming no constant, a value of an unsupported dtype
        print(f"error: cannot bind --params {args.params}: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for line in _summarize(outputs):
        print(line)
    if args.profile:
        print()
        print(vm.profile.table())
    return EXIT_OK


def cmd_calibrate(args: argparse.Namespace) -> int:
    """`vdplace calibrate`: time the op calls here; the table's JSON to --out (else stdout), a summary on stderr."""
    from vdplace import ir
    from vdplace.placement.cost import calibrate

    with progress.display(enabled=True):
        mod = _read_module(args.file)
        with progress.stage("calibrate"):
            try:
                result = calibrate(mod, repeat=args.repeat)
            except ValueError as err:
                raise ir.ParseError(f"cannot calibrate {args.file}: {err}") from None
    _emit(result.model.to_json(), args.out)
    print(result.summary(), end="", file=sys.stderr)
    return EXIT_OK


def _execute_on_ray(executable: Any, mod: IRModule, args: argparse.Namespace) -> int:
    """`vdplace run --ray`: the run on Ray actors (`runtime.ray.cli`); its errors are reported by `_execute`."""
    from vdplace.runtime.ray.cli import execute

    outputs, table = execute(executable, lambda j: _load_inputs(args.inputs, mod, args.entry, seed=j), args)
    for line in _summarize(outputs):
        print(line)
    if table:
        print()
        print(table)
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    """`vdplace bench`: the benchmark's own command line gets every argument after `bench`."""
    from vdplace.bench import main as bench_main

    return bench_main(args.bench_args)


def _placement_options(p: argparse.ArgumentParser, default_policy: str) -> None:
    """The FILE argument and the options `place` and `run` share."""
    p.add_argument("file", help="a TVMScript module (.py)")
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
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument(
        "--report",
        metavar="OUT.html",
        help="also write an HTML report: of the conflicts, or of the placement (devices, copies, bytes)",
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
        help="a memory limit for cost-aware placement, e.g. cuda:0=2GiB (repeatable)",
    )
    p.add_argument(
        "--time-limit", type=float, default=60.0, metavar="S", help="cost solvers' time limit in seconds (default: 60)"
    )


def _ray_options(run: argparse.ArgumentParser) -> None:
    """``--ray [ADDRESS]`` and its options (`runtime.ray.cli` runs it; Ray is imported only by a run on it)."""
    run.add_argument(
        "--ray",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="run on Ray, one actor per device: a local cluster, or the cluster at ADDRESS (the ray extra)",
    )
    run.add_argument(
        "--actor",
        action="append",
        default=[],
        metavar="VDEVICE=KIND[@NODE]",
        help="with --ray: the actor of a vdevice (cpu, sim or gpu), optionally on the node with that IP",
    )
    run.add_argument("--microbatches", type=int, default=1, metavar="K", help="with --ray: stream K micro-batches")
    run.add_argument("--timeout", type=float, default=600.0, metavar="S", help="with --ray: fail after S seconds")
    run.add_argument("--retries", type=int, default=0, metavar="N", help="with --ray: re-run a failed micro-batch")


def build_parser() -> argparse.ArgumentParser:
    """The `vdplace` parser: sub-commands place, run, calibrate and bench."""
    from vdplace import __version__

    parser = argparse.ArgumentParser(prog="vdplace", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"vdplace {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    place = sub.add_parser("place", help="place a module and print it, or explain why no placement exists")
    _placement_options(place, "none")
    place.add_argument("-o", "--output", metavar="FILE", help="write the placed module (or --json) to FILE, not stdout")
    _cost_options(place)
    place.set_defaults(func=cmd_place)

    run = sub.add_parser("run", help="place, compile and run a module")
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
    run.set_defaults(func=cmd_run)

    calibrate = sub.add_parser("calibrate", help="time a module's op calls on this machine and write a cost table")
    calibrate.add_argument("file", help="a TVMScript module (.py)")
    calibrate.add_argument("--out", metavar="COSTS.json", help="write the cost table to this file, not stdout")
    calibrate.add_argument("--repeat", type=int, default=5, help="timed calls per op after a warm-up (default: 5)")
    calibrate.set_defaults(func=cmd_calibrate)

    # Everything after `bench` belongs to the benchmark's own parser (`vdplace bench --help`).
    bench = sub.add_parser("bench", help="run the placement benchmarks and print the table", add_help=False)
    bench.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command `argv` names (default: ``sys.argv[1:]``); the exit status (module docstring)."""
    from vdplace import ir

    args, rest = build_parser().parse_known_args(argv)
    if args.command == "bench":
        args.bench_args = rest
    elif rest:
        build_parser().error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        return args.func(args)
    except ir.IRError as err:  # bad input; a placement error with no position gets the module's file name
        named = err.span is not None or isinstance(err, ir.ParseError)  # the command line's own errors name theirs
        where = "" if named or not getattr(args, "file", None) else f"{args.file}: "
        print(f"error: {where}{err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return EXIT_OK
