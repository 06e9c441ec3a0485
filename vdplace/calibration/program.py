"""`calibrate_program`: calibration on the devices a run uses, on the values the program computes.

    from vdplace.calibration import calibrate_program
    result = calibrate_program(mod)                                   # the host (and a GPU torch sees)
    result = calibrate_program(mod, inputs, params=consts)            # the program's own inputs
    result = calibrate_program(mod, ray_actors={"cuda:0": "sim"})     # one Ray actor per physical device
    result.model.to_json("costs.json"); print(result.summary())

`calibrate_program` draws the entry's inputs (`runtime.random_inputs`) unless
they are given, runs the module once with the reference interpreter to get
every op call's arguments as the program computes them (`values`), and
times each distinct call on them (`placement.cost.calibrate`).  With
`ray_actors` the devices are Ray actors planned as `RayExecutor` plans them,
the copies between them are measured (`ray_actors`), and how much two CPU
actors on one machine slow each other when both run the program's kernels
at once (`contention`: `CostModel.contention`).  The cost file's
``about`` says how the inputs were made and which calls the run did not
reach (timed on made-up inputs).  This package composes `runtime` and
`placement`, which know nothing of each other; Ray is imported only when
`ray_actors` is given.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from vdplace.ir.bind_constants import ConstantValues
from vdplace.ir.module import IRModule
from vdplace.placement.cost.calibrate import MAX_BYTES, Calibration, calibrate

from .values import program_values


def calibrate_program(
    mod: IRModule,
    inputs: Sequence[Any] | None = None,
    *,
    entry: str = "main",
    params: ConstantValues | None = None,
    values: Literal["program", "made-up"] = "program",
    seed: int = 0,
    devices: Sequence[str] | None = None,
    ray_actors: Mapping[str, Any] | None = None,
    ray_address: str | None = None,
    repeat: int = 5,
    budget: float = 0.2,
    dims: Mapping[str, int] | None = None,
    max_bytes: int = MAX_BYTES,
    inputs_note: str | None = None,
    dispatch: bool = True,
) -> Calibration:
    """Calibrate `mod` on the program's values (module docstring); the `Calibration`.

    `inputs`: the entry's arguments (default: drawn with `seed`); `params`:
    the values of constants the text only references; ``values="made-up"``
    times every call on made-up inputs instead (no reference run).
    `devices`: built-in devices (``cpu``, ``cuda``; default: this machine's,
    or none with `ray_actors`); `ray_actors`: vdevice name -> `ActorSpec`
    or kind (``{}``: the defaults, one actor per physical device), with
    `ray_address` a cluster to join (None: a local one); with `dispatch`
    the Ray executor's own costs per step, op and copy are measured too and
    added to the model (`dispatch`: ``about["ray dispatch"]``).  `inputs_note` says
    in the file where given inputs came from.  A reference run that fails is
    a `ValueError`; Ray actors that cannot start a `runtime.DeviceUnavailable`.
    """
    import vdplace.runtime  # noqa: F401  (gives R.call_tir its kernel, the runtime's TIR interpreter)

    if values not in ("program", "made-up"):
        raise ValueError(f"values must be 'program' or 'made-up', got {values!r}")
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    start = time.perf_counter()
    found = None
    note = f"made up (values={values!r}): no reference run"
    if values == "program":
        if inputs is None:
            from vdplace.runtime import random_inputs

            inputs = random_inputs(mod, entry, rng=np.random.default_rng(seed), dims=dims)
            note = f"drawn by runtime.random_inputs (seed {seed})"
        else:
            note = inputs_note or "given by the caller"
        found = program_values(mod, inputs, entry=entry, params=params, max_bytes=max_bytes)
    options: dict[str, Any] = {
        "repeat": repeat,
        "budget": budget,
        "devices": devices,
        "values": found,
        "dims": dims,
        "max_bytes": max_bytes,
        "seed": seed,
    }
    if ray_actors is None:
        result = calibrate(mod, **options)
    else:
        result = _on_ray_actors(mod, inputs, entry, params, ray_actors, ray_address, dispatch, options)
    result.seconds = time.perf_counter() - start  # the reference run, Ray's start and the links included
    result.model.about["inputs"] = note
    if found is not None:
        result.model.about["reference run"] = f"{entry}, with the NumPy reference interpreter"
    return result


def _on_ray_actors(
    mod: IRModule,
    inputs: Sequence[Any] | None,
    entry: str,
    params: ConstantValues | None,
    ray_actors: Mapping[str, Any],
    ray_address: str | None,
    dispatch: bool,
    options: dict[str, Any],
) -> Calibration:
    """`calibrate` with kernels timed in Ray actors and the links, sends and receives between them, and how
    much actors on one node slow each other on the program's kernels (`contention`, with program values);
    with `dispatch` the Ray executor's own costs too (`calibrate_program`'s contract)."""
    from .contention import contention_about, measure_contention
    from .ray_actors import RayDevices, copy_shares_about, strided_layouts, with_sends

    repeat = options["repeat"]
    with RayDevices(mod.vdevices, ray_actors, address=ray_address) as ray_devices:
        sends = ray_devices.sends(repeat, strided_layouts(mod))
        receives = ray_devices.receives(repeat)
        links = with_sends(ray_devices.links(repeat), sends)
        result = calibrate(mod, timers=ray_devices.timers, links=links, **options)
        found = measure_contention(ray_devices, options["values"]) if options["values"] else None
    result.model.about["ray copy shares"] = copy_shares_about(sends, receives)
    if found is None:
        result.model.about["ray contention"] = "not measured: no program values (values='made-up')"
    else:
        result.model.contention = {c.keys: c.factor for c in found}
        result.model.about["ray contention"] = contention_about(found)
    if dispatch:
        from .dispatch import apply_dispatch, host_program, measure_dispatch

        program = None if inputs is None else host_program(mod, inputs, result.model, entry, params)
        costs = measure_dispatch(mod.vdevices, ray_actors, address=ray_address, program=program)
        apply_dispatch(result.model, costs)
    return result
