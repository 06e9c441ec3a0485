"""The Ray executor (runtime/ray): the placed program run by one Ray actor per device.

One local Ray cluster serves the whole module (CPU only: "GPU" vdevices are
CPU actors with simulated device memory).  Every example and every hinted
text of the model corpus runs with results equal to the local VM's, bit for
bit (the same kernels run, the local VM's BLAS on one thread as each
actor's); copies go actor to actor, never through the driver (the
profile's byte counts); a kernel that raises, an actor that
dies, a run past its timeout each end in one error naming the vdevice and
the instruction, and leave the inputs untouched.  Skipped without Ray.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from vdplace import ir, placement, runtime

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.usefixtures("blas_like_ray_actors")  # results compared bit for bit

from vdplace.runtime.ray import ActorDied, ActorSpec, RayExecutor, RemoteError, RunTimeout  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
MODELS = ROOT / "tests" / "models"
MODEL_NAMES = sorted(p.name for p in MODELS.iterdir() if (p / "hinted.py").is_file())
CONFLICT_EXAMPLES = {"conflict_add.py"}
SPECIALIZE_EXAMPLES = {"specialize_helper.py"}


@pytest.fixture(scope="module", autouse=True)
def cluster():
    """One small local cluster for the module: logical CPUs for the actors, a 300 MiB object store."""
    ray.init(num_cpus=6, include_dashboard=False, object_store_memory=300 * 1024 * 1024, log_to_driver=False)
    yield
    ray.shutdown()


def assert_identical(got, want, where: str) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_identical(g, w, f"{where}[{i}]")
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, where
    np.testing.assert_array_equal(got, want, err_msg=where)


def placed_module(path: Path, **options) -> ir.IRModule:
    return placement.place(ir.parse(path.read_text(), filename=str(path)), default="host", **options).module


def leaves(value) -> list[np.ndarray]:
    return [x for v in value for x in leaves(v)] if isinstance(value, tuple) else [np.asarray(value)]


@pytest.mark.parametrize("path", [p for p in EXAMPLES if p.name not in CONFLICT_EXAMPLES], ids=lambda p: p.name)
def test_every_example_gives_the_local_vms_results(path: Path):
    placed = placed_module(path, specialize=path.name in SPECIALIZE_EXAMPLES)
    exe = runtime.compile(placed)
    vm = runtime.VirtualMachine(exe, simulate_missing=True)
    with RayExecutor(exe, timeout=60) as executor:
        for entry in exe.functions:
            inputs = runtime.random_inputs(placed, entry, rng=np.random.default_rng(3))
            want = vm.run(entry, *inputs)
            assert_identical(executor.run(entry, *inputs, profile=True), want, f"{path.name}:{entry}")
            assert executor.profile.local.copies == vm.profile.copies


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_hinted_model_gives_the_local_vms_results(name: str):
    folder = MODELS / name
    placed = placed_module(folder / "hinted.py")
    with np.load(folder / "params.npz") as data:
        arrays = {k: data[k] for k in data.files}
    exe = runtime.compile(placed, params=arrays)
    args = [arrays[p.name] for p in placed["main"].params]
    vm = runtime.VirtualMachine(exe, simulate_missing=True)
    want = vm.run("main", *args)
    with RayExecutor(exe, timeout=60) as executor:
        assert_identical(executor.run("main", *args), want, name)
        assert len(executor.actors) == 2


MLP = ROOT / "examples" / "mlp_two_devices.py"


def mlp():
    placed = placed_module(MLP)
    exe = runtime.compile(placed)
    return placed, exe, runtime.random_inputs(placed, "main", rng=np.random.default_rng(5))


def test_copies_go_actor_to_actor_and_only_inputs_and_results_pass_the_driver():
    placed, exe, inputs = mlp()
    vm = runtime.VirtualMachine(exe, simulate_missing=True)
    want = vm.run("main", *inputs)
    with RayExecutor(exe, timeout=60) as executor:
        got = executor.run("main", *inputs, profile=True)
    prof = executor.profile
    assert prof.driver_input_bytes == sum(np.asarray(x).nbytes for x in inputs)
    assert prof.driver_output_bytes == sum(x.nbytes for x in leaves(got)) == sum(x.nbytes for x in leaves(want))
    assert vm.profile.bytes_copied > 0
    sent = sum(a.bytes_sent for a in prof.actors)
    received = sum(a.bytes_received for a in prof.actors)
    assert sent == received == prof.bytes_copied == vm.profile.bytes_copied
    assert prof.condition_reads == 1  # the If on `flag`
    assert {a.label for a in prof.actors} == {"llvm:0:global", "cuda:0:global"}
    assert all(a.busy > 0 and a.idle >= 0 for a in prof.actors)
    assert len(prof.copy_latencies) == vm.profile.num_copies
    table = prof.table()
    assert "copy latency" in table and "through the driver" in table and "device memory" in table


def pipeline_text(stages: int, batch: int, width: int) -> str:
    """A chain of `stages` stages (matmul + relu each), stage s on its own device, a copy between stages."""
    names = ["llvm:0"] + [f"cuda:{i}" for i in range(stages - 1)]
    vdevices = ", ".join(['I.vdevice("llvm")'] + [f'I.vdevice("cuda", {i})' for i in range(stages - 1)])
    params = [f'x: R.Tensor(({batch}, {width}), "float32", "llvm:0")']
    params += [f'w{s}: R.Tensor(({width}, {width}), "float32", "{names[s]}")' for s in range(stages)]
    body, h = [], "x"
    for s in range(stages):
        if s:
            body.append(f'c{s} = R.to_vdevice({h}, "{names[s]}")')
            h = f"c{s}"
        body += [f"m{s} = R.matmul({h}, w{s})", f"h{s} = R.nn.relu(m{s})"]
        h = f"h{s}"
    lines = "\n".join(f"        {line}" for line in body)
    return (
        "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
        f'    I.module_global_infos({{"vdevice": [{vdevices}]}})\n\n    @R.function\n'
        f'    def main({", ".join(params)}) -> R.Tensor(({batch}, {width}), "float32", "{names[-1]}"):\n'
        f"{lines}\n        return {h}\n"
    )


def test_run_pipelined_streams_micro_batches_through_four_actors_with_the_vms_results():
    k, batch, width = 4, 3, 8
    placed = placement.place(ir.parse(pipeline_text(4, batch, width))).module
    exe = runtime.compile(placed)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((k * batch, width)).astype("float32")
    weights = [rng.standard_normal((width, width)).astype("float32") for _ in range(4)]
    vm = runtime.VirtualMachine(exe, simulate_missing=True)
    want = np.concatenate([vm.run("main", x[j * batch : (j + 1) * batch], *weights) for j in range(k)])
    with RayExecutor(exe, timeout=60) as executor:
        got = executor.run_pipelined([x, *weights], microbatches=k, profile=True)
        prof = executor.profile
        with pytest.raises(ValueError, match=r"input x has 5 rows along axis 0 \(4 micro-batches do not divide"):
            executor.run_pipelined([x[:5], *weights], microbatches=k)
    assert_identical(got, want, "pipeline")
    assert len(prof.actors) == 4 and prof.local.num_copies == 3 * k
    assert all(len(a.scripts) >= k for a in prof.actors[1:])  # each stage ran every micro-batch
    assert prof.driver_input_bytes == x.nbytes + sum(w.nbytes for w in weights)  # weights put once


def test_run_pipelined_splits_only_the_runtime_inputs_num_input_marks():
    """num_input = 1: x is split, the weights go whole (put in the object store once) to both micro-batches."""
    k, batch, width = 2, 4, 8  # the weights are (8, 8): as many rows as the whole batch of x
    marked = '        R.func_attr({"num_input": 1})\n        m0 = R.matmul'
    text = pipeline_text(2, batch, width).replace("        m0 = R.matmul", marked, 1)
    exe = runtime.compile(placement.place(ir.parse(text)).module)
    assert exe["main"].num_input == 1
    rng = np.random.default_rng(4)
    x = rng.standard_normal((k * batch, width)).astype("float32")
    weights = [rng.standard_normal((width, width)).astype("float32") for _ in range(2)]
    vm = runtime.VirtualMachine(exe, simulate_missing=True)
    want = np.concatenate([vm.run("main", x[j * batch : (j + 1) * batch], *weights) for j in range(k)])
    with RayExecutor(exe, timeout=60) as executor:
        assert_identical(executor.run_pipelined([x, *weights], microbatches=k, profile=True), want, "num_input")
        assert executor.profile.driver_input_bytes == x.nbytes + sum(w.nbytes for w in weights)
        with pytest.raises(ValueError, match=r"input x has 4 rows along axis 0, its parameter's own"):
            executor.run_pipelined([x[:batch], *weights], microbatches=k)


TAKE = """
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(
        x: R.Tensor((4,), "float32", "llvm"), i: R.Tensor((2,), "int64", "cuda")
    ) -> R.Tensor((2,), "float32", "cuda"):
        y = R.to_vdevice(x, "cuda:0")
        z = R.take(y, i, axis=0)
        return z
