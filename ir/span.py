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


# -- packed positions -------------------------------------------------------------------------------------------
#
# The parser's fast path reads a million binding lines ``name: ann = R.op(a, b)`` into a million variables and a
# million calls; a `Span` each would cost 72 bytes, twice per line.  Instead the variable and the call of one
# line share one int that packs the line's position: its file (an index into a table of this process),
# its line, the variable's first column, and the value's first and end columns.  `ir.expr.Var` and
# `ir.expr.Call` store it as it is and turn it into a `Span` when their `span` is read: the variable's span
# runs from the name's column over ``len(name)`` characters, the call's over the value.  A packed int means
# nothing outside the node it was given to (and the nodes rebuilt from it, which keep their name), and nothing
# in another process: a pickled node carries its `Span`.

_COL_BITS = 16
_LINE_BITS = 26
MAX_PACKED_COL = (1 << _COL_BITS) - 1  # the largest column a packed position holds
MAX_PACKED_LINE = (1 << _LINE_BITS) - 1  # the largest line
_MAX_FILES = 1 << 16  # files past this many get `Span` objects, as if too long to pack
_NAME_SHIFT = 2 * _COL_BITS
_LINE_SHIFT = 3 * _COL_BITS
_FILE_SHIFT = _LINE_SHIFT + _LINE_BITS
_COL_MASK = MAX_PACKED_COL
_LINE_MASK = MAX_PACKED_LINE

_files: list[str | None] = []
_file_ids: dict[str | None, int] = {}


def packed_file(file: str | None) -> int | None:
    """The part of a packed position that names `file` (OR it with `packed_line`), or None when none is left."""
    fid = _file_ids.get(file)
    if fid is None:
        if len(_files) >= _MAX_FILES:
            return None
        fid = _file_ids[file] = len(_files)
        _files.append(file)
    return fid << _FILE_SHIFT


def packed_line(line: int, name_col: int, value_col: int, value_end: int) -> int:
    """The rest of a packed position: 1-based `line` (at most `MAX_PACKED_LINE`), columns (`MAX_PACKED_COL`)."""
    return line << _LINE_SHIFT | name_col << _NAME_SHIFT | value_col << _COL_BITS | value_end


def name_span(packed: int, name: str) -> Span:
    """The span of the variable `name` at a packed position."""
    line = packed >> _LINE_SHIFT & _LINE_MASK
    col = packed >> _NAME_SHIFT & _COL_MASK
    return Span(_files[packed >> _FILE_SHIFT], line, col, line, col + len(name))


def statement_span(packed: int) -> Span:
    """The span from the variable's first column to the value's end at a packed position."""
    line = packed >> _LINE_SHIFT & _LINE_MASK
    col = packed >> _NAME_SHIFT & _COL_MASK
    return Span(_files[packed >> _FILE_SHIFT], line, col, line, packed & _COL_MASK)


def value_span(packed: int) -> Span:
    """The span of the value at a packed position."""
    line = packed >> _LINE_SHIFT & _LINE_MASK
    return Span(_files[packed >> _FILE_SHIFT], line, packed >> _COL_BITS & _COL_MASK, line, packed & _COL_MASK)
