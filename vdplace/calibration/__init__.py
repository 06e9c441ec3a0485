"""Calibration on the devices a run uses, on the values the program computes (`vdplace calibrate`).

    from vdplace.calibration import calibrate_program
    result = calibrate_program(mod)                                   # the host (and a GPU torch sees)
    result = calibrate_program(mod, inputs, params=consts)            # the program's own inputs
    result = calibrate_program(mod, ray_actors={"cuda:0": "sim"})     # one Ray actor per physical device
    result.model.to_json("costs.json"); print(result.summary())

Modules, one job each: `values` (each op call's arguments from a reference
run), `ray_actors` (timing kernels and copies on Ray actors), `program`
(`calibrate_program`, tying them to `placement.cost.calibrate`), `cli` (the
command's options and its run).  This package composes `runtime` and
`placement`, which know nothing of each other.  Its names are imported on
first use, so that the command line's parser does not load NumPy or Z3;
Ray is imported only when `ray_actors` is given.
"""

from __future__ import annotations

__all__ = ["calibrate_program", "program_values"]


def __getattr__(name: str) -> object:
    if name == "calibrate_program":
        from .program import calibrate_program

        return calibrate_program
    if name == "program_values":
        from .values import program_values

        return program_values
    raise AttributeError(f"module 'vdplace.calibration' has no attribute {name!r}")
