"""A copy's sender's share (`CostModel.send`): the model, its cost file, and the schedule that holds the sender.

The random programs of tests/placement/test_schedule.py check the share against an exhaustive search;
these pin the contract by hand.
"""

from __future__ import annotations

import json

import pytest

from vdplace import ir
from vdplace.ir.vdevice import VDevice
from vdplace.placement import CostModel, Time, place
from vdplace.placement.cost.roofline import Link

pytest.importorskip("ortools")

CPU, GPU = VDevice("llvm", 0), VDevice("cuda", 0)
US = 1e-6

# a on the CPU, copied to the GPU for b; c on the CPU reads a too.
PROGRAM = """
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((4, 4), "float32")) -> R.Tuple(R.Tensor((4, 4), "float32"), R.Tensor((4, 4), "float32")):
        a = R.nn.relu(x)
        b = R.nn.relu(a)
        c = R.add(a, a)
        return (b, c)
"""
TIMES = {("a", "llvm"): 10 * US, ("b", "cuda"): 10 * US, ("c", "llvm"): 25 * US}


def model(send: float | None) -> CostModel:
    def kernel(op, vdevice: str) -> float | None:
        return TIMES.get((op.name, vdevice.split(":")[0]))

    return CostModel(kernel, lambda n, s, d: 20 * US, send_time=None if send is None else lambda n, s, d: send)


def test_without_a_send_time_a_copy_holds_no_device():
    m = model(None)
    assert m.send(64, CPU, GPU, [CPU, GPU]) == 0.0
    assert CostModel.roofline().send(1 << 20, CPU, GPU, [CPU, GPU]) == 0.0


def test_the_senders_share_is_at_most_the_copy_and_nothing_on_one_device():
    vds = [CPU, GPU]
    assert model(8 * US).send(64, CPU, GPU, vds) == pytest.approx(8 * US)
    assert model(50 * US).send(64, CPU, GPU, vds) == pytest.approx(20 * US)  # capped at the copy's 20 us
    assert model(8 * US).send(0, CPU, GPU, vds) == 0.0
    scope = VDevice("llvm", 0, "shared")
    assert model(8 * US).send(64, CPU, scope, [CPU, GPU, scope]) == 0.0
    with pytest.raises(ValueError, match=r"send_time\(64, 'llvm:0:global', 'cuda:0:global'\) returned -1"):
        CostModel(lambda op, d: 0.0, lambda n, s, d: 1.0, send_time=lambda n, s, d: -1).send(64, CPU, GPU, vds)


def test_the_schedule_holds_the_sender_from_the_copys_start():
    mod = ir.parse(PROGRAM)
    # Without a share: a [0, 10], its copy [10, 30] while c runs [10, 35], b [30, 40]: 40 us.
    free = place(mod, objective=Time(model(None))).schedule
    assert free.makespan == pytest.approx(40 * US) and free.optimal
    # With 8 us of it: the copy first holds the CPU [10, 18], c runs [18, 43] (the copy after c would end at 65).
    held = place(mod, objective=Time(model(8 * US))).schedule
    assert held.makespan == pytest.approx(43 * US) and held.optimal
    copy = next(e for e in held.events if e.kind == "copy")
    c = next(e for e in held.events if e.name == "c")
    assert copy.send == pytest.approx(8 * US) and copy.duration == pytest.approx(20 * US)
    assert copy.start == pytest.approx(10 * US) and c.start == pytest.approx(18 * US)
    assert held.busy()["llvm:0:global"] == pytest.approx(43 * US)  # a, the send and c
    assert held.as_dict()["events"][1]["send"] == pytest.approx(8 * US)
    assert "send" not in free.as_dict()["events"][1]  # no share, no member: the JSON of other models unchanged


def test_a_cost_file_carries_the_share_and_omits_it_when_zero(tmp_path):
    link = Link(1e-5, 25e9, send_latency=2e-6, send_per_byte=1e-10)
    m = CostModel.roofline(links={("cpu", "cuda"): link})
    path = str(tmp_path / "costs.json")
    m.to_json(path)
    items = {(i["src"], i["dst"]): i for i in json.load(open(path))["links"]}
    assert items["cpu", "cuda"]["send_latency"] == 2e-6 and items["cpu", "cuda"]["send_per_byte"] == 1e-10
    assert "send_latency" not in items["*", "*"]
    back = CostModel.from_json(path)
    assert back.source == m.source
    assert back.send(1000, CPU, GPU, [CPU, GPU]) == pytest.approx(2e-6 + 1e-7)
    assert back.send(1000, GPU, CPU, [CPU, GPU]) == 0.0  # the default link has no share


