"""A fast path for the one line shape that dominates big modules.

Why: `ast.parse` costs about 40 us and 10 KB of memory per line of printed
TVMScript (``lv1: R.Tensor((8, 8), dtype="float32") = R.add(lv0, lv0)``), so a
100k-binding module would take seconds and a gigabyte before the parser even
starts.  Such lines are simple enough to recognise with one regular
expression; their few distinct annotation and argument texts are parsed with
`ast` once each and cached by the function parser.

How it stays exactly equivalent to parsing the whole text with `ast`:

* A line is *fast* only if it is ASCII, matches `LINE` (``name[: ann] =
  R.op(idents[, other args])``, ``name[: ann] = a.f(idents[, other args])``
  for any ``a`` but R, T, I and tvm, or ``name = ident``, no identifier a Python
  keyword), contains no ``#``, quote ``'``, backslash, ``;`` or triple
  quote, its annotation parses as one expression on its own and its other
  arguments as the arguments of a call (no ``*`` or ``**``).  Such a line is a complete simple statement whenever it
  *starts* a logical line.
* The parser reads a *skeleton*: each run of consecutive fast lines at one
  indentation becomes ``pass`` followed by blank lines, so line numbers do
  not move.  If a run did not start a logical line in the original (it sat
  inside brackets, a multi-line string or after a backslash), the skeleton
  differs from the original; that shows up as a syntax error in the
  skeleton or as a run inside a multi-line string, and `parse` then
  reparses the original text without the fast path.
* A ``def`` line of plain annotated parameters (`DEF`: ``def f(x: R.Tensor(...),
  ...) -> R.Tensor(...):``, ASCII, each annotation parsing alone) keeps its
  line in the skeleton with its parameters and return annotation made
  blanks, so every column stays put: a function with thousands of
  parameters costs no AST for them.  The module parser reads them from the
  line (`FastDef`) as it would from their AST; such a line inside a
  multi-line string sends `parse` to the original text, as a run does.
* A ``with R.dataflow():`` whose body is one run and a closing
  ``R.output(names)`` (`BLOCK`) becomes a single ``pass`` at the ``with``,
  the rest of its lines blank (`FastBlock`): a module of many small
  dataflow blocks costs no AST for them.  It reads as the same statement
  only when its body is indented deeper, by a prefix of the ``with``'s
  indentation; a misplaced line around it makes the skeleton fail to parse
  where the original would, and `parse` then reads the original.
* A fast line the function parser cannot finish on the fast path (an
  unknown name, an op whose parameters do not fit) is re-read from its own
  text with `ast` and handled by the ordinary code, so errors are the same.

Memory: the scan keeps no per-line object.  A run is its first line, its
offset in the text and its length; the function parser matches each line
again as it consumes the run (`FastRun.matches`), so the only per-binding
objects alive at once are the IR nodes being built.
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Iterator
from itertools import chain

from .source import Source, quiet_parse


def _prefix_tree(words: list[str]) -> str:
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

# One whole line (MULTILINE: `build_skeleton` finds them all in one scan of the text).
# Groups: 1 indent, 2 name, 3 annotation, 4 value, 5 op (``R.<op>``), 6 function (``cls.<f>``, any
# ``a.b`` but R, T, I and tvm), 7 leading variable args, 8 the other args, 9 alias.
LINE = re.compile(
    rf"^([ \t]*+)({_IDENT})"
    rf"(?:[ \t]*+:[ \t]*+(R\.{_ANN_PART}(?:[ \t]*+={_ANN_PART})*?))?"
    r"[ \t]*+=[ \t]*+"
    rf"(?:((?:R\.({_IDENT}(?:\.{_IDENT})*+)|((?!(?:R|T|I|tvm)\.){_IDENT}\.{_IDENT}))\("
    rf"([ \t]*+{_IDENT}[ \t]*+(?:,[ \t]*+{_IDENT}[ \t]*+)*)?"
    rf"(?:(?(7),[ \t]*+)([^#'\\;\n]+))?"
    rf"\))|({_IDENT}))"
    r"[ \t]*+$",
    re.ASCII | re.MULTILINE,
)
# The start of each line: its indentation and first identifier (a fast line's bound name).
_NAME = re.compile(r"^([ \t]*+)([A-Za-z_]\w*+)", re.ASCII | re.MULTILINE)


def _balanced(depth: int) -> str:
    """Brackets ``(...)`` nested at most `depth` deep, holding no quote but whole ``"..."`` strings (no backslash)."""
    inner = r'[^()"\'\\#\n]|"[^"\\\n]*+"'
    group = rf"\((?:{inner})*+\)"
    for _ in range(depth - 1):
        group = rf"\((?:{inner}|{group})*+\)"
    return group


# A struct-info annotation of a signature: ``R.Tensor((2, 3), dtype="float32")``, ``R.Object``.
_SIG_ANN = rf"R\.{_IDENT}(?:\.{_IDENT})*+(?:{_balanced(4)})?"
_PARAM = rf"[ \t]*+({_IDENT})[ \t]*+:[ \t]*+({_SIG_ANN})[ \t]*+"
# One parameter ``name: annotation``.  Groups: 1 name, 2 annotation.
PARAM = re.compile(_PARAM, re.ASCII)
# A whole ``def`` line with plain annotated parameters, nothing after its colon (MULTILINE).
DEF = re.compile(
    rf"^[ \t]*+def[ \t]++{_IDENT}[ \t]*+\("
    rf"(?P<params>(?:{_PARAM}(?:,{_PARAM})*+)?)"
    rf"\)(?:[ \t]*+->[ \t]*+(?P<ret>{_SIG_ANN}))?[ \t]*+:[ \t]*+$",
    re.ASCII | re.MULTILINE,
)

# ``with R.dataflow():`` whose body, in the skeleton, is one run's ``pass`` and an ``R.output`` of names
# (MULTILINE).  Groups: 1 the indentation of the with, 2 of its body, 3 blank lines, 4 the output names.
BLOCK = re.compile(
    r"^([ \t]*+)with[ \t]++R\.dataflow\(\)[ \t]*+:[ \t]*+\n"
    rf"([ \t]++)pass\n(\n*+)\2R\.output\(((?:[ \t]*+{_IDENT}[ \t]*+(?:,[ \t]*+{_IDENT}[ \t]*+)*+)?)\)[ \t]*+$",
    re.ASCII | re.MULTILINE,
)
_OUTPUT_NAME = re.compile(r"[A-Za-z_]\w*+", re.ASCII)


class FastLine:
    """One fast line read apart, off the hot path (fallbacks, module-level lines, error locations).

    `col` and `value_end` are 0-based character columns: where the statement
    starts and where its value ends.
    """

    __slots__ = ("lineno", "text", "col", "name", "alias", "value_end")

    def __init__(self, lineno: int, text: str) -> None:
        m = LINE.match(text)
        assert m is not None, "a fast line matched when the skeleton was built"
        self.lineno = lineno
        self.text = text
        self.col = m.end(1)
        self.name = m.group(2)
        self.alias = m.group(9)
        self.value_end = m.end(4) if self.alias is None else m.end(9)


class FastRun:
    """Consecutive fast lines at one indentation: `count` lines, offsets `start` to `end` of `text`."""

    __slots__ = ("text", "first", "start", "end", "count")

    def __init__(self, text: str, first: int, start: int, end: int) -> None:
        self.text = text
        self.first = first
        self.start = start
        self.end = end
        self.count = 1

    def matches(self) -> Iterator[re.Match[str]]:
        """The `LINE` match of each line, in order (each line of a run matches it whole)."""
        return LINE.finditer(self.text, self.start, self.end)

    def lines(self) -> Iterator[FastLine]:
        """Each line read apart (off the hot path)."""
        for lineno, m in enumerate(self.matches(), self.first):
            yield FastLine(lineno, m.group())

    def last_binding(self, name: str) -> tuple[int, int] | None:
        """(line number, 0-based column) of the run's last line binding `name`, or None when none does.

        Each line of a run starts with the run's indentation and its bound
        name, so this is a search backwards for that text at a line start.
        """
        text, start = self.text, self.start
        indent = _NAME.match(text, start).group(1)  # type: ignore[union-attr]
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


class FastDef:
    """A ``def`` line whose parameters and return annotation the skeleton leaves blank.

    `line` is the whole line; `params` and `ret` are (start, end) character
    offsets in it of the parameter list and of the return annotation (None without one).
    """

    __slots__ = ("lineno", "line", "params", "ret")

    def __init__(self, lineno: int, line: str, params: tuple[int, int], ret: tuple[int, int] | None) -> None:
        self.lineno = lineno
        self.line = line
        self.params = params
        self.ret = ret

    def parameters(self) -> Iterator[tuple[str, int, str, int]]:
        """(name, 0-based column of the name, annotation text, 0-based column of the annotation) of each parameter."""
        line = self.line
        pos, end = self.params
        while pos < end:
            m = PARAM.match(line, pos)
            assert m is not None, "the parameters matched when the skeleton was built"
            yield m.group(1), m.start(1), m.group(2), m.start(2)
            pos = m.end() + 1


class FastBlock:
    """A ``with R.dataflow():`` block of one run and an ``R.output(names)``, a single ``pass`` in the skeleton.

    `lineno` and `col` (0-based) locate the ``with``; `out_line` is the line
    of ``R.output(...)``, `names` its text (from the column `names_col`) and
    `end_col` the 0-based column just after it.
    """

    __slots__ = ("lineno", "col", "run", "out_line", "names", "names_col", "end_col")

    def __init__(self, lineno: int, col: int, run: FastRun, out_line: int, names: str, names_col: int) -> None:
        self.lineno = lineno
        self.col = col
        self.run = run
        self.out_line = out_line
        self.names = names
        self.names_col = names_col
        self.end_col = names_col + len(names) + 1

    def outputs(self) -> Iterator[tuple[str, int]]:
        """(name, 0-based column) of each name in ``R.output(...)``, in order."""
        for m in _OUTPUT_NAME.finditer(self.names):
            yield m.group(), self.names_col + m.start()


class Skeleton:
    """The text with fast runs replaced by ``pass``, fast signatures blanked and fast dataflow blocks collapsed.

    `runs` maps a run's first line to the run, `defs` a blanked ``def`` line's
    number to its `FastDef`, `blocks` a collapsed block's first line to its `FastBlock`.
    """

    __slots__ = ("text", "runs", "defs", "blocks", "consumed")

    def __init__(
        self, text: str, runs: dict[int, FastRun], defs: dict[int, FastDef], blocks: dict[int, FastBlock]
    ) -> None:
        self.text = text
        self.runs = runs
        self.defs = defs
        self.blocks = blocks
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
        return any(first < line <= last for line in chain(self.runs, self.defs, self.blocks) for first, last in ranges)


def _parses_alone(text: str) -> bool:
    """An annotation text: one expression on its own."""
    return _parses(text, lambda tree: True)


def _parses_as_arguments(text: str) -> bool:
    """An arguments text: ``_f(text)`` is a call, with no ``*`` or ``**`` arguments."""
    return _parses(f"_f({text})", _plain_call)


def _parses(text: str, check) -> bool:
    if len(text) > 2000 or '"""' in text:
        return False
    try:
        tree = quiet_parse(text, "eval").body  # type: ignore[attr-defined]
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


