"""Views in the time objective's memory model: the predicted peak is the measured one, exactly.

An op whose result is a view of an operand (`vdplace.ir.views`: ``reshape``,
``permute_dims``, ``expand_dims``, ``squeeze``, ``flatten``) holds no memory of
its own in the run (the runtime counts a view as its base's buffer, alive
while any view of it is) nor in the schedule (`placement/schedule/liveness.py`
folds a view's stay into its base's).  Random programs with chains of views
(a reshape of a transposed value is a copy, on both sides), weights read
transposed, placed with `Time` on llvm:0 + cuda:0: the VM's measured peak on
each device equals the schedule's ``peak_memory``; and the mlp model of
tests/models, all on the host and split, predicts the peak it measures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vdplace import ir, runtime
from vdplace.bench.step import measure_step
from vdplace.ir.op import get_op
from vdplace.ir.struct_info import TensorStructInfo
from vdplace.ir.vdevice import VDevice
from vdplace.ir.views import view_result
from vdplace.placement import CostModel, PlacementConflict, Time, place

pytest.importorskip("ortools")

TIMES = (1e-6, 2e-6, 5e-6, 1.3e-5)
KINDS = ("add", "relu", "matmul", "weight_t", "t", "flat", "unsqueeze", "flatten", "t_flat")


@dataclass
class Program:
    side: int
    params: list[str]  # runtime inputs, then weights
    num_input: int
    lines: list[str]
    result: str
    times: dict[tuple[str, str], float | None]
    dataflow: bool

    def text(self) -> str:
        tensor = f'R.Tensor(({self.side}, {self.side}), "float32")'
        params = ", ".join(f"{p}: {tensor}" for p in self.params)
        indent = " " * (12 if self.dataflow else 8)
        body = [indent + line for line in self.lines]
        if self.dataflow:
            body = ["        with R.dataflow():", *body, f"            R.output({self.result})"]
        return "\n".join(
            [
                "@I.ir_module",
                "class M:",
                '    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})',
                "    @R.function",
                f"    def main({params}) -> {tensor}:",
                f'        R.func_attr({{"num_input": {self.num_input}}})',
                *body,
                f"        return {self.result}",
            ]
        )

    def model(self) -> CostModel:
        def kernel(op, vdevice: str) -> float | None:
            return self.times[op.name, vdevice.split(":")[0]]

        return CostModel(kernel, lambda nbytes, src, dst: 2e-6 + nbytes / 25e9)


@st.composite
def programs(draw) -> Program:
    """Square tensors; each step an op or a chain of views whose last value is square again."""
    n = draw(st.sampled_from([4, 16]))
    params = [f"p{i}" for i in range(draw(st.integers(1, 3)))]
    weights: list[str] = []
    values = list(params)
    lines: list[str] = []
    times: dict[tuple[str, str], float | None] = {}

    two = draw(st.booleans())  # else everything on the host

    def bind(name: str, rhs: str, cuda: bool = True) -> None:
        lines.append(f"{name} = {rhs}")
        times[name, "llvm"] = draw(st.sampled_from(TIMES))
        times[name, "cuda"] = draw(st.sampled_from(TIMES)) if cuda and two else None

    for i in range(draw(st.integers(2, 7))):
        kind = draw(st.sampled_from(KINDS))
        a, b = draw(st.sampled_from(values)), draw(st.sampled_from(values))
        name = f"v{i}"
        if kind == "add":
            bind(name, f"R.add({a}, {b})")
        elif kind == "relu":
            bind(name, f"R.nn.relu({a})", draw(st.booleans()))
        elif kind == "matmul":
            bind(name, f"R.matmul({a}, {b})")
        elif kind == "weight_t":  # a weight, transposed (one `weights_as_constants` constant however often read)
            weights.append(f"w{i}")
            bind(f"wt{i}", f"R.permute_dims(w{i}, axes=[1, 0])")
            bind(name, f"R.matmul({a}, wt{i})")
        elif kind == "t":
            bind(name, f"R.permute_dims({a}, axes=[1, 0])")
        elif kind == "flat":  # a reshape of a transposed value copies; of any other, a view
            bind(f"f{i}", f"R.reshape({a}, R.shape([{n * n}]))")
            bind(name, f"R.reshape(f{i}, R.shape([{n}, {n}]))")
        elif kind == "unsqueeze":
            bind(f"e{i}", f"R.expand_dims({a}, axis=[0])")
            bind(name, f"R.squeeze(e{i}, axis=[0])")
        elif kind == "flatten":
            bind(f"g{i}", f"R.flatten({a})")
            bind(name, f"R.reshape(g{i}, R.shape([{n}, {n}]))")
        else:  # a transposed value flattened: a copy
            bind(f"t{i}", f"R.permute_dims({a}, axes=[1, 0])")
            bind(f"u{i}", f"R.expand_dims(t{i}, axis=[2])")
            bind(name, f"R.reshape(u{i}, R.shape([{n}, {n}]))")
        values.append(name)
    read = {w for line in lines for w in line.split(" = ", 1)[1].replace("(", " ").replace(",", " ").split()}
    last = values[-1]
    for k, v in enumerate(v for v in values[:-1] if v not in read):
        bind(f"j{k}", f"R.add({last}, {v})")
        last = f"j{k}"
    if not any(line.startswith(f"{last} = R.add") or line.startswith(f"{last} = R.matmul") for line in lines):
        bind("out", f"R.nn.relu({last})")
        last = "out"
    return Program(n, params + weights, len(params), lines, last, times, draw(st.booleans()))


def sequential(schedule) -> bool:
    """No two events of the schedule overlap in time: the VM, one instruction at a time, runs it as it is."""
    events = sorted(schedule.events, key=lambda e: (e.start, e.end))
    return all(b.start >= a.end for a, b in zip(events, events[1:], strict=False))


def run_program(prog: Program) -> tuple[dict, dict, bool]:
    """The measured and predicted peaks per vdevice of `prog` placed with `Time`, and whether its schedule is
    sequential."""
    mod = ir.parse(prog.text(), filename="prog.py")
    result = place(mod, objective=Time(prog.model()), time_limit_s=20)
    values = runtime.random_inputs(result.module, "main", rng=np.random.default_rng(0))
    weights = dict(zip(prog.params[prog.num_input :], values[prog.num_input :], strict=True))
    measured = measure_step(result.module, values[: prog.num_input], weights=weights, runs=1, warmup=0)
    return measured.peak_bytes, dict(result.schedule.peak_memory), sequential(result.schedule)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_the_measured_peak_is_the_predicted_peak(prog: Program) -> None:
    """Equal where the VM runs the schedule as it is (no two events at once: always on one device); where
    devices work side by side the one-at-a-time VM holds at most what the schedule does."""
    measured, predicted, in_order = run_program(prog)
    for name, peak in predicted.items():
        if in_order:
            assert measured[name] == peak, (name, measured, predicted, prog.text())
        else:
            assert measured[name] <= peak, (name, measured, predicted, prog.text())


def test_a_transposed_weight_is_a_view_and_a_reshape_of_it_a_copy() -> None:
    n = 16
    prog = Program(
        n,
        ["x", "w"],
        1,
        [
            "wt = R.permute_dims(w, axes=[1, 0])",
            f"f = R.reshape(wt, R.shape([{n * n}]))",
            "out = R.matmul(x, wt)",
            f"g = R.reshape(f, R.shape([{n}, {n}]))",
            "y = R.add(out, g)",
        ],
        "y",
        {(b, d): 1e-6 for b in ("wt", "f", "out", "g", "y") for d in ("llvm", "cuda")},
        False,
    )
    measured, predicted, in_order = run_program(prog)
    assert in_order and measured == predicted
    tensor = n * n * 4
    # w, x, wt's copy f (g is its view), out, y: at y's add x and wt are dead, out and f and y live with w
    assert sum(predicted.values()) == 4 * tensor


def test_the_rule_the_runtime_and_the_model_share() -> None:
    t = TensorStructInfo((4, 1, 3), "float32")
    permute = get_op("permute_dims")
    assert view_result(permute, [t], {"axes": [1, 0, 2]}, True) is True  # only a length-1 axis moves
    assert view_result(permute, [t], {"axes": [2, 1, 0]}, True) is False
    assert view_result(get_op("reshape"), [t], {}, False) is None
    assert view_result(get_op("reshape"), [t], {}, True) is True
    assert view_result(get_op("squeeze"), [t], {"axis": None}, False) is False
    assert view_result(get_op("add"), [t, t], {}, True) is None


MODELS = Path(__file__).resolve().parents[1] / "models"


@pytest.mark.parametrize("split", [False, True], ids=["all-host", "split"])
def test_the_mlp_model_predicts_the_peak_it_measures(split: bool) -> None:
    """tests/models/mlp (three weights read transposed): all on the host, and its last layer on cuda:0."""
    path = MODELS / "mlp" / "params.py"
    mod = ir.parse(path.read_text(), filename=str(path))
    mod = mod.replace(vdevices=[VDevice("llvm", 0), VDevice("cuda", 0)])
    arrays = np.load(MODELS / "mlp" / "params.npz")
    params = [p.name for p in mod["main"].params]
    last = {"lv8", "lv9", "lv10"}

    def kernel(op, vdevice: str) -> float | None:
        on_cuda = vdevice.startswith("cuda")
        if not split:
            return None if on_cuda else 1e-6
        return (1e-6 if on_cuda else 1e-3) if op.name in last else (None if on_cuda else 1e-6)

    result = place(mod, objective=Time(CostModel(kernel, lambda n, s, d: 1e-6 + n / 25e9)), time_limit_s=20)
    cuda_ops = {e.name for e in result.schedule.events if e.kind == "op" and e.device.startswith("cuda")}
    assert cuda_ops == (last if split else set())
    weights = {name: arrays[name] for name in params[1:]}
    measured = measure_step(result.module, [arrays["x"]], weights=weights, runs=1, warmup=0)
    assert measured.peak_bytes == dict(result.schedule.peak_memory)


@pytest.mark.parametrize("exact", [True, False], ids=["cp-sat", "list"])
def test_a_limit_at_the_measured_peak_fits(exact: bool) -> None:
    """A limit at the peak the run measures is enough for CP-SAT's reservoirs, the memory bound and the list
    scheduler: a transposed weight, a view of a view and a reshape back hold no bytes of their own."""
    n = 16
    lines = [
        "wt = R.permute_dims(w, axes=[1, 0])",
        "e = R.expand_dims(wt, axis=[0])",
        "s = R.squeeze(e, axis=[0])",
        "y = R.matmul(x, s)",
        f"f = R.reshape(y, R.shape([{n * n}]))",
        f"g = R.reshape(f, R.shape([{n}, {n}]))",
        "z = R.nn.relu(g)",
    ]
    prog = Program(n, ["x", "w"], 1, lines, "z", {}, False)
    mod = ir.parse(prog.text(), filename="prog.py")
    model = CostModel(lambda op, vdevice: None if vdevice.startswith("cuda") else 1e-6, lambda n, s, d: 1e-6)
    tensor = n * n * 4
    result = place(mod, objective=Time(model, memory={"llvm:0": 3 * tensor}, exact=exact), time_limit_s=20)
    assert result.schedule.peak_memory["llvm:0:global"] == 3 * tensor  # w, x and y (f is y's view), then z
    weights = {"w": np.ones((n, n), "float32")}
    measured = measure_step(result.module, [np.ones((n, n), "float32")], weights=weights, runs=1, warmup=0)
    assert measured.peak_bytes == dict(result.schedule.peak_memory)
    with pytest.raises(PlacementConflict):
        place(mod, objective=Time(model, memory={"llvm:0": 3 * tensor - 1}, exact=exact), time_limit_s=20)
