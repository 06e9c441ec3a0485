"""Ray actors run side by side where the schedule says so (docs/schedule.md, "What the run follows").

A program of two independent branches of four matmuls by 1024x1024 weights
(tens of ms each on one thread), one on llvm:0 and one on cuda:0, joined at the end,
placed with `Time`: its module sends x to cuda:0 first, so each actor (one
CPU thread, ``OMP_NUM_THREADS=1``) runs its branch while the other runs
its own, and the run's wall time is under 0.8x the sum of the two actors'
busy times measured in the same run (a serial run cannot go below 1x).
The same module in the order the text is written (the llvm:0 branch first,
so x goes to cuda:0 after it) runs the branches one after the other.
Measured within one run, the ratio holds on a loaded machine too: both
branches slow down alike.  Skipped without Ray.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from vdplace import ir, runtime
from vdplace.bench.step import weights_as_constants
from vdplace.ir.expr import BindingBlock, Function, SeqExpr
from vdplace.placement import CostModel, Time, place

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.usefixtures("blas_like_ray_actors")  # results compared bit for bit
pytest.importorskip("ortools")

from vdplace.runtime.ray import RayExecutor  # noqa: E402

N, ROWS, DEPTH = 1024, 384, 4
WEIGHTS = [f"w{side}{i}" for side in "ab" for i in range(1, DEPTH + 1)]
BRANCH = {side: [f"{side}{i}" for i in range(1, DEPTH + 1)] for side in "ab"}


def program() -> str:
    """x on llvm:0, the a-branch's weights on llvm:0, the b-branch's on cuda:0; y = a{DEPTH} + b{DEPTH}."""
    params = [f'x: R.Tensor(({ROWS}, {N}), "float32", "llvm:0")']
    params += [f'{w}: R.Tensor(({N}, {N}), "float32", "{"llvm" if w[1] == "a" else "cuda"}:0")' for w in WEIGHTS]
    lines = []
    for side in "ab":
        prev = "x"
        for i, name in enumerate(BRANCH[side], 1):
            lines.append(f"{name} = R.matmul({prev}, w{side}{i})")
            prev = name
    lines.append(f"y = R.add(a{DEPTH}, b{DEPTH})")
    return "\n".join(
        [
            "@I.ir_module",
            "class Module:",
            '    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})',
            "    @R.function",
            f'    def main({", ".join(params)}) -> R.Tensor(({ROWS}, {N}), "float32", "llvm:0"):',
            '        R.func_attr({"num_input": 1})',
            *[f"        {line}" for line in lines],
            "        return y",
        ]
    )


def kernel(op, vdevice: str) -> float:
    return 0.02 if op.op == "matmul" else 0.001  # the same on both devices: two CPU actors


@pytest.fixture(scope="module")
def cluster():
    before = os.environ.get("OMP_NUM_THREADS")
    os.environ["OMP_NUM_THREADS"] = "1"  # the actors inherit it: one thread each
    try:
        ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024 * 1024, log_to_driver=False)
        yield
        ray.shutdown()
    finally:
        if before is None:
            del os.environ["OMP_NUM_THREADS"]
        else:
            os.environ["OMP_NUM_THREADS"] = before


def busy_and_wall(placed: ir.IRModule, runs: int = 5) -> list[tuple[float, float]]:
    """(sum of the actors' busy seconds, wall seconds) of each of `runs` profiled runs after a warm-up."""
    rng = np.random.default_rng(0)
    params = placed["main"].params
    weights = {p.name: rng.standard_normal((N, N)).astype("float32") for p in params[1:]}
    x = rng.standard_normal((ROWS, N)).astype("float32")
    exe = runtime.compile(weights_as_constants(placed, weights))
    out = []
    with RayExecutor(exe, {"llvm:0": "cpu", "cuda:0": "cpu"}, timeout=120) as executor:
        want = runtime.VirtualMachine(exe, simulate_missing=True).run("main", x)
        np.testing.assert_allclose(executor.run("main", x), want, rtol=1e-4)
        for _ in range(runs):
            executor.run("main", x, profile=True)
            profile = executor.profile
            out.append((sum(a.busy for a in profile.actors), profile.wall_seconds))
    return out


def first(placed: ir.IRModule, names: list[str]) -> ir.IRModule:
    """`placed` with the bindings `names` first, the rest after them in their order (one plain block)."""
    func = placed["main"]
    bindings = [b for block in func.body.blocks for b in block.bindings]
    order = [b for b in bindings if b.var.name in names] + [b for b in bindings if b.var.name not in names]
    body = SeqExpr([BindingBlock(order)], func.body.body, func.body.struct_info)
    new = Function(func.params, body, func.ret_struct_info, func.attrs, func.span, func.ret_span)
    return placed.replace(functions={"main": new})


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="two actors need two cores to overlap")
def test_two_branches_on_two_actors_overlap_as_scheduled(cluster):
    result = place(ir.parse(program()), objective=Time(CostModel(kernel, lambda n, s, d: 1e-4 + n / 2e9)))
    s = result.schedule
    assert s.makespan < 0.6 * sum(e.duration for e in s.events if e.kind == "op")  # predicted: side by side
    names = [b.var.name for block in result.module["main"].body.blocks for b in block.bindings]
    copy = next(e.name for e in s.events if e.kind == "copy" and e.device == ("llvm:0:global", "cuda:0:global"))
    assert names.index(copy) < names.index("a1")  # x goes to cuda:0 before llvm:0 starts its branch

    ordered = busy_and_wall(result.module)
    assert any(wall < 0.8 * busy for busy, wall in ordered), ordered  # measured: about max(branch), not the sum

    serial = busy_and_wall(first(result.module, BRANCH["a"]))  # the order as written
    assert all(wall > 0.9 * busy for busy, wall in serial), serial  # cuda:0 waits for x behind llvm:0's branch
