"""Whole functions the skeleton collapses, so that a module of many small functions costs no AST for them.

A function qualifies when, in the skeleton built so far (fast runs already
``pass``, fast dataflow blocks collapsed, fast ``def`` lines blanked):

* its ``def`` line is a `skeleton.FastDef`, indented (a function at the top
  of a file is left to `ast`, which reports it);
* the line right above it is ``@R.function`` or ``@R.function(...)``
  (ASCII, no bracket, quote, ``#`` or backslash inside the call), at the
  ``def``'s indentation;
* its body is blank lines, ``pass`` lines each the first line of a fast run
  or of a collapsed dataflow block, and a last line ``return name``, all at
  one indentation that extends the ``def``'s (so it is deeper by any
  measure of tabs).

Such a function becomes ``pass`` at its decorator and blank lines, and one
that follows another at the same indentation with only blank lines between
joins its group, becoming blank lines only: the statements are the same
(`ModuleParser.statements` yields the group's functions where the ``pass``
stands), and a wrong indentation around a group makes the skeleton fail to
parse where the original would.  `FastFunction` stands for the
``ast.FunctionDef`` (its position is the ``def``'s, as in the AST) and
builds its body's statements only when the function is parsed.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from .fastlines import _IDENT, FastRun

if TYPE_CHECKING:
    from .skeleton import FastBlock, FastDef

# The decorator line, matched at its start.  Groups: 1 indentation, 2 the decorator.
_DECORATOR = re.compile(r"([ \t]++)(@R\.function(?:\([^()\n#'\"\\]*+\))?)[ \t]*+\n", re.ASCII)
# The body, matched at the newline that ends the ``def`` line.  Groups: 1 its indentation, 2 the returned name.
_BODY = re.compile(
    rf"\n(?:[ \t]*+\n)*+([ \t]++)(?:pass\n(?:[ \t]*+\n|\1pass\n)*+\1)?return[ \t]++({_IDENT})[ \t]*+$",
    re.ASCII | re.MULTILINE,
)


class FastFunction:
    """A collapsed ``@R.function``: what the parser reads of its ``ast.FunctionDef``, and its body on demand.

    `lineno`, `col_offset` (0-based), `end_lineno` and `end_col_offset` are
    the ``FunctionDef``'s; `decorator` is the decorator's text (from ``@``) at
    0-based column `col_offset` of the line above; `passes` are the lines of
    the body's ``pass`` statements, at column `body_col`; the function ends
    with ``return ret_name``, the name at column `ret_col` of line `end_lineno`.
    """

    __slots__ = (
        "name",
        "lineno",
        "col_offset",
        "end_lineno",
        "end_col_offset",
        "decorator",
        "passes",
        "body_col",
        "ret_name",
        "ret_col",
    )

    def __init__(
        self, name: str, lineno: int, col: int, decorator: str, passes: tuple[int, ...], body_col: int
    ) -> None:
        self.name = name
        self.lineno = lineno
        self.col_offset = col
        self.decorator = decorator
        self.passes = passes
        self.body_col = body_col
        self.end_lineno = lineno
        self.end_col_offset = col
        self.ret_name = ""
        self.ret_col = 0

    def statements(self) -> list[ast.stmt]:
        """The body's statements as the skeleton's AST would hold them: each ``pass``, then the ``return``."""
        col, line, end = self.body_col, self.end_lineno, self.end_col_offset
        body: list[ast.stmt] = [
            ast.Pass(lineno=p, col_offset=col, end_lineno=p, end_col_offset=col + 4) for p in self.passes
        ]
        value = ast.Name(
            self.ret_name, ast.Load(), lineno=line, col_offset=self.ret_col, end_lineno=line, end_col_offset=end
        )
        body.append(ast.Return(value, lineno=line, col_offset=col, end_lineno=line, end_col_offset=end))
        return body


def collapse_functions(
    text: str,
    defs: dict[int, FastDef],
    def_spans: list[tuple[int, int, int]],
    runs: dict[int, FastRun],
    blocks: dict[int, FastBlock],
) -> tuple[str, dict[int, list[FastFunction]]]:
    """`text` with each qualifying function collapsed, and the groups by the line of their ``pass``.

    `def_spans` holds (line, start offset, end offset) of each line in `defs`, in order.
    """
    functions: dict[int, list[FastFunction]] = {}
    decorators: dict[str, str] = {}  # one string per distinct decorator text
    pieces: list[str] = []
    copied = 0
    group: list[FastFunction] | None = None
    group_indent = ""
    for lineno, pos, end in def_spans:
        found = _function(text, lineno, pos, end, runs, blocks)
        if found is None:
            continue
        fn, deco_start, body_end, indent = found
        fn.decorator = decorators.setdefault(fn.decorator, fn.decorator)
        lines = text.count("\n", deco_start, body_end)
        joins = group is not None and indent == group_indent and not text[copied:deco_start].strip(" \t\n")
        pieces.append(text[copied:deco_start])
        if joins and group is not None:
            group.append(fn)
            pieces.append("\n" * lines)
        else:
            group, group_indent = [fn], indent
            functions[lineno - 1] = group
            pieces += (indent, "pass", "\n" * lines)
        copied = body_end
    if not functions:
        return text, functions
    pieces.append(text[copied:])
    return "".join(pieces), functions


def _function(
    text: str, lineno: int, pos: int, end: int, runs: dict[int, FastRun], blocks: dict[int, FastBlock]
) -> tuple[FastFunction, int, int, str] | None:
    """The function whose fast ``def`` line is `lineno` (offsets `pos` to `end`), with the offsets where its
    decorator starts and its body ends and its indentation; None unless it qualifies."""
    if pos < 2:
        return None
    deco_start = text.rfind("\n", 0, pos - 1) + 1
    dm = _DECORATOR.match(text, deco_start)
    if dm is None or dm.end() != pos or not dm.group(2).isascii():
        return None
    indent = dm.group(1)
    if not text.startswith(indent + "def", pos):
        return None
    bm = _BODY.match(text, end)
    if bm is None:
        return None
    body_indent = bm.group(1)
    if len(body_indent) <= len(indent) or not body_indent.startswith(indent):
        return None
    passes = []
    ret_start = bm.start(2)
    hit = text.find("pass\n", end, ret_start)
    while hit >= 0:
        line = lineno + text.count("\n", end, hit)
        if line not in runs and line not in blocks:
            return None  # a pass of the text's own
        passes.append(line)
        hit = text.find("pass\n", hit + 5, ret_start)
    name = text[pos + len(indent) + 3 : text.index("(", pos)].strip(" \t")
    fn = FastFunction(name, lineno, len(indent), dm.group(2), tuple(passes), len(body_indent))
    fn.ret_name = bm.group(2)
    fn.end_lineno = lineno + text.count("\n", end, ret_start)
    fn.ret_col = ret_start - (text.rfind("\n", 0, ret_start) + 1)
    fn.end_col_offset = fn.ret_col + len(fn.ret_name)
    return fn, deco_start, bm.end(), indent
