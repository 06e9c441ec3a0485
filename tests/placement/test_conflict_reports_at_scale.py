"""Conflict reports of large modules: every planted pin named, bounded length, the full chain in JSON, linear work.

The modules are `benchmarks/bench_conflicts.py`'s planted text (four
independent conflicts, one of them joined by a long chain), small enough
for the suite; the benchmark runs the same at 100k and 1M bindings.
"""

from __future__ import annotations

import importlib.util
import json
import re
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.placement.test_diagnostics import _check
from vdplace import ir, placement
from vdplace.ir import progress
from vdplace.placement.report import SCHEMA_PATH, render_html, render_json, render_text
from vdplace.placement.report.json_report import runs

ROOT = Path(__file__).resolve().parents[2]
GAP = re.compile(r"\u2026 (\d+) bindings, lines (\d+)\u2013(\d+) \u2026")


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_conflicts", ROOT / "benchmarks" / "bench_conflicts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench()


@cache
def planted(far: int) -> tuple[Any, placement.PlacementConflict]:
    """The planted module with its long chain `far` bindings long, and its conflict (diagnosed once)."""
    module = BENCH.planted_text(2000, far=far)
    mod = ir.parse(module.text, filename="planted.py")
    with pytest.raises(placement.PlacementConflict) as info:
        placement.place(mod)
    err = info.value
    assert len(err.conflicts) == 4 and err.omitted == 0
    return module, err


def test_every_planted_pin_and_join_is_named_in_every_report():
    module, err = planted(400)
    text = render_text(err, color=False)
    assert BENCH.missing_lines(text, module) == []
    doc = render_json(err)
    pin_lines = {p["span"]["line"] for c in doc["conflicts"] for p in c["pins"] if p["span"]}
    assert pin_lines == set(module.pins.values())
    page = render_html(err)
    for name, line in {**module.pins, **module.joins}.items():
        assert f'<span class="ln">{line}</span>' in page, name
    summary = str(err)
    for name in module.pins:
        assert (f"`{name}`" if "." not in name else "the return value of `helper`") in summary


def test_a_long_chain_shows_its_ends_and_the_bindings_between():
    module, err = planted(20_000)
    (long,) = [c for c in err.conflicts if len(c.path) > 1000]
    text = render_text(err, color=False)
    first, last = module.pins["c1_50"], module.pins[f"c1_{50 + 20_000}"]
    gaps = {m.groups() for m in GAP.finditer(text)}
    assert len(gaps) == 1
    ((bindings, a, b),) = gaps
    assert int(bindings) == len(long.path) - 12
    assert first < int(a) <= int(b) < last
    assert text.count(f"note: \u2026 {bindings} bindings") == 1
    assert GAP.search(render_html(err)) and GAP.search(err.message) and GAP.search(str(err))


def test_the_report_length_does_not_grow_with_the_chain():
    short, long = planted(200)[1], planted(20_000)[1]
    assert len(short.conflicts[2].path) < 200 < 5000 < len(long.conflicts[2].path)
    for render in (lambda e: render_text(e, color=False), str, lambda e: e.message):
        assert render(long).count("\n") == render(short).count("\n")
    assert len(render_html(long)) < 1.1 * len(render_html(short))
    assert len(json.dumps(render_json(long))) < 1.1 * len(json.dumps(render_json(short)))
    assert render_text(long, color=False).count("\n") < 150


def _expand(encoded: list[list[int | None]]) -> list[int | None]:
    out: list[int | None] = []
    for first, count, stride in encoded:
        out += [None] * count if first is None else [first + k * stride for k in range(count)]
    return out


@pytest.mark.parametrize("far", [200, 20_000])
def test_the_json_chain_round_trips_every_step(far):
    _, err = planted(far)
    doc = json.loads(json.dumps(render_json(err)))
    schema = json.loads(SCHEMA_PATH.read_text())
    _check(schema, doc, schema)
    for conflict, entry in zip(err.conflicts, doc["conflicts"], strict=True):
        chain = entry["chain"]
        rules = [(r["rule_kind"], r["rule"]) for r in chain["rules"]]
        decoded = list(
            zip(
                _expand(chain["from"]),
                _expand(chain["to"]),
                _expand(chain["line"]),
                [rules[i] for i in _expand(chain["rule"])],
                strict=True,
            )
        )
        expected = [
            (s.source.id, s.target.id, None if s.span is None else s.span.line, (s.rule.kind.value, s.rule.text))
            for s in conflict.path
        ]
        assert chain["steps"] == len(expected) and decoded == expected
        elided = entry["elided"]
        assert len(entry["path"]) + sum(gap["steps"] for gap in elided) == len(conflict.path)
        assert len(elided) <= 1
        for gap in elided:
            assert gap["after"] == 6 and GAP.fullmatch(gap["text"])
    if far == 20_000:
        assert len(json.dumps(doc)) < 40_000


def test_runs_encode_progressions_and_nulls():
    assert runs([]) == []
    assert runs([7]) == [[7, 1, 0]]
    assert runs([1, 2, 3, 10, 11, 12, None, None, 5, 5, 5, 9, 7]) == [
        [1, 3, 1],
        [10, 3, 1],
        [None, 2, 0],
        [5, 3, 0],
        [9, 2, -2],
    ]
    values = [3, 1, 4, 1, 5, None, 9, 2, 6]
    assert _expand(runs(values)) == values


class _CountingText(str):
    """A source text that counts how often it is split into lines."""

    splits = 0

    def splitlines(self, keepends: bool = False) -> list[str]:
        type(self).splits += 1
        return super().splitlines(keepends)


def test_the_source_is_split_into_lines_once_for_every_rendering():
    module = BENCH.planted_text(1000, far=100)
    mod = ir.parse(module.text, filename="planted.py")
    with pytest.raises(placement.PlacementConflict) as info:
        placement.place(mod)
    err = info.value
    mod.source = _CountingText(mod.source)
    render_text(err, color=False), render_json(err), render_html(err), str(err), err.message
    assert _CountingText.splits == 1


def test_the_diagnosis_reports_its_stages():
    seen: list[tuple[str, int | None]] = []

    @contextmanager
    def recording(name, total=None):
        seen.append((name, total))
        yield progress.no_tick

    module = BENCH.planted_text(1000, far=100)
    with progress.listening(recording):
        with pytest.raises(placement.PlacementConflict) as info:
            placement.place(ir.parse(module.text))
        assert len(info.value.conflicts) == 4
    assert [s for s in seen if s[0] != "place"] == [
        ("find conflicts", 4),
        ("prove conflicts", 4),
        ("check fixes", 4),
        ("specialization advice", None),
    ]
