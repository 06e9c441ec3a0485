"""`SourceFile`: the text a module was parsed from, kept on disk instead of in memory."""

from __future__ import annotations

import os
import zlib


class SourceFile:
    """A file's text by reference: its path (absolute), the size and the CRC-32 of the bytes that were parsed.

    A module read with `ir.parse_file` holds one of these as its source, so
    that the text (as large as the module's objects at a million bindings)
    is not kept while the module is placed; diagnostics read it back when
    they quote lines.  `text()` is those bytes decoded, or None when the file
    is gone or no longer holds them: a report then shows no excerpts rather
    than lines of another text.
    """

    __slots__ = ("path", "size", "crc")

    def __init__(self, path: str | os.PathLike[str], data: bytes) -> None:
        self.path = os.path.abspath(path)
        self.size = len(data)
        self.crc = zlib.crc32(data)

    def text(self) -> str | None:
        try:
            with open(self.path, "rb") as f:
                data = f.read(self.size + 1)
        except OSError:
            return None
        if len(data) != self.size or zlib.crc32(data) != self.crc:
            return None
        return universal_newlines(data.decode("utf-8"))

    def __repr__(self) -> str:
        return f"SourceFile({self.path!r}, {self.size} bytes)"


def universal_newlines(text: str) -> str:
    """`text` with its CRLF and CR line ends made LF, as a file opened in text mode reads it."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")
