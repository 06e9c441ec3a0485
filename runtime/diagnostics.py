"""Errors that name the instruction they happened at: its function, pc, text and source binding."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .devices import Device, DeviceArray
from .errors import DeviceMismatch, KernelError, VMError
from .frame import Frame


class Diagnostics:
    """Builds the runtime's errors; `device_name` renders a vdevice index (`Executable.device_name`)."""

    def __init__(self, device_name: Callable[[int | None], str]) -> None:
        self.device_name = device_name

    def text(self, frame: Frame, pc: int) -> str:
        """``main:3 `r4:y = Call add(...) on cpu```: where an instruction is and what it says."""
        instr = frame.fn.instructions[pc]
        return f"{frame.fn.name}:{pc} `{instr.body(frame.fn.reg_name, self.device_name)}`"

    def _origin(self, frame: Frame, pc: int) -> str:
        origin = frame.fn.instructions[pc].origin
        return f" ({origin.describe()})" if origin is not None else ""

    def mismatch(self, frame: Frame, pc: int, what: str, expected: Device, value: Any) -> DeviceMismatch:
        """`what` (an argument, a copy's source) is `value`, which is not on `expected`."""
        actual = value.device.name if value.__class__ is DeviceArray else "the host (not a device array)"
        text = self.text(frame, pc)
        return DeviceMismatch(
            f"instruction {text}{self._origin(frame, pc)} runs on {expected.name} but {what} is on {actual}; "
            "the runtime never copies silently: the program needs an R.to_vdevice",
            instruction=text,
            expected=expected.name,
            actual=actual,
        )

    def check_tree(self, frame: Frame, pc: int, what: str, expected: Any, value: Any) -> None:
        """`value` (array or tuple) must lie on `expected` (device, tuple of devices, or None for anywhere)."""
        if expected is None:
            return
        if isinstance(expected, tuple):
            if value.__class__ is not tuple or len(value) != len(expected):
                raise VMError(f"instruction {self.text(frame, pc)}: {what} should be a tuple of {len(expected)}")
            for i, (e, v) in enumerate(zip(expected, value, strict=False)):
                self.check_tree(frame, pc, f"{what}[{i}]", e, v)
        elif value.__class__ is not DeviceArray or value.device is not expected:
            raise self.mismatch(frame, pc, what, expected, value)

    def kernel_error(self, frame: Frame, pc: int, err: Exception) -> KernelError:
        """A kernel's own exception, named after the instruction that raised it."""
        text = self.text(frame, pc)
        return KernelError(
            f"instruction {text}{self._origin(frame, pc)} failed: {type(err).__name__}: {err}", instruction=text
        )
