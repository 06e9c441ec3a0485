"""A run's arguments and result: inputs checked and put on their parameters' devices, results brought back.

Moving an input onto its parameter's device, or a result back to the host,
is a *transfer*, counted apart from the program's copies (device pair ->
[arrays, bytes]).  An input its device has no room for beside the inputs
before it is a `DeviceMemoryError` naming it (`runtime.memory`).  Inputs already on their parameter's device are used as
they are; NumPy inputs for a CPU parameter are used in place (the CPU's
memory is the host's), and neither counts a transfer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vdplace.ir.dtype import to_numpy
from vdplace.ir.struct_info import PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo

from . import shapes
from .devices import CPU, Device, DeviceArray
from .errors import DeviceMemoryError, InputError
from .executable import DeviceTree
from .frame import Frame, InputPlan
from .memory_report import locate
from .registers import release

_DA = DeviceArray
Pair = tuple[str, str]
Counters = dict[Pair, list[int]]


def count(table: Counters, pair: Pair, nbytes: int) -> None:
    """One more array of `nbytes` moved between the devices of `pair`."""
    counter = table.setdefault(pair, [0, 0])
    counter[0] += 1
    counter[1] += nbytes


def input_plan(sinfo: StructInfo, device: Any) -> InputPlan | None:
    """The fast path for a parameter: a tensor of static shape and known dtype on one device."""
    if isinstance(sinfo, TensorStructInfo) and sinfo.static_shape is not None and sinfo.dtype and device:
        return (to_numpy(sinfo.dtype), sinfo.static_shape, device)
    return None


def load_arguments(frame: Frame, args: tuple, transfers: Counters) -> list[Any]:
    """`args` as register values on their parameters' devices; on an error nothing stays held."""
    fn = frame.fn
    env: dict[str, int] = {}
    values: list[Any] = []
    try:
        for i, arg in enumerate(args):
            plan = frame.input_plans[i]
            if plan is not None and arg.__class__ is np.ndarray and arg.shape == plan[1] and arg.dtype == plan[0]:
                device = plan[2]  # the common case, checked without building messages
                device.check_fits(f"input {fn.params[i]}", arg.shape, plan[0].name)
                array = device.upload(arg)
                if device.kind != "cpu":
                    count(transfers, ("host", device.name), array.nbytes)
                values.append(array)
                continue
            sinfo, device, vindex = fn.param_sinfo[i], frame.param_devices[i], fn.param_devices[i]
            values.append(_input(fn.params[i], sinfo, device, vindex, arg, env, transfers))
    except BaseException as err:
        for v in values:
            release(v)
        if isinstance(err, DeviceMemoryError) and not err.where and err.live is not None:
            named = [(f"input {fn.params[i]}", v) for i, v in enumerate(values)]
            raise locate(err, f"input {fn.params[len(values)]}", named) from None
        raise
    return values


def _input(
    name: str, sinfo: StructInfo, device: Any, vindex: DeviceTree, value: Any, env: dict, transfers: Counters
) -> Any:
    if isinstance(sinfo, TupleStructInfo):
        if not isinstance(value, (tuple, list)) or len(value) != len(sinfo.fields):
            raise InputError(f"input {name} must be a tuple of {len(sinfo.fields)} values")
        assert isinstance(vindex, tuple), "a tuple's device tree is a tuple (Compiler.device_tree)"
        fields = zip(sinfo.fields, device, vindex, value, strict=False)
        return tuple(_input(f"{name}[{i}]", s, d, vi, v, env, transfers) for i, (s, d, vi, v) in enumerate(fields))
    if isinstance(sinfo, ShapeStructInfo):
        return tuple(int(d) for d in value)
    if isinstance(sinfo, PrimStructInfo):
        return np.asarray(value, dtype=to_numpy(sinfo.dtype) if sinfo.dtype else None)[()]
    if not isinstance(sinfo, TensorStructInfo):
        return value
    return _tensor_input(name, sinfo, device, value, env, transfers)


def _tensor_input(
    name: str, sinfo: TensorStructInfo, device: Device, value: Any, env: dict, transfers: Counters
) -> DeviceArray:
    if value.__class__ is _DA:
        _check_input(name, sinfo, value.shape, value.dtype, env)
        if value.device is device:
            value.device.acquire(value)
            return value
        host = value.device.to_host(value.data)
        count(transfers, (value.device.name, "host"), host.nbytes)
    else:
        if isinstance(value, np.ndarray) or not sinfo.dtype:
            host = np.asarray(value)
        else:
            host = np.asarray(value, dtype=to_numpy(sinfo.dtype))
        _check_input(name, sinfo, host.shape, str(host.dtype), env)
    device.check_fits(f"input {name}", host.shape, str(host.dtype))
    array = device.upload(host)
    if not isinstance(device, CPU):
        count(transfers, ("host", device.name), array.nbytes)
    return array


def _check_input(name: str, sinfo: TensorStructInfo, shape: tuple[int, ...], dtype: str, env: dict) -> None:
    """Dtype, rank and dims must match the parameter; a symbolic dim takes its first input's size."""
    want = str(to_numpy(sinfo.dtype)) if sinfo.dtype else None
    if want is not None and dtype != want:
        raise InputError(f"input {name} has dtype {dtype} but the parameter is {sinfo.dtype}")
    if sinfo.ndim >= 0 and len(shape) != sinfo.ndim:
        raise InputError(f"input {name} has shape {tuple(shape)} but the parameter has rank {sinfo.ndim}")
    for axis, dim in enumerate(sinfo.shape or ()):
        if isinstance(dim, int):
            ok = dim == shape[axis]
        elif shapes.is_name(dim):
            ok = env.setdefault(dim, shape[axis]) == shape[axis]
        else:
            continue
        if not ok:
            raise InputError(
                f"input {name} has shape {tuple(shape)} but the parameter is {tuple(sinfo.shape or ())}"
                + (f" with {dim} = {env[dim]}" if isinstance(dim, str) else "")
            )


def to_host(value: Any, transfers: Counters) -> Any:
    """A result as NumPy arrays (tuples as tuples); arrays leaving a non-CPU device count a transfer."""
    if value.__class__ is _DA:
        host = value.device.to_host(value.data)
        if not isinstance(value.device, CPU):
            count(transfers, (value.device.name, "host"), host.nbytes)
        return host
    if value.__class__ is tuple:
        return tuple(to_host(v, transfers) for v in value)
    return value