"""


def take_executor(**options) -> tuple[runtime.Executable, RayExecutor]:
    exe = runtime.compile(placement.place(ir.parse(TAKE, filename="take.py")).module)
    return exe, RayExecutor(exe, **options)


def test_a_kernel_that_raises_names_the_vdevice_the_instruction_and_its_line_and_leaves_inputs_alone():
    exe, executor = take_executor(timeout=60)
    x, bad = np.arange(4, dtype="float32"), np.array([0, 99], dtype="int64")
    x0, bad0 = x.copy(), bad.copy()
    with executor, pytest.raises(runtime.KernelError) as err:
        executor.run("main", x, bad)
    message = str(err.value)
    assert "vdevice cuda:0:global" in message and "Call take" in message and "take.py:15" in message
    assert np.array_equal(x, x0) and np.array_equal(bad, bad0)
    with pytest.raises(runtime.VMError, match="shut down"):
        executor.run("main", x, bad)


def test_the_executor_runs_again_after_a_kernel_error():
    exe, executor = take_executor(timeout=60)
    x = np.arange(4, dtype="float32")
    with executor:
        with pytest.raises(runtime.KernelError):
            executor.run("main", x, np.array([0, 99], dtype="int64"))
        assert np.array_equal(executor.run("main", x, np.array([3, 1])), np.array([3.0, 1.0], dtype="float32"))


def test_a_killed_actor_ends_the_run_with_an_error_naming_its_vdevice_within_the_timeout():
    _, exe, inputs = mlp()
    with RayExecutor(exe, timeout=30) as executor:
        plan, handle = next((p, h) for p, h in executor.actors if p.label == "cuda:0:global")
        ray.kill(handle)
        start = time.monotonic()
        with pytest.raises(ActorDied) as err:
            executor.run("main", *inputs)
        assert time.monotonic() - start < 30
        assert err.value.vdevice == "cuda:0:global" and "cuda:0:global" in str(err.value)
        assert "main:" in err.value.instruction and "mlp_two_devices.py" in err.value.instruction
        # The failure restarted the actors: the next run works.
        assert_identical(
            executor.run("main", *inputs),
            runtime.VirtualMachine(exe, simulate_missing=True).run("main", *inputs),
            "after a restart",
        )


def test_retries_rerun_a_micro_batch_whose_actor_died():
    _, exe, inputs = mlp()
    want = runtime.VirtualMachine(exe, simulate_missing=True).run("main", *inputs)
    with RayExecutor(exe, timeout=30, retries=1) as executor:
        ray.kill(executor.actors[0][1])
        assert_identical(executor.run("main", *inputs), want, "retried")
        assert executor.attempts == 2


def test_an_actor_killed_while_micro_batches_are_in_flight_fails_the_run_or_is_retried():
    k, batch, width = 24, 32, 128
    exe = runtime.compile(placement.place(ir.parse(pipeline_text(4, batch, width))).module)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((k * batch, width)).astype("float32")
    weights = [(rng.standard_normal((width, width)) / 16).astype("float32") for _ in range(4)]
    vm = runtime.VirtualMachine(exe, simulate_missing=True)
    want = np.concatenate([vm.run("main", x[j * batch : (j + 1) * batch], *weights) for j in range(k)])
    with RayExecutor(exe, timeout=60) as executor:
        for retries in (0, 1):
            executor.retries = retries
            victim = executor.actors[2][1]
            threading.Timer(0.05, ray.kill, (victim,)).start()
            if retries:
                assert_identical(executor.run_pipelined([x, *weights], microbatches=k), want, "retried")
                assert executor.attempts == 2
            else:
                with pytest.raises(ActorDied, match="cuda:1:global"):
                    executor.run_pipelined([x, *weights], microbatches=k)


def test_a_script_takes_its_imports_inside_one_argument_so_ray_never_resolves_them():
    """Top-level ObjectRef arguments of a task whose actor is killed can abort Ray 2.60's driver."""
    from vdplace.runtime.ray.driver import Walker
    from vdplace.runtime.ray.faults import Tracker

    submitted = []

    class Run:
        @staticmethod
        def remote(*args):
            submitted.append(args)
            return ray.put(None)

    class Handle:
        run = Run()

    walker = Walker({}, [Handle()], Tracker(["cpu"], lambda f, pc: f"{f}:{pc}", time.monotonic() + 60), 8, None)
    refs = [ray.put(np.zeros(2)), ray.put(np.ones(2))]
    walker.add(0, ("start", 0, "main", (), None), refs[0])
    walker.add(0, ("recv", 0, 3, 0, 1), refs[1])
    walker.flush(0, 0, ("main", 3))
    (args,) = submitted
    assert not any(isinstance(a, ray.ObjectRef) for a in args)
    assert args[1] == refs and len(args) == 2


