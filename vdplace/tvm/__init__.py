"""vdplace inside a TVM pipeline: `tvm.IRModule` in, `tvm.IRModule` out (the ``tvm`` extra).

    from vdplace.tvm import PlaceDevices, from_tvm, to_tvm
    mod = tvm.transform.Sequential([PlaceDevices(), ...])(mod)   # instead of RealizeVDevice

`from_torch` exports a PyTorch model and converts it with TVM's frontend;
`from_tvm` turns a TVM module into a vdplace one with every constant's value
(read from the module's objects, not from TVM's printer, which leaves them
out); `to_tvm` turns a vdplace module back, constants restored; `PlaceDevices`
is a module pass that places with vdplace between the two.  apache-tvm is
imported only when one of them is used; see docs/tvm.md.  `accelerate_map`
pins a converted model's weights where Hugging Face accelerate's device map
puts them (docs/accelerate.md; torch and accelerate imported when called).
"""

from __future__ import annotations

__all__ = [
    "AccelerateMap",
    "PlaceDevices",
    "TorchImport",
    "accelerate_map",
    "export_name",
    "from_torch",
    "from_tvm",
    "param_values",
    "pin_parameters",
    "raised_max_memory",
    "to_tvm",
]


def __getattr__(name: str) -> object:
    if name in ("from_tvm", "to_tvm", "param_values"):
        from . import convert

        return getattr(convert, name)
    if name in ("from_torch", "TorchImport"):
        from . import torch_import

        return getattr(torch_import, name)
    if name in ("AccelerateMap", "accelerate_map", "export_name", "pin_parameters", "raised_max_memory"):
        from . import device_map

        return getattr(device_map, name)
    if name == "PlaceDevices":
        from .passes import PlaceDevices

        return PlaceDevices
    raise AttributeError(f"module 'vdplace.tvm' has no attribute {name!r}")
