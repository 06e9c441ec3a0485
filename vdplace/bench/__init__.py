"""Placement benchmarks: module generators, a per-size runner, a table, an optional plot.

    vdplace bench --family chain transformer --sizes 1000 100000 --plot out.png
    python benchmarks/bench_place.py --sizes 100000

The families are described in `vdplace.bench.generators`; with apache-tvm
importable the same modules are built with TVM (`vdplace.bench.tvm_models`)
and ``relax.transform.RealizeVDevice`` is timed on them, and the table prints
the ratio.  ``--encodings`` compares Z3's two encodings of a device variable
(bit-vector and EnumSort) with propagation off, so that Z3 decides every
constrained class, and prints the solve phase of each.

Each measurement runs in a fresh child interpreter (`vdplace.bench.measure`),
so the peak resident memory belongs to that run alone; ``--tracemalloc`` adds
Python's own peak allocation (slower).
"""

from vdplace.bench.cli import main
from vdplace.bench.generators import FAMILIES, GENERATORS
from vdplace.bench.measure import run_one, run_tvm_one
from vdplace.bench.plot import plot
from vdplace.bench.runner import compare_encodings, run

__all__ = ["FAMILIES", "GENERATORS", "compare_encodings", "main", "plot", "run", "run_one", "run_tvm_one"]
