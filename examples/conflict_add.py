# A conflict vdplace explains: x1 is pinned to the CPU and y1 to the GPU, and
# R.add needs both operands on one device.  `vdplace place` exits 1 with a
# report that points at both annotations and at the add, and suggests a fix.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        x1: R.Tensor((2, 3), "float32", "llvm") = R.exp(x)
        y1: R.Tensor((2, 3), "float32", "cuda") = R.exp(y)
        s = R.add(x1, y1)
        return s
