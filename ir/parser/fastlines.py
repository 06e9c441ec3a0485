"""Fast lines: the one line shape that dominates big modules, found and read without `ast`.

Why: `ast.parse` costs about 40 us and 10 KB of memory per line of printed
TVMScript (``lv1: R.Tensor((8, 8), dtype="float32") = R.add(lv0, lv0)``), so a
100k-binding module would take seconds and a gigabyte before the parser even
starts.  Such lines are simple enough to recognise with one regular
expression; their few distinct annotation and argument texts are parsed with
`ast` once each and cached by the function parser.

A line is *fast* only if it is ASCII, matches `LINE` (``name[: ann] =
R.op(idents[, other args])``, ``name[: ann] = a.f(idents[, other args])`` for
any ``a`` but R, T, I and tvm, ``name[: ann] = ident`` or ``name[: ann] =
ident[index]``, no identifier a Python keyword), contains no ``#``, quote
``'``, backslash, ``;`` or triple quote, its annotation parses as one
expression on its own and its other arguments as the arguments of a call (no
``*`` or ``**``).  Such a line is a complete
simple statement whenever it *starts* a logical line.

`find_runs` does not check all that: it takes *candidate* lines
(`CANDIDATE`: ``name: ...``, or ``name = `` and a name that is not
``T.``, ``I.`` or ``tvm.``, with no ``#``, ``'``, backslash or ``;``, ending
in a name, ``)`` or ``]``, which every fast line is) and turns each run of them at one
indentation into ``pass`` followed by blank lines, so line numbers do not
move.  The function parser matches `LINE` as it consumes a run; a candidate
that is not fast is read from its own text with `ast`, and must read there
as one assignment (`reads_alone`): when one does not, the run is not what
the skeleton assumed, and `parse` raises `SkeletonMismatch` to read the
original text instead.  Before reporting any error, `parse` checks that
every candidate reads alone, so that an error the original text raises
first (a syntax error in a candidate) is the one reported.  `skeleton`
builds the rest of the text the parser reads, and says why the result parses
exactly as the original would.

Memory: the scan keeps no per-line object.  A run is its first line, its
offset in the text and its length; the function parser matches each line
again as it consumes the run (`FastRun.matches`), so the only per-binding
objects alive at once are the IR nodes being built.
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Callable, Iterator, Sequence

from .source import quiet_parse


def _prefix_tree(words: Sequence[str]) -> str:
    """A regex matching exactly `words`, factored by common prefixes (faster for `re` than a flat list)."""
    by_first: dict[str, list[str]] = {}
    for word in words:
        by_first.setdefault(word[:1], []).append(word[1:])
    branches = []
    for first, rests in sorted(by_first.items()):
        if len(rests) == 1:
            branches.append(re.escape(first + rests[0]))
            continue
        longer = [r for r in rests if r]
        optional = "?" if "" in rests else ""
        branches.append(f"{re.escape(first)}(?:{_prefix_tree(longer)}){optional}")
    return "|".join(branches)


_NOT_KEYWORD = rf"(?!(?:{_prefix_tree(keyword.kwlist)})\b)"
_IDENT = _NOT_KEYWORD + r"[A-Za-z_]\w*+"
# A piece of an annotation between two "=" signs that does not end in blanks.
_ANN_PART = r"[^#'\\;= \t\n]*+(?:[ \t]++[^#'\\;= \t\n]++)*+"

# One whole line (MULTILINE: `find_runs` finds them all in one scan of the text).
# Groups: 1 indent, 2 name, 3 annotation, 4 value, 5 op (``R.<op>``), 6 function (``cls.<f>``, any
# ``a.b`` but R, T, I and tvm), 7 leading variable args, 8 the other args, 9 alias or indexed tuple,
# 10 index (a decimal literal as Python writes one: no leading zero).
LINE = re.compile(
    rf"^([ \t]*+)({_IDENT})"
    rf"(?:[ \t]*+:[ \t]*+(R\.{_ANN_PART}(?:[ \t]*+={_ANN_PART})*?))?"
    r"[ \t]*+=[ \t]*+"
    rf"(?:((?:R\.({_IDENT}(?:\.{_IDENT})*+)|((?!(?:R|T|I|tvm)\.){_IDENT}\.{_IDENT}))\("
    rf"([ \t]*+{_IDENT}[ \t]*+(?:,[ \t]*+{_IDENT}[ \t]*+)*)?"
    rf"(?:(?(7),[ \t]*+)([^#'\\;\n]+))?"
    rf"\))|({_IDENT})(?:\[(0|[1-9][0-9]*+)\])?)"
    r"[ \t]*+$",
    re.ASCII | re.MULTILINE,
)
# A candidate line (MULTILINE), a superset of `LINE`: ``name:`` or ``name = `` and a name (not ``T.``, ``I.`` or
# ``tvm.``, which a symbol declaration ``n = T.int64()`` starts with), then no ``#``, ``'``, backslash or ``;``;
# `find_runs` also wants it to end in a name, ``)`` or ``]``.  Group 1: the indentation.
CANDIDATE = re.compile(
    rf"^([ \t]*+){_IDENT}[ \t]*+(?::|=(?![ \t]*+(?:T|I|tvm)\.)[ \t]*+[A-Za-z_])[^\n#'\\;]*+$",
    re.ASCII | re.MULTILINE,
)


class SkeletonMismatch(Exception):
    """A candidate line the skeleton collapsed is not one assignment on its own: read the original text instead."""


# The start of each line: its indentation and first identifier (a fast line's bound name).
_NAME = re.compile(r"^([ \t]*+)([A-Za-z_]\w*+)", re.ASCII | re.MULTILINE)


class FastLine:
    """One fast line read apart, off the hot path (fallbacks, module-level lines, error locations).

    `col` and `value_end` are 0-based character columns: where the statement
    starts and where its value ends.
    """

    __slots__ = ("lineno", "text", "col", "name", "value_end")

    def __init__(self, lineno: int, text: str) -> None:
        self.lineno = lineno
        self.text = text
        m = LINE.fullmatch(text)
        if m is None:  # a candidate of another shape: its statement runs to the end of the line
            start = _NAME.match(text)
            assert start is not None, "a candidate line starts with a name"
            self.col = start.end(1)
            self.name = start.group(2)
            self.value_end = len(text.rstrip(" \t"))
            return
        self.col = m.end(1)
        self.name = m.group(2)
        self.value_end = value_end(m)


def value_end(m: re.Match[str]) -> int:
    """Where the value of a `LINE` match ends: its call's bracket, its alias, or its tuple item's ``]``."""
    if m.group(9) is None:
        return m.end(4)
    return m.end(9) if m.group(10) is None else m.end(10) + 1


class FastRun:
    """Consecutive candidate lines at one indentation: `count` lines, offsets `start` to `end` of `text`."""

    __slots__ = ("text", "first", "start", "end", "count")

    def __init__(self, text: str, first: int, start: int, end: int) -> None:
        self.text = text
        self.first = first
        self.start = start
        self.end = end
        self.count = 1

    def matches(self) -> Iterator[re.Match[str]]:
        """The `LINE` match of each line that has one, in order (the others are skipped: see `line_at`)."""
        return LINE.finditer(self.text, self.start, self.end)

    def line_at(self, offset: int, lineno: int) -> FastLine:
        """The line of the run that starts at `offset` of the text, line number `lineno`, read apart."""
        end = self.text.find("\n", offset, self.end)
        return FastLine(lineno, self.text[offset : self.end if end < 0 else end])

    def lines(self) -> Iterator[FastLine]:
        """Each line read apart (off the hot path)."""
        for lineno, text in enumerate(self.text[self.start : self.end].split("\n"), self.first):
            yield FastLine(lineno, text)

    def reads_alone(self) -> bool:
        """Whether each line is fast or, read apart with `ast`, one assignment (see `reads_alone`)."""
        return all(reads_alone(line.text[line.col :]) for line in self.lines())

    def last_binding(self, name: str) -> tuple[int, int] | None:
        """(line number, 0-based column) of the run's last line binding `name`, or None when none does.

        Each line of a run starts with the run's indentation and its bound
        name, so this is a search backwards for that text at a line start.
        """
        text, start = self.text, self.start
        first = _NAME.match(text, start)
        assert first is not None  # a run's first line is a candidate line
        indent = first.group(1)
        needle = "\n" + indent + name
        hi = self.end
        while True:
            found = text.rfind(needle, start, hi)
            if found < 0:
                if not text.startswith(needle[1:], start):
                    return None
                found = start - 1  # the first line
            after = found + len(needle)
            if after >= len(text) or not (text[after].isalnum() or text[after] == "_"):
                return self.first + text.count("\n", start, found + 1), len(indent)
            if found < start:
                return None
            hi = after - 1  # a longer name: look before it


def reads_alone(statement: str) -> bool:
    """Whether a candidate line's `statement` (from its name on) is fast, or else one assignment by itself."""
    m = LINE.fullmatch(statement)
    if m is not None:
        ann, rest = m.group(3, 8)
        if (ann is None or _parses_alone(ann)) and (rest is None or _parses_as_arguments(rest)):
            return True
    try:
        body = quiet_parse(statement).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return len(body) == 1 and type(body[0]) in (ast.Assign, ast.AnnAssign)


