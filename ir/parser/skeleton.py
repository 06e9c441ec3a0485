"""The skeleton: the text the parser hands to `ast`, with what it can read faster taken out.

Each piece below is replaced by ``pass`` and blank lines, or by blanks, so
that every other line and column stays where it was, and the module parser
reads the piece from the original text as it would from its AST:

* a run of candidate lines (`fastlines.find_runs`) becomes ``pass``
  followed by blank lines;
* a ``with R.dataflow():`` whose body is one run and a closing
  ``R.output(names)`` (`BLOCK`) becomes a single ``pass`` at the ``with``,
  the rest of its lines blank (`FastBlock`).  It reads as the same statement
  only when its body is indented deeper, by a prefix of the ``with``'s
  indentation;
* a ``def`` line of plain annotated parameters (`DEF_HEAD`, `DEF_TAIL`: ``def f(x:
  R.Tensor(...), ...) -> R.Tensor(...):``, ASCII, each annotation parsing
  alone) keeps its line with its parameters and return annotation made
  blanks (`FastDef`): a function with thousands of parameters costs no AST
  for them;
* a whole ``@R.function`` whose body is only such pieces and ``return name``
  becomes ``pass`` at its decorator, and consecutive ones share one ``pass``
  (`fastfunctions`): a module of many small functions costs no AST for them.

Why the skeleton parses as the original does: each piece is a complete
statement (or the parameters of one) whenever it starts a logical line.  If
it did not (it sat inside brackets, a multi-line string or after a
backslash), the skeleton differs from the original; that shows up as a
syntax error in the skeleton or as a piece inside a multi-line string
(`Skeleton.inside_multiline_string`), and `parse` then reparses the
original text without the fast path.  A misplaced line next to a piece (a
wrong indentation) makes the skeleton fail to parse where the original
would, with the same outcome.  A fast line the function parser cannot
finish on the fast path (an unknown name, an op whose parameters do not
fit) is re-read from its own text with `ast` and handled by the ordinary
code, so errors are the same.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from itertools import chain

from .fastfunctions import FastFunction, collapse_functions
from .fastlines import _IDENT, FastRun, _parses_alone, find_runs
from .source import Source


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
# A ``def`` line with plain annotated parameters and nothing after its colon is `DEF_HEAD` from its start, then
# `DEF_TAIL` to its end.  Groups of the tail: "params" the parameters, "ret" the return annotation.
DEF_HEAD = re.compile(rf"[ \t]*+def[ \t]++{_IDENT}[ \t]*+\(", re.ASCII)
DEF_TAIL = re.compile(
    rf"(?P<params>(?:{_PARAM}(?:,{_PARAM})*+)?)\)(?:[ \t]*+->[ \t]*+(?P<ret>{_SIG_ANN}))?[ \t]*+:[ \t]*+",
    re.ASCII,
)

# ``with R.dataflow():`` whose body, in the skeleton, is one run's ``pass`` and an ``R.output`` of names
# (MULTILINE).  Groups: 1 the indentation of the with, 2 of its body, 3 blank lines, 4 the output names.
BLOCK = re.compile(
    r"^([ \t]*+)with[ \t]++R\.dataflow\(\)[ \t]*+:[ \t]*+\n"
    rf"([ \t]++)pass\n(\n*+)\2R\.output\(((?:[ \t]*+{_IDENT}[ \t]*+(?:,[ \t]*+{_IDENT}[ \t]*+)*+)?)\)[ \t]*+$",
    re.ASCII | re.MULTILINE,
)
_OUTPUT_NAME = re.compile(r"[A-Za-z_]\w*+", re.ASCII)


class FastDef:
    """A ``def`` line whose parameters and return annotation the skeleton leaves blank.

    `params` holds (name, column of the name, annotation, column of the
    annotation) of each parameter, columns counted from `base` (the 0-based
    column after ``def name(``): def lines with the same text after it share
    it.  `ret` is the return annotation (None without one), at 0-based column `ret_col`.
    """

    __slots__ = ("lineno", "base", "params", "ret", "ret_col")

    def __init__(
        self, lineno: int, base: int, params: list[tuple[str, int, str, int]], ret: str | None, ret_col: int
    ) -> None:
        self.lineno = lineno
        self.base = base
        self.params = params
        self.ret = ret
        self.ret_col = ret_col

    def parameters(self) -> Iterator[tuple[str, int, str, int]]:
        """(name, 0-based column of the name, annotation text, 0-based column of the annotation) of each parameter."""
        base = self.base
        for name, col, ann, ann_col in self.params:
            yield name, base + col, ann, base + ann_col


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
    """The text with fast runs replaced by ``pass``, fast signatures blanked, fast blocks and functions collapsed.

    `runs` maps a run's first line to the run, `defs` a blanked ``def`` line's
    number to its `FastDef`, `blocks` a collapsed block's first line to its
    `FastBlock`, `functions` the line of a collapsed group's ``pass`` to its
    functions, in order.
    """

    __slots__ = ("text", "runs", "defs", "blocks", "functions", "consumed")

    def __init__(
        self,
        text: str,
        runs: dict[int, FastRun],
        defs: dict[int, FastDef],
        blocks: dict[int, FastBlock],
        functions: dict[int, list[FastFunction]],
    ) -> None:
        self.text = text
        self.runs = runs
        self.defs = defs
        self.blocks = blocks
        self.functions = functions
        self.consumed = 0

    def inside_multiline_string(self, tree: ast.AST, original: str) -> bool:
        """Whether a collapsed piece starts inside a string literal spanning several lines of the skeleton."""
        if '"""' not in original and "'''" not in original and "\\" not in original:
            return False  # no string can span lines
        ranges = [
            (node.lineno, node.end_lineno or node.lineno)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Constant, ast.JoinedStr)) and (node.end_lineno or node.lineno) > node.lineno
        ]
        pieces = chain(self.runs, self.defs, self.blocks, self.functions)
        return any(first < line <= last for line in pieces for first, last in ranges)

    def runs_read_alone(self) -> bool:
        """Whether every line of every run is fast or one assignment on its own (`fastlines.reads_alone`)."""
        return all(run.reads_alone() for run in self.runs.values())


