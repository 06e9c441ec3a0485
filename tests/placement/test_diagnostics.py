"""Conflict reports of real modules: golden text reports, the summary, JSON schema, HTML in Chromium.

Each ``tests/golden/NAME.tvmscript`` is a TVMScript module with one conflict; its
text report must equal ``tests/golden/NAME.txt``.  After an intended change
of the report, regenerate with ``VDPLACE_UPDATE_GOLDEN=1 pytest tests/placement/test_diagnostics.py``
and review the diff.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from vdplace import ir, placement
from vdplace.placement.diagnose import Diagnosis, find_conflicts, summarize
from vdplace.placement.model.rules import Rule, RuleKind
from vdplace.placement.report import SCHEMA_PATH, render_html, render_json, render_text

GOLDEN = Path(__file__).parents[1] / "golden"
CASES = sorted(p.stem for p in GOLDEN.glob("*.tvmscript"))
UPDATE = os.environ.get("VDPLACE_UPDATE_GOLDEN") == "1"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def conflict_of(name: str) -> tuple[placement.PlacementConflict, ir.IRModule]:
    mod = ir.parse((GOLDEN / f"{name}.tvmscript").read_text(), filename=f"{name}.tvmscript")
    with pytest.raises(placement.PlacementConflict) as info:
        placement.place(mod, strict_hints=name.startswith("strict"))
    return info.value, mod


def test_the_golden_cases_are_there():
    assert {
        "rfc_hints",
        "rfc_annotations",
        "strict_hint_chain",
        "call_boundary",
        "tuple_field",
        "if_branches",
        "matmul_two_gpus",
        "return_annotation",
    } <= set(CASES)


@pytest.mark.parametrize("name", CASES)
def test_golden_text_report(name):
    err, mod = conflict_of(name)
    text = render_text(err, color=False, source=mod.source, filename=mod.filename)
    golden = GOLDEN / f"{name}.txt"
    if UPDATE:
        golden.write_text(text)
    assert text == golden.read_text()


def test_hint_results_are_pinned_but_their_inputs_only_preferred():
    """Two hinted values added together conflict with or without strict hints (a hint pins its *result*), while
    a chain of hints conflicts only when strict (the hint's input is only preferred on its device)."""
    rfc = ir.parse((GOLDEN / "rfc_hints.tvmscript").read_text())
    for strict in (False, True):
        with pytest.raises(placement.PlacementConflict):
            placement.place(rfc, strict_hints=strict)
    chain = ir.parse((GOLDEN / "strict_hint_chain.tvmscript").read_text())
    assert placement.place(chain).module is not None
    err, _ = conflict_of("strict_hint_chain")
    (conflict,) = err.conflicts
    assert any(step.rule.kind is RuleKind.HINT_STRICT for step in conflict.path)
    assert any(fix.kind == "hint_to_copy" for fix in conflict.fixes)


@pytest.mark.parametrize("name", CASES)
def test_message_names_pins_and_the_joining_bindings(name):
    err, _ = conflict_of(name)
    message = str(err)
    conflicts, _ = find_conflicts(err.constraint_set)
    names = {r.site.name for c in conflicts for r in c.pins if r.site.kind != "return"}
    names |= {s.binding for c in conflicts for s in c.path if s.binding}
    for name_ in names:
        assert re.search(rf"(?<![A-Za-z0-9_]){re.escape(name_)}(?![A-Za-z0-9_])", message), (name_, message)


def test_conflict_exception_carries_the_explained_conflicts():
    err, _ = conflict_of("rfc_annotations")
    assert [c.title for c in err.conflicts] == ['`a` must be on "llvm:0" but `b` on "cuda:0"']
    assert err.omitted == 0
    assert str(err) == summarize(err.conflicts, err.omitted, err.module.source)
    joining = [line for line in str(err).splitlines() if line.strip().startswith("at ")]
    assert joining and all("R.add(" in line for line in joining), str(err)


def test_one_diagnosis_found_once_explains_everything(monkeypatch):
    """Raising costs no diagnosis; the first question finds the conflicts, and every text,
    core and report of the error describes those same conflicts."""
    from vdplace.placement.diagnose import explain

    calls = []

    def counted(cs, **options):
        calls.append(cs)
        return find_conflicts(cs, **options)

    monkeypatch.setattr(explain, "find_conflicts", counted)
    mod = ir.parse(CHAIN_OF_PINS, filename="chain.py")
    with pytest.raises(placement.PlacementConflict) as info:
        placement.place(mod)
    err = info.value
    assert calls == []
    assert len(err.conflicts) == 2 and err.omitted == 0
    assert err.cores == [c.constraints for c in err.conflicts] and err.core == err.cores[0]
    assert err.message.startswith("2 independent placement conflicts")
    for conflict in err.conflicts:
        pinned = {r.site.name for r in conflict.pins}
        assert f"{' and '.join(sorted(pinned))} must share a device" in err.message
    assert str(err).startswith("no placement exists: 2 independent conflicts")
    assert render_json(err)["total"] == 2 and "conflict-2" in render_html(err)
    assert len(calls) == 1


CHAIN_OF_PINS = """
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((2,), "float32")):
        a: R.Tensor((2,), "float32", "llvm") = R.exp(x)
        b: R.Tensor((2,), "float32", "cuda") = R.exp(a)
        c: R.Tensor((2,), "float32", "llvm") = R.exp(b)
        return c
"""


def test_the_errors_module_imports_no_diagnosis_anywhere():
    """`PlacementConflict` is handed its explanation; errors.py imports no diagnosis, not even in a function
    (tests/project/test_structure.py checks the module-level import graph for cycles)."""
    import ast

    tree = ast.parse((Path(placement.__file__).parent / "errors.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not [m for m in imported if ".diagnose" in m or ".report" in m], imported


def test_colour_only_when_asked():
    err, mod = conflict_of("rfc_hints")
    plain = render_text(err, color=False, source=mod.source)
    coloured = render_text(err, color=True, source=mod.source)
    assert "\x1b[" not in plain and "\x1b[" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain


def test_report_without_source_shows_positions_and_names():
    from vdplace.ir import DeviceSpec, ModuleBuilder, VDevice, tensor

    mb = ModuleBuilder([VDevice("llvm"), VDevice("cuda", 0)])
    f = mb.function("main", [("x", tensor((2,))), ("y", tensor((2,)))])
    a = f.emit("hint_on_device", f.params[0], name="a", device=DeviceSpec("cpu", 0))
    b = f.emit("hint_on_device", f.params[1], name="b", device=DeviceSpec("cuda", 0))
    f.finish(f.emit("add", a, b, name="c"))
    with pytest.raises(placement.PlacementConflict) as info:
        placement.place(mb.get(), strict_hints=True)
    text = render_text(info.value, color=False)
    assert 'pin: `a` is hinted to "llvm:0"' in text
    assert 'help: insert `a_cuda0 = R.to_vdevice(a, "cuda:0")` before the binding of `c` in `main`' in text
    assert "|" not in text.split("help")[0].split("\n", 2)[2]  # no excerpt gutter without source


# -- JSON ----------------------------------------------------------------------------


def _check(schema: dict, value, root: dict, where: str = "$") -> None:
    """A validator for the JSON Schema subset conflict_schema.json uses."""
    if "$ref" in schema:
        target = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return _check(target, value, root, where)
    if "anyOf" in schema:
        errors = []
        for option in schema["anyOf"]:
            try:
                return _check(option, value, root, where)
            except AssertionError as err:
                errors.append(str(err))
        raise AssertionError(f"{where}: matches no option: {errors}")
    if "const" in schema:
        assert value == schema["const"], where
    if "enum" in schema:
        assert value in schema["enum"], (where, value)
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        python = {"object": dict, "array": list, "string": str, "integer": int, "null": type(None)}
        assert any(isinstance(value, python[k]) and not isinstance(value, bool) for k in kinds), (where, value)
    if isinstance(value, int) and "minimum" in schema:
        assert value >= schema["minimum"], where
    if isinstance(value, dict):
        for key in schema.get("required", []):
            assert key in value, f"{where}: missing {key}"
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is False:
            assert set(value) <= set(props), f"{where}: unexpected {set(value) - set(props)}"
        for key, sub in props.items():
            if key in value:
                _check(sub, value[key], root, f"{where}.{key}")
    if isinstance(value, list):
        assert len(value) >= schema.get("minItems", 0), where
        if "items" in schema:
            for i, item in enumerate(value):
                _check(schema["items"], item, root, f"{where}[{i}]")


@pytest.mark.parametrize("name", CASES)
def test_json_report_matches_its_schema(name):
    err, mod = conflict_of(name)
    doc = render_json(err, source=mod.source, filename=mod.filename)
    doc = json.loads(json.dumps(doc))  # plain data only
    schema = json.loads(SCHEMA_PATH.read_text())
    _check(schema, doc, schema)
    import jsonschema  # the test extra's: never skipped

    jsonschema.validate(doc, schema)
    (c,) = doc["conflicts"]
    assert doc["total"] == 1 and doc["omitted"] == 0
    assert all(p["span"]["file"] == f"{name}.tvmscript" for p in c["pins"])
    assert c["fixes"] and all(1 in f["resolves"] for f in c["fixes"])


def test_the_validator_rejects_bad_documents():
    err, mod = conflict_of("matmul_two_gpus")
    schema = json.loads(SCHEMA_PATH.read_text())
    doc = render_json(err, source=mod.source)
    doc["conflicts"][0]["pins"][0]["kind"] = "pinned"
    with pytest.raises(AssertionError):
        _check(schema, doc, schema)


# -- HTML -----------------------------------------------------------------------------


def test_html_is_self_contained():
    err, mod = conflict_of("call_boundary")
    page = render_html(err, source=mod.source, filename=mod.filename)
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    assert "<script" not in page
    external = re.findall(r"""(?:src|href)\s*=|url\(|@import|https?://(?!www\.w3\.org/2000/svg)""", page)
    assert external == []
    for name in ("x", "h", "s", "w"):
        assert f">{name}</text>" in page  # the chain's sites are graph nodes
    assert "cls.scale" in page


def _png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Rows of a non-interlaced 8-bit RGB/RGBA PNG (what Chromium writes), decoded by hand."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if bpp == 3 else bytes(v for j, v in enumerate(line) if j % 4 != 3))
        prev = line
    return width, height, rows


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian package `chromium`)")
def test_html_graph_renders_in_headless_chromium(tmp_path):
    err, mod = conflict_of("rfc_annotations")
    page = tmp_path / "report.html"
    page.write_text(render_html(err, source=mod.source, filename=mod.filename))
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [CHROMIUM, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    assert dom.count("<svg") == 1 and dom.count("<rect") >= 6  # three nodes, two rects each
    shot = tmp_path / "shot.png"
    subprocess.run(
        [CHROMIUM, *flags, f"--screenshot={shot}", "--window-size=900,700", page.as_uri()],
        capture_output=True,
        timeout=120,
    )
    _, _, rows = _png_pixels(shot.read_bytes())
    red, blue = bytes.fromhex("d94a38"), bytes.fromhex("2f6fd6")  # llvm:0 and cuda:0 node borders

    def count(colour: bytes) -> int:
        return sum(row[i : i + 3] == colour for row in rows for i in range(0, len(row), 3))

    assert count(red) > 100 and count(blue) > 100


def test_long_chains_are_elided_in_every_rendering():
    from vdplace.placement.model.constraints import ConstraintSet, Equal, Pin

    cs = ConstraintSet([ir.VDevice("llvm"), ir.VDevice("cuda", 0)])
    for i in range(200):
        cs.add_site("main", f"v{i}", (), ir.Span("m.py", i + 1, 5, i + 1, 20), 4, "binding")
    for i in range(199):
        cs.equals.append(Equal(i, i + 1, Rule.of(RuleKind.ALIAS), ir.Span("m.py", i + 2, 5, i + 2, 20)))
    cs.pins += [
        Pin(0, 0, Rule.of(RuleKind.ANNOTATION), ir.Span("m.py", 1, 5, 1, 20)),
        Pin(199, 1, Rule.of(RuleKind.ANNOTATION), None),
    ]
    diagnosis = Diagnosis(cs)
    conflicts, omitted = diagnosis.conflicts, diagnosis.omitted
    assert conflicts[0].verified == "structure" and len(conflicts[0].path) == 199
    source = "\n".join(f"    v{i} = v{i - 1}" for i in range(200))
    text = render_text(diagnosis, source=source, filename="m.py", color=False)
    gap = "\u2026 187 bindings, lines 8\u2013194 \u2026"
    assert f"note: {gap}" in text and text.count("note:") < 20
    page = render_html(diagnosis, source=source, filename="m.py")
    assert gap in page and page.count('<g class="node') < 20
    assert len(str(summarize(conflicts, omitted))) < 3000


def test_the_schema_lists_every_rule_kind():
    schema = json.loads(SCHEMA_PATH.read_text())
    kinds = {kind.value for kind in RuleKind}
    assert set(schema["$defs"]["pin"]["properties"]["rule_kind"]["enum"]) == kinds
    assert set(schema["$defs"]["step"]["properties"]["rule_kind"]["enum"]) == kinds
