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

The names below are imported when first used, so that the command line's
parser (`vdplace.bench.cli.add_options`) does not import vdplace.ir.
"""

from importlib import import_module
from typing import Any

_WHERE = {
    "FAMILIES": "names",
    "GENERATORS": "generators",
    "run_one": "measure",
    "run_tvm_one": "measure",
    "plot": "plot",
    "compare_encodings": "runner",
    "run": "runner",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'vdplace.bench' has no attribute {name!r}")
    return getattr(import_module(f"vdplace.bench.{_WHERE[name]}"), name)


__all__ = ["FAMILIES", "GENERATORS", "compare_encodings", "plot", "run", "run_one", "run_tvm_one"]
