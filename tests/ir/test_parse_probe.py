"""The probe of a long text's first lines (`ir.parser._probe`): capped by lines and by characters."""

from __future__ import annotations

import pytest

import vdplace.ir.parser as parser_pkg
from vdplace import ir
from vdplace.bench import generators
from vdplace.ir import ParseError
from vdplace.ir.parser.source import Source


def test_head_takes_whole_lines_within_both_limits():
    src = Source("a\n" + "b" * 50 + "\nc\nd\n", None)
    assert src.head(3, 1000) == "a\n" + "b" * 50 + "\nc"
    assert src.head(3, 10) == "a"  # the second line does not fit: the head stops before it
    assert src.head(3, 0) is None  # not even the first line fits
    assert src.head(4, 1000) == "a\n" + "b" * 50 + "\nc\nd"
    assert src.head(5, 1000) is None  # no more lines than that


def _outcome(text: str):
    try:
        return ir.script(ir.parse(text))
    except ParseError as err:
        return str(err)


@pytest.mark.parametrize("tail", ["", "\n    oops(\n"])
def test_a_long_def_line_past_the_character_cap_parses_as_without_a_probe(monkeypatch, tail):
    # The transformer-like module puts every weight on its `def` line: longer than the cap here.
    text = ir.script(generators.build_transformer(300)) + tail
    assert max(len(line) for line in text.splitlines()) > 2000
    monkeypatch.setattr(parser_pkg, "_PROBE_LINES", 10**9)  # never probed
    unprobed = _outcome(text)
    monkeypatch.setattr(parser_pkg, "_PROBE_LINES", 20)
    monkeypatch.setattr(parser_pkg, "_PROBE_CHARS", 2000)
    assert _outcome(text) == unprobed
    assert (tail == "") == (not unprobed.startswith("<string>"))
