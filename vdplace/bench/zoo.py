"""A torch model as the benches use it: its Relax program with the weights as parameters, its inputs, its weights.

    from vdplace.bench.zoo import import_torch
    loaded = import_torch(model, args)        # model: an eval-mode torch.nn.Module, args: its example inputs
    loaded.module, loaded.inputs, loaded.weights, loaded.weight_bytes

The one loader of `benchmarks/bench_accelerate.py` and of
`benchmarks/bench_measured.py --scale large`: the program is
``vdplace.tvm.from_torch(model, args, keep_params_as_input=True)`` (torch
and tvm needed, imported here lazily), the inputs are `args`' tensors as
NumPy arrays in the order of the program's inputs, and the weights are the
torch model's values by the program's parameter names (``p_`` + the
qualified name, docs/accelerate.md), the ones the program reads after its
``num_input`` inputs.  The program declares no vdevices: a bench gives it
its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from vdplace.ir.module import IRModule


@dataclass(frozen=True)
class TorchProgram:
    """A torch model imported for a bench (module docstring)."""

    torch_model: Any  # the torch.nn.Module
    module: IRModule  # its Relax program, the weights as parameters after the inputs
    inputs: list[np.ndarray]  # the program's inputs, in order
    weights: dict[str, np.ndarray]  # weight parameter name -> value, in the program's order

    @property
    def weight_bytes(self) -> int:
        """Bytes of all the weights the program reads."""
        return sum(w.nbytes for w in self.weights.values())


def import_torch(model: Any, args: tuple) -> TorchProgram:
    """`model` (a torch module in eval mode) called on `args`, imported through vdplace's torch frontend.

    `ValueError` if the program's parameters do not match the frontend's
    values (a weight without a value, or inputs that are not `args`' tensors).
    """
    from torch.utils._pytree import tree_leaves

    from vdplace.bench.compare import weights_of
    from vdplace.tvm.torch_import import from_torch

    imported = from_torch(model, args, keep_params_as_input=True)
    mod = imported.module
    main = mod["main"]
    count = int(main.attrs.get("num_input", len(main.params)))
    inputs = [t.detach().cpu().numpy().copy() for t in tree_leaves(args)]
    if len(inputs) != count:
        raise ValueError(f"the program takes {count} inputs, the example arguments hold {len(inputs)} tensors")
    weights = weights_of(mod, imported.params)
    missing = [p.name for p in main.params[count:] if p.name not in weights]
    if missing:
        raise ValueError(f"no value for the program's weight parameter(s) {', '.join(missing)}")
    return TorchProgram(model, mod, inputs, {k: np.asarray(v) for k, v in weights.items()})
