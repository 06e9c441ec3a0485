"""Progress of the library's long stages, reported to whoever listens: silent unless a listener is installed.

Library code (`ir`, `placement`, `runtime`) marks a long loop with `stage`;
it never draws anything itself.  A caller that wants to show progress (the
command line turns it into a bar, `vdplace.progress`) installs a *listener*
with `listening` for the duration of a block:

    with progress.stage("find conflicts", total=len(roots)) as tick:
        for i, root in enumerate(roots):
            ...
            tick(i + 1)          # absolute count of items done

A listener is called as ``listener(name, total)`` when a stage starts
(`total` None when unknown) and returns a context manager that is entered for
the stage's duration and yields its `Tick`.  Stages nest: a stage opened inside
another is reported while the outer one is still open.  Without a listener a
stage costs one context-variable lookup and its ticks do nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar

Tick = Callable[[int], None]
Listener = Callable[[str, "int | None"], AbstractContextManager[Tick]]


def no_tick(done: int) -> None:
    """The tick of a stage nobody listens to: does nothing."""


_LISTENER: ContextVar[Listener | None] = ContextVar("vdplace_progress_listener", default=None)


@contextmanager
def stage(name: str, total: int | None = None) -> Iterator[Tick]:
    """A named stage of `total` items (None: unknown); yields `tick(done)` to report items done."""
    listener = _LISTENER.get()
    if listener is None:
        yield no_tick
        return
    with listener(name, total) as tick:
        yield tick


@contextmanager
def listening(listener: Listener | None) -> Iterator[None]:
    """Report the stages run inside this block to `listener` (None: to nobody)."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)
