"""What a report never leaves out of a long chain, and how it quotes a very long line (issue 29, item 6).

A long chain is shown by its ends, but the binding where the two pinned
chains meet (the line a user edits) and every binding a fix names are shown
too, in the text, JSON and HTML reports and in the exception's texts.  A
frontend's ``def main(...)`` line with every weight on it is quoted around
the parameter at issue, its underline still under it.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.placement.test_diagnostics import _check
from vdplace import ir, placement
from vdplace.placement.diagnose.chain import KEEP
from vdplace.placement.diagnose.quote import WIDTH, clip
from vdplace.placement.report import SCHEMA_PATH, render_html, render_json, render_text

HEAD = """from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
"""


def meeting_module(n: int = 30) -> tuple[str, int, int]:
    """Two chains of `n` bindings from two pinned values, summed at the end: (text, the sum's line, a mid line).

    The first chain shrinks to a scalar halfway (``R.sum``), so the cheapest
    copy, the one the fix suggests, is in the middle of the chain.
    """
    lines = HEAD.splitlines() + [
        '    def main(x: R.Tensor((64,), "float32"), y: R.Tensor((64,), "float32")) -> R.Tensor((64,), "float32"):',
        '        a0: R.Tensor((64,), "float32", "llvm") = R.exp(x)',
    ]
    for i in range(1, n):
        op = "R.sum" if i == n // 2 else "R.exp"
        lines.append(f"        a{i} = {op}(a{i - 1})")
    lines.append('        b0: R.Tensor((64,), "float32", "cuda") = R.exp(y)')
    lines += [f"        b{i} = R.tanh(b{i - 1})" for i in range(1, n)]
    lines.append(f"        c = R.add(a{n - 1}, b{n - 1})")
    meet = len(lines)
    lines.append("        return c")
    mid = next(k for k, line in enumerate(lines, 1) if f"a{n // 2 + 1} = " in line)
    return "\n".join(lines) + "\n", meet, mid


@pytest.fixture(scope="module")
def meeting():
    text, meet, mid = meeting_module()
    mod = ir.parse(text, filename="meet.py")
    with pytest.raises(placement.PlacementConflict) as info:
        placement.place(mod)
    return info.value, meet, mid


def test_the_meeting_point_lies_in_what_the_ends_leave_out(meeting):
    err, meet, mid = meeting
    (conflict,) = err.conflicts
    steps = [s.span.line if s.span else None for s in conflict.path]
    assert len(steps) > 4 * KEEP
    where = steps.index(meet)
    assert KEEP < where < len(steps) - KEEP  # the ends alone would elide it
    (copy,) = [f for f in conflict.fixes if f.kind == "insert_copy"]
    assert copy.line == mid and KEEP < steps.index(mid) < len(steps) - KEEP


def test_every_rendering_shows_the_meeting_binding_and_the_line_the_fix_names(meeting):
    err, meet, mid = meeting
    text = render_text(err, color=False)
    assert re.search(rf"^{meet} \| +c = R\.add\(a29, b29\)$", text, re.M), text
    assert re.search(rf"^{mid} \| +a16 = R\.exp\(a15\)$", text, re.M), text
    assert text.count("\u2026 ") >= 2  # the chain is still shortened: a gap on each side of the meeting point
    page = render_html(err)
    for line in (meet, mid):
        assert f'<span class="ln">{line}</span>' in page
    assert "c = R.add(a29, b29)" in str(err) and "a16 = R.exp(a15)" in str(err)
    assert "c = R.add(a29, b29)" in err.message and "a16 = R.exp(a15)" in err.message
    doc = json.loads(json.dumps(render_json(err)))
    schema = json.loads(SCHEMA_PATH.read_text())
    _check(schema, doc, schema)
    (entry,) = doc["conflicts"]
    shown = {s["span"]["line"] for s in entry["path"] if s["span"]}
    assert {meet, mid} <= shown
    assert len(entry["elided"]) >= 2
    assert len(entry["path"]) + sum(g["steps"] for g in entry["elided"]) == entry["chain"]["steps"]


def test_a_turn_is_kept_however_long_the_chain():
    short, _, _ = meeting_module(30)
    long, meet, _ = meeting_module(600)
    reports = []
    for text in (short, long):
        with pytest.raises(placement.PlacementConflict) as info:
            placement.place(ir.parse(text, filename="meet.py"))
        reports.append(render_text(info.value, color=False))
    assert re.search(rf"^{meet} \| +c = R\.add\(a599, b599\)$", reports[1], re.M)
    assert reports[1].count("\n") == reports[0].count("\n")  # still bounded by the pins, not the chain


def wide_module(weights: int = 1000) -> tuple[str, str]:
    """A frontend-like ``def main`` with every weight on one line; `x` on the CPU, one weight on the GPU."""
    params = ['x: R.Tensor((4,), "float32", "llvm")'] + [
        f'w{i}: R.Tensor((4,), "float32"{", " + chr(34) + "cuda" + chr(34) if i == weights // 2 else ""})'
        for i in range(weights)
    ]
    pinned = params[weights // 2 + 1]
    lines = HEAD.splitlines() + [
        f'    def main({", ".join(params)}) -> R.Tensor((4,), "float32"):',
        f"        y = R.add(x, w{weights // 2})",
        "        return y",
    ]
    return "\n".join(lines) + "\n", pinned


def test_a_very_long_def_line_is_quoted_around_the_parameter():
    text, pinned = wide_module()
    def_line = text.splitlines()[9]
    assert len(def_line) > 15_000
    with pytest.raises(placement.PlacementConflict) as info:
        placement.place(ir.parse(text, filename="wide.py"))
    err = info.value
    report = render_text(err, color=False)
    assert max(len(line) for line in report.splitlines()) < 400
    quoted = next(line for line in report.splitlines() if line.startswith("10 | "))
    body = quoted[len("10 | ") :]
    assert pinned in body and "\u2026" in body and body.lstrip().startswith("def main(")
    assert "--> wide.py:10:14" in report  # locations keep the real columns
    assert f"wide.py:10:{def_line.index(pinned) + 1}" in err.message
    underlines = [line[len("   | ") :] for line in report.splitlines() if line.startswith("   | ") and "^" in line]
    starts = {u.index("^") for u in underlines}
    assert body.index(pinned) in starts  # the caret under the parameter in the shortened line
    pin_underline = next(u for u in underlines if u.index("^") == body.index(pinned))
    assert pin_underline.count("^") == len(pinned)
    for rendering in (err.message, render_html(err)):
        assert pinned in rendering.replace("&quot;", '"')
    for rendering in (str(err), err.message, render_html(err)):
        assert max(len(line) for line in rendering.splitlines()) < 1000


def test_clip_keeps_short_lines_and_moves_marks_with_the_text():
    assert clip("    a = R.add(x, y)   ", [(4, 19)]) == ("    a = R.add(x, y)", [(4, 19)])
    line = "    def main(" + ", ".join(f"p{i}: T" for i in range(400)) + "):"
    assert len(line) > WIDTH
    at = line.index("p200: T")
    text, [(start, end)] = clip(line, [(at, at + 7)])
    assert text[start:end] == "p200: T" and len(text) < WIDTH
    assert text.startswith("    def main(") and text.count("\u2026") == 2
