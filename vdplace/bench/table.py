"""A Markdown table whose columns line up in a terminal, printed one row at a time.

Each column has a fixed width (its header's, or more where asked), so a row
can be printed the moment it is measured and still line up with the rows
before it; a cell wider than its column widens that row only.  The first
column is left-aligned, the others (numbers) right-aligned, and the
separator line says so in Markdown (``---:``), so the text pastes into a
Markdown file as a table too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

MIN_WIDTH = 7


class Table:
    """The header, separator and rows of a table with `columns` (names); `widths` widens named columns."""

    def __init__(self, columns: Sequence[str], widths: Mapping[str, int] | None = None) -> None:
        widths = widths or {}
        self.columns = list(columns)
        self.widths = [max(len(c), MIN_WIDTH, widths.get(c, 0)) for c in self.columns]

    def header(self) -> str:
        """The header line and the separator line."""
        names = self._line(self.columns)
        rule = " | ".join(("-" * w if i == 0 else "-" * (w - 1) + ":") for i, w in enumerate(self.widths))
        return f"{names}\n{rule}"

    def row(self, cells: Sequence[str]) -> str:
        """One row: `cells` in column order, padded."""
        if len(cells) != len(self.columns):
            raise ValueError(f"a row of {len(self.columns)} columns got {len(cells)} cells")
        return self._line(cells)

    def _line(self, cells: Sequence[str]) -> str:
        pairs = enumerate(zip(cells, self.widths, strict=True))
        return " | ".join((str(c).ljust(w) if i == 0 else str(c).rjust(w)) for i, (c, w) in pairs).rstrip()
