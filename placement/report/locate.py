"""Finding the parts of one statement in the source text: its target, annotation, value and their columns.

Fixes are written as text edits of the module's source.  A fix's `Plan`
names a statement (or a parameter, or a return annotation) by where it
starts; `statement_at` and `expression_at` read that much of the text with
Python's `ast` (the text is TVMScript, which is Python syntax) and give
every node's position in the file, so an edit replaces exactly the
characters of a name, an argument or a call.  Only the lines of that one
statement are read, so locating costs nothing like parsing the file.

Positions are `Pos`: 1-based line and 1-based column in characters (what
`ir.Span` holds), ends exclusive.  `ast` counts columns in UTF-8 bytes; they
are converted per line.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Sequence
from typing import Literal, overload

Pos = tuple[int, int]
Located = ast.expr | ast.stmt | ast.keyword  # the nodes a Snippet gives positions of

# The most lines one statement is read over (a call written over many lines).
MAX_LINES = 400


class Snippet:
    """The text of one statement (or expression) read from `lines`, parsed, with positions in the file.

    The first line is read from column `col` (the last up to `end_col`,
    when given); a later line loses the statement's indentation (``col - 1``
    leading blanks) when it has it, so a compound statement (an If) parses
    on its own.
    """

    __slots__ = ("lines", "first", "cut", "texts", "tree")

    def __init__(
        self, lines: Sequence[str], first: int, col: int, count: int, mode: str, end_col: int | None = None
    ) -> None:
        self.lines = lines
        self.first = first
        self.cut: list[int] = []  # characters removed at the start of each line read
        self.texts: list[str] = []
        for k in range(count):
            line = lines[first - 1 + k]
            if end_col is not None and k == count - 1:
                line = line[: end_col - 1]
            cut = col - 1 if k == 0 or line[: col - 1].isspace() or col == 1 else 0
            self.cut.append(cut)
            self.texts.append(line[cut:])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.tree = ast.parse("\n".join(self.texts), mode=mode)

    def start(self, node: Located) -> Pos:
        return self._pos(node.lineno, node.col_offset)

    def end(self, node: Located) -> Pos:
        line, col = node.end_lineno, node.end_col_offset
        assert line is not None and col is not None, "ast.parse gives every node its end"
        return self._pos(line, col)

    def _pos(self, lineno: int, byte_col: int) -> Pos:
        text = self.texts[lineno - 1]
        chars = byte_col if text.isascii() else len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))
        return (self.first + lineno - 1, self.cut[lineno - 1] + chars + 1)

    def text(self, node: Located) -> str:
        """The source text of `node`, as written."""
        return text_between(self.lines, self.start(node), self.end(node))


def text_between(lines: Sequence[str], start: Pos, end: Pos) -> str:
    """The text from `start` to `end` (exclusive), line breaks written ``\\n``."""
    (l1, c1), (l2, c2) = start, end
    if l1 == l2:
        return lines[l1 - 1][c1 - 1 : c2 - 1]
    middle = [lines[k - 1] for k in range(l1 + 1, l2)]
    return "\n".join([lines[l1 - 1][c1 - 1 :], *middle, lines[l2 - 1][: c2 - 1]])


def statement_at(lines: Sequence[str], line: int, col: int, end_line: int) -> tuple[Snippet, ast.stmt] | None:
    """The one statement that starts at (`line`, `col`), or None when the text there is not one.

    The statement is read over the lines up to `end_line` first (where its
    span says it ends), else over as few lines as make one statement.
    """
    if not 1 <= line <= len(lines) or not lines[line - 1][: col - 1].isspace() and col != 1:
        return None
    tries = [end_line - line + 1] if end_line > line else []
    tries += range(1, min(MAX_LINES, len(lines) - line + 1) + 1)
    for count in tries:
        if not 1 <= count <= len(lines) - line + 1:
            continue
        try:
            snippet = Snippet(lines, line, col, count, "exec")
        except (SyntaxError, ValueError):
            continue
        tree = snippet.tree
        if isinstance(tree, ast.Module) and len(tree.body) == 1 and snippet.start(tree.body[0]) == (line, col):
            return snippet, tree.body[0]
    return None


@overload
def expression_at(
    lines: Sequence[str], start: Pos, end: Pos, mode: Literal["eval"]
) -> tuple[Snippet, ast.expr] | None: ...


@overload
def expression_at(
    lines: Sequence[str], start: Pos, end: Pos, mode: Literal["exec"]
) -> tuple[Snippet, ast.stmt] | None: ...


def expression_at(
    lines: Sequence[str], start: Pos, end: Pos, mode: Literal["eval", "exec"]
) -> tuple[Snippet, ast.expr | ast.stmt] | None:
    """The text from `start` to `end` parsed as one statement (`mode` ``"exec"``) or expression (``"eval"``)."""
    (l1, c1), (l2, c2) = start, end
    if not (1 <= l1 <= l2 <= len(lines)):
        return None
    try:
        snippet = Snippet(lines, l1, c1, l2 - l1 + 1, mode, end_col=c2)
    except (SyntaxError, ValueError):
        return None
    tree = snippet.tree
    if isinstance(tree, ast.Expression):  # mode "eval"
        return snippet, tree.body
    if isinstance(tree, ast.Module) and len(tree.body) == 1:  # mode "exec"
        return snippet, tree.body[0]
    return None


def indent_of(lines: Sequence[str], pos: Pos) -> str | None:
    """The blanks before `pos` on its line, or None when something else precedes it there."""
    before = lines[pos[0] - 1][: pos[1] - 1]
    return before if before.strip() == "" else None


def occurrences(node: ast.AST, expr: str) -> list[ast.expr]:
    """The places `node` reads `expr` (a name ``x`` or a tuple item ``t[1]``), outermost first, none nested."""
    found: list[ast.expr] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Name | ast.Subscript) and ast.unparse(current) == expr:
            found.append(current)
            continue
        if isinstance(current, ast.Attribute):
            continue  # R.add, cls.f: a module name, never a variable of the function
        stack.extend(reversed(list(ast.iter_child_nodes(current))))
    return found
