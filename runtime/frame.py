"""A compiled function made ready to run by one VM: its steps, register layout and profile counters."""

from __future__ import annotations

from typing import Any

import numpy as np

from .devices import Device
from .executable import CompiledFunction
from .instructions import Call
from .work import CallWork

# A step runs one instruction: ``pc = step[0](regs, step)``, returning the next pc (-1 after Ret).
# The tuple carries the data the running function needs (`runtime.steps`).
Step = tuple

# How an input of static shape reaches its parameter: (NumPy dtype, shape, device).
InputPlan = tuple[np.dtype, tuple[int, ...], Device]


class Frame:
    """One function of the executable on this VM's devices.

    Registers: the function's own (parameters first) in ``0..num_registers-1``,
    then `ret_slot` (the returned value) and `env_slot` (the symbolic dims
    bound at entry, or None).  `times`, `counts` and the `work` of each
    instruction are summed over the executions of a profiled run;
    `symbolic_work` has an entry at each Call whose work depends on
    symbolic dims (the timed loop evaluates those per execution).
    """

    __slots__ = (
        "fn",
        "steps",
        "num_slots",
        "ret_slot",
        "env_slot",
        "entry_drop",
        "param_devices",
        "input_plans",
        "times",
        "counts",
        "work",
        "symbolic_work",
        "failed_pc",
    )

    def __init__(self, fn: CompiledFunction) -> None:
        self.fn = fn
        self.steps: list[Step] = []
        self.ret_slot = fn.num_registers
        self.env_slot = fn.num_registers + 1
        self.num_slots = fn.num_registers + 2
        self.entry_drop = fn.entry_drop
        self.param_devices: list[Any] = []
        self.input_plans: list[InputPlan | None] = []
        n = len(fn.instructions)
        self.times = [0.0] * n
        self.counts = [0] * n
        self.work: list[CallWork | None] = [_call_work(i) for i in fn.instructions]
        self.symbolic_work = [w if w is not None and w.symbolic else None for w in self.work]
        self.failed_pc = 0  # the step a profiled run was executing, for error messages

    def reset_profile(self) -> None:
        n = len(self.steps)
        self.times = [0.0] * n
        self.counts = [0] * n
        for w in self.symbolic_work:
            if w is not None:
                w.reset()


def _call_work(instr: Any) -> CallWork | None:
    if isinstance(instr, Call) and instr.out_sinfo is not None:
        return CallWork(instr.op, instr.arg_sinfo, instr.out_sinfo, instr.attrs)
    return None
