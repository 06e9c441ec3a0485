"""``vdplace bench``: the command line of the placement benchmarks.

`add_options` declares the options (``vdplace bench`` and
``benchmarks/bench_place.py`` share them); `run_command` runs them with the
command line's `Output`: the aligned table (or, with ``--json``, one JSON
document, ``docs/schemas/vdplace-bench.json``) as the result, a progress line
on a terminal while the measurements run, ``--plot`` checked before anything
is measured.
"""

from __future__ import annotations

import argparse
import io
from typing import Any

from vdplace import progress
from vdplace.bench.names import ENCODINGS, FAMILIES, GENERATOR_NAMES
from vdplace.cli_output import Failure, Output, write_stdout
from vdplace.cli_parser import positive_int

DEFAULT_SIZES = (1_000, 10_000, 100_000, 300_000)
SCHEMA = "vdplace-bench/1"


def add_options(ap: argparse.ArgumentParser) -> None:
    """The benchmark's options (``--json``, ``-o`` and ``--color`` come with the command, `vdplace.cli._command`)."""
    ap.add_argument(
        "--family",
        nargs="+",
        choices=list(GENERATOR_NAMES),
        default=list(FAMILIES),
        metavar="NAME",
        help=f"module families to build: {', '.join(GENERATOR_NAMES)} (default: {' '.join(FAMILIES)})",
    )
    ap.add_argument(
        "--sizes",
        nargs="+",
        type=positive_int,
        default=list(DEFAULT_SIZES),
        metavar="N",
        help=f"about how many bindings each module has (default: {' '.join(map(str, DEFAULT_SIZES))})",
    )
    ap.add_argument("--plot", metavar="PNG", help="also write a plot of time against bindings (needs matplotlib)")
    ap.add_argument("--no-tvm", action="store_true", help="skip TVM even when it is installed")
    ap.add_argument("--tracemalloc", action="store_true", help="also report Python's peak allocation (slow)")
    ap.add_argument("--encoding", choices=ENCODINGS, default=None, help="Z3 encoding of a device variable")
    ap.add_argument("--no-propagate", action="store_true", help="let Z3 decide every constrained class")
    ap.add_argument("--encodings", action="store_true", help="compare Z3's bit-vector and EnumSort encodings")


def place_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments for `place()` the options ask for."""
    from vdplace.bench.runner import encoding_option

    options: dict[str, Any] = {}
    if args.encoding:
        options.update(encoding_option(args.encoding))
    if args.no_propagate:
        options["propagate"] = False
    return options


class _Rows(io.StringIO):
    """The table as it is measured: each row to stdout at once (nothing kept), never on the progress line."""

    def write(self, text: str) -> int:
        with progress.paused():
            write_stdout(text)
        return len(text)


def run_command(args: argparse.Namespace, out: Output) -> int:
    """Run the benchmarks `args` asks for; the table or the JSON document as the result.  Exit status 0."""
    if args.plot:
        if args.encodings:
            raise Failure("--plot draws placement times; it cannot be combined with --encodings", "usage")
        from vdplace.bench.plot import require_matplotlib

        require_matplotlib()
    from vdplace.bench.runner import compare_encodings, run

    streaming = not args.json and not (args.output and args.output != "-")
    table = _Rows() if streaming else io.StringIO()
    try:
        with progress.display(enabled=not args.json):
            if args.encodings:
                results = compare_encodings(args.family, args.sizes, out=table)
            else:
                tvm = False if args.no_tvm else None
                results = run(
                    args.family,
                    args.sizes,
                    tvm=tvm,
                    use_tracemalloc=args.tracemalloc,
                    options=place_options(args),
                    out=table,
                )
    except RuntimeError as err:  # a measurement's child interpreter printed no result
        lines = [line for line in str(err).splitlines() if line.strip()]
        message = f"{lines[0].rstrip(':')}: {lines[-1].strip()}" if len(lines) > 1 else str(err)
        raise Failure(message, "run") from None
    if args.json:
        out.document({"schema": SCHEMA, "kind": "encodings" if args.encodings else "placement", "rows": results})
    elif not streaming:
        out.result(table.getvalue())
    if args.plot:
        from vdplace.bench.plot import plot

        plot(results, args.plot)
        out.diagnostic(f"wrote {args.plot}")
    return 0
