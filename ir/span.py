"""Source positions, so that every diagnostic can point at a line and column."""

from __future__ import annotations


class Span:
    """A half-open region of a source file: 1-based lines, 1-based columns."""

    __slots__ = ("file", "line", "col", "end_line", "end_col")

    def __init__(
        self,
        file: str | None,
        line: int,
        col: int,
        end_line: int | None = None,
        end_col: int | None = None,
    ) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.end_line = line if end_line is None else end_line
        self.end_col = col if end_col is None else end_col

    def location(self) -> str:
        return f"{self.file or '<string>'}:{self.line}:{self.col}"

    def __repr__(self) -> str:
        return f"Span({self.location()})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Span) and (
            self.file,
            self.line,
            self.col,
            self.end_line,
            self.end_col,
        ) == (other.file, other.line, other.col, other.end_line, other.end_col)

    def __hash__(self) -> int:
        return hash((self.file, self.line, self.col))
