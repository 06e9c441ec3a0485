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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


@st.composite
def programs(draw) -> tuple[str, CostModel]:
    """A random program on the host and two scopes of one GPU, values pinned to where relays happen."""
    devices = ("llvm:0", "cuda:0", "cuda:1")
    times = {}
    lines, values = [], ["x"]
    for k in range(draw(st.integers(2, 5))):
        op = draw(st.sampled_from(["add", "multiply", "nn.relu"]))
        args = [draw(st.sampled_from(values)) for _ in range(1 if op == "nn.relu" else 2)]
        pin = draw(st.sampled_from((None, *devices, *devices)))
        typed = "" if pin is None else f": {T.format(pin)}"
        lines.append(f"        v{k}{typed} = R.{op}({', '.join(args)})")
        values.append(f"v{k}")
        for name in ("llvm:0:global", "cuda:0:global", "cuda:1:texture"):
            times[f"v{k}", name] = draw(st.sampled_from((1e-6, 3e-6, 8e-6)))
    latency = draw(st.sampled_from((1e-6, 1e-5)))
    text = f"""
@I.ir_module
class M:
    I.module_global_infos({{"vdevice": [{VDEVICES}]}})
    @R.function
    def main(x: {T.format("llvm:0")}) -> R.Tensor((64, 64), "float32"):
        R.func_attr({{"num_input": 1}})
{chr(10).join(lines)}
        return {values[-1]}
"""

    def kernel(op, vdevice: str) -> float:
        return times[op.name, vdevice]

    def copy(nbytes: int, src: str, dst: str) -> float:
        return latency + nbytes / 25e9

    return text, CostModel(kernel, copy)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_plans_on_two_scopes_place_and_check(case: tuple[str, CostModel]) -> None:
    """Every plan places (its schedule checked against the placed module by `place` itself), and a value's
    copy into the texture scope comes from global memory whenever the value is copied there too."""
    text, cost = case
    result = place(ir.parse(text, filename="relay.py"), objective=Time(cost), time_limit_s=10)
    s = result.schedule
    assert s.lower_bound <= s.makespan * (1 + 1e-9)
    copies = [e for e in s.events if e.kind == "copy" and e.name != "x"]
    by_dst = {(e.device[1], e.name.rsplit("_cuda", 1)[0].rsplit("_llvm", 1)[0]): e for e in copies}
    for (dst, value), e in by_dst.items():
        if dst == "cuda:1:texture" and ("cuda:0:global", value) in by_dst:
            assert e.device[0] == "cuda:0:global" and e.duration == 0.0, (text, e)
