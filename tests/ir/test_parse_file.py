"""`ir.parse_file`: a module read from a file keeps its text on disk, and reports still quote it."""

import os
from pathlib import Path

import pytest

from vdplace import ir, placement
from vdplace.ir import ParseError
from vdplace.placement import PlacementConflict
from vdplace.placement.report import render_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXCERPT = 'x1: R.Tensor((2, 3), "float32", "llvm") = R.exp(x)'


def conflict_report(mod: ir.IRModule) -> str:
    with pytest.raises(PlacementConflict) as info:
        placement.place(mod)
    return render_text(info.value, color=False)


@pytest.fixture
def conflict_file(tmp_path):
    path = tmp_path / "conflict_add.py"
    path.write_bytes((EXAMPLES / "conflict_add.py").read_bytes())
    return path


def test_parse_file_reads_the_module_parse_reads(conflict_file):
    text = conflict_file.read_text()
    mod = ir.parse_file(conflict_file)
    assert ir.structural_equal(mod, ir.parse(text)) and ir.script(mod) == ir.script(ir.parse(text))
    assert mod.filename == str(conflict_file) and mod.source == text
    assert type(mod._source) is ir.source_file.SourceFile  # the text itself is not held


def test_reports_quote_the_file_and_stop_quoting_it_once_it_changes(conflict_file):
    mod = ir.parse_file(conflict_file)
    report = conflict_report(mod)
    assert EXCERPT in report and f"{conflict_file}:14:9" in report
    # Same size, other bytes: quoting them would show lines of another text.
    conflict_file.write_text(conflict_file.read_text().replace("R.exp(x)", "R.abs(x)"))
    assert mod.source is None
    report = conflict_report(mod)
    assert "R.exp(x)" not in report and "R.abs(x)" not in report and f"{conflict_file}:14:9" in report
    conflict_file.unlink()
    assert mod.source is None and f"{conflict_file}:14:9" in conflict_report(mod)


def test_the_file_reference_survives_replace_and_a_change_of_directory(conflict_file, monkeypatch):
    monkeypatch.chdir(conflict_file.parent)
    mod = ir.parse_file(conflict_file.name)
    monkeypatch.chdir(conflict_file.parent.parent)
    text = conflict_file.read_text()
    assert mod.source == text and mod.filename == conflict_file.name
    assert mod.replace(name="Other").source == text
    mod.source = "replaced"
    assert mod.source == "replaced"


def test_unreadable_and_non_utf8_files_are_parse_errors(tmp_path):
    with pytest.raises(ParseError, match="cannot read .*nope.py: No such file"):
        ir.parse_file(tmp_path / "nope.py")
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"\xff\xfe@I.ir_module")
    with pytest.raises(ParseError, match=rf"^{bad}:1:1: the file is not UTF-8 text"):
        ir.parse_file(bad)


def test_windows_line_ends_read_as_text_mode_reads_them(conflict_file):
    text = conflict_file.read_text()
    conflict_file.write_bytes(text.replace("\n", "\r\n").encode())
    mod = ir.parse_file(conflict_file)
    assert mod.source == text and ir.script(mod) == ir.script(ir.parse(text))
    assert EXCERPT in conflict_report(mod)


def test_a_pipe_keeps_its_text(conflict_file):
    read, write = os.pipe()
    with os.fdopen(write, "wb") as w:
        w.write(conflict_file.read_bytes())
    mod = ir.parse_file(f"/dev/fd/{read}")
    os.close(read)
    assert mod.source == conflict_file.read_text() and EXCERPT in conflict_report(mod)


def test_one_conflict_reads_the_file_once_for_all_its_reports(conflict_file, monkeypatch):
    from vdplace.ir.source_file import SourceFile
    from vdplace.placement.report import render_html, render_json

    reads = []
    text = SourceFile.text
    monkeypatch.setattr(SourceFile, "text", lambda self: reads.append(1) or text(self))
    with pytest.raises(PlacementConflict) as info:
        placement.place(ir.parse_file(conflict_file))
    err = info.value
    assert EXCERPT in render_text(err, color=False) and render_json(err)["conflicts"]
    assert "R.exp(x)" in render_html(err) and str(err)
    assert len(reads) == 1
