"""Calibration on two Ray actors (`vdplace calibrate --ray`): kernels timed in the actors, copies between them."""

from __future__ import annotations

import json

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from vdplace import ir  # noqa: E402
from vdplace.calibration import calibrate_program  # noqa: E402
from vdplace.cli import main as cli_main  # noqa: E402
from vdplace.placement import CostModel  # noqa: E402
from vdplace.placement.cost import describe_ops, op_key  # noqa: E402

TWO = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((16, 32), "float32"), w: R.Tensor((32, 32), "float32", "cuda:0")):
        h = R.nn.relu(x)
        c = R.to_vdevice(h, "cuda:0")
        m = R.matmul(c, w)
        return m
"""


@pytest.fixture(scope="module", autouse=True)
def ray_cluster():
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024 * 1024, log_to_driver=False)
    yield
    ray.shutdown()


def test_two_actors_time_every_op_and_the_copies_between_them(tmp_path):
    mod = ir.parse(TWO)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((16, 32)).astype("float32"), rng.standard_normal((32, 32)).astype("float32")]
    result = calibrate_program(mod, inputs, ray_actors={"cuda:0": "sim"}, repeat=2)
    keys = {op_key(op) for op in describe_ops(mod) if op.op != "to_vdevice"}
    table = result.table
    assert set(table.times) == {"llvm:0", "cuda:0"}  # the actors' devices; the host is not timed
    assert all(set(times) == keys and all(t > 0 for t in times.values()) for times in table.times.values())
    about = result.model.about
    assert about["devices"]["llvm:0"].startswith("Ray actor (cpu)")
    assert about["devices"]["cuda:0"].startswith("Ray actor (sim)")
    assert all("OMP_NUM_THREADS=1" in text for text in about["devices"].values())  # one thread, as in a run
    fallback = table.fallback
    for pair in [("llvm:0", "cuda:0"), ("cuda:0", "llvm:0")]:
        assert fallback.link_origins[pair] == "measured"
        assert fallback.links[pair].latency > 0 and fallback.links[pair].bandwidth > 0
        assert fallback.links[pair].send_latency > 0 and fallback.links[pair].send_per_byte > 0  # the put, timed
        assert fallback.links[pair].send_strided_per_byte > 0  # a transposed view's send, timed with its transpose
    shares = about["ray copy shares"]
    assert set(shares["send"]) == set(shares["receive"]) == {"llvm:0", "cuda:0"}
    assert fallback.origins["llvm:0"] == fallback.origins["cuda:0"] == "measured"
    assert fallback.origins["cpu"] == "default"  # the host ran nothing: its roofline is the declared default
    cpu, gpu = mod.vdevices
    result.model.to_json(str(tmp_path / "costs.json"))
    model = CostModel.from_json(str(tmp_path / "costs.json"))  # what the file says, read back
    matmul = next(op for op in describe_ops(mod) if op.op == "matmul")
    assert model.kernel(matmul, gpu, mod.vdevices) == table.times["cuda:0"][op_key(matmul)]
    link = fallback.links["llvm:0", "cuda:0"]
    assert model.copy(2048, cpu, gpu, mod.vdevices) == pytest.approx(link.latency + 2048 / link.bandwidth)
    share = min(link.send_latency + 2048 * link.send_per_byte, model.copy(2048, cpu, gpu, mod.vdevices))
    assert model.send(2048, cpu, gpu, mod.vdevices) == pytest.approx(share)
    # the two CPU actors on one node, the program's kernels on both at once against alone
    (pair,) = about["ray contention"]["pairs"]
    assert set(pair["devices"]) == {"llvm:0", "cuda:0"} and pair["calls a pass"] == 2  # relu, matmul
    assert pair["factor"] == pytest.approx(max(1.0, sum(pair["slowdown"].values()) / 2))  # the mean, at least 1
    assert all(t > 0 for t in [*pair["pass seconds alone"].values(), *pair["pass seconds together"].values()])
    assert result.model.contention == {tuple(pair["devices"]): pair["factor"]}
    assert model.slowdown(cpu, gpu, mod.vdevices) == model.slowdown(gpu, cpu, mod.vdevices) == pair["factor"]


def test_made_up_values_measure_no_contention():
    result = calibrate_program(ir.parse(TWO), ray_actors={"cuda:0": "sim"}, values="made-up", repeat=1)
    assert result.model.contention == {}
    assert result.model.about["ray contention"].startswith("not measured")


def test_the_cli_calibrates_on_ray_actors(tmp_path, capsys):
    path, out = tmp_path / "two.py", tmp_path / "costs.json"
    path.write_text(TWO)
    assert cli_main(["calibrate", str(path), "--ray", "--actor", "cuda:0=sim", "--repeat", "1", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "link llvm:0 -> cuda:0:" in err and "(measured)" in err
    assert "contention llvm:0 & cuda:0: an op " in err  # the drawn inputs are the program's values
    document = json.loads(out.read_text())
    assert [set(entry["devices"]) for entry in document["contention"]] == [{"llvm:0", "cuda:0"}]
    assert set(document["table"]) == {"llvm:0", "cuda:0"}
    assert {(link["src"], link["dst"]): link["origin"] for link in document["links"]} == {
        ("*", "*"): "default",
        ("llvm:0", "cuda:0"): "measured",
        ("cuda:0", "llvm:0"): "measured",
    }


def test_ray_calibration_needs_the_modules_vdevices():
    bare = ir.parse(
        """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        y = R.exp(x)
        return y
"""
    )
    with pytest.raises(ValueError, match="calibrating on Ray needs the module's vdevices"):
        calibrate_program(bare, ray_actors={})
