"""Hugging Face accelerate's device map of a torch model, as pins on the weights of its Relax program.

    from vdplace.tvm import accelerate_map, from_torch
    imported = from_torch(model, (ids,), keep_params_as_input=True)
    plan = accelerate_map(imported.module, model, {0: "2MiB", "cpu": "1GiB"})
    plan.module          # main's weight parameters annotated with the vdevice accelerate chose
    plan.pins            # Relax parameter name -> vdevice name

`accelerate.infer_auto_device_map(model, max_memory=...)` maps module names
to devices: it walks the modules in order and fills each device up to its
cap, sizing a module by its parameters and buffers, and, once it must put
something on the CPU, keeps room on the GPU for the model's largest layer.
Each parameter takes the device of the longest module name that prefixes it.
`torch.export` names a parameter's placeholder ``p_`` + its qualified name
lower-cased with every other character that is not a letter or digit made
``_`` (``model.h.0.attn.c_attn.weight`` -> ``p_model_h_0_attn_c_attn_weight``;
`export_name`), and TVM's frontend keeps that name for the parameter
(`from_torch(..., keep_params_as_input=True)`).  So each weight parameter of
the entry function (those after its ``num_input`` inputs) is annotated with
the vdevice of its parameter's device (`devices`: accelerate's device, an int
GPU index or ``"cpu"``, -> vdevice name), as a user pinning it by hand
would: placement keeps pins, and places the rest.

Because of the room kept for the largest layer, the literal caps leave the
GPU empty for models whose largest layer is their embedding (GPT-2-, BERT-
and Llama-like).  ``raise_caps=True`` gives the map accelerate makes with the
GPU caps raised by the largest common amount under which the weights it puts
on each GPU still fit that GPU's literal cap (`raised_max_memory`): what a
user tuning ``max_memory`` by hand would reach.

torch and accelerate are imported when a function here is called.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vdplace.ir.expr import Var
from vdplace.ir.module import IRModule
from vdplace.ir.mutator import ExprMutator
from vdplace.ir.struct_info import TensorStructInfo
from vdplace.ir.vdevice import VDevice, lookup_vdevice, vdevice_name

Device = int | str  # accelerate's: a GPU index, "cpu", "disk", "mps", ...
DEFAULT_DEVICES: dict[Device, str] = {0: "cuda:0", "cpu": "llvm:0"}


@dataclass
class AccelerateMap:
    """accelerate's map of a model and its pins on a Relax program (module docstring)."""

    module: IRModule  # the program, its weight parameters annotated
    pins: dict[str, str]  # Relax parameter name -> vdevice name
    device_map: dict[str, Device]  # accelerate's answer: module name -> device
    max_memory: dict[Device, int]  # the caps accelerate was given (raised ones with raise_caps)
    parameters: dict[str, Device] = field(default_factory=dict)  # torch parameter name -> device
    weight_bytes: dict[Device, int] = field(default_factory=dict)  # parameter and buffer bytes per device


def export_name(qualified: str) -> str:
    """The placeholder name torch.export gives the parameter `qualified` (``"h.0.weight"`` -> ``"p_h_0_weight"``)."""
    return "p_" + re.sub(r"[^a-z0-9]", "_", qualified.lower())


