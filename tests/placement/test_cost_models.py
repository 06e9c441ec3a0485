"""The ready-made cost models: roofline, measured tables, their JSON file, `vdplace calibrate`, `describe_ops`."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from vdplace import ir
from vdplace.cli import main as cli_main
from vdplace.ir.expr import Call, GlobalVar
from vdplace.ir.module import iter_bindings
from vdplace.ir.op import Fallback, Op, Param
from vdplace.ir.struct_info import TensorStructInfo
from vdplace.ir.vdevice import VDevice
from vdplace.placement import CostModel
from vdplace.placement.cost import (
    DEFAULT_DEVICES,
    OpInfo,
    Roof,
    Roofline,
    Table,
    calibrate,
    describe_ops,
    op_key,
    value_bytes,
)
from vdplace.placement.cost.calibrate import available_devices
from vdplace.placement.cost.timers import TorchTimer

ROOT = Path(__file__).resolve().parents[2]
CPU, GPU = VDevice("llvm"), VDevice("cuda", 0)
GPU_TEXTURE = VDevice("cuda", 0, "texture")
VDEVICES = [CPU, GPU, GPU_TEXTURE]

SMALL = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((8, 16), "float32"), w: R.Tensor((16, 4), "float32"), c: R.Tensor((), "bool")):
        m = R.matmul(x, w)
        y = R.add(R.exp(m), m)
        if c:
            r = R.nn.relu(y)
        else:
            r = R.sum(y, axis=[1], keepdims=True)
        s = R.to_vdevice(y, "cuda:0")
        return r
"""


def matmul_op(m: int, k: int, n: int) -> OpInfo:
    args = [TensorStructInfo((m, k), "float32"), TensorStructInfo((k, n), "float32")]
    return OpInfo("main", "mm", "matmul", args, TensorStructInfo((m, n), "float32"), {}, None, ir.get_op("matmul"))


# -- roofline ---------------------------------------------------------------------------------


def test_a_compute_bound_matmul_takes_its_flops_over_the_peak():
    op = matmul_op(64, 128, 32)
    roof = Roofline({"cpu": Roof(flops=1e9, bandwidth=1e15, overhead=0.0)})
    assert op.work.flops == 2 * 64 * 128 * 32
    assert roof.kernel_time(op, "llvm:0:global") == pytest.approx(2 * 64 * 128 * 32 / 1e9)


def test_a_memory_bound_matmul_takes_its_bytes_over_the_bandwidth_plus_the_overhead():
    op = matmul_op(64, 128, 32)
    roof = Roofline({"cuda": {"flops": 1e15, "bandwidth": 1e9, "overhead": 3e-6}})
    nbytes = 4 * (64 * 128 + 128 * 32 + 64 * 32)
    assert roof.kernel_time(op, "cuda:0:global") == pytest.approx(nbytes / 1e9 + 3e-6)


def test_views_and_device_ops_take_no_time():
    ops = {op.op: op for op in describe_ops(ir.parse(SMALL))}
    reshape = OpInfo("f", "v", "reshape", [TensorStructInfo((4, 4), "float32")], TensorStructInfo((16,), "float32"))
    reshape.registry = ir.get_op("reshape")
    roof = Roofline.with_defaults()
    assert roof.kernel_time(ops["to_vdevice"], "cuda:0:global") == 0.0
    assert roof.kernel_time(reshape, "llvm:0:global") == 0.0
    assert Roofline({"cpu": None}).kernel_time(reshape, "llvm:0:global") is None  # a view is an op too


def test_the_most_specific_device_entry_wins_and_null_means_nothing_runs_there():
    op = matmul_op(64, 64, 64)
    roof = Roofline({"cuda": Roof(1e12, 1e12), "cuda:1": None, "cuda:0:global": Roof(1e9, 1e9), "cpu": Roof(1, 1)})
    assert roof.kernel_time(op, "cuda:0:global") == pytest.approx(2 * 64**3 / 1e9)
    assert roof.kernel_time(op, "cuda:0:texture") == pytest.approx(2 * 64**3 / 1e12)
    assert roof.kernel_time(op, "cuda:1:global") is None
    model = CostModel.from_source(roof)  # names count entries of a kind: the second cuda entry is "cuda:1"
    assert model.kernel(op, GPU, VDEVICES) == pytest.approx(2 * 64**3 / 1e9)
    assert model.kernel(op, GPU_TEXTURE, VDEVICES) is None


