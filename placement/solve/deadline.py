"""A hard deadline for a Z3 call: the context is interrupted if the call outlives it.

Z3's own ``timeout`` parameter is checked cooperatively and is not honoured in
every phase: on a loaded machine ``Optimize.check()`` with a 1 s timeout was
seen running for minutes (tests/placement/test_cost_placement.py under a full suite
with other jobs).  `interrupt_after` arms a timer thread that calls
``Context.interrupt()`` (Z3's thread-safe cancel) once the grace period past
the timeout is over; the interrupted call returns ``unknown``, as at a timeout.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import z3

# Past Z3's own timeout: the larger of this and a quarter of the timeout.
GRACE_S = 0.5


@contextmanager
def interrupt_after(ctx: z3.Context, timeout_s: float | None) -> Iterator[None]:
    """Run the body; interrupt Z3 calls on `ctx` still running past `timeout_s` plus the grace (None: never)."""
    if timeout_s is None:
        yield
        return
    timer = threading.Timer(max(timeout_s, 0.0) + max(GRACE_S, timeout_s / 4), ctx.interrupt)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
