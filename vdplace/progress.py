"""Progress of long-running stages, shown on stderr by the command line and silent otherwise.

The command line marks its own steps with `stage` and turns the display on
with `display`, which also listens to the library's stages
(`vdplace.ir.progress`: the library reports progress to a listener and never
imports this module).  Without an active display a stage costs one
context-variable lookup and its ticks are no-ops, so library calls from
Python never print anything.

    with progress.stage("parse", total=len(lines)) as tick:
        for i, line in enumerate(lines):
            ...
            if not i & 4095:
                tick(i)          # absolute count of items done

The display is one tqdm line on stderr.  It appears only once the outermost
stage has run for `delay_s` seconds, only when stderr is a terminal (or when
forced), shows the elapsed time even when nobody ticks (a background thread
refreshes it four times a second), and erases itself when the outermost stage
ends, so fast runs and redirected output show nothing.  A stage opened inside
another takes over the line (``place › diagnose``) until it ends.
Invariant: the display never writes to stdout.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import IO, Any

Tick = Callable[[int], None]
REFRESH_S = 0.25


def _no_tick(done: int) -> None:
    """The tick of a stage with no display: does nothing."""


class _Display:
    """One tqdm line on `stream` for a stack of nested stages; a thread keeps its clock moving."""

    def __init__(self, stream: IO[str], delay_s: float) -> None:
        self.stream = stream
        self.delay_s = delay_s
        self.names: list[str] = []
        self.bar: Any = None
        self.opened = 0.0
        self.lock = threading.Lock()
        self.stopped = threading.Event()

    @contextmanager
    def stage(self, name: str, total: int | None) -> Iterator[Tick]:
        outer = not self.names
        self.names.append(name)
        if outer:
            self._open(total)
        else:
            self._relabel(total)
        try:
            yield self._tick
        finally:
            self.names.pop()
            if outer:
                self._close()
            else:
                self._relabel(None)

    def _open(self, total: int | None) -> None:
        from tqdm import tqdm

        self.bar = tqdm(
            total=total,
            desc=" › ".join(self.names),
            file=self.stream,
            delay=self.delay_s,
            leave=False,
            ncols=_size(self.stream).columns,
            nrows=_size(self.stream).lines,
            mininterval=REFRESH_S,
            bar_format=None if total else "{desc} [{elapsed}]",
        )
        self.opened = time.monotonic()
        self.stopped.clear()
        threading.Thread(target=self._refresh_loop, name="vdplace-progress", daemon=True).start()

    def _relabel(self, total: int | None) -> None:
        with self.lock:
            bar = self.bar
            bar.reset(total=total)
            bar.bar_format = None if total else "{desc} [{elapsed}]"
            bar.set_description_str(" › ".join(self.names), refresh=False)

    def _close(self) -> None:
        self.stopped.set()
        with self.lock:
            shown = time.monotonic() - self.opened >= self.delay_s
            ncols = self.bar.ncols
            self.bar.close()
            self.bar = None
        if shown:  # a relabelled bar forgets it was shown: erase the line here
            self.stream.write("\r" + " " * ncols + "\r")
            self.stream.flush()

    def _tick(self, done: int) -> None:
        with self.lock:
            if self.bar is not None:
                self.bar.n = done

    def _refresh_loop(self) -> None:
        while not self.stopped.wait(REFRESH_S):
            with self.lock:
                if self.bar is not None:
                    self.bar.update(0)


def _size(stream: IO[str]) -> os.terminal_size:
    """The size of the terminal `stream` writes to; 80 x 24 where it reports none (a pty of size 0, a file)."""
    try:
        columns, lines = os.get_terminal_size(stream.fileno())
    except (AttributeError, OSError, ValueError):
        columns = lines = 0
    return os.terminal_size((columns if columns > 0 else 80, lines if lines > 0 else 24))


_ACTIVE: ContextVar[_Display | None] = ContextVar("vdplace_progress_display", default=None)


@contextmanager
def stage(name: str, total: int | None = None) -> Iterator[Tick]:
    """A named stage of `total` items (None: unknown); yields `tick(done)` to report items done."""
    display = _ACTIVE.get()
    if display is None:
        yield _no_tick
        return
    with display.stage(name, total) as tick:
        yield tick


@contextmanager
def display(
    enabled: bool = True, *, stream: IO[str] | None = None, delay_s: float = 1.0, force: bool = False
) -> Iterator[None]:
    """Show the stages run inside this block on `stream` (stderr), when enabled and it is a terminal or `force`."""
    stream = sys.stderr if stream is None else stream
    on = enabled and (force or (hasattr(stream, "isatty") and stream.isatty()))
    shown = _Display(stream, delay_s) if on else None
    token = _ACTIVE.set(shown)
    try:
        if shown is None:
            yield
        else:
            from vdplace.ir.progress import listening

            with listening(shown.stage):
                yield
    finally:
        _ACTIVE.reset(token)
