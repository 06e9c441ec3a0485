"""A TVM pipeline with vdplace in it: torch model -> from_torch -> PlaceDevices -> TVM build -> TVM's VM.

Needs torch and apache-tvm (the ``frontend`` extra, or ``torch`` + ``tvm``);
skipped without them.  Each model is placed over two CPU vdevices (``llvm:0``
and ``llvm:1``, so that TVM can build and run it here) with one
``hint_on_device`` moving the second half of the model to ``llvm:1``.  Checked:

* TVM's VM runs the module `PlaceDevices` returns, and its outputs equal eager
  PyTorch's (rtol 1e-4, atol 1e-5);
* vdplace's own runtime, on the module vdplace places, gives the same outputs;
* TVM's own ``RealizeVDevice`` on the same input, for comparison: it must not
  move fewer bytes than vdplace, and where it fails or moves more, the test
  records it (see `REALIZE_NOTES`).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
tvm = pytest.importorskip("tvm")
relax = pytest.importorskip("tvm.relax")
pytest.importorskip("tvm.relax.frontend.torch")

from vdplace import ir, placement, runtime  # noqa: E402
from vdplace.ir.expr import Binding, Call, Constant, DataflowVar, Expr, Var  # noqa: E402
from vdplace.ir.op import get_op  # noqa: E402
from vdplace.ir.vdevice import DeviceSpec, VDevice  # noqa: E402
from vdplace.ir.visitor import ExprMutator  # noqa: E402
from vdplace.tvm import PlaceDevices, from_torch, from_tvm, to_tvm  # noqa: E402

HOST, SECOND = VDevice("llvm", 0), VDevice("llvm", 1)


class _Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8)
        )

    def forward(self, x):
        return self.layers(x)


class _ConvBn(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.head = torch.nn.Linear(8, 4)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        y = torch.relu(self.conv2(y))
        return self.head(y.mean(dim=(2, 3)))


class _TransformerBlock(torch.nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.norm2 = torch.nn.LayerNorm(dim)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(), torch.nn.Linear(4 * dim, dim))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = torch.softmax(q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5, dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.norm2(x))


MODELS = {
    "mlp": (_Mlp, (2, 16)),
    "conv_bn": (_ConvBn, (1, 3, 8, 8)),
    "transformer_block": (_TransformerBlock, (2, 6, 16)),
}


class _HintHalfway(ExprMutator):
    """Hint the value bound halfway through ``main`` onto CPU 1 (``v_hint = R.hint_on_device(v, R.device(1, 1))``).

    The input of ``main`` is annotated ``llvm:0``: it arrives on the host, so
    the hint is a copy somewhere between the two.
    """

    def __init__(self, at: int, input_var: Var) -> None:
        super().__init__()
        self.input = input_var
        self.at = at
        self.seen = 0

    def visit_var_def(self, var: Var) -> Var:
        if self.global_name == "main" and var is self.input:  # the input arrives on the host
            return Var(var.name, var.struct_info.with_vdevice(HOST), var.span)
        return var

    def visit_binding(self, binding: Binding, var: Var, value: Expr):
        self.seen += 1
        out = super().visit_binding(binding, var, value)
        if self.seen != self.at or type(value) is not Call:
            return out
        attrs = {"device": DeviceSpec("cpu", 1), "memory_scope": "global"}
        hinted = type(var)(f"{var.name}_hint", var.struct_info.with_vdevice(SECOND), None)
        return [out, Binding(hinted, Call(get_op("hint_on_device"), (var,), attrs, hinted.struct_info), None)]


def _vars_in(expr: Expr) -> list[Var]:
    """The variables `expr` uses (calls, tuples and tuple items of a normalized binding's value)."""
    if isinstance(expr, Var):
        return [expr]
    children = getattr(expr, "args", None) or getattr(expr, "fields", None) or ()
    if hasattr(expr, "tuple_value"):
        children = (expr.tuple_value,)
    return [v for child in children for v in _vars_in(child)]


def _hinted(mod: ir.IRModule) -> ir.IRModule:
    """`mod` over llvm:0 and llvm:1: its input on llvm:0, a hint halfway through main moving the rest to llvm:1.

    The hint goes on a cut of the program: a value after which nothing
    computed before it (nor the input) is used again, so that the two halves
    meet only through the hint's copy.
    """
    main = mod["main"]
    bindings = [b for block in main.body.blocks for b in block.bindings]
    last_use: dict[Var, int] = {main.params[0]: -1}
    for i, b in enumerate(bindings):
        for v in _vars_in(b.value):
            last_use[v] = i
    defined_before = [main.params[0]]
    cuts = []
    for i, b in enumerate(bindings):
        if (
            type(b.var) is DataflowVar
            and type(b.value) is Call
            and max(last_use.get(v, -1) for v in defined_before) <= i
        ):
            cuts.append(i + 1)
        defined_before.append(b.var)
    at = cuts[len(cuts) // 2]
    mutator = _HintHalfway(at, main.params[0])
    return mutator.mutate_module(mod).replace(vdevices=[HOST, SECOND])


def _torch_case(name: str, keep_params_as_input: bool):
    cls, shape = MODELS[name]
    torch.manual_seed(0)
    model = cls().eval()
    if name == "conv_bn":  # non-trivial running statistics
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 1.5)
    x = torch.randn(*shape)
    with torch.no_grad():
        want = model(x).numpy()
    imp = from_torch(model, (x,), keep_params_as_input=keep_params_as_input)
    return imp, x.numpy(), want


def _weights(mod: ir.IRModule, params: dict[str, np.ndarray]) -> list[np.ndarray]:
    main = mod["main"]
    return [params[p.name] for p in main.params[int(main.attrs.get("num_input", len(main.params))) :]]


def _run_tvm(mod, args: list[np.ndarray], plan_memory: bool = False) -> list[np.ndarray]:
    """Build `mod` and run ``main`` in TVM's VM over CPU 0 and CPU 1, each argument on its parameter's CPU.

    TVM 0.27's static memory planner lets tensors of two vdevices share one
    storage (`test_tvm_static_memory_planner_mixes_devices`), so it is off
    unless `plan_memory`.
    """
    disabled = [] if plan_memory else ["StaticPlanBlockMemory"]
    with tvm.transform.PassContext(disabled_pass=disabled):
        # As TVM's multi-device tests build: no target argument, each function's vdevices say where it runs.
        ex = tvm.compile(relax.transform.LegalizeOps()(mod))
    vm = relax.VirtualMachine(ex, [tvm.cpu(0), tvm.cpu(1)])
    params = from_tvm(mod)["main"].params
    on = [tvm.cpu(p.struct_info.vdevice.vdevice_id if p.struct_info.vdevice else 0) for p in params]
    out = vm["main"](*[tvm.runtime.tensor(a, dev) for a, dev in zip(args, on, strict=True)])
    return [out.numpy()] if isinstance(out, tvm.runtime.Tensor) else [o.numpy() for o in out]


def _constant_used_off_host(mod: ir.IRModule) -> bool:
    """Whether some call of ``main`` on a vdevice other than llvm:0 takes a constant argument."""
    bindings = [b for block in mod["main"].body.blocks for b in block.bindings]
    return any(
        type(b.value) is Call
        and any(isinstance(a, Constant) for a in b.value.args)
        and getattr(b.var.struct_info, "vdevice", None) not in (None, HOST)
        for b in bindings
    )


def _copied_bytes(mod: ir.IRModule) -> int:
    """The bytes every ``R.to_vdevice`` of a placed module moves."""

    class _Count(ExprMutator):
        total = 0

        def visit_call(self, call: Call, args):
            if getattr(call.op, "name", None) == "to_vdevice":
                src = call.args[0].struct_info
                if src.vdevice != call.struct_info.vdevice:
                    _Count.total += int(np.prod(src.shape)) * np.dtype(src.dtype).itemsize
            return super().visit_call(call, args)

    _Count.total = 0
    _Count().mutate_module(mod)
    return _Count.total


@pytest.mark.parametrize("keep_params_as_input", [False, True], ids=["consts", "params"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_from_torch_place_devices_build_and_run_in_tvm(name, keep_params_as_input):
    imp, x, want = _torch_case(name, keep_params_as_input)
    hinted = _hinted(imp.module)
    weights = _weights(hinted, imp.params)
    tvm_in = to_tvm(hinted, weights or None)
    placed = tvm.transform.Sequential([PlaceDevices(default="host")])(tvm_in)

    # the hint took effect: the module moves data from llvm:0 to llvm:1; PlaceDevices is vdplace's placement
    ours = placement.place(hinted, default="host")
    assert ours.copies and {c.dst for c in ours.copies} == {SECOND}
    assert ir.structural_equal(from_tvm(placed), from_tvm(to_tvm(ours.module, weights or None)))

    # vdplace's own runtime on vdplace's placement computes what torch computes
    vm = runtime.VirtualMachine(runtime.compile(ours.module), devices="cpu")
    (mine,) = vm.run("main", x, *weights)
    np.testing.assert_allclose(mine, want, rtol=1e-4, atol=1e-5)

    # TVM builds and runs what PlaceDevices returns, and gets the same numbers, except where
    # TVM's VM cannot run a constant on llvm:1 (`test_tvm_vm_runs_constants_on_the_first_device_only`)
    try:
        (got,) = _run_tvm(placed, [x, *weights])
    except ValueError as err:
        assert "Mismatched" in str(err) and _constant_used_off_host(ours.module)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)

    # TVM's RealizeVDevice on the same input: it never beats vdplace's bytes
    try:
        theirs = relax.transform.RealizeVDevice()(tvm_in)
    except Exception as err:  # noqa: BLE001  (record TVM's failure; vdplace placed it above)
        pytest.skip(f"TVM's RealizeVDevice fails on {name}: {type(err).__name__}")
    theirs_bytes = _copied_bytes(from_tvm(theirs))
    assert ours.stats.bytes_copied <= theirs_bytes
    # and vdplace leaves no tensor without a vdevice (TVM leaves those computed from constants alone)
    assert not _unplaced(ours.module)


def _unplaced(mod: ir.IRModule) -> list[str]:
    """The bound tensors of ``main`` that have no vdevice."""
    bindings = [b for block in mod["main"].body.blocks for b in block.bindings]
    return [b.var.name for b in bindings if hasattr(b.var.struct_info, "vdevice") and b.var.struct_info.vdevice is None]


def test_the_pinned_tvm_cannot_serialize_relax_modules():
    """``tvm.ir.save_json`` (what pickle uses too) kills the interpreter on any Relax function in 0.27.

    So vdplace's command line reads TVMScript text and `vdplace.tvm.from_tvm`
    reads modules in memory; this test fails once a pinned TVM can serialize
    them, to say that the command line can then take TVM's files.
    """
    import subprocess
    import sys

    code = (
        "import tvm\nfrom tvm.script import ir as I, relax as R\n"
        "@I.ir_module\nclass M:\n    @R.function\n"
        "    def main(x: R.Tensor((2,), 'float32')):\n        return x\n"
        "tvm.ir.load_json(tvm.ir.save_json(M))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0


def test_tvm_static_memory_planner_mixes_devices():
    """TVM 0.27's StaticPlanBlockMemory hands a tensor of llvm:0 a storage of llvm:1 (its VM then refuses the call).

    The module is vdplace's correct placement of the MLP (checked above with
    the planner off); this test fails once a pinned TVM plans memory per
    vdevice, to say that `_run_tvm` can plan memory again.
    """
    imp, x, _ = _torch_case("mlp", True)
    hinted = _hinted(imp.module)
    weights = _weights(hinted, imp.params)
    placed = PlaceDevices(default="host")(to_tvm(hinted, weights))
    with pytest.raises(ValueError, match="Mismatched"):
        _run_tvm(placed, [x, *weights], plan_memory=True)


def test_tvm_vm_runs_constants_on_the_first_device_only():
    """In TVM 0.27 a constant used on the second CPU fails at run time, with TVM's own RealizeVDevice too.

    So a model converted with its weights as constants runs in TVM's VM only
    where no constant is used off the first device; the test above accepts
    that failure only then.  This test fails once a pinned TVM runs it.
    """
    text = """
@I.ir_module
class Example:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("llvm", 1)]})

    @R.function
    def main(x: R.Tensor((2, 3), "float32", "llvm:0")) -> R.Tensor((2, 3), "float32", "llvm:1"):
        with R.dataflow():
            lv1: R.Tensor((2, 3), "float32", "llvm:1") = R.to_vdevice(x, "llvm:1")
            gv: R.Tensor((2, 3), "float32", "llvm:1") = R.add(lv1, R.const(np.ones((2, 3), "float32")))
            R.output(gv)
        return gv
"""
    from tvm.script.parser.core.entry import _default_globals

    example = tvm.script.from_source(text, extra_vars={**_default_globals(), "np": np})
    with pytest.raises(ValueError, match="Mismatched"):
        _run_tvm(relax.transform.RealizeVDevice()(example), [np.ones((2, 3), "float32")])


def test_to_tvm_takes_from_torchs_weights_as_they_come():
    """`from_torch` gives the weights by name; `to_tvm` takes that dict as it is (it once failed deep in TVM)."""
    imp, x, want = _torch_case("mlp", True)
    back = to_tvm(imp.module, imp.params)
    vm = relax.VirtualMachine(tvm.compile(back, "llvm"), tvm.cpu())
    weights = [tvm.runtime.tensor(imp.params[p.name]) for p in imp.module["main"].params[1:]]
    (got,) = vm["main"](tvm.runtime.tensor(x), *weights)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5)