def build_skeleton(src: Source) -> Skeleton | None:
    """The skeleton of `src`, or None when no line qualifies for the fast path."""
    text = src.lf_text
    ascii_text = text.isascii()
    ann_ok: dict[str, bool] = {}  # annotation text -> whether it parses alone
    rest_ok: dict[str, bool] = {}  # other arguments' text -> whether it parses as call arguments
    runs: dict[int, FastRun] = {}
    pieces: list[str] = []
    copied = 0  # text[:copied] is accounted for in `pieces` (fast lines as "pass" and blank lines)
    run: FastRun | None = None
    run_indent = ""
    last_end = -2  # end of the last fast line
    count = text.count
    lineno = 1
    counted = 0  # lineno is the line of offset `counted`
    for m in LINE.finditer(text):
        pos, end = m.span()
        ann, rest = m.group(3, 8)
        if ann is not None:
            ok = ann_ok.get(ann)
            if ok is None:
                ok = ann_ok[ann] = _parses_alone(ann)
            if not ok:
                continue
        if rest is not None:
            ok = rest_ok.get(rest)
            if ok is None:
                ok = rest_ok[rest] = _parses_as_arguments(rest)
            if not ok:
                continue
        if not ascii_text and not text[pos:end].isascii():
            continue
        follows = pos == last_end + 1  # the line right after the last fast line
        lineno += 1 if follows else count("\n", counted, pos)
        counted = pos
        indent_end = m.end(1)
        if follows and indent_end - pos == len(run_indent) and text.startswith(run_indent, pos):
            run.count += 1  # type: ignore[union-attr]
            run.end = copied = last_end = end  # type: ignore[union-attr]
            continue
        if run is not None:
            pieces.append("\n" * (run.count - 1))
        run_indent = text[pos:indent_end]
        pieces.append(text[copied:pos])
        pieces.append(run_indent + "pass")
        run = FastRun(text, lineno, pos, end)
        runs[lineno] = run
        copied = last_end = end
    if run is not None:
        pieces.append("\n" * (run.count - 1))
        pieces.append(text[copied:])
        text = "".join(pieces)
    text, blocks = _collapse_dataflow(text, runs)
    text, defs = _blank_signatures(text, ann_ok)
    if run is None and not defs:
        return None
    return Skeleton(text, runs, defs, blocks)


