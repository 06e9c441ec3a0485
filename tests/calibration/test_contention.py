"""The contention probe's pieces that need no Ray: the program's calls it runs, the passes it counts."""

from __future__ import annotations

import numpy as np

from vdplace.calibration.contention import Contention, _within, contention_about, program_calls


def test_a_pass_runs_each_distinct_call_that_has_a_numpy_kernel():
    x = np.ones((2, 2), "float32")
    values = {
        "nn.relu(float32[2, 2])": ([x], {}),
        "add(float32[2, 2], float32[2, 2])": ([x, x], {}),
        "to_vdevice(float32[2, 2]; dst_vdevice=cuda:0)": ([x], {"dst_vdevice": None}),  # a copy, not a kernel
        "no.such_op(float32[2, 2])": ([x], {}),
    }
    calls = program_calls(values)
    assert [name for name, _, _ in calls] == ["add", "nn.relu"]
    assert calls[0][1][0] is x


def test_passes_whose_middle_came_during_the_others_run_count_as_together():
    mine = [(0.0, 1.0), (1.0, 2.0), (2.0, 3.5), (3.5, 5.0)]
    other = [(0.6, 2.0), (2.0, 4.0)]
    assert _within(mine, other) == [1.0, 1.5]  # (1, 2) and (2, 3.5); (0, 1) is mostly before, (3.5, 5) after
    assert _within(mine, [(6.0, 7.0)]) == [1.0, 1.0, 1.5, 1.5]  # the runs never met: every pass, as alone


def test_the_record_names_both_actors():
    found = Contention(("llvm:0", "cuda:0"), 1.3, (1.2, 1.4), (0.01, 0.011), (0.012, 0.0154), 8, 3, 5)
    about = contention_about([found])
    assert about["pairs"][0]["slowdown"] == {"llvm:0": 1.2, "cuda:0": 1.4}
    assert about["pairs"][0]["factor"] == 1.3 and "alone" in about["how"]
