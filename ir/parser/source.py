"""The text being parsed: its lines, spans of AST nodes, and errors that point into it.

Every diagnostic the parser raises goes through `Source.error`, so each one
carries ``file:line:col`` and a one-line reason.  Python's `ast` reports
columns as UTF-8 byte offsets; a `Span` wants characters, so lines with
non-ASCII text are converted (ASCII text, the common case, needs no work).
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import Literal, Protocol, cast, overload

from ..collector import collector_paused
from ..errors import ParseError
from ..span import Span


class Located(Protocol):
    """What a node with a position has: an AST statement, expression, argument, keyword, ..., or a
    `fastfunctions.FastFunction` standing for a ``def``."""

    @property
    def lineno(self) -> int: ...
    @property
    def col_offset(self) -> int: ...
    @property
    def end_lineno(self) -> int | None: ...
    @property
    def end_col_offset(self) -> int | None: ...


_NEWLINE = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines as Python's tokenizer counts them (``\\r\\n``, ``\\r`` and ``\\n`` end a line)."""
    if "\r" not in text:
        return text.split("\n")
    return _NEWLINE.split(text)


def one_line(reason: str) -> str:
    """A reason with no line breaks, so ``str(error)`` is exactly one line."""
    if "\n" in reason or "\r" in reason:
        return " ".join(reason.split())
    return reason


class Source:
    """The text, its file name and its lines; makes spans and errors.

    `lines` is split only when something asks for it (errors, non-ASCII
    columns): a big module is scanned in place (`lf_text`), never copied line
    by line.
    """

    __slots__ = ("text", "filename", "_lines", "_ascii")

    def __init__(self, text: str, filename: str | None) -> None:
        self.text = text
        self.filename = filename
        self._lines: list[str] | None = None
        self._ascii = text.isascii()

    @property
    def lines(self) -> list[str]:
        """The lines as Python's tokenizer counts them (see `split_lines`)."""
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    @property
    def lf_text(self) -> str:
        """The text with every line break written ``\\n``: same lines, same columns."""
        text = self.text
        if "\r" not in text:
            return text
        return "\n".join(split_lines(text))

    def head(self, count: int, max_chars: int) -> str | None:
        """The first `count` lines (``\\n``-separated), fewer where those are longer than `max_chars`.

        None when the text has no more lines than `count`, or its first line is longer than `max_chars`.
        """
        text = self.lf_text
        pos = -1
        for _ in range(count):
            pos = text.find("\n", pos + 1)
            if pos < 0:
                return None
        if pos > max_chars:
            pos = text.rfind("\n", 0, max_chars + 1)
        return text[:pos] if pos > 0 else None

    def _col(self, lineno: int, byte_col: int) -> int:
        """1-based character column of a 0-based UTF-8 byte offset on line `lineno`."""
        if self._ascii or not 0 < lineno <= len(self.lines):
            return byte_col + 1
        line = self.lines[lineno - 1]
        if line.isascii():
            return byte_col + 1
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace")) + 1

    def span(self, node: ast.AST | Located) -> Span:
        """The span of a node (1-based line and column, end exclusive).

        `node` must be one that carries a position (a statement, expression, argument, keyword, ...):
        ``ast.AST`` itself declares none, so an AST node is read as `Located`.
        """
        located = cast(Located, node)
        line = located.lineno
        end_line = located.end_lineno or line
        end_col = located.end_col_offset
        return Span(
            self.filename,
            line,
            self._col(line, located.col_offset),
            end_line,
            self._col(end_line, end_col if end_col is not None else located.col_offset),
        )

    def span_at(self, line: int, col0: int, end_col0: int) -> Span:
        """A span on one ASCII line from 0-based character columns (the fast path's spans)."""
        return Span(self.filename, line, col0 + 1, line, end_col0 + 1)

    def start(self) -> Span:
        return Span(self.filename, 1, 1)

    def error(
        self, reason: str, where: ast.AST | Located | Span | None, cls: type[ParseError] = ParseError
    ) -> ParseError:
        """An error of class `cls` at `where` (a node or a span; the file start if None)."""
        if where is None:
            span = self.start()
        elif isinstance(where, Span):
            span = where
        else:
            span = self.span(where)
        return cls(one_line(reason), span)


@overload
def quiet_parse(text: str, mode: Literal["exec"] = "exec", filename: str = "<unknown>") -> ast.Module: ...
@overload
def quiet_parse(text: str, mode: Literal["eval"], filename: str = "<unknown>") -> ast.Expression: ...
def quiet_parse(
    text: str, mode: Literal["exec", "eval"] = "exec", filename: str = "<unknown>"
) -> ast.Module | ast.Expression:
    """`ast.parse` without the SyntaxWarnings Python prints for odd literals such as ``1if``.

    The parser reports problems as errors; a warning on stderr would only be noise.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(text, filename=filename, mode=mode)
    assert isinstance(tree, (ast.Module, ast.Expression))
    return tree


@overload
def parse_python(src: Source, text: str, mode: Literal["exec"] = "exec") -> ast.Module: ...
@overload
def parse_python(src: Source, text: str, mode: Literal["eval"]) -> ast.Expression: ...
def parse_python(src: Source, text: str, mode: Literal["exec", "eval"] = "exec") -> ast.Module | ast.Expression:
    """`ast.parse`, with every way it can fail turned into a located `ParseError`."""
    nul = text.find("\0")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        col = nul - (text.rfind("\n", 0, nul) + 1) + 1
        raise src.error("the text contains a NUL byte", Span(src.filename, line, col))
    try:
        with collector_paused():
            return quiet_parse(text, mode, src.filename or "<string>")
    except SyntaxError as err:
        line = err.lineno or 1
        col = err.offset or 1
        raise src.error(f"invalid syntax: {err.msg}", Span(src.filename, line, max(col, 1))) from None
    except ValueError as err:
        raise src.error(f"cannot parse the text: {err}", None) from None
    except (RecursionError, MemoryError) as err:
        # Python does not say where; the culprit is almost always the longest line.
        lines = split_lines(text)
        longest = max(range(len(lines)), key=lambda i: len(lines[i]))
        raise src.error(
            f"an expression is nested too deeply for Python's parser ({type(err).__name__}), "
            f"probably on this line (the longest, {len(lines[longest])} characters)",
            Span(src.filename, longest + 1, 1),
        ) from None
