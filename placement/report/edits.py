"""The text edits of a report's fixes: the JSON report's ``edits`` and what `vdplace fix` applies.

A fix's `Plan` (`diagnose.plans`) says what changes in the module's terms;
`report_edits` writes each one as `Edit`s of the source text (replace the
characters from `start` to `end` by `text`; an insertion has ``start ==
end``), after finding the statement it names in the text (`locate`) and
checking that it is what the plan says (the variable it binds, a call of
the right op, the name read).  A fix whose text is not what its plan
expects, or a module without source, gets no edits: it stays a suggestion
for people.  Edits of one fix never overlap; text they insert ends lines
with ``\\n``.

A new variable (a copy's) gets the plan's name unless the source already
uses that identifier or an earlier fix of the report took it; then
``name_1``, ``name_2``, ... (the fix's message names the plan's name).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from vdplace.placement.diagnose.conflict import Conflict, Plan
from vdplace.placement.report.locate import (
    Pos,
    Snippet,
    expression_at,
    indent_of,
    occurrences,
    statement_at,
)


class Edit:
    """Replace the text from `start` to `end` (1-based line and column, end exclusive) by `text`."""

    __slots__ = ("start", "end", "text")

    def __init__(self, start: Pos, end: Pos, text: str) -> None:
        self.start = start
        self.end = end
        self.text = text

    def overlaps(self, other: Edit) -> bool:
        """True when the two edits touch the same characters (an insertion strictly inside a replacement too)."""
        if self.start == self.end and other.start == other.end:
            return False
        if self.start == self.end:
            return other.start < self.start < other.end
        if other.start == other.end:
            return self.start < other.start < self.end
        return self.start < other.end and other.start < self.end

    def __repr__(self) -> str:
        return f"Edit({self.start}-{self.end}: {self.text!r})"


class Names:
    """Fresh variable names for one report: not an identifier of the source, not handed out before."""

    __slots__ = ("lines", "taken", "_text")

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self.taken: set[str] = set()
        self._text: str | None = None

    def fresh(self, base: str) -> str:
        if self._text is None:
            self._text = "\n".join(self.lines)
        k = 0
        while True:
            name = base if k == 0 else f"{base}_{k}"
            k += 1
            if name not in self.taken and not _used(self._text, name):
                self.taken.add(name)
                return name


def _used(text: str, name: str) -> bool:
    """`name` occurs in `text` as a whole identifier (`str.find`: a regular expression is ten times slower)."""
    start = 0
    while (at := text.find(name, start)) >= 0:
        end = at + len(name)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
            return True
        start = at + 1
    return False


def report_edits(conflicts: Sequence[Conflict], lines: Sequence[str] | None) -> dict[int, list[Edit]]:
    """The edits of every fix of `conflicts` that has them, by ``id(fix)`` (none without `lines`)."""
    out: dict[int, list[Edit]] = {}
    if lines is None:
        return out
    names = Names(lines)
    for conflict in conflicts:
        for fix in conflict.fixes:
            if fix.plan is None:
                continue
            try:
                edits = plan_edits(fix.plan, lines, names)
            except (IndexError, ValueError, RecursionError):
                edits = None  # a position outside the text: the source changed since it was parsed
            if edits:
                out[id(fix)] = edits
    return out


def plan_edits(plan: Plan, lines: Sequence[str], names: Names) -> list[Edit] | None:
    """`plan` as edits of `lines`, or None where the text is not what the plan expects."""
    action = plan.action
    if action == "copy_use":
        return _copy_use(plan, lines, names)
    if action == "copy_result":
        return _copy_result(plan, lines, names)
    if action == "copy_branch":
        return _copy_branch(plan, lines, names)
    if action == "copy_return":
        return _copy_return(plan, lines, names)
    if action in ("hint_to_copy", "drop_hint", "set_hint", "set_copy"):
        return _call_edit(plan, lines)
    if action in ("drop_vdevice", "set_vdevice"):
        return _annotation_edit(plan, lines)
    return None


def _copy_line(indent: str, name: str, expr: str, device: str | None) -> str:
    return f'{indent}{name} = R.to_vdevice({expr}, "{device}")\n'


def _binding(lines: Sequence[str], plan: Plan) -> tuple[Snippet, ast.Assign | ast.AnnAssign] | None:
    """The binding statement `plan.span` starts, when it binds `plan.target` to a value."""
    span = plan.span
    found = statement_at(lines, span.line, span.col, span.end_line)
    if found is None:
        return None
    snippet, stmt = found
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        name = stmt.targets[0].id
    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        name = stmt.target.id
    else:
        return None
    if plan.target is not None and name != plan.target:
        return None
    return snippet, stmt


def _insert_copy_before(
    snippet: Snippet, stmt: ast.stmt, reads: ast.AST, plan: Plan, lines: Sequence[str], names: Names
) -> list[Edit] | None:
    """A copy of `plan.expr` on a line of its own before `stmt`, and `reads` reading the copy instead."""
    uses = occurrences(reads, plan.expr or "")
    start = snippet.start(stmt)
    indent = indent_of(lines, start)
    if not uses or indent is None or plan.name is None or plan.expr is None:
        return None
    name = names.fresh(plan.name)
    at = (start[0], 1)
    edits = [Edit(at, at, _copy_line(indent, name, plan.expr, plan.device))]
    return edits + [Edit(snippet.start(u), snippet.end(u), name) for u in uses]


def _copy_use(plan: Plan, lines: Sequence[str], names: Names) -> list[Edit] | None:
    found = _binding(lines, plan)
    if found is None:
        return None
    snippet, stmt = found
    assert stmt.value is not None
    return _insert_copy_before(snippet, stmt, stmt.value, plan, lines, names)


def _copy_return(plan: Plan, lines: Sequence[str], names: Names) -> list[Edit] | None:
    span = plan.span
    found = statement_at(lines, span.line, span.col, span.end_line)
    if found is None or not isinstance(found[1], ast.Return) or found[1].value is None:
        return None
    snippet, stmt = found
    assert isinstance(stmt, ast.Return) and stmt.value is not None
    return _insert_copy_before(snippet, stmt, stmt.value, plan, lines, names)


def _copy_branch(plan: Plan, lines: Sequence[str], names: Names) -> list[Edit] | None:
    """The branch of the If that ends in ``target = expr`` copies `expr` and ends in ``target = copy``."""
    span = plan.span
    found = statement_at(lines, span.line, span.col, span.end_line)
    if found is None or not isinstance(found[1], ast.If):
        return None
    snippet, stmt = found
    assert isinstance(stmt, ast.If)
    for branch in (stmt.body, stmt.orelse):
        last = branch[-1] if branch else None
        if isinstance(last, ast.Assign) and len(last.targets) == 1:
            target: ast.expr | None = last.targets[0]
        else:
            target = last.target if isinstance(last, ast.AnnAssign) else None
        value = getattr(last, "value", None)
        if isinstance(target, ast.Name) and target.id == plan.target and value is not None:
            if ast.unparse(value) == plan.expr:
                assert last is not None
                return _insert_copy_before(snippet, last, value, plan, lines, names)
    return None


def _copy_result(plan: Plan, lines: Sequence[str], names: Names) -> list[Edit] | None:
    """``target = cls.f(...)`` becomes ``name = cls.f(...)``, then ``target = R.to_vdevice(name, device)``."""
    found = _binding(lines, plan)
    if found is None or not isinstance(found[1].value, ast.Call) or plan.name is None:
        return None
    snippet, stmt = found
    assert stmt.value is not None
    start, end = snippet.start(stmt), snippet.end(stmt)
    indent = indent_of(lines, start)
    if indent is None:
        return None
    annotation = f": {snippet.text(stmt.annotation)}" if isinstance(stmt, ast.AnnAssign) else ""
    name = names.fresh(plan.name)
    line_end = (end[0], len(lines[end[0] - 1]) + 1)
    copy = f'\n{indent}{plan.target}{annotation} = R.to_vdevice({name}, "{plan.device}")'
    return [Edit(start, snippet.start(stmt.value), f"{name} = "), Edit(line_end, line_end, copy)]


_CALLS = {"hint_to_copy": "hint_on_device", "drop_hint": "hint_on_device", "set_hint": "hint_on_device"}


def _call_edit(plan: Plan, lines: Sequence[str]) -> list[Edit] | None:
    """The hint or copy call of a binding rewritten: to a copy, to its input, or to another device."""
    found = _binding(lines, plan)
    if found is None:
        return None
    snippet, stmt = found
    call = stmt.value
    op = _CALLS.get(plan.action, "to_vdevice")
    if not isinstance(call, ast.Call) or not call.args:
        return None
    func = snippet.text(call.func)
    if not func.endswith(op):
        return None
    arg = snippet.text(call.args[0])
    if plan.action == "hint_to_copy":
        text = f'{func.removesuffix(op)}to_vdevice({arg}, "{plan.device}")'
    elif plan.action == "drop_hint":
        text = arg
    elif plan.action == "set_hint":
        text = f"{func}({arg}, {plan.hint})"
    else:
        text = f'{func}({arg}, "{plan.device}")'
    return [Edit(snippet.start(call), snippet.end(call), text)]


def _annotation(plan: Plan, lines: Sequence[str]) -> tuple[Snippet, ast.expr] | None:
    """The annotation the plan edits: a binding's, a parameter's (``x: ...``) or a return's."""
    span = plan.span
    if plan.where == "binding":
        found = _binding(lines, plan)
        if found is None or not isinstance(found[1], ast.AnnAssign):
            return None
        return found[0], found[1].annotation
    start, end = (span.line, span.col), (span.end_line, span.end_col)
    if plan.where == "return":
        return expression_at(lines, start, end, "eval")
    located = expression_at(lines, start, end, "exec")
    if located is None:
        return None
    snippet, stmt = located
    if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name) or stmt.target.id != plan.target:
        return None
    return snippet, stmt.annotation


