"""Redundant constraints of the CP-SAT model (`cpsat`) that its own reasoning does not derive.

*Memory knapsacks* (`lp_bound.memory_rows`): the weights and constants held
on a limited vdevice for the whole run fit its limit, together with each op's
working set (and the values live across it) when its unit is there.  CP-SAT's
reservoirs say the same of each schedule, but their linear relaxation says
nothing: on onnx_shape_ops with cuda:0 capped (2 vdevices, 40 s) its bound
was 0.0411 ms without these rows and 0.0502 ms with them.  They hold for
every plan the model admits, so they change no optimum, only what CP-SAT
proves and how early.  (The link work of `lp_bound` as rows here, per link
at release levels, did not help CP-SAT on bert and gru, and is left out.)
"""

from __future__ import annotations

from typing import Any

from vdplace.placement.schedule.lp_bound import memory_rows


def add_knapsacks(model: Any) -> None:
    """The memory rows of `lp_bound.memory_rows` over the model's placement Booleans."""
    m, x = model.m, model.x
    for d, limit, coef in memory_rows(model.g, model.allowed):
        m.add(sum(c * x[u][d] for u, c in coef.items() if c) <= limit)
