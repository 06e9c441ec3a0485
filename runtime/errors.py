"""Errors raised by the runtime.

Each one says what the user must change: which binding is unplaced, which
instruction received an array from which device, which runtime devices exist.
"""

from __future__ import annotations


class VMError(Exception):
    """Base class of every error the `runtime` package raises on bad input."""


class CompileError(VMError):
    """The module cannot be compiled (not fully placed, an unsupported construct, ...)."""


class UnplacedError(CompileError):
    """A tensor site has no vdevice; `function`, `variable` and `location` name the first one."""

    def __init__(self, function: str, variable: str, location: str | None) -> None:
        self.function = function
        self.variable = variable
        self.location = location
        where = f"{location}: " if location else ""
        super().__init__(
            f"{where}{function}: {variable} has no vdevice; the runtime needs a fully placed module "
            "(run placement.place first, or annotate it)"
        )


class MissingConstantError(CompileError):
    """Constants the text only references (``metadata[kind][i]``) have no value.

    `missing` lists each one once, as (reference text, location or None), in
    program order; the message names them all.
    """

    def __init__(self, missing: list[tuple[str, str | None]]) -> None:
        self.missing = missing
        lines = [f"  {ref} (first used at {where})" if where else f"  {ref}" for ref, where in missing]
        super().__init__(
            f"{len(missing)} constant(s) of the module have no value; pass them with params= "
            "(a dict or an .npz file keyed 'kind:index', e.g. 'ir.GenericConst:0') or --params:\n" + "\n".join(lines)
        )


class DeviceMismatch(VMError):
    """An instruction was given an array that lives on another device than the one it runs on.

    The runtime never copies silently: the program must say ``R.to_vdevice``.
    `instruction` is the readable instruction, `expected` / `actual` the two device names.
    """

    def __init__(self, message: str, instruction: str = "", expected: str = "", actual: str = "") -> None:
        self.instruction = instruction
        self.expected = expected
        self.actual = actual
        super().__init__(message)


class DeviceUnavailable(VMError):
    """A vdevice has no runtime device (no GPU, no backend installed, or the mapping lacks it)."""


class InputError(VMError):
    """The arguments given to `VirtualMachine.run` do not fit the entry function's parameters."""


class BatchError(InputError, ValueError):
    """A batch cannot be split into the micro-batches asked for (`runtime.batch`); the message names the parameter."""


class KernelError(VMError):
    """An op's kernel failed at run time (out of memory, an index out of range, ...).

    `instruction` names the instruction; the kernel's own exception is the cause.
    """

    def __init__(self, message: str, instruction: str = "") -> None:
        self.instruction = instruction
        super().__init__(message)


class CallDepthError(VMError):
    """A run nested more calls than the VM's ``max_call_depth``: usually recursion with no base case.

    `depth` is the limit, `function` the head of the call chain (the first
    function that calls itself again, directly or through others, or the
    callee that went past the limit when no function repeats), `chain` the
    function names from the entry down to the call that failed.
    """

    def __init__(self, message: str, depth: int, function: str, chain: list[str]) -> None:
        self.depth = depth
        self.function = function
        self.chain = chain
        super().__init__(message)


class DeviceMemoryError(VMError):
    """A tensor does not fit its device's memory: alone, or beside the bytes already live there.

    `tensor` names it (an input, a binding, a copy's target; "" while the
    error is not located yet), `shape` and `nbytes` describe it, `limit` is
    the device's ``memory_limit`` in bytes and `device` its name.  For a
    budget overrun `live` is the bytes live on the device when the tensor
    was to be added, `largest` the largest live tensors as (name, bytes),
    and `where` the instruction (or input) that allocated, with its source
    line; `where` is "" until the runtime has located the error
    (`runtime.memory.locate`).
    """

    def __init__(
        self,
        message: str,
        tensor: str,
        shape: tuple[int, ...],
        nbytes: int,
        limit: int,
        device: str,
        live: int | None = None,
        largest: tuple[tuple[str, int], ...] = (),
        where: str = "",
    ) -> None:
        self.tensor = tensor
        self.shape = shape
        self.nbytes = nbytes
        self.limit = limit
        self.device = device
        self.live = live
        self.largest = largest
        self.where = where
        super().__init__(message)
