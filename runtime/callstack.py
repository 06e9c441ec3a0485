"""The VM's call stack: caller frames kept on the heap, so that call depth never touches Python's stack.

An ``Invoke`` step does not run its callee: it leaves a `PendingCall` in the
VM's pending list and returns `CALL`; the VM's loop pushes a `CallerFrame`
for the caller and starts the callee, and on the callee's ``Ret`` pops it,
stores the result and resumes the caller.  The depth is bounded by the VM's
``max_call_depth``; going past it raises `CallDepthError` naming the head of
the call chain (`depth_error`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .errors import CallDepthError
from .frame import Frame

# What an Invoke step returns instead of a pc: "run the pending call".
CALL = -2

# Nested calls a run may make by default: deep enough for any call chain a
# module would write, small enough that its register lists fit in memory.
DEFAULT_MAX_CALL_DEPTH = 10_000


class PendingCall(NamedTuple):
    """An Invoke step's request: run `callee` on `args` (already counted as held), then resume the caller."""

    callee: Frame
    args: list
    out: int  # the caller's register for the result
    free: Callable[[list], None] | None  # releases the caller's registers whose last use was the call
    resume: int  # the caller's pc after the call


class CallerFrame(NamedTuple):
    """A suspended caller: its frame, its registers and the call it waits on."""

    frame: Frame
    regs: list
    call: PendingCall


def depth_error(stack: Sequence[CallerFrame], limit: int) -> CallDepthError:
    """The error for one call too many: `stack` holds the callers, the last one's call went past `limit`."""
    chain = [c.frame.fn.name for c in stack] + [stack[-1].call.callee.fn.name]
    return call_depth_error(chain, [_call_line(c) for c in stack], limit)


def call_depth_error(chain: Sequence[str], lines: Sequence[int | None], limit: int) -> CallDepthError:
    """`CallDepthError` for the call chain `chain` (entry first), ``lines[i]`` the line where ``chain[i]`` calls.

    The head is the first function that recurs (the cycle is named), else
    the callee that went past the limit.
    """
    first: dict[str, int] = {}
    for i, name in enumerate(chain):
        if name in first:
            start = first[name]
            return CallDepthError(
                f"call depth {limit} exceeded in {name}{_line(lines[start])}: recursion with no base case? "
                f"(the calls cycle {' -> '.join(chain[start : i + 1])}; max_call_depth sets the limit)",
                limit,
                name,
                list(chain),
            )
        first[name] = i
    return CallDepthError(
        f"call depth {limit} exceeded calling {chain[-1]}{_line(lines[-1])}: {limit} nested calls of "
        f"distinct functions from {chain[0]} (max_call_depth sets the limit)",
        limit,
        chain[-1],
        list(chain),
    )


def _line(line: int | None) -> str:
    return "" if line is None else f" (line {line})"


def _call_line(caller: CallerFrame) -> int | None:
    """The source line of the call `caller` waits on, when the instruction knows it."""
    origin: Any = caller.frame.fn.instructions[caller.call.resume - 1].origin
    return None if origin is None or origin.span is None else origin.span.line
