"""Each Ray actor's share of a copy (`vdplace.calibration.ray_actors`): fitted from timings, carried by the links.

Fake timings here; tests/calibration/test_calibration_ray.py measures real actors.
"""

from __future__ import annotations

import numpy as np
import pytest

from vdplace.calibration.dispatch import Dispatch, apply_dispatch
from vdplace.calibration.ray_actors import (
    Share,
    copy_shares_about,
    measure_share,
    probe_layout,
    strided_layouts,
    strided_view,
    with_sends,
)
from vdplace.ir.vdevice import VDevice
from vdplace.placement import CostModel
from vdplace.placement.cost import Table
from vdplace.placement.cost.links import LARGE_COPY, SMALL_COPY
from vdplace.placement.cost.roofline import Link, Roof, Roofline
from vdplace.runtime.ray.commands import sendable

CPU, GPU = VDevice("llvm", 0), VDevice("cuda", 0)


def test_a_share_is_fitted_per_byte_from_the_fastest_calls_at_two_sizes():
    calls: list[int] = []
    noise = iter([3e-4, 0.0, 1e-4] * 2)

    def busy(nbytes: int) -> float:  # 0.5 ms a call and 0.6 ms a MiB, each slower by some noise
        calls.append(nbytes)
        return 5e-4 + nbytes * 6e-10 + next(noise)

    share = measure_share(busy, repeat=3)
    assert calls == [SMALL_COPY] * 3 + [LARGE_COPY] * 3
    assert share.latency == pytest.approx(5e-4 + SMALL_COPY * 6e-10)
    assert share.per_byte == pytest.approx(6e-10)


def test_the_links_carry_their_sources_send_share():
    links = {("llvm:0", "cuda:0"): Link(1e-3, 1e9), ("cuda:0", "llvm:0"): Link(2e-3, 2e9)}
    out = with_sends(links, {"llvm:0": Share(4e-4, 5e-10)})
    assert out["llvm:0", "cuda:0"] == Link(1e-3, 1e9, 4e-4, 5e-10)
    assert out["cuda:0", "llvm:0"] == Link(2e-3, 2e9)  # no share measured for cuda:0: none
    about = copy_shares_about({"llvm:0": Share(4e-4, 5e-10)}, {"cuda:0": Share(2e-4, 2e-10)})
    assert about["send"]["llvm:0"] == {"latency seconds": 4e-4, "seconds per byte": 5e-10}
    assert about["receive"]["cuda:0"]["seconds per byte"] == 2e-10 and "receive" in about["modelled"]


def test_the_executors_copy_latency_keeps_the_senders_share():
    fallback = Roofline(
        devices={"llvm:0": Roof(1e9, 1e9, 1e-6), "cuda:0": Roof(1e9, 1e9, 1e-6)},
        links={("llvm:0", "cuda:0"): Link(1e-3, 1e9, 4e-4, 5e-10), ("cuda:0", "llvm:0"): Link(1e-3, 1e9)},
    )
    model = CostModel.from_table(Table({"llvm:0": {"k": 2e-6}}, fallback))
    apply_dispatch(model, Dispatch(step=4e-3, op=10e-6, copy={"cuda:0": 3e-3}, host="llvm:0", runs=7))
    assert model.source.fallback.links["llvm:0", "cuda:0"] == Link(3e-3, 1e9, 4e-4, 5e-10)
    vds = [CPU, GPU]
    assert model.send(1 << 20, CPU, GPU, vds) == pytest.approx(4e-4 + (1 << 20) * 5e-10)
    assert model.send(1 << 20, GPU, CPU, vds) == 0.0


def test_a_strided_senders_share_is_carried_by_the_links_and_written_in_about():
    links = {("llvm:0", "cuda:0"): Link(1e-3, 1e9)}
    out = with_sends(links, {"llvm:0": Share(4e-4, 5e-10, 7e-10)})
    assert out["llvm:0", "cuda:0"] == Link(1e-3, 1e9, 4e-4, 5e-10, 7e-10)
    about = copy_shares_about({"llvm:0": Share(4e-4, 5e-10, 7e-10)}, {})
    assert about["send"]["llvm:0"]["strided seconds per byte"] == 7e-10
    assert "strided" not in str(copy_shares_about({"llvm:0": Share(4e-4, 5e-10)}, {})["send"])


def test_the_strided_probe_is_a_transposed_view_that_a_send_makes_contiguous():
    big = strided_view(probe_layout(LARGE_COPY))
    assert big.nbytes == LARGE_COPY and big.ndim == 2 and min(big.shape) > 1
    assert not big.flags.c_contiguous and big.base is not None  # a view, as a permute_dims of a weight
    sent = sendable(big)
    assert sent.flags.c_contiguous and sent is not big
    np.testing.assert_array_equal(sent, big)
    plain = np.ones(16, np.float32)
    assert sendable(plain) is plain  # a contiguous value goes as it is: no copy
    assert strided_view(probe_layout(SMALL_COPY)).nbytes == SMALL_COPY


STRIDED = """
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((3, 8), "float32"), w: R.Tensor((4, 8), "float32"), v: R.Tensor((1, 8), "float32")):
        t = R.permute_dims(w)
        u = R.permute_dims(w, axes=[1, 0])
        s = R.permute_dims(v)
        y = R.matmul(x, t)
        z = R.matmul(x, u)
        q = R.matmul(x, s)
        return (y, z, q)
"""


def test_the_strided_views_timed_are_the_programs_own_distinct_ones():
    from vdplace import ir

    # t and u are one layout; s moves only an axis of length 1: contiguous, never sent strided
    assert strided_layouts(ir.parse(STRIDED)) == [((4, 8), "float32", (1, 0))]
    view = strided_view(((4, 8), "float32", (1, 0)))
    assert view.shape == (8, 4) and not view.flags.c_contiguous
