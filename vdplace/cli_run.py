"""`vdplace run`: place, compile and run a module; its outputs (and profile) as the result.

Inputs come from ``--inputs`` (random, seeded, or an .npz file with one array
per parameter name), constants from ``--params``; each of them wrong is bad
input naming the file and the parameter.  The outputs are one line per
array (shape, dtype, min / max / mean), or records in the ``--json``
document (``docs/schemas/vdplace-run.json``).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from vdplace import cli_figures as figures
from vdplace import progress
from vdplace.cli_output import EXIT_OK, Failure, Output
from vdplace.cli_place import _memory_limits, _place, _read_module, _report_conflict, _report_placement

if TYPE_CHECKING:
    from vdplace.ir import IRModule


def _read_npz(path: str, what: str) -> dict[str, Any]:
    """Every array of the .npz file `path`; anything else (a .npy, text, a pickle) is a `ParseError` saying so.

    `what` starts each message: ``"cannot load --inputs"``, ``"cannot bind --params"``.
    """
    import os
    import stat
    import zipfile

    import numpy as np

    from vdplace import ir

    try:
        with open(path, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # a zip is read from its end: a device has none
                raise ir.ParseError(f"{what} {path}: not a regular file (an .npz, as numpy.savez writes)")
            is_zip = zipfile.is_zipfile(f)
        if not is_zip:
            raise ir.ParseError(f"{what} {path}: not an .npz file (a zip of .npy arrays, as numpy.savez writes)")
        with np.load(path, allow_pickle=False) as data:
            return {name: data[name] for name in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        raise ir.ParseError(f"{what} {path}: {err}") from None


def _load_inputs(
    spec: str, mod: IRModule, entry: str, microbatches: int = 1, dims: dict[str, int] | None = None
) -> list[Any]:
    """The arguments of `entry`: random (seed 0; a batch of `microbatches`; symbolic dims sized by `dims`) or one
    array per parameter from an .npz."""
    import numpy as np

    from vdplace import ir
    from vdplace.runtime import random_inputs

    if spec == "random":
        return random_inputs(mod, entry, rng=np.random.default_rng(0), microbatches=microbatches, dims=dims)
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
            sized = figures.run_dims(args, mod, _load_inputs)
            result = _place(mod, args, sized)
        except PlacementConflict as err:
            return _report_conflict(err, args, out)
        _report_placement(result, args)
    return _execute(result.module, mod, args, out, sized)


def _execute(placed: IRModule, mod: IRModule, args: argparse.Namespace, out: Output, sized: dict[str, int]) -> int:
    """Compile and run `placed` on inputs whose symbolic dims have the sizes `sized` (`cli_figures.run_dims`); write
    the outputs (and profile) as the result."""
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
    # --memory limits the devices the run uses too (not --cpu's reference run): the bytes live on each at once.
    try:
        memory = {} if args.cpu else _memory_limits(args)
    except ValueError as err:
        raise ir.ParseError(str(err)) from None
    if args.ray is not None:
        from vdplace.runtime.ray.cli import execute

        outputs, table = execute(executable, lambda k: _inputs(args, mod, sized, microbatches=k), args, memory)
        return _write_outputs(outputs, table or None, None, args, out)
    devices = "cpu" if args.cpu else None
    vm = runtime.VirtualMachine(executable, devices=devices, simulate_missing=args.simulate, memory=memory)
    inputs = _inputs(args, mod, sized)
    try:
        outputs = vm.run(args.entry, *inputs, profile=args.profile)
    except runtime.InputError as err:
        if args.inputs == "random":
            raise
        raise Failure(f"--inputs {args.inputs}: {err}") from None
    profile = vm.profile  # recorded by the run when asked for
    return _write_outputs(
        outputs, profile.table() if args.profile and profile is not None else None, profile, args, out
    )


def _inputs(args: argparse.Namespace, mod: IRModule, sized: dict[str, int], microbatches: int = 1) -> list[Any]:
    """The run's arguments, symbolic dims sized by `sized`; random ones too big for the host name the sizes that
    ``--dim`` did not give (a ``tir_var_upper_bound`` may be far past what a run on this machine can hold)."""
    from vdplace import runtime

    try:
        return _load_inputs(args.inputs, mod, args.entry, microbatches=microbatches, dims=sized)
    except runtime.DeviceMemoryError as err:
        given = figures.dims(args)
        taken = [f"{name}={size}" for name, size in sized.items() if name not in given]
        if args.inputs != "random" or not taken:
            raise
        raise Failure(
            f"{err}; the random inputs took {', '.join(taken)} (the function's bound, else the default): "
            "give smaller sizes with --dim NAME=SIZE",
            "run",
        ) from None


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