def build_skeleton(src: Source) -> Skeleton | None:
    """The skeleton of `src`, or None when no line qualifies for the fast path."""
    ann_ok: dict[str, bool] = {}  # annotation text -> whether it parses alone
    text, runs = find_runs(src.lf_text)
    text, blocks = _collapse_dataflow(text, runs)
    text, defs, def_spans = _blank_signatures(text, ann_ok)
    if not runs and not defs:
        return None
    text, functions = collapse_functions(text, defs, def_spans, runs, blocks)
    return Skeleton(text, runs, defs, blocks, functions)


def matches_at_line_starts(pattern: re.Pattern[str], text: str, needle: str) -> Iterator[re.Match[str]]:
    """What ``pattern.finditer(text)`` finds, for a `pattern` that matches only from a line start to a line end
    and whose first line holds `needle`: only lines holding `needle` are tried (a `str.find` is far faster than
    `re` trying every offset of a long text)."""
    find, rfind = text.find, text.rfind
    pos = 0
    while True:
        hit = find(needle, pos)
        if hit < 0:
            return
        start = rfind("\n", 0, hit) + 1
        m = pattern.match(text, start)
        if m is not None:
            yield m
            pos = m.end()
        else:
            nxt = find("\n", hit)
            if nxt < 0:
                return
            pos = nxt + 1


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
    for m in matches_at_line_starts(BLOCK, text, "R.dataflow"):
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


def _blank_signatures(text: str, ann_ok: dict[str, bool]) -> tuple[str, dict[int, FastDef], list[tuple[int, int, int]]]:
    """`text` with the parameters and return annotation of each fast ``def`` line made blanks, those lines, and
    (line number, start offset, end offset) of each.

    Blanks keep every other column and line in place (the offsets hold in the
    returned text too).  A line qualifies when it is ASCII, `DEF_HEAD` then
    `DEF_TAIL`, and each of its annotations parses alone (cached in `ann_ok`).
    A line is read once per distinct text after its ``def name(``, which the
    functions of a module often repeat.
    """
    defs: dict[int, FastDef] = {}
    spans: list[tuple[int, int, int]] = []
    tails: dict[str, _Tail | None] = {}
    pieces: list[str] = []
    copied = 0
    lineno = 1
    counted = 0
    find = text.find
    pos = 0
    while True:
        hit = find("def", pos)
        if hit < 0:
            break
        start = text.rfind("\n", 0, hit) + 1
        end = find("\n", hit)
        pos = end = len(text) if end < 0 else end
        head = DEF_HEAD.match(text, start, end)
        if head is None:
            continue
        tail_start = head.end()
        tail = text[tail_start:end]
        read = tails[tail] = tails[tail] if tail in tails else _read_tail(tail, ann_ok)
        if read is None:
            continue
        params, ret, ret_col, blank = read
        lineno += text.count("\n", counted, start)
        counted = start
        base = tail_start - start
        defs[lineno] = FastDef(lineno, base, params, ret, base + ret_col)
        spans.append((lineno, start, end))
        pieces += (text[copied:tail_start], blank)
        copied = tail_start + len(blank)
    if not defs:
        return text, defs, spans
    pieces.append(text[copied:])
    return "".join(pieces), defs, spans


# What a fast def line's text after ``def name(`` holds: its parameters (see `FastDef`), its return annotation
# and that annotation's column, both counted from the start of that text, and the blanks that replace it up to
# the end of the return annotation (or of the parameters' closing bracket).
_Tail = tuple[list[tuple[str, int, str, int]], "str | None", int, str]


def _read_tail(tail: str, ann_ok: dict[str, bool]) -> _Tail | None:
    """What `tail`, the text after a ``def name(``, holds (`_Tail`), or None unless it is a fast def's."""
    m = DEF_TAIL.fullmatch(tail)
    if m is None or not tail.isascii():
        return None
    params: list[tuple[str, int, str, int]] = []
    pos, end = m.span("params")
    seen: dict[str, str] = {}  # one string per distinct annotation
    while pos < end:
        pm = PARAM.match(tail, pos)
        assert pm is not None
        ann = pm.group(2)
        ann = seen.setdefault(ann, ann)
        params.append((pm.group(1), pm.start(1), ann, pm.start(2)))
        pos = pm.end() + 1
    ret = m.group("ret")
    if ret is not None:
        seen.setdefault(ret, ret)
    if not all(_cached_parses(ann, ann_ok) for ann in seen):
        return None
    blank_end = end + 1 if ret is None else m.end("ret")
    return params, ret, m.start("ret"), " " * end + ")" + " " * (blank_end - end - 1)


def _cached_parses(ann: str, ann_ok: dict[str, bool]) -> bool:
    """`_parses_alone(ann)`, remembered in `ann_ok`."""
    ok = ann_ok.get(ann)
    if ok is None:
        ok = ann_ok[ann] = _parses_alone(ann)
    return ok
