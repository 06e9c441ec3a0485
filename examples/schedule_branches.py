# Two independent three-layer branches on one input, joined at the end: what the time objective is for.
# The input x and the result are pinned to the CPU; each 4 MiB weight and each layer may go to either device.
# The sum objective (`--cost` alone) adds every kernel and copy as if one thing ran at a time and counts every
# tensor as held for the whole run; the time objective (`--objective time`) runs the CPU and the GPU side by
# side and counts memory by liveness (docs/schedule.md):
#
#     vdplace place examples/schedule_branches.py --objective time --cost roofline --memory cuda:0=13MiB
#     vdplace place examples/schedule_branches.py --cost roofline --memory cuda:0=13MiB
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})

    @R.function
    def main(
        x: R.Tensor((64, 1024), "float32", "llvm:0"),
        wa1: R.Tensor((1024, 1024), "float32"),
        wa2: R.Tensor((1024, 1024), "float32"),
        wa3: R.Tensor((1024, 1024), "float32"),
        wb1: R.Tensor((1024, 1024), "float32"),
        wb2: R.Tensor((1024, 1024), "float32"),
        wb3: R.Tensor((1024, 1024), "float32"),
    ) -> R.Tensor((64, 1024), "float32", "llvm:0"):
        R.func_attr({"num_input": 1})
        ma1 = R.matmul(x, wa1)
        a1 = R.nn.relu(ma1)
        ma2 = R.matmul(a1, wa2)
        a2 = R.nn.relu(ma2)
        ma3 = R.matmul(a2, wa3)
        a3 = R.nn.relu(ma3)
        mb1 = R.matmul(x, wb1)
        b1 = R.nn.relu(mb1)
        mb2 = R.matmul(b1, wb2)
        b2 = R.nn.relu(mb2)
        mb3 = R.matmul(b2, wb3)
        b3 = R.nn.relu(mb3)
        y = R.add(a3, b3)
        return y
