"""Fixes a tool can apply (issue 29, item 7): every fix's edits in the JSON report, and `vdplace fix`.

The corpus is every module in the tests and examples that has no placement:
the models' ``conflict.py`` variants, the golden modules, the examples, the
planted benchmark module, and the modules of the diagnostics tests.  Each
fixed module must place, and each fix alone must resolve what it says.
"""

from __future__ import annotations

import ast
import difflib
import importlib.util
import io
import json
import re
from functools import cache
from pathlib import Path

import pytest

from tests.placement.test_diagnostics import CHAIN_OF_PINS, _check
from tests.placement.test_diagnostics_landmarks import meeting_module, wide_module
from vdplace import ir, placement
from vdplace.cli import main
from vdplace.ir import op as op_registry
from vdplace.ir.op import Param, register_op
from vdplace.ir.ops.common import unary_infer
from vdplace.ir.span import Span
from vdplace.placement.diagnose.conflict import Plan
from vdplace.placement.report import SCHEMA_PATH, render_json
from vdplace.placement.report.autofix import apply_edits, fix_text
from vdplace.placement.report.edits import Edit, Names, plan_edits

ROOT = Path(__file__).resolve().parents[2]
TUPLES_AND_RETURNS = """import tvm
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((2, 2), "float32"), y: R.Tensor((2, 2), "float32")) -> R.Tuple(
        R.Tensor((2, 2), "float32"), R.Tensor((2, 2), "float32", "cuda")
    ):
        t: R.Tuple(R.Tensor((2, 2), "float32", "llvm"), R.Tensor((2, 2), "float32")) = (x, y)
        a = t[0]
        b = R.to_vdevice(y, "cuda:0")
        c = R.hint_on_device(x, tvm.cuda(0))
        d = R.add(a, b)
        e = R.add(c, a)
        return (d, e)
"""


