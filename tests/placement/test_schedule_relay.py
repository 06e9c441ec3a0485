"""A value on one device read on two memory scopes of another: one copy over the link, then one between the scopes.

The placed module copies the value across the link once, to the first scope
(in vdevice order), and from there to the second (`placement.rewrite.realize`);
the schedule models the same (`schedule.simulate.relays`), so the plan places
and its schedule passes the check against the placed module
(`schedule.place.check_schedule`), which used to fail with a
`PlacementInternalError` where the schedule copied from the home to each scope.
"""

from __future__ import annotations

import pytest

from vdplace import ir
from vdplace.placement import CostModel, Time, place

pytest.importorskip("ortools")

T = 'R.Tensor((64, 64), "float32", "{}")'
VDEVICES = 'I.vdevice("llvm", 0), I.vdevice("cuda", 0, "global"), I.vdevice("cuda", 0, "texture")'
SOURCE = f"""
@I.ir_module
class M:
    I.module_global_infos({{"vdevice": [{VDEVICES}]}})
    @R.function
    def main(x: {T.format("llvm:0")}) -> {T.format("cuda:0")}:
        R.func_attr({{"num_input": 1}})
        a: {T.format("llvm:0")} = R.nn.relu(x)
        b: {T.format("cuda:0")} = R.nn.relu(a)
        c: {T.format("cuda:1")} = R.nn.relu(a)
        d: {T.format("cuda:0")} = R.add(b, c)
        return d
"""
LINK = 1e-5


def model() -> CostModel:
    def kernel(op, vdevice: str) -> float:
        return 2e-6

    def copy(nbytes: int, src: str, dst: str) -> float:
        return LINK + nbytes / 25e9

    return CostModel(kernel, copy)


@pytest.mark.parametrize("exact", [True, False])
def test_value_read_on_two_scopes_is_relayed(exact: bool) -> None:
    mod = ir.parse(SOURCE, filename="relay.py")
    result = place(mod, objective=Time(model(), exact=exact), time_limit_s=10)
    s = result.schedule
    copies = {e.name: e for e in s.events if e.kind == "copy"}
    assert {n: e.device for n, e in copies.items()} == {
        "a_cuda_0_global": ("llvm:0:global", "cuda:0:global"),  # once over the link
        "a_cuda_1_texture": ("cuda:0:global", "cuda:1:texture"),  # then between the scopes
        "c_cuda_0_global": ("cuda:1:texture", "cuda:0:global"),
    }
    link, relay = copies["a_cuda_0_global"], copies["a_cuda_1_texture"]
    assert relay.duration == 0.0 and relay.start >= link.end  # from the first scope, once it is there
    c = next(e for e in s.events if e.name == "c")
    assert c.start >= relay.end
    # the first scope holds the value until the relay has read it
    stay = next(lv for lv in s.lives if lv.label == "main:a" and lv.vdevice == "cuda:0:global")
    assert stay.end >= relay.end
    # a, then the link copy, then b and c one after the other on the GPU's stream, then d
    expect = 2e-6 + link.duration + 3 * 2e-6
    assert s.makespan == pytest.approx(expect, rel=1e-9)
    if exact:
        assert not s.optimal or s.makespan == pytest.approx(s.lower_bound, rel=1e-6)