def test_a_vdevice_without_an_entry_and_an_unknown_key_are_errors():
    with pytest.raises(ValueError, match=r"no entry for vdevice 'rocm:0:global'.*'cpu', 'cuda'"):
        Roofline.with_defaults().kernel_time(matmul_op(2, 2, 2), "rocm:0:global")
    with pytest.raises(ValueError, match=r"devices\.gpu: unknown device 'gpu'"):
        CostModel.roofline({"gpu": Roof(1, 1)})
    with pytest.raises(ValueError, match=r"devices\.cuda\.flops: expected a number > 0, got 0"):
        CostModel.roofline({"cuda": {"flops": 0, "bandwidth": 1}})
    with pytest.raises(ValueError, match=r"unknown key 'peak'"):
        CostModel.roofline({"cuda": {"peak": 1, "flops": 1, "bandwidth": 1}})


def test_a_model_that_cannot_price_the_module_is_bad_input_at_the_op():
    """No entry for one of the module's vdevices, or a callable that raises `ValueError` or returns no
    seconds: a `CostModelError` (a `PlacementError`, a `ValueError`) located at the op, for both objectives."""
    from vdplace.placement import CostModelError, PlacementError, Time, place

    text = (ROOT / "examples" / "rfc_vdevice_names.py").read_text()
    mod = ir.parse(text, filename="names.py")  # declares a metal vdevice, which the default roofline lacks
    for run in (lambda m: place(mod, cost=m), lambda m: place(mod, objective=Time(m))):
        with pytest.raises(CostModelError, match=r"^names\.py:\d+:\d+: the cost model cannot time main:\w+ on metal"):
            run(CostModel.roofline())

    def raising(op, vdevice):
        raise ValueError("unknown op")

    for bad, message in ((lambda op, d: -1.0, "returned -1.0; expected a finite number"), (raising, "unknown op")):
        with pytest.raises(CostModelError, match=message) as err:
            place(mod, cost=CostModel(bad, copy_time=lambda n, s, d: 1e-5))
        assert isinstance(err.value, PlacementError) and isinstance(err.value, ValueError)
        assert err.value.span is not None and err.value.span.file == "names.py"


def test_copies_cost_latency_plus_bytes_over_bandwidth_and_nothing_on_one_physical_device():
    model = CostModel.roofline(links={("cpu", "cuda"): {"latency": 2e-6, "bandwidth": 1e9}})
    assert model.copy(10**6, CPU, GPU, VDEVICES) == pytest.approx(2e-6 + 1e-3)
    assert model.copy(10**6, GPU, CPU, VDEVICES) == pytest.approx(1e-5 + 10**6 / 25e9)  # the ("*", "*") default
    assert model.copy(10**6, GPU, GPU_TEXTURE, VDEVICES) == 0.0
    with pytest.raises(ValueError, match="no link from 'llvm:0:global' to 'cuda:0:global'"):
        Roofline({}, {("cuda", "cpu"): {"latency": 0, "bandwidth": 1}}).copy_time(1, "llvm:0:global", "cuda:0:global")


def test_the_defaults_are_the_documented_devices():
    model = CostModel.roofline()
    assert model.source.devices == DEFAULT_DEVICES
    op = matmul_op(1024, 1024, 1024)
    assert model.kernel(op, GPU, VDEVICES) < model.kernel(op, CPU, VDEVICES)


# -- tables -----------------------------------------------------------------------------------


def test_op_keys_name_shapes_and_the_attributes_that_differ_from_their_defaults():
    ops = describe_ops(ir.parse(SMALL))
    keys = [op_key(op) for op in ops]
    assert "matmul(float32[8, 16], float32[16, 4])" in keys
    assert "sum(float32[8, 4]; axis=[1], keepdims=True)" in keys
    assert "nn.relu(float32[8, 4])" in keys


