"""`PlaceDevices`: vdplace's placement as a TVM module pass, where ``relax.transform.RealizeVDevice()`` stands."""

from __future__ import annotations

from typing import Any


def PlaceDevices(**place_options: Any) -> Any:  # noqa: N802  (named like TVM's pass constructors)
    """A ``tvm.transform`` module pass: `from_tvm`, `vdplace.placement.place(**place_options)`, `to_tvm`.

    The weights a ``keep_params_as_input`` module names in ``R.func_attr`` pass
    through unchanged.  A module with no placement raises
    `vdplace.placement.PlacementConflict`, whose message is the conflict report.
    """
    import tvm

    from vdplace import placement

    from .convert import from_tvm, to_tvm
    from .metadata import param_tensors

    def transform(mod: Any, ctx: Any) -> Any:
        params = param_tensors(mod, mod.script()) or None
        placed = placement.place(from_tvm(mod), **place_options).module
        return to_tvm(placed, params)

    return tvm.transform.module_pass(transform, opt_level=0, name="vdplace.PlaceDevices")
