# A helper called from a CPU context and from a GPU context.  Every call site of
# `scale` shares its one signature (as in TVM), so `vdplace place` reports a
# conflict; `vdplace place --specialize` clones `scale` once per device the call
# sites need: `scale` keeps the CPU calls and `scale_cuda0` serves the GPU call.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def scale(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        y = R.add(x, x)
        z = R.multiply(y, x)
        return z

    @R.function
    def main(a: R.Tensor((2, 3), "float32"), b: R.Tensor((2, 3), "float32")) -> R.Tuple(
        R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32")
    ):
        cls = Module
        a1: R.Tensor((2, 3), "float32", "llvm") = R.exp(a)
        b1: R.Tensor((2, 3), "float32", "cuda") = R.exp(b)
        p = cls.scale(a1)
        p2 = cls.scale(p)
        q = cls.scale(b1)
        return (p2, q)