def test_a_table_answers_what_it_measured_and_falls_back_for_the_rest():
    ops = {op.op: op for op in describe_ops(ir.parse(SMALL))}
    table = Table(
        {"cpu": {op_key(ops["matmul"]): 0.5, op_key(ops["exp"]): None}, "cuda:0": {op_key(ops["matmul"]): 0.25}},
        Roofline({"cpu": Roof(1e9, 1e9), "cuda": Roof(1e9, 1e9)}),
    )
    model = CostModel.from_table(table)
    assert model.kernel(ops["matmul"], CPU, VDEVICES) == 0.5
    assert model.kernel(ops["matmul"], GPU, VDEVICES) == 0.25
    assert model.kernel(ops["exp"], CPU, VDEVICES) is None
    assert model.kernel(ops["add"], CPU, VDEVICES) == pytest.approx(ops["add"].work.bytes / 1e9)
    with pytest.raises(ValueError, match=r"no time for add\(float32\[8, 4\], float32\[8, 4\]\) on 'llvm:0:global'"):
        Table({}).kernel_time(ops["add"], "llvm:0:global")


# -- JSON -------------------------------------------------------------------------------------


def test_a_roofline_model_round_trips_through_json(tmp_path):
    model = CostModel.roofline(
        {"cuda:1": None, "rocm": Roof(1e13, 1e12, 1e-6)},
        {("cpu", "cuda:0"): {"latency": 1e-6, "bandwidth": 1e10}},
        memory={"cuda:0": "16MiB"},
    )
    text = model.to_json(str(tmp_path / "costs.json"))
    again = CostModel.from_json(str(tmp_path / "costs.json"))
    assert again.source == model.source and again.memory == {"cuda:0": 16 * 2**20}
    assert again.to_json() == text == (tmp_path / "costs.json").read_text()
    op = matmul_op(32, 32, 32)
    assert again.kernel(op, GPU, VDEVICES) == model.kernel(op, GPU, VDEVICES)


def test_a_table_model_round_trips_through_json(tmp_path):
    table = Table({"cpu": {"add(float32[2])": 1e-6, "exp(float32[2])": None}}, Roofline.with_defaults())
    model = CostModel.from_table(table, memory={"cuda:0": 1000})
    model.about = {"made by": "hand"}
    path = tmp_path / "t.json"
    model.to_json(str(path))
    again = CostModel.from_json(str(path))
    assert again.source == table and again.memory == {"cuda:0": 1000} and again.about == {"made by": "hand"}
    assert again.to_json() == model.to_json()


def test_a_model_of_python_callables_cannot_be_written_as_json():
    with pytest.raises(ValueError, match="built from Python callables"):
        CostModel(kernel_time=lambda op, v: 1.0).to_json()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": "vdplace-cost/1",\n "devices": {"cpu": }}', r"costs\.json:2:21: invalid JSON: Expecting value"),
        ("[]", r"costs\.json: \$: expected an object, got a list"),
        ("{}", r"costs\.json: \$: missing 'format'"),
        ('{"format": "vdplace-cost/9"}', r"\$\.format: unknown format 'vdplace-cost/9'"),
        ('{"format": "vdplace-cost/1", "extra": 1}', r"\$: unknown key 'extra'"),
        (
            '{"format": "vdplace-cost/1", "devices": {"cuda": {"flops": "fast", "bandwidth": 1}}}',
            r"costs\.json: \$\.devices\.cuda\.flops: expected a number, got a string \('fast'\)",
        ),
        ('{"format": "vdplace-cost/1", "devices": {"gpu": null}}', r"\$\.devices\.gpu: unknown device 'gpu'"),
        (
            '{"format": "vdplace-cost/1", "links": [{"src": "*", "dst": "*", "latency": -1, "bandwidth": 1}]}',
            r"\$\.links\[0\]\.latency: expected a number >= 0, got -1",
        ),
        ('{"format": "vdplace-cost/1", "links": [{"src": "cpu"}]}', r"\$\.links\[0\]: missing 'dst'"),
        ('{"format": "vdplace-cost/1", "table": {"cpu": {"add()": true}}}', r"\$\.table\.cpu\.add\(\): expected a"),
        ('{"format": "vdplace-cost/1", "table": {"cpu": []}}', r"\$\.table\.cpu: expected an object, got a list"),
        ('{"format": "vdplace-cost/1", "memory": {"cuda:0": "lots"}}', r"\$\.memory\.cuda:0: not a size in bytes"),
        ('{"format": "vdplace-cost/1", "devices": {"cpu": {"flops": NaN, "bandwidth": 1}}}', r"got a number \(nan\)"),
        ('{"format": "vdplace-cost/1", "memory": {"cuda:0": 1, "cuda:0": 2}}', r"key 'cuda:0' appears twice"),
    ],
)
def test_a_malformed_file_is_a_value_error_naming_the_file_and_the_location(tmp_path, text, message):
    path = tmp_path / "costs.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        CostModel.from_json(str(path))


