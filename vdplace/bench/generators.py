"""The benchmark module families, built with vdplace's `ModuleBuilder`.

Each generator takes `n` and returns a module with about `n` bindings over
``(16, 16)`` float32 tensors and two vdevices, ``llvm:0`` and ``cuda:0``:

chain              one function, ``lv_i = op(lv_{i-1}, w)``, the return annotated:
                   everything is found by backward propagation.
two_chains         two chains joined by an explicit ``R.to_vdevice``, one end pinned
                   on the CPU, the other on the GPU.
transformer        residual blocks (layer norm, attention-like matmuls, softmax, MLP,
                   two residual adds, per-block weights as parameters); every
                   `hint_every`-th block starts with ``hint_on_device`` on alternating
                   devices, and a shared positional table is hinted into each hinted
                   block, so Z3 decides where that table lives (MaxSMT).
many_functions     `n / 11` small functions of 10 bindings called in a chain from
                   ``main``, whose input is annotated: placement crosses every call.
transformer_dense  a hint on every block, so there is one equality class per block
                   (for comparing Z3 encodings).
"""

from __future__ import annotations

from collections.abc import Callable

from vdplace.ir import DeviceSpec, FunctionBuilder, IRModule, ModuleBuilder, Var, VDevice, tensor

SHAPE = (16, 16)
BLOCK = 12  # bindings per transformer block (13 for a hinted block, 14 with the positional hint)
PER_FUNCTION = 10  # bindings per callee of many_functions


def devices() -> tuple[VDevice, VDevice]:
    """The two vdevices of every family: the CPU first, then the GPU."""
    return VDevice("llvm", 0), VDevice("cuda", 0)


def step(f: FunctionBuilder, i: int, cur: Var, w: Var) -> Var:
    """Binding `i` of a chain: add, multiply and relu in turn."""
    k = i % 3
    if k == 0:
        return f.emit("add", cur, w, name=f"lv{i}")
    if k == 1:
        return f.emit("multiply", cur, w, name=f"lv{i}")
    return f.emit("nn.relu", cur, name=f"lv{i}")


def build_chain(n: int) -> IRModule:
    """``main(x, w) -> R.Tensor(..., "cuda")``: n bindings alternating add/multiply/relu."""
    cpu, gpu = devices()
    mb = ModuleBuilder([cpu, gpu])
    f = mb.function("main", [("x", tensor(SHAPE)), ("w", tensor(SHAPE))], ret=tensor(SHAPE, vdevice=gpu))
    cur, w = f.params
    for i in range(n):
        cur = step(f, i, cur, w)
    f.finish(cur)
    return mb.get()


def build_two_chains(n: int) -> IRModule:
    """A CPU chain (input annotated llvm), ``R.to_vdevice`` to cuda, a GPU chain (return annotated)."""
    cpu, gpu = devices()
    mb = ModuleBuilder([cpu, gpu])
    f = mb.function(
        "main",
        [("x", tensor(SHAPE, vdevice=cpu)), ("w", tensor(SHAPE)), ("v", tensor(SHAPE))],
        ret=tensor(SHAPE, vdevice=gpu),
    )
    cur, w, v = f.params
    half = max(1, (n - 1) // 2)
    for i in range(half):
        cur = step(f, i, cur, w)
    cur = f.emit("to_vdevice", cur, name="moved", dst_vdevice=gpu)
    for i in range(half, n - 1):
        cur = step(f, i, cur, v)
    f.finish(cur)
    return mb.get()


def transformer_block(f: FunctionBuilder, b: int, x: Var, weights: list[Var]) -> Var:
    """The 12 bindings of block `b` on input `x`; its output."""
    wq, wk, wv, w1, w2 = weights
    ln = f.emit("multiply", x, x, name=f"ln{b}")
    q = f.emit("matmul", ln, wq, name=f"q{b}")
    k = f.emit("matmul", ln, wk, name=f"k{b}")
    v = f.emit("matmul", ln, wv, name=f"v{b}")
    s = f.emit("matmul", q, k, name=f"s{b}")
    a = f.emit("nn.softmax", s, name=f"a{b}")
    o = f.emit("matmul", a, v, name=f"o{b}")
    r = f.emit("add", x, o, name=f"r{b}")
    m = f.emit("matmul", r, w1, name=f"m{b}")
    g = f.emit("nn.relu", m, name=f"g{b}")
    d = f.emit("matmul", g, w2, name=f"d{b}")
    return f.emit("add", r, d, name=f"y{b}")


def build_transformer(n: int, hint_every: int = 8) -> IRModule:
    """Residual blocks; a hint on alternating devices every `hint_every` blocks."""
    blocks = max(1, n // BLOCK)
    params = [("x", tensor(SHAPE)), ("pos", tensor(SHAPE))]
    for b in range(blocks):
        params += [(f"{w}{b}", tensor(SHAPE)) for w in ("wq", "wk", "wv", "w1", "w2")]
    mb = ModuleBuilder(list(devices()))
    f = mb.function("main", params)
    x, pos = f.params[:2]
    for b in range(blocks):
        if b % hint_every == 0:
            device = DeviceSpec("cuda", 0) if (b // hint_every) % 2 == 0 else DeviceSpec("cpu", 0)
            x = f.emit("hint_on_device", x, name=f"h{b}", device=device)
            pe = f.emit("hint_on_device", pos, name=f"pe{b}", device=device)
            x = f.emit("add", x, pe, name=f"xp{b}")
        x = transformer_block(f, b, x, f.params[2 + 5 * b : 7 + 5 * b])
    f.finish(x)
    return mb.get()


def build_many_functions(n: int) -> IRModule:
    """`n / 11` functions ``f_k(x, w)`` called in a chain from ``main`` (input on cuda)."""
    cpu, gpu = devices()
    mb = ModuleBuilder([cpu, gpu])
    count = max(1, n // (PER_FUNCTION + 1))
    for k in range(count):
        g = mb.function(f"f{k}", [("x", tensor(SHAPE)), ("w", tensor(SHAPE))])
        cur, w = g.params
        for i in range(PER_FUNCTION):
            cur = step(g, i, cur, w)
        g.finish(cur)
    f = mb.function("main", [("x", tensor(SHAPE, vdevice=gpu)), ("w", tensor(SHAPE))])
    cur, w = f.params
    for k in range(count):
        cur = f.emit(f.call_function(f"f{k}", cur, w), name=f"y{k}")
    f.finish(cur)
    return mb.get()


def build_transformer_dense(n: int) -> IRModule:
    """`build_transformer` with a hint on every block: one equality class per block for Z3."""
    return build_transformer(n, hint_every=1)


GENERATORS: dict[str, Callable[[int], IRModule]] = {
    "chain": build_chain,
    "two_chains": build_two_chains,
    "transformer": build_transformer,
    "many_functions": build_many_functions,
    "transformer_dense": build_transformer_dense,
}
