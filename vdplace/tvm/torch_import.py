"""`from_torch`: a PyTorch module to a vdplace module through torch.export and TVM's PyTorch frontend.

Needs torch and apache-tvm (the ``frontend`` extra, or ``torch`` plus ``tvm``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from vdplace.ir import IRModule


class TorchImport(NamedTuple):
    """What `from_torch` returns: the module, and the weights' values when they are parameters.

    `params` maps each weight parameter of ``main`` (the ones after its
    ``num_input`` inputs) to its value; it is empty when the weights are
    constants of the module.
    """

    module: IRModule
    params: dict[str, np.ndarray]


def from_torch(
    model: Any,
    example_args: tuple[Any, ...],
    *,
    keep_params_as_input: bool = False,
    filename: str = "<from_torch>",
    **export_options: Any,
) -> TorchImport:
    """`model` exported by ``torch.export.export(model, example_args, **export_options)``, converted by TVM.

    TVM's ``from_exported_program`` converts the exported program; then
    `vdplace.tvm.from_tvm` reads TVM's module with every constant's value.
    `keep_params_as_input` is TVM's option: False makes the weights constants
    of the module (``metadata["ir.GenericConst"][i]``, bound to their values),
    True makes them parameters of ``main`` after its inputs, whose values come
    back in `TorchImport.params`.  The model is exported as it is: call
    ``model.eval()`` first for inference (dropout and batch norm).
    `export_options` go to ``torch.export.export`` (``dynamic_shapes=``,
    ``strict=`` ...).
    """
    import torch
    from tvm.relax.frontend.torch import from_exported_program

    from .convert import from_tvm, param_values

    program = torch.export.export(model, tuple(example_args), **export_options)
    tvm_mod = from_exported_program(program, keep_params_as_input=keep_params_as_input)
    mod = from_tvm(tvm_mod, filename=filename)
    if not keep_params_as_input:
        return TorchImport(mod, {})
    main = mod["main"]
    weights = main.params[int(main.attrs.get("num_input", len(main.params))) :]
    values = param_values(tvm_mod)
    if len(values) != len(weights):
        raise ValueError(f"TVM's module names {len(values)} weights but main has {len(weights)} weight parameters")
    return TorchImport(mod, {p.name: v for p, v in zip(weights, values, strict=True)})
