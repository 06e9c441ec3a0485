"""The cost of a placed module, read from the module alone: the checker of cost-aware placement.

It never sees the solver's problem.  It walks every function once (a callee
counts once, however many call sites it has) and adds up:

* compute: `CostModel.kernel` of every binding whose value is an op call
  other than a copy op and whose variable holds a tensor, on the vdevice of
  its first tensor leaf;
* transfer: `CostModel.copy` of every ``R.to_vdevice`` / ``R.hint_on_device``
  binding, from its input's vdevice to its result's;
* memory, per vdevice: every parameter's tensor leaves, every such op's
  result leaves, every constant bound or passed to an op, every copy's result.

Aliases, tuples, tuple items, If results and calls of module functions hold
nothing of their own.
"""

from __future__ import annotations

from vdplace.ir.expr import Binding, Call, Constant, If, SeqExpr
from vdplace.ir.module import IRModule
from vdplace.ir.op import Op
from vdplace.ir.sizes import Sizes
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, tensor_leaves
from vdplace.ir.vdevice import VDevice, vdevice_name
from vdplace.placement.cost.describe import op_info
from vdplace.placement.cost.model import CostModel
from vdplace.placement.cost.problem import COPY_OPS


class Transfer:
    """One copy of the placed module: `function`, `var`, `src` and `dst` vdevice names, `nbytes`, `seconds`."""

    __slots__ = ("function", "var", "src", "dst", "nbytes", "seconds")

    def __init__(self, function: str, var: str, src: str, dst: str, nbytes: int, seconds: float) -> None:
        self.function = function
        self.var = var
        self.src = src
        self.dst = dst
        self.nbytes = nbytes
        self.seconds = seconds

    def __repr__(self) -> str:
        return f"Transfer({self.function}:{self.var}, {self.src} -> {self.dst}, {self.nbytes}B, {self.seconds:.3g}s)"


class Evaluation:
    """compute and transfer (seconds), per-device compute (`device_compute`), `memory` (bytes), `transfers`."""

    __slots__ = ("compute", "transfer", "device_compute", "memory", "transfers")

    def __init__(self) -> None:
        self.compute = 0.0
        self.transfer = 0.0
        self.device_compute: dict[str, float] = {}
        self.memory: dict[str, int] = {}
        self.transfers: list[Transfer] = []

    @property
    def total(self) -> float:
        return self.compute + self.transfer


def evaluate(mod: IRModule, model: CostModel, sizes: Sizes | None = None) -> Evaluation:
    """The cost of placed module `mod` under `model` (see the module docstring), symbolic dims sized by `sizes`
    (default: `Sizes(mod)`)."""
    return _Evaluator(mod, model, Sizes(mod) if sizes is None else sizes).run()


class _Evaluator:
    def __init__(self, mod: IRModule, model: CostModel, sizes: Sizes) -> None:
        self.mod = mod
        self.model = model
        self.sizes = sizes
        self.vdevices = list(mod.vdevices)
        self.out = Evaluation()
        self.index: dict[str, int] = {}
        for i, v in enumerate(self.vdevices):
            name = vdevice_name(self.vdevices, v)
            self.index.setdefault(name, i)
            self.out.memory.setdefault(name, 0)
            self.out.device_compute.setdefault(name, 0.0)
        self.func = ""

    def name(self, vdevice: VDevice | None, where: str) -> str:
        if vdevice is None:
            raise ValueError(f"{self.func}:{where} has no vdevice: evaluate a placed module")
        return vdevice_name(self.vdevices, vdevice)

    def hold(self, sinfo: StructInfo, where: str) -> None:
        for _, leaf in tensor_leaves(sinfo):
            self.out.memory[self.name(leaf.vdevice, where)] += self.sizes.nbytes(leaf, self.func)

    def run(self) -> Evaluation:
        for fname, func in self.mod.functions.items():
            self.func = fname
            for param in func.params:
                self.hold(param.struct_info, param.name)
            self.seq(func.body)
        return self.out

    def seq(self, seq: SeqExpr) -> None:
        for block in seq.blocks:
            for binding in block.bindings:
                self.binding(binding)

    def binding(self, binding: Binding) -> None:
        value = binding.value
        if type(value) is If:
            self.seq(value.true_branch)
            self.seq(value.false_branch)
        elif type(value) is Constant:
            self.hold(value.struct_info, binding.var.name)
        elif type(value) is Call and type(value.op) is Op:
            self.call(binding, value, value.op)

    def call(self, binding: Binding, call: Call, op: Op) -> None:
        var = binding.var
        out = self.out
        if op.name in COPY_OPS:
            source, result = call.args[0].struct_info, var.struct_info
            assert isinstance(source, TensorStructInfo) and isinstance(result, TensorStructInfo), "inference checked"
            src = self.name(source.vdevice, var.name)
            dst = self.name(result.vdevice, var.name)
            size = self.sizes.nbytes(result, self.func)
            vd = self.vdevices
            seconds = self.model.copy(size, vd[self.index[src]], vd[self.index[dst]], vd)
            out.transfer += seconds
            out.memory[dst] += size
            out.transfers.append(Transfer(self.func, var.name, src, dst, size, seconds))
            return
        leaves = list(tensor_leaves(var.struct_info))
        if not leaves:
            return  # no tensor made (``R.shape_of``): no work, and a constant read only so is held nowhere
        for arg in call.args:
            if type(arg) is Constant:
                self.hold(arg.struct_info, var.name)
        self.hold(var.struct_info, var.name)
        device = self.name(leaves[0][1].vdevice, var.name)
        info = op_info(self.func, var.name, call, binding.span, var.struct_info, self.sizes)
        kernel = self.model.kernel(info, self.vdevices[self.index[device]], self.vdevices)
        if kernel is None:
            raise ValueError(f"{self.func}:{var.name} (R.{op.name}) is placed on {device}, where it cannot run")
        out.compute += kernel
        out.device_compute[device] += kernel
