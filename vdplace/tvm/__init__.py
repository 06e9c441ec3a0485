"""vdplace inside a TVM pipeline: `tvm.IRModule` in, `tvm.IRModule` out (the ``tvm`` extra).

    from vdplace.tvm import PlaceDevices, from_tvm, to_tvm
    mod = tvm.transform.Sequential([PlaceDevices(), ...])(mod)   # instead of RealizeVDevice

`from_torch` exports a PyTorch model and converts it with TVM's frontend;
`from_tvm` turns a TVM module into a vdplace one with every constant's value
(read from the module's objects, not from TVM's printer, which leaves them
out); `to_tvm` turns a vdplace module back, constants restored; `PlaceDevices`
is a module pass that places with vdplace between the two.  apache-tvm is
imported only when one of them is used; see docs/tvm.md.
"""

from __future__ import annotations

__all__ = ["PlaceDevices", "TorchImport", "from_torch", "from_tvm", "param_values", "to_tvm"]


def __getattr__(name: str) -> object:
    if name in ("from_tvm", "to_tvm", "param_values"):
        from . import convert

        return getattr(convert, name)
    if name in ("from_torch", "TorchImport"):
        from . import torch_import

        return getattr(torch_import, name)
    if name == "PlaceDevices":
        from .passes import PlaceDevices

        return PlaceDevices
    raise AttributeError(f"module 'vdplace.tvm' has no attribute {name!r}")