def _parses_alone(text: str) -> bool:
    """An annotation text: one expression on its own, and not a tuple without brackets (``R.T, ensor(...)``), which
    an expression may be and an annotation may not."""
    return _parses(text, _not_bare_tuple)


def _not_bare_tuple(tree: ast.AST) -> bool:
    return not (type(tree) is ast.Tuple and tree.elts and tree.elts[0].col_offset == tree.col_offset)


def _parses_as_arguments(text: str) -> bool:
    """An arguments text: ``_f(text)`` is a call, with no ``*`` or ``**`` arguments."""
    return _parses(f"_f({text})", _plain_call)


def _parses(text: str, check: Callable[[ast.expr], bool]) -> bool:
    if len(text) > 2000 or '"""' in text:
        return False
    try:
        tree = quiet_parse(text, "eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return check(tree) and tree.end_lineno == 1 and tree.col_offset == 0 and tree.end_col_offset == len(text)


def _plain_call(tree: ast.AST) -> bool:
    return (
        isinstance(tree, ast.Call)
        and isinstance(tree.func, ast.Name)
        and tree.func.id == "_f"
        and not any(isinstance(arg, ast.Starred) for arg in tree.args)
        and all(kw.arg is not None for kw in tree.keywords)
    )


def find_runs(text: str) -> tuple[str, dict[int, FastRun]]:
    """`text` (``\\n`` line breaks) with each run of candidate lines made ``pass`` and blank lines; the runs.

    The runs are keyed by their first line.  The text comes back unchanged
    (the same object) when no line is a candidate.
    """
    runs: dict[int, FastRun] = {}
    pieces: list[str] = []
    copied = 0  # text[:copied] is accounted for in `pieces` (candidate lines as "pass" and blank lines)
    run: FastRun | None = None
    run_indent = ""
    last_end = -2  # end of the last candidate line
    ascii_text = text.isascii()
    count = text.count
    lineno = 1
    counted = 0  # lineno is the line of offset `counted`
    for m in CANDIDATE.finditer(text):
        pos, end = m.span()
        last = text[end - 1]
        if last in " \t":
            last = text[pos:end].rstrip(" \t")[-1:]
        if not (last.isalnum() or last == "_" or last == ")" or last == "]"):
            continue
        if not ascii_text and not text[pos:end].isascii():
            continue
        follows = pos == last_end + 1  # the line right after the last candidate
        lineno += 1 if follows else count("\n", counted, pos)
        counted = pos
        indent_end = m.end(1)
        if follows and run is not None and indent_end - pos == len(run_indent) and text.startswith(run_indent, pos):
            run.count += 1
            run.end = copied = last_end = end
            continue
        if run is not None:
            pieces.append("\n" * (run.count - 1))
        run_indent = text[pos:indent_end]
        pieces.append(text[copied:pos])
        pieces.append(run_indent + "pass")
        run = FastRun(text, lineno, pos, end)
        runs[lineno] = run
        copied = last_end = end
    if run is None:
        return text, runs
    pieces.append("\n" * (run.count - 1))
    pieces.append(text[copied:])
    return "".join(pieces), runs
