"""Where the printer puts a function's body lines: in memory, or spilled to a temporary file.

A function's first lines (``cls = Module``, symbolic dim declarations) are
known only after its whole body has been printed, so the body is kept until
then.  `LineSink` keeps it in a list; `SpillingSink` keeps at most `chunk`
lines in memory and appends the rest to an unnamed temporary file, so that
`write_script` prints a function of a million bindings in memory bounded by
the chunk, not by the function.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import IO


class LineSink:
    """The body lines of one function, in a list; `chunks` gives them back as text, each line ending in ``\\n``."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.append = self.lines.append

    def chunks(self) -> Iterator[str]:
        if self.lines:
            yield "\n".join(self.lines) + "\n"


class SpillingSink(LineSink):
    """A `LineSink` that writes every `chunk` lines out to a temporary file, read back in pieces by `chunks`.

    Its `append` refers to the lines and the file, never to the sink: no
    reference cycle, so a sink is freed as soon as it is dropped, even while
    the cyclic collector is paused (`ir.collector`).
    """

    def __init__(self, chunk: int = 65536) -> None:
        super().__init__()
        self.chunk = chunk
        self.spill: list[IO[str]] = []  # the temporary file, once there is one
        lines, spill = self.lines, self.spill

        def append(line: str) -> None:
            lines.append(line)
            if len(lines) >= chunk:
                if not spill:
                    spill.append(tempfile.TemporaryFile("w+", encoding="utf-8"))
                spill[0].write("\n".join(lines) + "\n")
                lines.clear()

        self.append = append

    def chunks(self) -> Iterator[str]:
        if self.spill:
            spill = self.spill.pop()
            with spill:
                spill.seek(0)
                while piece := spill.read(1 << 22):
                    yield piece
        yield from super().chunks()
