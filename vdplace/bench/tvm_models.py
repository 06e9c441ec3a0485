"""The benchmark families built with TVM's BlockBuilder (needs apache-tvm), for timing its RealizeVDevice.

Each builder mirrors its namesake in `vdplace.bench.generators`: the same
bindings, parameters, annotations and hints, so that both passes see one
problem.  TVM 0.27 calls struct infos "types" (``relax.TensorType``).
"""

from __future__ import annotations

from typing import Any

from vdplace.bench.generators import BLOCK, PER_FUNCTION, SHAPE


class TVMBuilder:
    """A BlockBuilder with the families' two vdevices and tensor type at hand."""

    def __init__(self) -> None:
        import tvm
        from tvm import relax

        self.tvm, self.relax = tvm, relax
        self.cpu = relax.VDevice(tvm.target.Target("llvm"), 0, "global")
        self.gpu = relax.VDevice(tvm.target.Target({"kind": "cuda", "arch": "sm_80"}), 0, "global")
        self.bb = relax.BlockBuilder()

    def t(self, vdevice: Any = None) -> Any:
        """The tensor type of every value, optionally on `vdevice`."""
        return self.relax.TensorType(SHAPE, "float32", vdevice=vdevice)

    def emit(self, op: str, *args: Any) -> Any:
        """Emit ``relax.op.<op>(*args)`` (``op`` may be dotted: ``"nn.relu"``)."""
        fn = self.relax.op
        for part in op.split("."):
            fn = getattr(fn, part)
        return self.bb.emit(fn(*args))

    def step(self, i: int, cur: Any, w: Any) -> Any:
        """Binding `i` of a chain, as `generators.step`."""
        k = i % 3
        if k == 0:
            return self.emit("add", cur, w)
        if k == 1:
            return self.emit("multiply", cur, w)
        return self.emit("nn.relu", cur)

    def module(self) -> Any:
        """The built module with the two vdevices declared."""
        mod = self.bb.get()
        mod.update_global_info("vdevice", [self.cpu, self.gpu])
        return mod


def build_chain(tb: TVMBuilder, n: int) -> Any:
    x, w = tb.relax.Var("x", tb.t()), tb.relax.Var("w", tb.t())
    with tb.bb.function("main", [x, w]):
        cur = x
        for i in range(n):
            cur = tb.step(i, cur, w)
        tb.bb.emit_func_output(cur)
    return with_return_type(tb, "main", tb.t(tb.gpu))


def build_two_chains(tb: TVMBuilder, n: int) -> Any:
    x, w, v = tb.relax.Var("x", tb.t(tb.cpu)), tb.relax.Var("w", tb.t()), tb.relax.Var("v", tb.t())
    half = max(1, (n - 1) // 2)
    with tb.bb.function("main", [x, w, v]):
        cur = x
        for i in range(half):
            cur = tb.step(i, cur, w)
        cur = tb.emit("to_vdevice", cur, tb.gpu)
        for i in range(half, n - 1):
            cur = tb.step(i, cur, v)
        tb.bb.emit_func_output(cur)
    return with_return_type(tb, "main", tb.t(tb.gpu))


def with_return_type(tb: TVMBuilder, name: str, ret: Any) -> Any:
    """The module with function `name` public and its return annotated `ret` (the families' pin)."""
    mod = tb.module()
    func = mod[name].with_attr("global_symbol", name)
    mod[name] = tb.relax.Function(func.params, func.body, ret, func.is_pure, func.attrs, func.span)
    return mod


def transformer_block(tb: TVMBuilder, cur: Any, weights: list[Any]) -> Any:
    """One block, as `generators.transformer_block`."""
    wq, wk, wv, w1, w2 = weights
    ln = tb.emit("multiply", cur, cur)
    q, k, v = tb.emit("matmul", ln, wq), tb.emit("matmul", ln, wk), tb.emit("matmul", ln, wv)
    a = tb.emit("nn.softmax", tb.emit("matmul", q, k))
    r = tb.emit("add", cur, tb.emit("matmul", a, v))
    d = tb.emit("matmul", tb.emit("nn.relu", tb.emit("matmul", r, w1)), w2)
    return tb.emit("add", r, d)


def build_transformer(tb: TVMBuilder, n: int, hint_every: int = 8) -> Any:
    blocks = max(1, n // BLOCK)
    x, pos = tb.relax.Var("x", tb.t()), tb.relax.Var("pos", tb.t())
    weights = [tb.relax.Var(f"w{j}_{b}", tb.t()) for b in range(blocks) for j in range(5)]
    with tb.bb.function("main", [x, pos, *weights]):
        cur = x
        for b in range(blocks):
            if b % hint_every == 0:
                dev = tb.tvm.cuda(0) if (b // hint_every) % 2 == 0 else tb.tvm.cpu(0)
                cur = tb.emit("add", tb.emit("hint_on_device", cur, dev), tb.emit("hint_on_device", pos, dev))
            cur = transformer_block(tb, cur, weights[5 * b : 5 * b + 5])
        tb.bb.emit_func_output(cur)
    return tb.module()


def build_many_functions(tb: TVMBuilder, n: int) -> Any:
    callees = []
    for k in range(max(1, n // (PER_FUNCTION + 1))):
        x, w = tb.relax.Var("x", tb.t()), tb.relax.Var("w", tb.t())
        with tb.bb.function(f"f{k}", [x, w]):
            cur = x
            for i in range(PER_FUNCTION):
                cur = tb.step(i, cur, w)
            callees.append(tb.bb.emit_func_output(cur))
    x, w = tb.relax.Var("x", tb.t(tb.gpu)), tb.relax.Var("w", tb.t())
    with tb.bb.function("main", [x, w]):
        cur = x
        for callee in callees:
            cur = tb.bb.emit(tb.relax.Call(callee, [cur, w]))
        tb.bb.emit_func_output(cur)
    return tb.module()


BUILDERS = {
    "chain": build_chain,
    "two_chains": build_two_chains,
    "transformer": build_transformer,
    "many_functions": build_many_functions,
    "transformer_dense": lambda tb, n: build_transformer(tb, n, hint_every=1),
}


def build_tvm(family: str, n: int) -> Any:
    """The module of `family` with about `n` bindings as a ``tvm.IRModule``."""
    return BUILDERS[family](TVMBuilder(), n)
