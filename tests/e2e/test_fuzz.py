"""A short run of the mutation fuzzer (benchmarks/fuzz_modules.py): documented errors only, no hang, no mutation."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_fuzzer():
    spec = importlib.util.spec_from_file_location("fuzz_modules", ROOT / "benchmarks" / "fuzz_modules.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_modules"] = module
    spec.loader.exec_module(module)
    return module


fuzz_modules = _load_fuzzer()


def test_two_hundred_mutants_raise_only_documented_errors():
    counts, findings = fuzz_modules.fuzz(seed=16, count=200, workers=2, timeout=60)
    assert sum(counts.values()) == 200
    assert not findings, "\n\n".join(f"{d} -> {o}\n{detail}" for d, o, detail, _ in findings)
    assert counts["parse_error"] and counts["ran"] + counts["run_error"]  # some mutants reach the runtime


def test_two_hundred_mutants_of_tir_modules_raise_only_documented_errors():
    counts, findings = fuzz_modules.fuzz(seed=5, count=200, workers=2, timeout=60, only="tests/tir/")
    assert not findings, "\n\n".join(f"{d} -> {o}\n{detail}" for d, o, detail, _ in findings)
    assert counts["parse_error"] and counts["ran"]


def test_the_seeds_cover_examples_models_and_test_snippets():
    names = [name for name, _ in fuzz_modules.seed_texts()]
    assert any(n.startswith("examples/") for n in names)
    assert any(n.startswith("tests/models/") for n in names)
    assert any(n.startswith("tests/tir/") for n in names)
    assert any(n.startswith("tests/") and "/test_" in n and ":" in n for n in names)


def test_mutants_are_the_same_for_the_same_seed():
    seeds = fuzz_modules.seed_texts()
    assert fuzz_modules.mutants(3, 20, seeds) == fuzz_modules.mutants(3, 20, seeds)
    assert fuzz_modules.mutants(3, 20, seeds) != fuzz_modules.mutants(4, 20, seeds)


@pytest.mark.parametrize("name", sorted(fuzz_modules.MUTATIONS))
def test_each_mutation_changes_a_module_and_keeps_to_text(name):
    text = (ROOT / "examples" / "mlp_two_devices.py").read_text()
    rng = random.Random(0)
    outs = {fuzz_modules.MUTATIONS[name](rng, text) for _ in range(5)}
    assert all(isinstance(out, str) for out in outs) and outs != {text}


def test_a_hang_is_reported_not_waited_for(monkeypatch):
    """A check that never answers is killed at the timeout and counted as a hang."""
    monkeypatch.setattr(fuzz_modules, "check", lambda text: __import__("time").sleep(60))
    monkeypatch.setattr(fuzz_modules, "seed_texts", lambda: [("s", "@R.function\n")])
    counts, findings = fuzz_modules.fuzz(seed=0, count=1, workers=1, timeout=0.5)
    assert counts == {"hang": 1} and findings[0][1] == "hang"


def test_an_undocumented_error_is_a_crash_with_its_traceback(monkeypatch):
    def boom(text):
        raise KeyError("boom")

    monkeypatch.setattr(fuzz_modules, "_check", boom)
    outcome, detail = fuzz_modules.check("anything")
    assert outcome == "crash" and "KeyError: 'boom'" in detail
