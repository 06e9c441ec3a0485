"""Where the `vdplace` command writes: the result, diagnostics, and failures as one line or one JSON document.

Every sub-command follows one contract, which `Output` carries out:

- the *result* (the placed module, `run`'s outputs, a cost table, a
  benchmark table) goes to ``-o FILE`` when given, else to stdout; with
  ``--json`` the result is one JSON document, for success and failure alike;
- *diagnostics* (copies, summaries, conflict reports in text) go to stderr,
  never into the result, and never on a line a progress bar holds;
- a *failure* is a `Failure` (or an exception `failure_of` maps to one): one
  line ``error: ...`` on stderr, or, under ``--json``, the error document
  (``docs/schemas/error.json``) as the result; its exit status says which
  kind of failure it was (`EXIT_STATUS`).

Colour: ``--color always|never|auto``; ``auto`` colours stderr when it is a
terminal and ``NO_COLOR`` is unset or empty (https://no-color.org).
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Mapping
from typing import IO, Any

from vdplace import progress

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130

# The kind of each failure and its exit status.  "conflict" is a placement with no solution (its report is the
# conflict document), "device" and "run" are failures of a run (no such device, a kernel that fails).
EXIT_STATUS: Mapping[str, int] = {
    "conflict": EXIT_FAILED,
    "device": EXIT_FAILED,
    "run": EXIT_FAILED,
    "usage": EXIT_BAD_INPUT,
    "bad-input": EXIT_BAD_INPUT,
    "internal": EXIT_INTERNAL,
    "interrupted": EXIT_INTERRUPTED,
}

ERROR_SCHEMA = "vdplace-error/1"
COLORS = ("auto", "always", "never")
_RED_BOLD, _RESET = "\x1b[1;31m", "\x1b[0m"


class Failure(Exception):
    """A failure the command reports as one line and an exit status: `kind` is a key of `EXIT_STATUS`.

    `location` (file, line, column; any may be None) points at the input that
    caused it, for the JSON document; the message names it too.
    """

    def __init__(
        self, message: str, kind: str = "bad-input", location: tuple[str | None, int | None, int | None] | None = None
    ) -> None:
        if kind not in EXIT_STATUS:
            raise ValueError(f"unknown failure kind {kind!r}")
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.location = location

    @property
    def status(self) -> int:
        return EXIT_STATUS[self.kind]


def one_line(text: str) -> str:
    """`text` on one line: its lines joined by ``"; "`` (a message must never spill over several lines)."""
    return "; ".join(part.strip() for part in text.strip().splitlines() if part.strip())


def wants_color(choice: str, stream: IO[str]) -> bool:
    """Whether to colour what goes to `stream` under ``--color choice``."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR")


def json_text(document: Mapping[str, Any]) -> str:
    """The document as the command prints it: indented, strict JSON, one trailing newline.

    JSON has no NaN or infinity: such a number is written as the string ``"nan"``, ``"inf"`` or ``"-inf"``.
    """
    return json.dumps(_finite(document), indent=2, allow_nan=False) + "\n"


def _finite(value: Any) -> Any:
    """`value` with every non-finite float replaced by its name (see `json_text`)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


class Output:
    """The streams of one command run: `command` its name, `json` and `path` (``-o``) from the options."""

    def __init__(self, command: str, *, json: bool = False, path: str | None = None, color: str = "auto") -> None:
        self.command = command
        self.json = json
        self.path = path
        self.color = wants_color(color, sys.stderr)

    def result(self, text: str) -> None:
        """Write the result: to ``-o FILE`` (replaced whole), else to stdout.  An unwritable file is a `Failure`."""
        if self.path and self.path != "-":
            write_file(self.path, text)
            return
        with progress.paused():
            write_stdout(text)

    def document(self, document: Mapping[str, Any]) -> None:
        """Write the result as one JSON document."""
        self.result(json_text(document))

    def diagnostic(self, text: str) -> None:
        """Write `text` (whole lines) to stderr."""
        with progress.paused():
            sys.stderr.write(text if text.endswith("\n") or not text else text + "\n")
            sys.stderr.flush()

    def fail(self, failure: Failure) -> int:
        """Report `failure` (one line on stderr, or the error document under ``--json``); its exit status."""
        message = one_line(failure.message)
        if self.json:
            try:
                self.document(self.error_document(failure, message))
                return failure.status
            except Failure:  # the -o file (or stdout) cannot be written: the document goes to stdout, else a line
                self.path = None
                try:
                    self.document(self.error_document(failure, message))
                    return failure.status
                except Failure:
                    pass
        prefix = f"{_RED_BOLD}error{_RESET}:" if self.color else "error:"
        self.diagnostic(f"{prefix} {message}")
        return failure.status

    def error_document(self, failure: Failure, message: str) -> dict[str, Any]:
        """The ``--json`` document of a failure (``docs/schemas/error.json``)."""
        file, line, column = failure.location or (None, None, None)
        return {
            "schema": ERROR_SCHEMA,
            "command": self.command,
            "status": "error",
            "exit_status": failure.status,
            "kind": failure.kind,
            "message": message,
            "location": None if failure.location is None else {"file": file, "line": line, "column": column},
        }


def read_stdin() -> bytes:
    """The bytes of a module's text on stdin (`ir.read_text_bytes`); a process started without stdin (``<&-``)
    is an `ir.ParseError`, and so is one whose reading raises `OSError`."""
    from vdplace import ir

    if sys.stdin is None:
        raise ir.ParseError("cannot read the module from stdin: it is closed")
    try:
        return ir.read_text_bytes(sys.stdin.buffer, "<stdin>")
    except OSError as err:
        raise ir.ParseError(f"cannot read the module from stdin: {err.strerror or err}") from None


def write_stdout(text: str) -> None:
    """Write `text` to stdout and flush it; a stdout that cannot take it (a full disk: ``> /dev/full``) is a
    `Failure` (a reader that left, `BrokenPipeError`, is the caller's)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as err:
        raise Failure(f"cannot write the result to stdout: {err.strerror or err}") from None


def write_file(path: str, text: str) -> None:
    """Write `text` to `path`, replacing it; a file that cannot be written is a bad-input `Failure`."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as err:
        raise Failure(f"cannot write {path}: {err.strerror or err}") from None
