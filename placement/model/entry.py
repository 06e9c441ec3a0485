"""Entry functions, their runtime inputs and their weights: where a module's data comes from.

An *entry function* is one a caller outside the module calls with data in
host memory: ``main`` (what TVM's frontends emit, what ``vm["main"]`` and
``vdplace run`` call) and every function that declares ``num_input`` in its
attributes (TVM's mark of a function called with runtime inputs followed by
weights, as MLC-LLM's ``prefill`` and ``decode``).  Other functions, TVM's
pass tests' ``foo`` among them, take their parameters where the placement
puts them, as TVM's RealizeVDevice assumes.

The first ``num_input`` parameters of an entry function are its *runtime
inputs* (all of them when it declares no ``num_input``): they arrive on the
host at every call, so a placement that puts an unannotated one on a device
that is not a CPU uploads it (`ConstraintSet.starts`, part of the objective).
The rest are *weights*: loaded once, they may live where they are used; the
bytes each vdevice loads are reported, not minimized.
"""

from __future__ import annotations

from collections.abc import Iterator

from vdplace.ir.expr import Function, Var
from vdplace.ir.module import IRModule
from vdplace.ir.sizes import Sizes
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from vdplace.ir.vdevice import VDevice, vdevice_name

ENTRY = "main"


def is_entry(name: str, func: object) -> bool:
    """Whether the module function `name` is an entry function (the module docstring)."""
    return name == ENTRY or (isinstance(func, Function) and "num_input" in func.attrs)


def num_inputs(func: Function) -> int:
    """How many leading parameters of an entry function are runtime inputs: ``num_input``, else all."""
    n = func.attrs.get("num_input")
    if type(n) is int and 0 <= n:
        return min(n, len(func.params))
    return len(func.params)


def entry_params(mod: IRModule) -> Iterator[tuple[str, Var, bool]]:
    """(function, parameter, is a runtime input) of every parameter of every entry function, in order."""
    for name, func in mod.functions.items():
        if is_entry(name, func) and isinstance(func, Function):
            n = num_inputs(func)
            for i, param in enumerate(func.params):
                yield name, param, i < n


def tensor_leaves(sinfo: StructInfo) -> Iterator[TensorStructInfo]:
    """Every tensor leaf of `sinfo`, in field order."""
    if type(sinfo) is TensorStructInfo:
        yield sinfo
    elif type(sinfo) is TupleStructInfo:
        for field in sinfo.fields:
            yield from tensor_leaves(field)


def uploaded_bytes(mod: IRModule, placed: IRModule, sizes: Sizes) -> int:
    """Bytes of the runtime inputs `mod` leaves unannotated that `placed` puts on a device that is not a CPU.

    Read from the two modules alone (the parameters' struct infos), so it checks
    what the solver counted for `ConstraintSet.starts`.
    """
    if not any(v.device_type == "cpu" for v in placed.vdevices):
        return 0  # no host in the module's world: its inputs are taken where they are placed
    total = 0
    for fname, func in mod.functions.items():
        if not (is_entry(fname, func) and isinstance(func, Function)):
            continue
        n = num_inputs(func)
        for param, new in zip(func.params[:n], placed[fname].params[:n], strict=True):
            old_sinfo, new_sinfo = param.struct_info, new.struct_info
            if old_sinfo is new_sinfo:
                continue  # kept as it was: not moved
            if type(old_sinfo) is TensorStructInfo and type(new_sinfo) is TensorStructInfo:  # without generators
                dev = new_sinfo.vdevice
                if old_sinfo.vdevice is None and dev is not None and dev.device_type != "cpu":
                    total += sizes.nbytes(new_sinfo, fname)
                continue
            for old, leaf in zip(tensor_leaves(old_sinfo), tensor_leaves(new_sinfo), strict=True):
                if old.vdevice is None and leaf.vdevice is not None and leaf.vdevice.device_type != "cpu":
                    total += sizes.nbytes(leaf, fname)
    return total


def loaded_bytes(placed: IRModule, sizes: Sizes) -> dict[str, int]:
    """Bytes of the weights of every entry function per vdevice name (``"cuda:0"``; ``"unplaced"``)."""
    out: dict[str, int] = {}
    vdevices: list[VDevice] = list(placed.vdevices)
    for fname, param, runtime in entry_params(placed):
        if runtime:
            continue
        for leaf in tensor_leaves(param.struct_info):
            name = "unplaced" if leaf.vdevice is None else vdevice_name(vdevices, leaf.vdevice)
            out[name] = out.get(name, 0) + sizes.nbytes(leaf, fname)
    return out