def _bench():
    spec = importlib.util.spec_from_file_location("bench_conflicts", ROOT / "benchmarks" / "bench_conflicts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def corpus() -> dict[str, tuple[str, bool]]:
    """Every conflicting module of the tests: name -> (text, strict hints)."""
    out: dict[str, tuple[str, bool]] = {}
    for path in sorted((ROOT / "tests" / "models").glob("*/conflict.py")):
        out[f"models/{path.parent.name}"] = (path.read_text(), False)
    for path in sorted((ROOT / "tests" / "golden").glob("*.tvmscript")):
        out[f"golden/{path.stem}"] = (path.read_text(), path.stem.startswith("strict"))
    for path in [*sorted((ROOT / "examples").glob("conflict_*.py")), ROOT / "examples" / "specialize_helper.py"]:
        out[f"examples/{path.stem}"] = (path.read_text(), False)
    out["bench/planted"] = (_bench().planted_text(2000, far=400).text, False)
    out["tests/chain_of_pins"] = (CHAIN_OF_PINS, False)
    out["tests/meeting"] = (meeting_module()[0], False)
    out["tests/wide_def"] = (wide_module(200)[0], False)
    out["tests/tuples_and_returns"] = (TUPLES_AND_RETURNS, False)
    return out


def conflict(text: str, strict: bool) -> placement.PlacementConflict:
    with pytest.raises(placement.PlacementConflict) as info:
        placement.place(ir.parse(text, filename="m.py"), strict_hints=strict)
    return info.value


def places(text: str, strict: bool) -> bool:
    try:
        placement.place(ir.parse(text, filename="m.py"), strict_hints=strict)
    except placement.PlacementConflict:
        return False
    return True


def apply_json(text: str, edits: list[dict]) -> str:
    """The edits of a JSON report applied as a tool would: by line and column, back to front."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(line: int, column: int) -> int:
        assert column <= len(lines[line - 1]) + 1
        return starts[line - 1] + column - 1

    spans = [
        (offset(e["span"]["line"], e["span"]["column"]), offset(e["span"]["end_line"], e["span"]["end_column"]), e)
        for e in edits
    ]
    for a, b, e in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        text = text[:a] + e["text"] + text[b:]
    return text


@pytest.mark.parametrize("name", sorted(corpus()))
def test_every_conflicting_module_of_the_tests_is_fixed_and_places(name):
    text, strict = corpus()[name]
    assert not places(text, strict)
    result = fix_text(text, "m.py", lambda mod: placement.place(mod, strict_hints=strict))
    assert result.places and result.remaining is None and result.applied
    assert places(result.text, strict)
    changed = sum(
        max(i2 - i1, j2 - j1)
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
            None, text.splitlines(), result.text.splitlines()
        ).get_opcodes()
        if tag != "equal"
    )
    assert changed <= 2 * len(result.applied)  # the text is edited, not rewritten


@pytest.mark.parametrize("name", sorted(corpus()))
def test_each_fix_alone_resolves_the_conflicts_it_names(name):
    """The JSON report's edits of one fix, applied by a tool, leave fewer conflicts (or none)."""
    text, strict = corpus()[name]
    err = conflict(text, strict)
    doc = json.loads(json.dumps(render_json(err)))
    schema = json.loads(SCHEMA_PATH.read_text())
    _check(schema, doc, schema)
    try:
        import jsonschema
    except ImportError:
        pass  # the validator above checks what the schema says
    else:
        jsonschema.validate(doc, schema)
    before = doc["total"]
    tried = 0
    for entry in doc["conflicts"]:
        assert entry["fixes"] == [] or any(f["edits"] for f in entry["fixes"]), entry["title"]
        for fix in entry["fixes"]:
            if not fix["edits"]:
                assert fix["kind"] == "specialize", fix
                continue
            tried += 1
            fixed = apply_json(text, fix["edits"])
            if not places(fixed, strict):
                left = conflict(fixed, strict)
                assert len(left.conflicts) + left.omitted <= before - len(fix["resolves"]), fix["message"]
    assert tried


def inline_modules() -> list[tuple[str, int, str]]:
    """Every TVMScript module written as a string constant in the test files: (file, line, text)."""
    found = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "@I.ir_module" in node.value:
                found.append((path.name, node.lineno, node.value))
    return found


def test_every_conflicting_module_written_in_the_test_files_is_fixed_and_places():
    fixed = 0
    for name, line, text in inline_modules():
        for strict in (False, True):
            try:
                placement.place(ir.parse(text, filename="m.py"), strict_hints=strict)
            except placement.PlacementConflict:
                result = fix_text(text, "m.py", lambda mod, s=strict: placement.place(mod, strict_hints=s))
                assert result.places and places(result.text, strict), (name, line, strict)
                fixed += 1
            except ir.IRError:
                break  # a module a test writes to be rejected: nothing to fix
    assert fixed >= 8


def test_a_fix_is_written_as_the_edits_its_message_says():
    text, _ = corpus()["golden/call_boundary"]
    (entry,) = render_json(conflict(text, False))["conflicts"]
    copy, change_x, change_w = entry["fixes"]
    assert copy["kind"] == "insert_copy" and [e["text"] for e in copy["edits"]] == [
        '        x_cuda0 = R.to_vdevice(x, "cuda:0")\n',
        "x_cuda0",
    ]
    insert, use = (e["span"] for e in copy["edits"])
    assert (insert["line"], insert["column"], insert["end_line"], insert["end_column"]) == (19, 1, 19, 1)
    assert (use["line"], use["column"], use["end_column"]) == (19, 19, 20)  # the `x` of `h = R.abs(x)`
    assert [e["text"] for e in change_x["edits"]] == ['"cuda:0"'] and change_x["edits"][0]["span"]["line"] == 17
    assert [e["text"] for e in change_w["edits"]] == ['"llvm:0"'] and change_w["edits"][0]["span"]["line"] == 12


def test_every_kind_of_edit_gives_the_text_expected():
    text = TUPLES_AND_RETURNS
    fixed = fix_text(text, "m.py", placement.place).text
    assert '        a_cuda0 = R.to_vdevice(a, "cuda:0")\n        e = R.add(c, a_cuda0)\n' in fixed
    planted = fix_text(_bench().planted_text(2000, far=400).text, "p.py", placement.place).text
    assert re.search(
        r'\n( +)y_llvm0 = cls\.helper\(x3\)\n\1y: R\.Tensor\(\(4, 4\), "float32", "llvm"\) = '
        r'R\.to_vdevice\(y_llvm0, "llvm:0"\)\n',
        planted,
    )
    strict = fix_text(corpus()["golden/strict_hint_chain"][0], "s.py", lambda m: placement.place(m, strict_hints=True))
    assert 'b = R.to_vdevice(e, "cuda:0")' in strict.text
    branch = fix_text(corpus()["golden/if_branches"][0], "i.py", placement.place).text
    assert '            x_cuda0 = R.to_vdevice(x, "cuda:0")\n            p = R.exp(x_cuda0)\n' in branch
    returned = fix_text(corpus()["golden/return_annotation"][0], "r.py", placement.place).text
    assert '        z_cuda0 = R.to_vdevice(z, "cuda:0")\n        return z_cuda0\n' in returned


def test_a_new_name_never_takes_one_the_module_uses():
    text = corpus()["examples/conflict_add"][0].replace(
        "        s = R.add(x1, y1)", "        x1_cuda0 = R.exp(x)\n        s = R.add(x1, y1)"
    )
    fixed = fix_text(text, "c.py", placement.place).text
    assert 'x1_cuda0_1 = R.to_vdevice(x1, "cuda:0")' in fixed and "s = R.add(x1_cuda0_1, y1)" in fixed
    assert places(fixed, False)


def test_edits_apply_back_to_front_and_keep_the_line_ends():
    text = "a = 1\r\nb = 2\r\n"
    edits = [Edit((2, 5), (2, 6), "3"), Edit((1, 1), (1, 1), "z = 0\n"), Edit((1, 1), (1, 1), "y = 0\n")]
    assert apply_edits(text, edits, "\r\n") == "z = 0\r\ny = 0\r\na = 1\r\nb = 3\r\n"
    with pytest.raises(ValueError):
        apply_edits(text, [Edit((2, 9), (2, 9), "x")])
    assert Edit((1, 1), (1, 5), "").overlaps(Edit((1, 3), (1, 3), "x"))
    assert not Edit((1, 1), (1, 5), "").overlaps(Edit((1, 5), (1, 5), "x"))
    assert not Edit((1, 1), (1, 1), "a").overlaps(Edit((1, 1), (1, 1), "b"))
    crlf = corpus()["examples/conflict_add"][0].replace("\n", "\r\n")
    fixed = fix_text(crlf, "c.py", placement.place).text
    assert "\n" not in fixed.replace("\r\n", "") and 'x1_cuda0 = R.to_vdevice(x1, "cuda:0")\r\n' in fixed


# -- the command --------------------------------------------------------------------------------


def run_cli(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_fix_prints_the_fixed_module_and_what_it_did(capsys, tmp_path):
    path = ROOT / "examples" / "conflict_add.py"
    status, out, err = run_cli(capsys, "fix", path)
    assert status == 0
    assert out == fix_text(path.read_text(), str(path), placement.place).text and places(out, False)
    assert re.search(r"fixed: .*conflict_add\.py:16: insert `x1_cuda0", err) and "1 fix(es) applied" in err
    target = tmp_path / "fixed.py"
    status, out, _ = run_cli(capsys, "fix", path, "-o", target)
    assert status == 0 and out == "" and places(target.read_text(), False)
    copy = tmp_path / "conflict.py"
    copy.write_text(path.read_text())
    status, out, _ = run_cli(capsys, "fix", "-i", copy)
    assert status == 0 and out == "" and copy.read_text() == target.read_text()
    status, out, err = run_cli(capsys, "fix", copy)
    assert status == 0 and out == copy.read_text() and "nothing to fix" in err


def test_fix_reads_stdin_and_takes_strict(capsys, monkeypatch):
    text = corpus()["golden/strict_hint_chain"][0]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    status, out, err = run_cli(capsys, "fix", "--strict", "-")
    assert status == 0 and "R.to_vdevice(e" in out and "<stdin>:14" in err


def test_fix_of_bad_input_exits_2(capsys, tmp_path):
    status, out, err = run_cli(capsys, "fix", tmp_path / "missing.py")
    assert status == 2 and out == "" and "cannot read" in err
    bad = tmp_path / "bad.py"
    bad.write_text("@I.ir_module\nclass Module:\n    def main(:\n")
    status, out, err = run_cli(capsys, "fix", bad)
    assert status == 2 and out == "" and re.search(r"bad\.py:3:\d+: invalid syntax", err)
    status, _, err = run_cli(capsys, "fix", "-i", "-")
    assert status == 2 and "-i rewrites FILE" in err
    status, _, err = run_cli(capsys, "fix", ROOT / "examples" / "conflict_add.py", "-o", tmp_path / "no" / "f.py")
    assert status == 2 and "cannot write" in err


def test_fix_in_place_keeps_the_line_ends(capsys, tmp_path):
    path = tmp_path / "crlf.py"
    path.write_bytes(corpus()["examples/conflict_add"][0].replace("\n", "\r\n").encode())
    status, out, _ = run_cli(capsys, "fix", "-i", path)
    data = path.read_bytes()
    assert status == 0 and out == "" and b'x1_cuda0 = R.to_vdevice(x1, "cuda:0")\r\n' in data
    assert data.count(b"\n") == data.count(b"\r\n")


@pytest.fixture
def unfixable_ops():
    """A host-rule op and a CUDA-only op, registered for one test."""
    made = [
        register_op("test.fix_host", [Param("x")], unary_infer("test.fix_host"), None, device_rule="host"),
        register_op("test.fix_cuda", [Param("x")], unary_infer("test.fix_cuda"), None, device_types=["cuda"]),
    ]
    yield
    for made_op in made:
        del op_registry._REGISTRY[made_op.name]


UNFIXABLE = """from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((4,), "float32"), a: R.Tensor((4,), "float32", "llvm")) -> R.Tensor((4,), "float32"):
        y = R.test.fix_host(x)
        w = R.exp(y)
        z = R.test.fix_cuda(w)
        v = R.add(z, y)
        b: R.Tensor((4,), "float32", "cuda") = R.exp(a)
        return v
"""


def test_a_conflict_without_an_applicable_fix_exits_1_with_what_could_be_fixed(capsys, tmp_path, unfixable_ops):
    """The host op's result and the CUDA-only op meet through a cycle (no single copy) and neither can move."""
    path = tmp_path / "unfixable.py"
    path.write_text(UNFIXABLE)
    status, out, err = run_cli(capsys, "fix", path)
    assert status == 1
    assert 'a_cuda0 = R.to_vdevice(a, "cuda:0")' in out  # the other conflict, `a` against `b`, is fixed
    assert "fixed: " in err and "error[E-conflict]" in err and "R.test.fix_cuda" in err
    assert "a conflict has no fix that applies" in err
    assert "y = R.test.fix_host(x)" in out


EDIT_LINES = [
    "    @R.function",
    '    def main(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32", vdevice="llvm:0"))'
    ' -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32", "cuda")):',
    "        a = R.hint_on_device(x, tvm.cpu())",
    '        t: R.Tuple(R.Tensor((2,), "float32", "llvm"), R.Tensor((2,), "float32")) = (a, a)',
    "        if c:",
    "            p = R.exp(x)",
    "            r = p",
    "        else:",
    "            r = R.negative(x)",
    "        return (r, r)",
    "",
]
EDIT_TEXT = "\n".join(EDIT_LINES)


def at(line: int, start: str, end_line: int | None = None, end: str | None = None) -> Span:
    """The span of EDIT_TEXT from where `start` begins on `line` to where `end` ends on `end_line`."""
    end_line = end_line or line
    col = EDIT_LINES[line - 1].index(start) + 1
    stop = EDIT_LINES[end_line - 1]
    end_col = stop.index(end) + len(end) + 1 if end else len(stop) + 1
    return Span(None, line, col, end_line, end_col)


@pytest.mark.parametrize(
    ("plan", "expected"),
    [
        (
            Plan("copy_branch", at(5, "if", 9), expr="p", name="p_cuda0", device="cuda:0", target="r"),
            '            p_cuda0 = R.to_vdevice(p, "cuda:0")\n            r = p_cuda0\n',
        ),
        (
            Plan("set_hint", at(3, "a"), device="cuda:0", hint="tvm.cuda(0)", target="a"),
            "        a = R.hint_on_device(x, tvm.cuda(0))\n",
        ),
        (Plan("drop_hint", at(3, "a"), target="a"), "        a = x\n"),
        (
            Plan("drop_vdevice", at(2, "x:", end='"llvm:0")'), target="x", where="param"),
            'x: R.Tensor((2,), "float32")) -> ',
        ),
        (
            Plan("set_vdevice", at(4, "t:"), device="cuda:0", target="t", leaf=(0,)),
            't: R.Tuple(R.Tensor((2,), "float32", "cuda:0"), R.Tensor((2,), "float32")) = (a, a)',
        ),
        (
            Plan("drop_vdevice", at(4, "t:"), target="t", leaf=(0,)),
            't: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")) = (a, a)',
        ),
        (
            Plan("drop_vdevice", at(2, "R.Tuple", end='"cuda"))'), where="return", leaf=(1,)),
            '-> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):',
        ),
    ],
)
def test_each_plan_is_written_where_its_text_is(plan, expected):
    edits = plan_edits(plan, EDIT_LINES, Names(EDIT_LINES))
    assert edits, plan
    fixed = apply_edits(EDIT_TEXT, edits)
    assert expected in fixed
    ast.parse(fixed.replace("    @R.function\n", "", 1).replace("    ", "", 1))


@pytest.mark.parametrize(
    "plan",
    [
        Plan("drop_hint", at(3, "a"), target="b"),  # another variable
        Plan("set_copy", at(3, "a"), device="cuda:0", target="a"),  # a hint, not a copy
        Plan("copy_use", at(6, "p"), expr="y", name="y_cuda0", device="cuda:0", target="p"),  # no `y` read
        Plan("copy_branch", at(5, "if", 9), expr="q", name="q_cuda0", device="cuda:0", target="r"),  # no `q`
        Plan("set_vdevice", at(6, "p"), device="cuda:0", target="p"),  # no annotation
        Plan("copy_return", at(9, "r"), expr="r", name="r_cuda0", device="cuda:0"),  # not a return
    ],
)
def test_a_plan_whose_text_is_not_there_gives_no_edits(plan):
    assert plan_edits(plan, EDIT_LINES, Names(EDIT_LINES)) is None
