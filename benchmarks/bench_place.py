#!/usr/bin/env python
"""Placement benchmark: per-phase times and peak memory of `place()` on four module families.

    python benchmarks/bench_place.py [--family chain ...] [--sizes 1000 100000 ...] [--plot out.png]

A thin wrapper over `vdplace bench` (the command line's benchmark, `vdplace.bench`); the
families are described in `vdplace/bench/generators.py`.  With apache-tvm importable, TVM's
RealizeVDevice is timed on the same modules and the ratio printed.
"""

import sys

from vdplace.cli import main

if __name__ == "__main__":
    argv = sys.argv[1:]
    sys.exit(main(["bench", *(argv[1:] if argv[:1] == ["--"] else argv)]))
