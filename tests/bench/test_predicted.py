"""`vdplace.bench.predicted`: the comparison behind bench_measured.py's table and its CI check (no timing)."""

from __future__ import annotations

import math

from vdplace.bench.predicted import markdown, off, peak_off, problems, summary

HOST, GPU = "llvm:0:global", "cuda:0:global"


def row(predicted_s=0.010, measured_s=0.010, pp=None, mp=None, cap=None, fits=True, **more):
    return {
        "model": "mlp",
        "scenario": "cap" if cap else "free",
        "predicted s": predicted_s,
        "measured s": measured_s,
        "predicted peak": pp if pp is not None else {HOST: 1000, GPU: 0},
        "measured peak": mp if mp is not None else {HOST: 1000, GPU: 0},
        "cap": cap or {},
        "fits": fits,
        "split": 0.5,
        **more,
    }


def test_off_is_symmetric_and_infinite_against_nothing():
    assert off(2.0, 1.0) == off(1.0, 2.0) == 1.0
    assert off(1.25, 1.0) == 0.25 and off(0.8, 1.0) == 0.25
    assert off(0, 0) == 0.0 and off(5, 0) == math.inf and off(None, 1.0) == math.inf
    assert peak_off(row(pp={HOST: 1100, GPU: 0}, mp={HOST: 1000, GPU: 0})) == 0.10000000000000009


def test_a_fabricated_off_by_2x_step_fails_the_check_and_a_close_one_passes():
    assert problems([row(0.010, 0.0105)]) == []
    found = problems([row(0.020, 0.010)])
    assert len(found) == 1 and "off by 100% (more than 50%)" in found[0] and "20.00 ms" in found[0]
    found = problems([row(0.005, 0.010)])  # under by 2x fails the same way
    assert len(found) == 1 and "off by 100%" in found[0]


def test_a_peak_off_by_2x_on_one_device_fails():
    found = problems([row(pp={HOST: 1000, GPU: 4000}, mp={HOST: 1000, GPU: 2000})])
    assert len(found) == 1 and "predicted peak" in found[0]
    # A device the plan leaves empty but the run uses is infinitely off.
    assert problems([row(pp={HOST: 1000, GPU: 0}, mp={HOST: 1000, GPU: 64})])


def test_a_plan_over_its_cap_or_a_run_that_did_not_fit_fails():
    over = problems([row(cap={GPU: 500}, pp={HOST: 1000, GPU: 600}, mp={HOST: 1000, GPU: 600})])
    assert over == ["mlp (cap): the plan puts 600 B on cuda:0:global, over its cap of 500 B"]
    unfit = row(cap={GPU: 500}, fits=False, measured_s=None, error="cuda:0 is out of memory")
    assert problems([unfit]) == ["mlp (cap): the run did not fit its caps: cuda:0 is out of memory"]
    refused = {"model": "gpt2", "scenario": "cap", "cap": {GPU: 1}, "error": "place: PlacementConflict"}
    assert problems([refused]) == ["gpt2 (cap): no measured step: place: PlacementConflict"]


def test_the_summary_counts_pairs_within_the_targets_and_the_table_has_a_row_each():
    rows = [row(0.0110, 0.010), row(0.0130, 0.010), row(pp={HOST: 1200, GPU: 0})]
    assert summary(rows) == ("step within 25%: 2 of 3 pairs; peak within 15%: 2 of 3; runs that fit their caps: 3 of 3")
    table = markdown(rows).splitlines()
    assert len(table) == 2 + 3 and table[0].startswith("| model | scenario | predicted | measured | ratio")
    assert "| 11.00 ms | 10.00 ms | 1.10 |" in table[2] and "llvm:0 1.2 KiB / 1.0 KiB (1.20)" in table[4]