def accelerate_map(
    mod: IRModule,
    model: Any,
    max_memory: Mapping[Device, int | str],
    *,
    devices: Mapping[Device, str | VDevice] | None = None,
    raise_caps: bool = False,
    entry: str = "main",
    **options: Any,
) -> AccelerateMap:
    """Pin `mod`'s weights where accelerate puts `model`'s parameters under `max_memory` (module docstring).

    `max_memory`: device -> bytes or a size (``"2GiB"``), as accelerate takes
    it.  `devices`: accelerate's device -> vdevice name (default ``{0:
    "cuda:0", "cpu": "llvm:0"}``); a vdevice the module does not declare is
    added to its list.  `options` go to ``infer_auto_device_map``
    (``no_split_module_classes=...``).  A weight parameter of `entry` no
    torch parameter names, a parameter accelerate put on a device `devices`
    does not name (``"disk"``: give the CPU a larger cap), or a module whose
    ``main`` takes the weights as constants is a `ValueError`.
    """
    caps = _caps(max_memory)
    if raise_caps:
        caps = raised_max_memory(model, caps, **options)
    device_map = _infer(model, caps, options)
    chosen = _parameter_devices(model, device_map)
    names = {export_name(name): name for name in chosen}
    weights = _weights(mod, entry)
    missing = [p for p in weights if p not in names]
    if missing:
        raise ValueError(
            f"{entry}'s weight parameter(s) {', '.join(missing[:5])} name no parameter of the torch model "
            "(torch.export names them p_ + the qualified name, lower-cased, '.' and the like as '_')"
        )
    if not weights:
        raise ValueError(
            f"{entry} takes no weight parameters (after its num_input inputs): "
            "convert the model with from_torch(..., keep_params_as_input=True)"
        )
    table = dict(DEFAULT_DEVICES if devices is None else devices)
    vdevices = list(mod.vdevices)
    targets: dict[Device, VDevice] = {}
    for device in {chosen[names[p]] for p in weights}:
        if device not in table:
            holders = [names[p] for p in weights if chosen[names[p]] == device]
            raise ValueError(
                f"accelerate put {', '.join(holders[:3])} on {device!r}, which `devices` maps to no vdevice "
                f"(it maps {', '.join(map(repr, table))}); give that device a vdevice, or the others larger caps"
            )
        targets[device] = _vdevice(vdevices, table[device])
    pinned = mod if len(vdevices) == len(mod.vdevices) else mod.replace(vdevices=vdevices)
    by_param = {p: targets[chosen[names[p]]] for p in weights}
    pinned = pin_parameters(pinned, {p: vdevice_name(vdevices, v) for p, v in by_param.items()}, entry)
    return AccelerateMap(
        module=pinned,
        pins={p: vdevice_name(vdevices, v) for p, v in by_param.items()},
        device_map=device_map,
        max_memory=dict(caps),
        parameters=chosen,
        weight_bytes=_bytes_per_device(model, device_map),
    )


def raised_max_memory(model: Any, max_memory: Mapping[Device, int | str], **options: Any) -> dict[Device, int]:
    """`max_memory` with every GPU cap raised by the most bytes under which accelerate's map still fits it.

    "Fits": the parameter and buffer bytes accelerate puts on each GPU are at
    most that GPU's cap as given.  The raise is bisected on the bytes added
    to every GPU's cap, between none and the model's size (accelerate fills
    devices in module order, so more room seldom takes a module off a GPU;
    every raise kept is one checked to fit); the CPU's and the disk's caps
    stay as given, and caps under which even the literal map does not fit
    come back unraised.
    """
    caps = _caps(max_memory)
    gpus = [d for d in caps if d not in ("cpu", "disk")]

    def fits(extra: int) -> bool:
        trial = {d: c + extra if d in gpus else c for d, c in caps.items()}
        used = _bytes_per_device(model, _infer(model, trial, options))
        return all(used.get(d, 0) <= caps[d] for d in gpus)

    low, high = 0, sum(_sizes(model).values())  # fits(0) need not hold: then nothing is raised
    if not gpus or not fits(low):
        return caps
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return {d: c + low if d in gpus else c for d, c in caps.items()}


def pin_parameters(mod: IRModule, pins: Mapping[str, str], entry: str = "main") -> IRModule:
    """`mod` with each parameter of `entry` named in `pins` annotated with that vdevice (a name the module declares).

    A name that is no tensor parameter of `entry` is a `ValueError`; `mod` is not modified.
    """
    func = mod[entry]
    params = {p.name: p for p in func.params}
    replaced: dict[Var, Var] = {}
    for name, where in pins.items():
        param = params.get(name)
        if param is None or not isinstance(param.struct_info, TensorStructInfo):
            raise ValueError(f"{entry} has no tensor parameter {name!r} to pin")
        vdevice = lookup_vdevice(mod.vdevices, where)
        replaced[param] = Var(param.name, param.struct_info.with_vdevice(vdevice), param.span)
    new = _Rename(replaced).mutate(func)
    return mod.replace(functions={**mod.functions, entry: new})