def test_a_bad_share_in_a_cost_file_names_its_place(tmp_path):
    path = tmp_path / "bad.json"
    links = [{"src": "*", "dst": "*", "latency": 1e-5, "bandwidth": 1e9, "send_per_byte": "fast"}]
    path.write_text(json.dumps({"format": "vdplace-cost/1", "links": links}))
    with pytest.raises(ValueError, match=r"\$\.links\[0\]\.send_per_byte: expected a number"):
        CostModel.from_json(str(path))


def test_the_picture_draws_the_senders_share_on_its_source_lane():
    from vdplace.placement.schedule.gantt import gantt_html

    page = gantt_html(place(ir.parse(PROGRAM), objective=Time(model(8 * US))).schedule)
    assert page.count("class='send'") == 1 and "the sender busy 0.008 ms" in page
    assert "class='send'" not in gantt_html(place(ir.parse(PROGRAM), objective=Time(model(None))).schedule)


# t, a transposed view of a (a strided value: `vdplace.ir.views`), is copied to the GPU for b.
STRIDED = """
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((4, 8), "float32")) -> R.Tensor((8, 4), "float32"):
        a = R.nn.relu(x)
        t = R.permute_dims(a)
        b = R.nn.relu(t)
        return b
"""
STRIDED_TIMES = {("a", "llvm"): 10 * US, ("t", "llvm"): 1 * US, ("b", "cuda"): 10 * US}


def strided_model(keyword: bool) -> CostModel:
    def kernel(op, vdevice: str) -> float | None:
        return STRIDED_TIMES.get((op.name, vdevice.split(":")[0]))

    def send(n: int, s: str, d: str, strided: bool = False) -> float:
        return 15 * US if strided else 8 * US

    return CostModel(kernel, lambda n, s, d: 20 * US, send_time=send if keyword else lambda n, s, d: 8 * US)


def test_a_strided_views_copy_holds_its_sender_at_the_strided_rate():
    vds = [CPU, GPU]
    assert strided_model(True).send(64, CPU, GPU, vds, strided=True) == pytest.approx(15 * US)
    assert strided_model(True).send(64, CPU, GPU, vds) == pytest.approx(8 * US)
    # a send_time without the keyword prices a strided value as a contiguous one
    assert strided_model(False).send(64, CPU, GPU, vds, strided=True) == pytest.approx(8 * US)
    s = place(ir.parse(STRIDED), objective=Time(strided_model(True))).schedule
    copy = next(e for e in s.events if e.kind == "copy")
    assert copy.strided and copy.send == pytest.approx(15 * US) and copy.duration == pytest.approx(20 * US)
    assert s.as_dict()["events"][[e.kind for e in s.events].index("copy")]["strided"] is True
    # a [0, 10], t [10, 11], the copy [11, 31] holding the CPU to 26, b [31, 41]
    assert s.makespan == pytest.approx(41 * US) and s.busy()["llvm:0:global"] == pytest.approx(26 * US)
    plain = place(ir.parse(PROGRAM), objective=Time(model(8 * US))).schedule
    assert not any(e.strided for e in plain.events)
    assert all("strided" not in e for e in plain.as_dict()["events"])


def test_a_cost_file_carries_the_strided_share(tmp_path):
    link = Link(1e-5, 25e9, send_latency=2e-6, send_per_byte=1e-10, send_strided_per_byte=3e-10)
    m = CostModel.roofline(links={("cpu", "cuda"): link})
    vds = [CPU, GPU]
    assert m.send(1000, CPU, GPU, vds, strided=True) == pytest.approx(2e-6 + 3e-7)
    assert m.send(1000, CPU, GPU, vds) == pytest.approx(2e-6 + 1e-7)
    path = str(tmp_path / "costs.json")
    m.to_json(path)
    items = {(i["src"], i["dst"]): i for i in json.load(open(path))["links"]}
    assert items["cpu", "cuda"]["send_strided_per_byte"] == 3e-10 and "send_strided_per_byte" not in items["*", "*"]
    back = CostModel.from_json(path)
    assert back.source == m.source and back.send(1000, CPU, GPU, vds, strided=True) == pytest.approx(2e-6 + 3e-7)
    # a link without a strided rate prices a strided value at its plain one
    plain = CostModel.roofline(links={("cpu", "cuda"): Link(1e-5, 25e9, 2e-6, 1e-10)})
    assert plain.send(1000, CPU, GPU, vds, strided=True) == pytest.approx(2e-6 + 1e-7)