def test_a_missing_file_is_a_value_error():
    with pytest.raises(ValueError, match="cannot read /nonexistent/costs.json"):
        CostModel.from_json("/nonexistent/costs.json")


# -- describe_ops -----------------------------------------------------------------------------


def test_describe_ops_lists_every_op_binding_of_a_corpus_model():
    path = ROOT / "tests" / "models" / "gpt2" / "params.py"
    mod = ir.parse(path.read_text(), filename=str(path))
    want = [
        ("main", b.var.name, b.value.op.name, b.span)
        for b in iter_bindings(mod["main"])
        if isinstance(b.value, Call) and not isinstance(b.value.op, GlobalVar)
    ]
    ops = describe_ops(mod)
    assert len(want) > 50
    assert [(op.function, op.name, op.op, op.span) for op in ops] == want
    assert all(op.registry is ir.get_op(op.op) and op.result_bytes > 0 for op in ops)


def test_describe_ops_walks_branches_nested_calls_and_every_function():
    ops = describe_ops(ir.parse((ROOT / "examples" / "mlp_two_devices.py").read_text()))
    assert [(op.function, op.name, op.op) for op in ops] == [
        ("layer", "h", "matmul"),
        ("layer", "h1", "add"),
        ("layer", "y", "nn.relu"),
        ("main", "x1", "hint_on_device"),
        ("main", "h2", "hint_on_device"),
        ("main", "<R.nn.softmax>", "nn.softmax"),  # a branch's result
        ("main", "<R.nn.gelu>", "nn.gelu"),
        ("main", "o", "matmul"),
        ("main", "sm", "sum"),
    ]
    nested = describe_ops(ir.parse(SMALL))
    assert [op.name for op in nested[:3]] == ["m", "<R.exp>", "y"]  # an argument before its call
    assert nested[1].span is not None and nested[1].span.line == 9


# -- calibrate --------------------------------------------------------------------------------


def test_calibrate_writes_a_table_that_from_json_reads_with_positive_times(tmp_path, capsys):
    path = tmp_path / "small.py"
    path.write_text(SMALL)
    out = tmp_path / "costs.json"
    assert cli_main(["calibrate", str(path), "--out", str(out), "--repeat", "2"]) == 0
    err = capsys.readouterr().err
    assert "cpu: 5 of 5 distinct op calls timed" in err and "calibrated in" in err
    model = CostModel.from_json(str(out))
    times = model.source.times["cpu"]
    ops = [op for op in describe_ops(ir.parse(SMALL)) if op.op != "to_vdevice"]
    assert set(times) == {op_key(op) for op in ops}
    assert all(t > 0 for t in times.values())
    assert all(model.kernel(op, CPU, VDEVICES) == times[op_key(op)] for op in ops)
    assert json.loads(out.read_text())["about"]["made by"] == "vdplace calibrate"


