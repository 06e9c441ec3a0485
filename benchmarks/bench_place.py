#!/usr/bin/env python
"""Placement benchmark: per-phase times and peak memory of `place()` on four module families.

    python benchmarks/bench_place.py [--family chain ...] [--sizes 1000 100000 ...] [--plot out.png]

A thin wrapper over `vdplace.bench` (the same code `vdplace bench` runs); the
families are described in `vdplace/bench/generators.py`.  With apache-tvm importable, TVM's
RealizeVDevice is timed on the same modules and the ratio printed.
"""

import sys

from vdplace.bench import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
