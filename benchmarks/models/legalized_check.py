"""The corpus's models after TVM's LegalizeOps (every op a TOPI ``@T.prim_func``), run by TVM and by vdplace.

    python benchmarks/models/legalized_check.py            # every model of zoo.MODELS
    python benchmarks/models/legalized_check.py mlp gpt2   # some of them

Each model is exported (``torch.export``, TVM's ``from_exported_program``,
weights as constants), legalized with ``relax.transform.LegalizeOps``,
compiled for llvm and run by TVM; vdplace reads the same module
(``vdplace.tvm.from_tvm``), places it (``default="host"``) and runs it with
its NumPy runtime.  Printed per model: TIR functions, vdplace's parse + place
and run seconds, and the largest difference from TVM's outputs.  Needs the
``tvm`` and ``torch`` extras.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402
import tvm  # noqa: E402
import zoo  # noqa: E402
from tvm import relax  # noqa: E402
from tvm.relax.frontend.torch import from_exported_program  # noqa: E402
from tvm_checks import run_llvm  # noqa: E402

from vdplace import placement, runtime  # noqa: E402
from vdplace.tvm import from_tvm  # noqa: E402


def _flat(value: object) -> list[np.ndarray]:
    return [a for v in value for a in _flat(v)] if isinstance(value, (tuple, list)) else [np.asarray(value)]


def check(name: str) -> str:
    """One table row for model `name`."""
    model, args = zoo.build(name)
    with torch.no_grad():
        exported = torch.export.export(model, tuple(args))
    mod = relax.transform.LegalizeOps()(from_exported_program(exported, keep_params_as_input=False))
    inputs = [a.numpy() for a in args]
    want = run_llvm(mod, inputs)
    start = time.perf_counter()
    placed = placement.place(from_tvm(mod), default="host").module
    placed_s = time.perf_counter() - start
    start = time.perf_counter()
    got = _flat(runtime.VirtualMachine(runtime.compile(placed)).run("main", *inputs))
    run_s = time.perf_counter() - start
    diff = max(
        (float(np.max(np.abs(g.astype("float64") - w))) for g, w in zip(got, want, strict=True) if w.size), default=0.0
    )
    count = sum(1 for f in mod.functions.values() if isinstance(f, tvm.tirx.PrimFunc))
    return f"| {name} | {count} | {placed_s:.2f} | {run_s:.2f} | {diff:.1e} |"


def main(names: list[str]) -> None:
    print("| model | TIR functions | parse + place s | run s | max abs diff from TVM |")
    print("|---|---|---|---|---|")
    for name in names or sorted(zoo.MODELS):
        try:
            print(check(name), flush=True)
        except Exception as err:  # noqa: BLE001 - a row per model, whatever fails
            print(f"| {name} | {type(err).__name__}: {str(err).splitlines()[0][:120] if str(err) else ''} | | | |")


if __name__ == "__main__":
    main(sys.argv[1:])
