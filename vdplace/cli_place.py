"""`vdplace place`, and what `vdplace run` shares with it: reading the module, placing it, reporting.

The placement options (`vdplace.cli._placement_options`, `_cost_options`)
become one `place()` call (`_place`); a conflict is reported as text on
stderr or as the JSON document (`_report_conflict`); ``--report`` writes
the conflict page or the placement page.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vdplace import cli_figures as figures
from vdplace import progress
from vdplace.cli_output import EXIT_FAILED, EXIT_OK, Failure, Output, read_stdin, write_stdout

if TYPE_CHECKING:
    from vdplace.ir import IRModule
    from vdplace.placement import Objective, Placement, PlacementConflict

EXIT_CONFLICT = EXIT_FAILED


def _read_module(path: str) -> IRModule:
    """Parse FILE (``-``: stdin), turning every way it can be unreadable into one `ParseError`."""
    from vdplace import ir
    from vdplace.ir.source_file import universal_newlines

    with progress.stage(f"parse {path}"):
        if path != "-":
            return ir.parse_file(path)
        try:
            text = read_stdin().decode("utf-8")
        except UnicodeDecodeError as err:
            raise ir.ParseError(f"cannot read the module from stdin: {err}") from None
        return ir.parse(universal_newlines(text), filename="<stdin>")


def _place(mod: IRModule, args: argparse.Namespace, dims: dict[str, int] | None = None) -> Placement:
    """Place `mod` with the placement options of the command line, symbolic dims sized by `dims` (default:
    ``--dim``); raises `PlacementConflict`.

    Every option goes to the one driver, whatever the objective: one it cannot use (``--strict``,
    ``--specialize`` or ``--default`` with ``--cost``) is bad input, never ignored.
    """
    from vdplace import ir, placement

    mod = _with_vdevices(mod, args.vdevice)
    time_objective = getattr(args, "objective", None) == "time"
    model = _cost_model(args)
    objective: Objective | None
    if time_objective:  # --memory: the schedule's limits by liveness (`placement.Time`)
        objective = placement.Time(model, memory=_memory_limits(args))
    else:
        objective = None if model is None else placement.Cost(model)
    default = args.default if args.default is not None else ("none" if model is not None else args.default_policy)
    try:
        driver = placement.api.bind(
            objective=objective,
            strict_hints=args.strict,
            default=default,
            specialize=args.specialize,
            time_limit_s=args.time_limit,
            dims=figures.dims(args) if dims is None else dims,
        )
    except ValueError as err:
        raise ir.ParseError(f"cannot place with these options: {err}") from None
    with progress.stage("place"):
        return driver(mod)


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

    ``--memory`` without ``--cost`` limits the default roofline model (`CostModel.roofline`), as does
    ``--cost roofline``; ``--objective time`` always places with a model (the roofline without ``--cost``),
    its ``--memory`` limits given to `placement.Time`, not to the model.
    """
    time_objective = getattr(args, "objective", None) == "time"
    if getattr(args, "cost", None) is None and not getattr(args, "memory", None) and not time_objective:
        return None
    from vdplace import ir
    from vdplace.placement.cost import CostModel

    try:
        model = CostModel.from_json(args.cost) if args.cost and args.cost != "roofline" else CostModel.roofline()
    except (OSError, ValueError) as err:
        raise ir.ParseError(f"cannot use the cost model: {err}") from None
    try:
        limits = _memory_limits(args)
    except ValueError as err:
        raise ir.ParseError(str(err)) from None
    if not time_objective:
        model.memory.update(limits)
    return model


def _memory_limits(args: argparse.Namespace) -> dict[str, int]:
    """``--memory VDEV=SIZE`` (repeatable; 2GiB, 512MiB, bytes) as {vdevice name: bytes}; ValueError on bad text."""
    from vdplace.placement.cost import parse_bytes

    limits: dict[str, int] = {}
    for spec in getattr(args, "memory", None) or ():
        name, sep, size = spec.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--memory {spec!r}: write VDEVICE=SIZE, e.g. cuda:0=2GiB")
        try:
            limits[name.strip()] = parse_bytes(size)
        except ValueError as err:
            raise ValueError(f"--memory {spec!r}: {err}") from None
    return limits


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
        "schedule": None if result.schedule is None else result.schedule.as_dict(),
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

    `ir.write_script` holds a bounded part of the text in memory at a time.  A regular file (or a new one)
    is written beside `output`'s target (through symbolic links) and renamed over it once complete, with the
    mode of the file it replaces (a new one: 0o666 less the umask); anything else that exists there (a
    device such as /dev/null, a pipe) is written to in place, never replaced.
    """
    import stat
    import tempfile

    from vdplace import ir

    if not output or output == "-":
        with progress.paused() if sys.stdout.isatty() else _nothing():
            try:
                ir.write_script(mod, sys.stdout)
            except BrokenPipeError:
                raise
            except OSError as err:
                raise Failure(f"cannot write the result to stdout: {err.strerror or err}") from None
            write_stdout("\n")
        return
    target = os.path.realpath(output)
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    except OSError as err:
        raise Failure(f"cannot write {output}: {err.strerror or err}") from None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        try:
            with open(output, "w", encoding="utf-8") as f:
                ir.write_script(mod, f)
                f.write("\n")
        except OSError as err:
            raise Failure(f"cannot write {output}: {err.strerror or err}") from None
        return
    mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(prefix=".vdplace-", suffix=".py", dir=os.path.dirname(target))
    except OSError as err:
        raise Failure(f"cannot write {output}: {err.strerror or err}") from None
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            ir.write_script(mod, f)
            f.write("\n")
        os.replace(tmp, target)
    except OSError as err:
        raise Failure(f"cannot write {output}: {err.strerror or err}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


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
        placed, copies, clones, plan = result.module, result.copies, result.clones, result.cost or result.schedule
        summary, assuming = figures.summary(result), figures.assuming(result)
        del mod, result  # the input module and the solved constraints: freed before the text is written
        with progress.stage("print"):
            _write_module(placed, args.output)
    if plan is not None:  # the plan lists every copy, with its time; the schedule its makespan, bound, devices
        out.diagnostic("".join(f"# {line}\n" for line in plan.describe().splitlines()))
    else:
        out.diagnostic("".join(f"# copy: {copy.describe(placed.vdevices)}{assuming}\n" for copy in copies))
        out.diagnostic(summary)
    out.diagnostic("".join(f"# clone: {clone.describe()}\n" for clone in clones))
    return EXIT_OK


def _report_placement(result: Placement, args: argparse.Namespace) -> None:
    """``--report OUT.html`` for a module that places: the placement page (graph, devices, copies, bytes), or
    under ``--objective time`` the schedule's Gantt chart (`placement.schedule.gantt`)."""
    if args.report and result.schedule is not None:
        from vdplace.placement.schedule.gantt import gantt_html

        with progress.stage("write the report"):
            _write_file(args.report, gantt_html(result.schedule, args.file))
    elif args.report:
        from vdplace.placement.report.placed_html import placement_html

        with progress.stage("write the report"):
            _write_file(args.report, placement_html(result, args.file))
