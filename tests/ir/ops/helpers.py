"""Helpers of the op tests that run a whole printed module: parse, print back, place on the host, run."""

from __future__ import annotations

import numpy as np

from vdplace import placement, runtime
from vdplace.ir import parse, script, structural_equal
from vdplace.ir.struct_info import PrimStructInfo


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def run_module(text: str, *inputs: np.ndarray):
    """Parse, check the print round trip, place on the host and run `main`."""
    mod = parse(text)
    printed = script(mod)
    assert script(parse(printed)) == printed
    assert structural_equal(parse(printed), mod)
    vm = runtime.VirtualMachine(runtime.compile(placement.place(mod, default="host").module))
    return vm.run("main", *inputs)


def P(dtype: str, value) -> PrimStructInfo:
    return PrimStructInfo(dtype, value)
