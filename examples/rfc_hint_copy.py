# The Relax heterogeneous-execution RFC's example: two hints and an explicit copy.
# x is hinted onto the CPU, y onto the GPU; s1 is computed on the CPU and copied
# to the GPU, where it meets y.  vdplace annotates every tensor and turns each
# hint into an alias or a copy, whichever moves fewer bytes.
import tvm
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            x1 = R.hint_on_device(x, tvm.cpu())
            y1 = R.hint_on_device(y, tvm.cuda())
            s1 = R.add(x1, x1)
            s2 = R.to_vdevice(s1, "cuda:0")
            s = R.add(y1, s2)
            R.output(s)
        return s