def test_calibrate_prints_the_table_when_no_file_is_named(tmp_path, capsys):
    path = tmp_path / "small.py"
    path.write_text(SMALL)
    assert cli_main(["calibrate", str(path), "--repeat", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["format"] == "vdplace-cost/1"
    assert cli_main(["calibrate", str(path), "--repeat", "0"]) == 2
    assert "--repeat: '0' must be at least 1" in capsys.readouterr().err


def test_calibrate_skips_what_it_cannot_time_and_says_why():
    mod = ir.parse(
        """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(("n * 2", 4), "float32"), i: R.Tensor((3,), "int64")):
        a = R.exp(x)
        b = R.exp(y)
        c = R.take(x, i, axis=1)
        d = R.ones(R.shape([4096, 4096]), "float32")
        return (a, b, c, d)
"""
    )
    result = calibrate(mod, repeat=1, max_bytes=2**20)
    skipped = result.skipped["cpu"]
    assert set(result.table.times["cpu"]) == {"exp(float32[n, 4])", "take(float32[n, 4], int64[3]; axis=1)"}
    assert "symbolic dim 'n * 2' is an expression" in skipped["exp(float32[n * 2, 4])"]
    assert "over the 1048576-byte limit" in skipped["ones(shape[4096, 4096]; dtype='float32')"]
    assert "1 skipped" not in result.summary() and "2 skipped" in result.summary()


def test_a_kernel_that_fails_on_the_inputs_is_skipped_with_its_error():
    mod = ir.parse(
        """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), s: R.Tensor((1,), "int64")):
        r = R.dynamic_strided_slice(x, s, s, s)
        return r
"""
    )
    result = calibrate(mod, repeat=1)
    (reason,) = result.skipped["cpu"].values()
    assert reason.startswith("the kernel raised")


@pytest.mark.skipif("cuda" in available_devices(), reason="this machine has PyTorch with a GPU")
def test_calibrating_cuda_without_a_gpu_is_a_clear_error():
    assert available_devices() == ["cpu"]
    with pytest.raises(ValueError, match="cannot calibrate cuda: PyTorch is not installed or sees no CUDA GPU"):
        calibrate(ir.parse(SMALL), devices=["cuda"])


class _FakeTensor:
    """Just enough of a torch tensor for `TorchTimer`: a NumPy array that moves nowhere."""

    def __init__(self, array):
        self.array = array

    def to(self, device):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return self.array


def test_the_torch_timer_synchronizes_and_falls_back_to_the_numpy_kernel_through_the_host():
    synced, host_calls = [], []

    def numpy_kernel(x):
        assert isinstance(x, np.ndarray)  # the host copy, not the device tensor
        host_calls.append(1)
        return -x

    def torch_kernel(context, x):
        if x.array.shape[0] > 2:
            raise Fallback
        return x

    torch = SimpleNamespace(Tensor=_FakeTensor, from_numpy=_FakeTensor, cuda=SimpleNamespace(synchronize=synced.append))
    fake = Op("fake", [Param("x")], lambda args, attrs: args[0], numpy_kernel, torch_kernel=torch_kernel)
    timer = TorchTimer(torch, SimpleNamespace(type="cuda"))
    for n, falls_back in [(2, False), (4, True)]:
        sinfo = TensorStructInfo((n,), "float32")
        op = OpInfo("main", "y", "fake", [sinfo], sinfo, registry=fake)
        host_calls.clear()
        assert timer.time(op, [np.ones(n, np.float32)], 3, 1.0) > 0
        assert bool(host_calls) == falls_back
    assert len(synced) >= 2


# -- the example ------------------------------------------------------------------------------


def test_the_offload_example_needs_more_than_its_memory_limit_and_prefers_the_gpu():
    mod = ir.parse((ROOT / "examples" / "cost_offload.py").read_text())
    model = CostModel.from_json(str(ROOT / "examples" / "cost_offload.json"))
    assert model.source == CostModel.roofline().source
    weights = sum(value_bytes(p.struct_info) for p in mod["main"].params[1:])
    assert weights > 24 * 2**20 > 16 * 2**20
    for op in describe_ops(mod):
        if op.op == "matmul":
            assert model.kernel(op, mod.vdevices[1], mod.vdevices) < model.kernel(op, mod.vdevices[0], mod.vdevices)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2GiB", 2**31), ("1.5gib", 3 * 2**29), ("512 MB", 512 * 10**6), ("4096", 4096), ("1.3GiB", 1395864371), (7, 7)],
)
def test_a_size_is_whole_bytes_a_fraction_of_a_unit_rounded_down_exactly(text, expected):
    from vdplace.placement.cost.model import parse_bytes

    assert parse_bytes(text) == expected


@pytest.mark.parametrize("text", ["1.5", "0.5b", 1.5, "lots", True, -1])
def test_a_size_that_is_no_whole_number_of_bytes_is_refused(text):
    from vdplace.placement.cost.model import parse_bytes

    with pytest.raises(ValueError, match="bytes"):
        parse_bytes(text)
