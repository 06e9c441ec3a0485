"""A fast path for the one line shape that dominates big modules.

Why: `ast.parse` costs about 40 us and 10 KB of memory per line of printed
TVMScript (``lv1: R.Tensor((8, 8), dtype="float32") = R.add(lv0, lv0)``), so a
100k-binding module would take seconds and a gigabyte before the parser even
starts.  Such lines are simple enough to recognise with one regular
expression; their few distinct annotation and keyword texts are parsed with
`ast` once each and cached by the function parser.

How it stays exactly equivalent to parsing the whole text with `ast`:

* A line is *fast* only if it is ASCII, matches `_LINE` (``name[: ann] =
  R.op(idents[, keywords])`` or ``name = ident``), contains no ``#``, quote
  ``'``, backslash, ``;`` or triple quote, and its annotation and keyword
  texts each parse as one expression on their own.  Such a line is a
  complete simple statement whenever it *starts* a logical line.
* The parser reads a *skeleton*: each run of consecutive fast lines at one
  indentation becomes ``pass`` followed by blank lines, so line numbers do
  not move.  If a run did not start a logical line in the original (it sat
  inside brackets, a multi-line string or after a backslash), the skeleton
  differs from the original; that shows up as a syntax error in the
  skeleton or as a run inside a multi-line string, and `parse` then
  reparses the original text without the fast path.
* A fast line the function parser cannot finish on the fast path (an
  unknown name, an op whose parameters do not fit) is re-read from its own
  text with `ast` and handled by the ordinary code, so errors are the same.
"""

from __future__ import annotations

import ast
import keyword
import re

from .source import Source, quiet_parse

_IDENT = r"[A-Za-z_]\w*"
_LINE = re.compile(
    rf"(?P<indent>[ \t]*)(?P<name>{_IDENT})"
    r"(?:[ \t]*:[ \t]*(?P<ann>R\.[^#'\\;]*?))?"
    r"[ \t]*=[ \t]*"
    rf"(?:(?P<call>R\.(?P<op>{_IDENT}(?:\.{_IDENT})*)\("
    rf"(?P<pos>[ \t]*{_IDENT}[ \t]*(?:,[ \t]*{_IDENT}[ \t]*)*)?"
    rf"(?:(?(pos),[ \t]*)(?P<kw>{_IDENT}[ \t]*=[^=#'\\;][^#'\\;]*))?"
    rf"\))|(?P<alias>{_IDENT}))"
    r"[ \t]*\Z",
    re.ASCII,
)
_KEYWORDS = frozenset(keyword.kwlist)


class FastLine:
    """One fast line: its parts and the 0-based character columns the spans need."""

    __slots__ = (
        "lineno",
        "text",
        "col",
        "name",
        "ann",
        "ann_col",
        "op",
        "alias",
        "positional",
        "keywords",
        "keywords_col",
        "value_col",
        "value_end",
    )

    def __init__(self, lineno: int, text: str, m: re.Match[str], positional: list[str]) -> None:
        self.lineno = lineno
        self.text = text
        _, self.name, self.ann, _, self.op, _, self.keywords, self.alias = m.groups()
        self.col = m.end(1)
        self.ann_col = m.start(3)
        # Names of the positional arguments; the keyword text (or None) and its column.
        self.positional = positional
        self.keywords_col = m.start(7)
        self.value_col, self.value_end = m.span(4) if self.alias is None else m.span(8)


class Skeleton:
    """The text with fast runs replaced by ``pass``; `runs` maps a run's first line to its lines."""

    __slots__ = ("text", "runs", "consumed")

    def __init__(self, text: str, runs: dict[int, list[FastLine]]) -> None:
        self.text = text
        self.runs = runs
        self.consumed = 0

    def inside_multiline_string(self, tree: ast.AST, original: str) -> bool:
        """Whether a run starts inside a string literal spanning several lines of the skeleton."""
        if '"""' not in original and "'''" not in original and "\\" not in original:
            return False  # no string can span lines
        ranges = [
            (node.lineno, node.end_lineno or node.lineno)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Constant, ast.JoinedStr)) and (node.end_lineno or node.lineno) > node.lineno
        ]
        return any(first < line <= last for line in self.runs for first, last in ranges)


class _Validator:
    """Caches whether an annotation or keyword text parses as one expression on its own."""

    def __init__(self) -> None:
        self.ann: dict[str, bool] = {}
        self.kw: dict[str, bool] = {}

    def annotation(self, text: str) -> bool:
        ok = self.ann.get(text)
        if ok is None:
            ok = _parses(text, lambda tree: True)
            self.ann[text] = ok
        return ok

    def keywords(self, text: str) -> bool:
        ok = self.kw.get(text)
        if ok is None:
            call_text = f"_f({text})"
            ok = _parses(call_text, _only_keywords)
            self.kw[text] = ok
        return ok


def _parses(text: str, check) -> bool:
    if len(text) > 2000:
        return False
    try:
        tree = quiet_parse(text, "eval").body  # type: ignore[attr-defined]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return check(tree) and tree.end_lineno == 1 and tree.col_offset == 0 and tree.end_col_offset == len(text)


def _only_keywords(tree: ast.AST) -> bool:
    return (
        isinstance(tree, ast.Call)
        and isinstance(tree.func, ast.Name)
        and tree.func.id == "_f"
        and not tree.args
        and all(kw.arg is not None for kw in tree.keywords)
    )


def build_skeleton(src: Source) -> Skeleton | None:
    """The skeleton of `src`, or None when no line qualifies for the fast path."""
    lines = src.lines
    validator = _Validator()
    runs: dict[int, list[FastLine]] = {}
    out: list[str] | None = None
    run: list[FastLine] | None = None
    run_indent = ""
    match = _LINE.match
    keywords = _KEYWORDS
    for i, line in enumerate(lines):
        m = match(line) if "=" in line else None
        fast = None
        if m is not None and line.isascii() and '"""' not in line:
            indent, name, ann, _, op, pos, kw, alias = m.groups()
            positional = [p.strip() for p in pos.split(",")] if pos else []
            if (
                name not in keywords
                and alias not in keywords
                and (ann is None or validator.annotation(ann))
                and (kw is None or validator.keywords(kw))
                and (op is None or not any(part in keywords for part in op.split(".")))
                and not any(p in keywords for p in positional)
            ):
                fast = FastLine(i + 1, line, m, positional)
        if fast is None:
            run = None
            continue
        if out is None:
            out = list(lines)
        if run is not None and indent == run_indent:
            run.append(fast)
            out[i] = ""
        else:
            run = [fast]
            run_indent = indent
            runs[i + 1] = run
            out[i] = indent + "pass"
    if out is None:
        return None
    return Skeleton("\n".join(out), runs)
