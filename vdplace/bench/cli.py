"""``vdplace bench``: the command line of the placement benchmarks."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from vdplace.bench.generators import FAMILIES, GENERATORS
from vdplace.bench.plot import plot
from vdplace.bench.runner import ENCODINGS, compare_encodings, encoding_option, run

DEFAULT_SIZES = (1_000, 10_000, 100_000, 300_000)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="vdplace bench", description="Placement benchmarks: time and memory per phase.")
    ap.add_argument("--family", nargs="+", choices=list(GENERATORS), default=list(FAMILIES))
    ap.add_argument("--sizes", nargs="+", type=int, default=list(DEFAULT_SIZES))
    ap.add_argument("--plot", metavar="PNG", help="write a plot of time against bindings (needs matplotlib)")
    ap.add_argument("--json", metavar="FILE", help="also write the raw results as JSON")
    ap.add_argument("--no-tvm", action="store_true", help="skip TVM even when it is installed")
    ap.add_argument("--tracemalloc", action="store_true", help="also report Python's peak allocation (slow)")
    ap.add_argument("--encoding", choices=ENCODINGS, default=None, help="Z3 encoding of a device variable")
    ap.add_argument("--no-propagate", action="store_true", help="let Z3 decide every constrained class")
    ap.add_argument("--encodings", action="store_true", help="compare Z3's bit-vector and EnumSort encodings")
    return ap


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The options; sizes must be positive.  A leading ``--`` (``vdplace bench -- --family chain``) is dropped."""
    ap = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--"]:
        argv = argv[1:]
    args = ap.parse_args(argv)
    if any(n <= 0 for n in args.sizes):
        ap.error("sizes must be positive")
    return args


def place_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments for `place()` the options ask for."""
    options: dict[str, Any] = {}
    if args.encoding:
        options.update(encoding_option(args.encoding))
    if args.no_propagate:
        options["propagate"] = False
    return options


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks `argv` asks for (default: ``sys.argv[1:]``); the exit status, 0."""
    args = parse_args(argv)
    if args.encodings:
        results = compare_encodings(args.family, args.sizes)
    else:
        tvm = False if args.no_tvm else None
        results = run(args.family, args.sizes, tvm=tvm, use_tracemalloc=args.tracemalloc, options=place_options(args))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if args.plot and not args.encodings:
        plot(results, args.plot)
        print(f"wrote {args.plot}")
    return 0