def test_a_run_past_its_timeout_is_an_error_not_a_hang():
    _, exe, inputs = mlp()
    with RayExecutor(exe, timeout=30) as executor:
        executor.timeout = 1e-6
        with pytest.raises(RunTimeout, match="did not finish within its timeout"):
            executor.run("main", *inputs)


def test_an_actor_no_node_can_hold_is_an_error_within_the_timeout():
    _, exe, _ = mlp()
    start = time.monotonic()
    with pytest.raises(runtime.DeviceUnavailable, match="did not start within"):
        RayExecutor(exe, {"cuda:0": ActorSpec("sim", resources={"no-such-label": 1})}, start_timeout=3)
    assert time.monotonic() - start < 20


def test_a_simulated_device_too_small_fails_on_its_actor_naming_the_tensor():
    _, exe, inputs = mlp()
    with RayExecutor(exe, {"cuda:0": ActorSpec("sim", memory_limit=64)}, timeout=30) as executor:
        with pytest.raises(RemoteError) as err:
            executor.run("main", *inputs)
    assert err.value.kind == "DeviceMemoryError" and "cuda:0:global" in str(err.value)


def test_an_actors_device_holds_its_memory_limit_in_live_bytes_and_names_the_instruction():
    """Issue 32: x and a0..a3 (1 MiB each) all live on cuda:0; 3 MiB holds x, a0 and a1, not a2."""
    from tests.runtime.test_memory import fan_out

    mib = 1024 * 1024
    exe = runtime.compile(placement.place(ir.parse(fan_out(4, rows=mib // 4), filename="fan.py")).module)
    x = np.ones(mib // 4, "float32")
    with RayExecutor(exe, memory={"cuda:0": 3 * mib}, timeout=60) as executor:
        with pytest.raises(RemoteError) as err:
            executor.run("main", x)
    text = str(err.value)
    assert err.value.kind == "DeviceMemoryError" and "out of memory on sim:cuda:0: instruction main:2 " in text
    assert "binding a2 at fan.py:13:9" in text and "main:x (1.0 MiB), main:a0 (1.0 MiB), main:a1 (1.0 MiB)" in text
    want = runtime.VirtualMachine(exe, simulate_missing=True).run("main", x)
    with RayExecutor(exe, memory={"cuda:0": 5 * mib}, timeout=60) as executor:
        assert_identical(executor.run("main", x), want, "fits")


def test_the_timeline_is_a_png_with_one_row_per_actor(tmp_path):
    pytest.importorskip("matplotlib")
    _, exe, inputs = mlp()
    with RayExecutor(exe, timeout=60) as executor:
        executor.run_many("main", [inputs, inputs], profile=True)
    executor.profile.timeline_png(str(tmp_path / "timeline.png"))
    assert (tmp_path / "timeline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


SYMBOLIC = """
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor(("n", 4), "float32", "llvm")) -> R.Tensor(("n", 4), "float32", "cuda"):
        y = R.exp(x)
        z = R.to_vdevice(y, "cuda:0")
        s = R.shape_of(z)
        w = R.reshape(z, s)
        return w
"""


def test_symbolic_shapes_a_copy_shaped_like_its_source_is_allocated_when_the_data_arrives():
    exe = runtime.compile(placement.place(ir.parse(SYMBOLIC)).module)
    assert "AllocTensor(shape_of(" in str(exe)
    vm = runtime.VirtualMachine(exe, simulate_missing=True)
    with RayExecutor(exe, timeout=60) as executor:
        for n in (2, 5):
            x = np.linspace(-1, 1, 4 * n, dtype="float32").reshape(n, 4)
            assert_identical(executor.run("main", x), vm.run("main", x), f"n={n}")


CROSS_SHAPE = """
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((2, 3), "float32", "llvm"), g: R.Tensor((3, 2), "float32", "cuda")):
        s = R.shape_of(g)
        y = R.reshape(x, s)
        return y
"""


def test_a_value_one_actor_computes_and_another_reads_without_a_copy_is_refused_up_front():
    exe = runtime.compile(placement.place(ir.parse(CROSS_SHAPE, filename="cross.py")).module)
    with pytest.raises(runtime.CompileError, match="Call reshape.*cross.py:13.*another device's actor"):
        RayExecutor(exe)


def test_a_cluster_address_nobody_answers_at_is_an_error_not_minutes_of_retries():
    from vdplace.runtime.ray.cluster import check_reachable

    start = time.monotonic()
    with pytest.raises(runtime.DeviceUnavailable, match="cannot reach the Ray cluster at 127.0.0.1:1"):
        check_reachable("127.0.0.1:1", timeout=5)
    assert time.monotonic() - start < 10


def test_bad_devices_are_clear_errors():
    _, exe, _ = mlp()
    with pytest.raises(runtime.DeviceUnavailable, match="tpu"):
        RayExecutor(exe, {"cuda:0": "tpu"})
    with pytest.raises(runtime.DeviceUnavailable, match="cuda:3"):
        RayExecutor(exe, {"cuda:3": "sim"})


def test_vdplace_run_ray_prints_what_the_local_run_prints(capsys):
    from vdplace.cli import main

    assert main(["run", str(MLP), "--simulate"]) == 0
    local = capsys.readouterr().out
    assert main(["run", str(MLP), "--ray", "--timeout", "60", "--actor", "cuda:0=sim"]) == 0
    assert capsys.readouterr().out == local
    assert main(["run", str(MLP), "--ray", "--actor", "cuda:0=quantum"]) == 2


def test_vdplace_run_ray_microbatches_prints_what_unbatched_runs_of_the_same_batch_print(capsys, tmp_path):
    """Issue 29: micro-batches drew their own weights and flag (out[1] up to 35.66 where softmax rows sum to 1)."""
    from vdplace.cli import main
    from vdplace.cli_run import _summarize
    from vdplace.runtime.batch import concat_results

    mod = ir.parse(MLP.read_text(), filename=str(MLP))
    vm = runtime.VirtualMachine(runtime.compile(placed_module(MLP)), simulate_missing=True)
    batch = runtime.random_inputs(mod, rng=np.random.default_rng(0), microbatches=2)  # the batch the CLI draws
    x, rest = batch[0], batch[1:]
    halves = [vm.run("main", x[:4], *rest), vm.run("main", x[4:], *rest)]
    unbatched = vm.run("main", *runtime.random_inputs(mod, rng=np.random.default_rng(0)))
    assert_identical(halves[0], unbatched, "micro-batch 0 is the unbatched run")
    want = "\n".join(_summarize(concat_results(halves))) + "\n"
    assert main(["run", str(MLP), "--ray", "--microbatches", "2"]) == 0
    assert capsys.readouterr().out == want
    assert "out[0]: shape (8, 16)" in want and "out[1]: shape (8,) float32  min 1  max 1  mean 1" in want
    np.savez(tmp_path / "batch.npz", **{p.name: v for p, v in zip(mod["main"].params, batch, strict=True)})
    argv = ["run", str(MLP), "--ray", "--microbatches", "2", "--inputs", str(tmp_path / "batch.npz"), "--profile"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith(want) and "copy latency" in out


def test_importing_the_runtime_does_not_import_ray():
    code = "import sys, vdplace.runtime, vdplace.runtime.ray, vdplace.cli; assert 'ray' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
    assert runtime.RayExecutor is RayExecutor


def test_a_match_cast_is_refused_before_any_actor_starts():
    """Its symbols would be bound on one actor only; the local VM runs it (tests/ir/test_match_cast.py)."""
    from tests.ir.test_match_cast import NONZERO

    exe = runtime.compile(placement.place(ir.parse(NONZERO), default="host").module)
    with pytest.raises(runtime.CompileError, match=r"cannot run main:\d+, an R.match_cast"):
        RayExecutor(exe, timeout=30)


def test_vdplace_run_ray_asks_for_a_gpu_the_local_cluster_lacks_and_fails_at_once(capsys):
    from vdplace.cli import main

    if ray.cluster_resources().get("GPU", 0):
        pytest.skip("this cluster has a GPU")
    start = time.monotonic()
    status = main(["run", str(MLP), "--ray", "--actor", "cuda:0=gpu", "--timeout", "20"])
    out, err = capsys.readouterr()
    assert status == 1 and out == "" and err.count("\n") == 1
    assert "need 1 GPU(s) and the Ray cluster has 0" in err and "--actor VDEVICE=sim" in err
    assert time.monotonic() - start < 10  # not the 120 s an actor may take to start


def test_vdplace_run_ray_timeout_bounds_the_start_of_the_actors(capsys):
    from vdplace.cli import main

    start = time.monotonic()
    status = main(["run", str(MLP), "--ray", "--actor", "cuda:0=sim@10.255.255.1", "--timeout", "3"])
    _, err = capsys.readouterr()
    assert status == 1 and "did not start within 3 s" in err and err.count("\n") == 1
    assert time.monotonic() - start < 15


def test_a_transposed_view_copied_between_actors_arrives_with_the_local_vms_values():
    """The sender makes a strided view contiguous before it puts it (`commands.sendable`): the same values."""
    text = (
        "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
        '    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})\n\n'
        "    @R.function\n"
        '    def main(x: R.Tensor((3, 5), "float32", "cuda:0"), w: R.Tensor((4, 5), "float32", "llvm:0"))'
        ' -> R.Tensor((3, 4), "float32", "cuda:0"):\n'
        '        R.func_attr({"num_input": 1})\n'
        "        t = R.permute_dims(w)\n"
        '        c = R.to_vdevice(t, "cuda:0")\n'
        "        y = R.matmul(x, c)\n"
        "        return y\n"
    )
    placed = placement.place(ir.parse(text, filename="t.py"), default="host").module
    exe = runtime.compile(placed)
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((3, 5)).astype("float32"), rng.standard_normal((4, 5)).astype("float32")
    want = runtime.VirtualMachine(exe, simulate_missing=True).run("main", x, w)
    with RayExecutor(exe, timeout=60) as executor:
        got = executor.run("main", x, w, profile=True)
    assert_identical(got, want, "y")
    assert executor.profile.bytes_copied == w.nbytes  # the transposed weight, once