def _collapse_dataflow(text: str, runs: dict[int, FastRun]) -> tuple[str, dict[int, FastBlock]]:
    """`text` with each `BLOCK` whose body is one run made a ``pass`` at the ``with`` and blank lines after it.

    A block qualifies when its lines are ASCII and its body is indented
    deeper than the ``with``, by a prefix of the ``with``'s indentation: it
    then reads as the same statement.  The ``pass`` keeps the ``with``'s
    column and the line count stays the same.
    """
    blocks: dict[int, FastBlock] = {}
    if not runs:
        return text, blocks
    pieces: list[str] = []
    copied = 0
    lineno = 1
    counted = 0
    for m in BLOCK.finditer(text):
        pos = m.start()
        indent, body_indent, blanks, names = m.group(1, 2, 3, 4)
        lineno += text.count("\n", counted, pos)
        counted = pos
        run = runs.get(lineno + 1)
        if (
            run is None
            or len(body_indent) <= len(indent)
            or not body_indent.startswith(indent)
            or not m.group().isascii()
        ):
            continue
        out_line = lineno + 2 + len(blanks)
        blocks[lineno] = FastBlock(
            lineno, len(indent), run, out_line, names, m.start(4) - text.rfind("\n", 0, m.start(4)) - 1
        )
        pieces += (text[copied:pos], indent, "pass\n\n", blanks)
        copied = m.end()
    if not blocks:
        return text, blocks
    pieces.append(text[copied:])
    return "".join(pieces), blocks