class _Rename(ExprMutator):
    def __init__(self, replaced: Mapping[Var, Var]) -> None:
        super().__init__()
        self.replaced = replaced

    def visit_var_def(self, var: Var) -> Var:
        return self.replaced.get(var, var)


def _infer(model: Any, caps: Mapping[Device, int], options: Mapping[str, Any]) -> dict[str, Device]:
    """``accelerate.infer_auto_device_map`` under `caps`, without its warning that a GPU of the caps is absent.

    Planning for a GPU this machine does not have is what the caps are for here.
    """
    import logging

    from accelerate import infer_auto_device_map

    log = logging.getLogger("accelerate.utils.modeling")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        return dict(infer_auto_device_map(model, max_memory=dict(caps), **options))
    finally:
        log.setLevel(level)


def _caps(max_memory: Mapping[Device, int | str]) -> dict[Device, int]:
    from vdplace.placement.cost import parse_bytes

    return {device: parse_bytes(size) for device, size in max_memory.items()}


def _weights(mod: IRModule, entry: str) -> list[str]:
    """The names of `entry`'s weight parameters: those after its ``num_input`` inputs."""
    if entry not in mod.functions:
        raise ValueError(f"no function {entry!r} in the module; it has {', '.join(mod.functions) or 'none'}")
    func = mod[entry]
    first = int(func.attrs.get("num_input", len(func.params)))
    return [p.name for p in func.params[first:]]


def _vdevice(vdevices: list[VDevice], name: str | VDevice) -> VDevice:
    """The vdevice `name` names in `vdevices`, appended (``kind:id``) when the list has none such."""
    if isinstance(name, VDevice):
        if name not in vdevices:
            vdevices.append(name)
        return name
    try:
        return lookup_vdevice(vdevices, name)
    except LookupError:
        kind, _, rest = name.partition(":")
        index, _, scope = rest.partition(":")
        vdevice = VDevice(kind, int(index or 0), scope or "global")
        vdevices.append(vdevice)
        return vdevice


def _parameter_devices(model: Any, device_map: Mapping[str, Device]) -> dict[str, Device]:
    """Each named parameter's device: that of the longest module name of the map that prefixes it."""
    return {name: _device_of(name, device_map) for name, _ in model.named_parameters()}


def _device_of(name: str, device_map: Mapping[str, Device]) -> Device:
    parts = name.split(".")
    for end in range(len(parts), -1, -1):
        prefix = ".".join(parts[:end])
        if prefix in device_map:
            return device_map[prefix]
    raise ValueError(f"accelerate's device map places no module holding {name!r}")  # its map covers the model


def _sizes(model: Any) -> dict[str, int]:
    """Bytes of every named parameter and buffer."""
    tensors = [*model.named_parameters(), *model.named_buffers()]
    return {name: t.numel() * t.element_size() for name, t in tensors}


def _bytes_per_device(model: Any, device_map: Mapping[str, Device]) -> dict[Device, int]:
    """Parameter and buffer bytes per device; a buffer no entry covers counts nowhere.

    accelerate leaves a split module's own buffers out of its map (BERT's
    ``embeddings.position_ids`` once ``embeddings`` is split); its parameters
    are always covered.
    """
    buffers = {name for name, _ in model.named_buffers()}
    used: dict[Device, int] = {}
    for name, size in _sizes(model).items():
        if name in buffers and not _covered(name, device_map):
            continue
        device = _device_of(name, device_map)
        used[device] = used.get(device, 0) + size
    return used


def _covered(name: str, device_map: Mapping[str, Device]) -> bool:
    parts = name.split(".")
    return any(".".join(parts[:end]) in device_map for end in range(len(parts), -1, -1))