def _annotation_edit(plan: Plan, lines: Sequence[str]) -> list[Edit] | None:
    """The vdevice of an annotation (of its tuple leaf `plan.leaf`) removed, or set to `plan.device`."""
    found = _annotation(plan, lines)
    if found is None:
        return None
    snippet, node = found
    for index in plan.leaf:
        if not (isinstance(node, ast.Call) and snippet.text(node.func).endswith("Tuple") and index < len(node.args)):
            return None
        node = node.args[index]
    if not isinstance(node, ast.Call):
        return None
    keyword = next((k for k in node.keywords if k.arg == "vdevice"), None)
    positional = node.args[2] if len(node.args) > 2 else None
    element: ast.expr | ast.keyword | None = keyword if keyword is not None else positional
    if element is None:
        return None
    value = keyword.value if keyword is not None else element
    if plan.action == "set_vdevice":
        return [Edit(snippet.start(value), snippet.end(value), f'"{plan.device}"')]
    elements: list[ast.expr | ast.keyword] = sorted([*node.args, *node.keywords], key=snippet.start)
    at = elements.index(element)
    if keyword is None and len(node.args) > 3:
        return None  # a positional argument after the vdevice would move into its place
    if at > 0:
        return [Edit(snippet.end(elements[at - 1]), snippet.end(element), "")]
    following = snippet.start(elements[1]) if len(elements) > 1 else snippet.end(element)
    return [Edit(snippet.start(element), following, "")]