def _blank_signatures(text: str, ann_ok: dict[str, bool]) -> tuple[str, dict[int, FastDef]]:
    """`text` with the parameters and return annotation of each `DEF` line made blanks, and those lines.

    Blanks keep every other column and line in place.  A line qualifies when
    it is ASCII and each of its annotations parses alone (cached in `ann_ok`).
    """
    defs: dict[int, FastDef] = {}
    pieces: list[str] = []
    copied = 0
    lineno = 1
    counted = 0
    for m in DEF.finditer(text):
        pos, end = m.span()
        line = m.group()
        if not line.isascii() or not all(_cached_parses(ann, ann_ok) for ann in _annotations(m)):
            continue
        lineno += text.count("\n", counted, pos)
        counted = pos
        params = (m.start("params") - pos, m.end("params") - pos)
        ret = None if m.group("ret") is None else (m.start("ret") - pos, m.end("ret") - pos)
        defs[lineno] = FastDef(lineno, line, params, ret)
        blank_end = params[1] + 1 if ret is None else ret[1]
        pieces += (text[copied : pos + params[0]], " " * (params[1] - params[0]), ")")
        pieces.append(" " * (blank_end - params[1] - 1))
        copied = pos + blank_end
    if not defs:
        return text, defs
    pieces.append(text[copied:])
    return "".join(pieces), defs


def _annotations(m: re.Match[str]) -> Iterator[str]:
    """The annotation texts of a `DEF` match: each parameter's, then the return's."""
    line = m.string
    pos, end = m.span("params")
    while pos < end:
        pm = PARAM.match(line, pos)
        assert pm is not None
        yield pm.group(2)
        pos = pm.end() + 1
    if m.group("ret") is not None:
        yield m.group("ret")


def _cached_parses(ann: str, ann_ok: dict[str, bool]) -> bool:
    """`_parses_alone(ann)`, remembered in `ann_ok`."""
    ok = ann_ok.get(ann)
    if ok is None:
        ok = ann_ok[ann] = _parses_alone(ann)
    return ok
