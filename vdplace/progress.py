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

The display is one line on stderr, drawn by a background thread four times a
second.  Its contract:

- it appears only once the outermost stage has run for the delay (one
  second; ``VDPLACE_PROGRESS_DELAY`` seconds when set), so fast work shows
  nothing at all, nested stages included;
- it is drawn only when stderr is a terminal (or when forced), shows the
  stack of stages (``bench › chain 1,000``), the bar and count of the
  innermost stage that knows its total, and the elapsed time;
- it is always erased (``\\r`` and erase-to-end-of-line) when the outermost
  stage ends, so the next output starts on a clean line;
- output written while it may be shown goes through `paused` (the line is
  erased first and redrawn later), so a bar never shares a line with output.

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
from typing import IO

Tick = Callable[[int], None]
REFRESH_S = 0.25
DEFAULT_DELAY_S = 1.0
DELAY_ENV = "VDPLACE_PROGRESS_DELAY"
ERASE = "\r\x1b[K"  # back to column 0, erase to the end of the line
BAR_WIDTH = 20


def _no_tick(done: int) -> None:
    """The tick of a stage with no display: does nothing."""


class _Display:
    """One line on `stream` for a stack of nested stages; a thread draws it once the delay has passed."""

    def __init__(self, stream: IO[str], delay_s: float) -> None:
        self.stream = stream
        self.delay_s = delay_s
        self.names: list[str] = []
        self.totals: list[int | None] = []
        self.done: list[int] = []
        self.opened = 0.0
        self.drawn = False  # whether a line of ours is on the screen now
        self.lock = threading.RLock()
        self.stopped = threading.Event()
        self.thread: threading.Thread | None = None

    @contextmanager
    def stage(self, name: str, total: int | None) -> Iterator[Tick]:
        with self.lock:
            outer = not self.names
            self.names.append(name)
            self.totals.append(total)
            self.done.append(0)
            if outer:
                self.opened = time.monotonic()
        if outer:
            self.stopped.clear()
            self.thread = threading.Thread(target=self._refresh_loop, name="vdplace-progress", daemon=True)
            self.thread.start()
        depth = len(self.names)
        try:
            yield lambda done: self._tick(depth, done)
        finally:
            if outer:
                self.stopped.set()
                if self.thread is not None:
                    self.thread.join()
                    self.thread = None
            with self.lock:
                del self.names[depth - 1 :], self.totals[depth - 1 :], self.done[depth - 1 :]
                if outer:
                    self.erase()

    def _tick(self, depth: int, done: int) -> None:
        with self.lock:
            if len(self.done) >= depth:
                self.done[depth - 1] = done

    def _refresh_loop(self) -> None:
        wait = min(REFRESH_S, self.delay_s)
        while not self.stopped.wait(max(wait, 0.0)):
            with self.lock:
                left = self.opened + self.delay_s - time.monotonic()
                if not self.names or self.stopped.is_set():
                    return
                if left <= 0:
                    self._draw()
                wait = REFRESH_S if left <= 0 else min(REFRESH_S, left)

    def _draw(self) -> None:
        line = render(self.names, self.totals, self.done, time.monotonic() - self.opened)
        width = _size(self.stream).columns - 1  # never the last column: some terminals wrap there
        self.stream.write("\r" + line[:width] + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def erase(self) -> None:
        """Remove the line from the screen if it is there (called with the lock held)."""
        if self.drawn:
            self.stream.write(ERASE)
            self.stream.flush()
            self.drawn = False


def render(names: list[str], totals: list[int | None], dones: list[int], elapsed_s: float) -> str:
    """The text of the line: the stages, the bar and count of the innermost stage that knows its total, the time."""
    label = " › ".join(names)
    clock = _clock(elapsed_s)
    counted = [i for i, total in enumerate(totals) if total]
    if not counted:
        return f"{label} [{clock}]"
    total, done = totals[counted[-1]] or 0, dones[counted[-1]]
    done = max(0, min(done, total))
    filled = round(BAR_WIDTH * done / total)
    bar = "█" * filled + " " * (BAR_WIDTH - filled)
    return f"{label} {100 * done // total:3d}%|{bar}| {done}/{total} [{clock}]"


def _clock(seconds: float) -> str:
    """``mm:ss``, or ``h:mm:ss`` past an hour."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


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
def paused() -> Iterator[None]:
    """Erase the line (when shown) and keep it off while the block writes output; it is redrawn afterwards."""
    display = _ACTIVE.get()
    if display is None:
        yield
        return
    with display.lock:
        display.erase()
        yield


def configured_delay() -> float:
    """The delay before a line appears: ``VDPLACE_PROGRESS_DELAY`` seconds (a number >= 0), else one second."""
    text = os.environ.get(DELAY_ENV, "").strip()
    try:
        value = float(text)
    except ValueError:
        return DEFAULT_DELAY_S
    return value if value >= 0 else DEFAULT_DELAY_S


@contextmanager
def display(
    enabled: bool = True, *, stream: IO[str] | None = None, delay_s: float | None = None, force: bool = False
) -> Iterator[None]:
    """Show the stages run inside this block on `stream` (stderr), when enabled and it is a terminal or `force`.

    `delay_s`: how long the outermost stage runs before the line appears (None: `configured_delay`).
    """
    stream = sys.stderr if stream is None else stream
    on = enabled and (force or (hasattr(stream, "isatty") and stream.isatty()))
    delay = configured_delay() if delay_s is None else delay_s
    shown = _Display(stream, delay) if on else None
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
