"""VM overhead: an MLP-like program run by the VM vs the same NumPy kernels called in a plain loop.

Each layer is ``relu(h @ W_i + b_i)`` (3 ops); both cases have 333 layers
(999 ops, plus the return).  The small case uses 64x64 tensors and its own
weights per layer; the large case uses 1024x1024 tensors and one weight and
bias shared by every layer (333 distinct 4 MB weights would need 1.4 GB), and
fewer repeats (`--large-repeat`), since one run is about 700 GFLOP.  Targets:
VM / direct <= 1.5 on the small tensors and <= 1.05 on the large ones.  The
ratio printed first is best VM time over best direct time; the median of
interleaved paired ratios is printed too, as a check on a busy machine.

    python benchmarks/bench_runtime.py [--small-layers 333] [--large-layers 333] [--repeat 7] [--large-repeat 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from vdplace import runtime
from vdplace.ir import ModuleBuilder, VDevice, get_op, tensor

CPU_V = VDevice("llvm")


def mlp_module(layers: int, size: int, shared: bool = False):
    """main(x, W_0, b_0, ..., W_{L-1}, b_{L-1}) = relu(...relu(x @ W_0 + b_0)... @ W_{L-1} + b_{L-1}).

    With `shared`, main(x, W, b) uses the one W and b in every layer.
    """
    params = [("x", tensor((size, size), "float32", CPU_V))]
    for i in range(1 if shared else layers):
        params += [(f"w{i}", tensor((size, size), "float32", CPU_V)), (f"b{i}", tensor((size,), "float32", CPU_V))]
    mb = ModuleBuilder([CPU_V])
    f = mb.function("main", params)
    h = f.params[0]
    for i in range(layers):
        j = 0 if shared else i
        w, b = f.params[1 + 2 * j], f.params[2 + 2 * j]
        h = f.emit("nn.relu", f.emit("add", f.emit("matmul", h, w), b))
    f.finish(h)
    return mb.get()


def direct(inputs: list[np.ndarray], layers: int) -> np.ndarray:
    """The same kernels the VM calls, in a plain Python loop."""
    matmul, add, relu = get_op("matmul").kernel, get_op("add").kernel, get_op("nn.relu").kernel
    shared = len(inputs) == 3
    h = inputs[0]
    for i in range(layers):
        j = 0 if shared else i
        h = relu(add(matmul(h, inputs[1 + 2 * j], out_dtype=None), inputs[2 + 2 * j]))
    return h


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(layers: int, size: int, repeat: int, shared: bool) -> tuple[float, float, float, int]:
    """(best VM time, best direct time, median of the paired VM/direct ratios, instructions)."""
    mod = mlp_module(layers, size, shared)
    exe = runtime.compile(mod)
    vm = runtime.VirtualMachine(exe, devices="cpu")
    inputs = runtime.random_inputs(mod, rng=np.random.default_rng(0))
    for w in inputs[1::2]:
        w *= 1.0 / np.sqrt(size)  # keep activations in range over many layers
    np.testing.assert_allclose(vm.run("main", *inputs), direct(inputs, layers), rtol=1e-5, atol=1e-5)
    vms, directs = [], []
    for _ in range(repeat):  # interleaved pairs, so both see the same machine state
        directs.append(timed(lambda: direct(inputs, layers)))
        vms.append(timed(lambda: vm.run("main", *inputs)))
    paired = sorted(v / d for v, d in zip(vms, directs, strict=True))
    return min(vms), min(directs), paired[len(paired) // 2], exe.num_instructions()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small-layers", type=int, default=333)
    parser.add_argument("--large-layers", type=int, default=333)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--large-repeat", type=int, default=2)
    args = parser.parse_args()
    for label, layers, size, target, repeat, shared in (
        ("small", args.small_layers, 64, 1.5, args.repeat, False),
        ("large", args.large_layers, 1024, 1.05, args.large_repeat, True),
    ):
        t_vm, t_direct, median, n = measure(layers, size, repeat, shared)
        ratio = t_vm / t_direct
        verdict = "meets" if ratio <= target else "MISSES"
        print(
            f"{label}: {3 * layers} ops on {size}x{size} ({n} instructions): "
            f"VM {t_vm * 1e3:.2f} ms, direct {t_direct * 1e3:.2f} ms (best of {repeat}), "
            f"ratio {ratio:.3f} ({verdict} target <= {target}); median of paired ratios {median:.3f}"
        )


if __name__ == "__main__":
    main()
