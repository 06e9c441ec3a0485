# A six-layer MLP whose weights (6 x 4 MiB) do not fit a small GPU: cost-aware placement decides where
# each layer runs.  Only the input and the result are pinned to the CPU; every weight and every layer may go
# to either device.  With a roofline cost model (examples/cost_offload.json, the defaults of
# CostModel.roofline()) the GPU is faster for every layer, so without a memory limit everything but the
# input and the result moves there; with `--memory cuda:0=16MiB` at most three weights fit on the GPU and
# the other layers must stay on the CPU:
#
#     vdplace place --cost examples/cost_offload.json --memory cuda:0=16MiB examples/cost_offload.py
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})

    @R.function
    def main(
        x: R.Tensor((16, 1024), "float32", "llvm:0"),
        w1: R.Tensor((1024, 1024), "float32"),
        b1: R.Tensor((1024,), "float32"),
        w2: R.Tensor((1024, 1024), "float32"),
        b2: R.Tensor((1024,), "float32"),
        w3: R.Tensor((1024, 1024), "float32"),
        b3: R.Tensor((1024,), "float32"),
        w4: R.Tensor((1024, 1024), "float32"),
        b4: R.Tensor((1024,), "float32"),
        w5: R.Tensor((1024, 1024), "float32"),
        b5: R.Tensor((1024,), "float32"),
        w6: R.Tensor((1024, 1024), "float32"),
        b6: R.Tensor((1024,), "float32"),
    ) -> R.Tensor((16, 1024), "float32", "llvm:0"):
        with R.dataflow():
            m1 = R.matmul(x, w1)
            a1 = R.add(m1, b1)
            h1 = R.nn.relu(a1)
            m2 = R.matmul(h1, w2)
            a2 = R.add(m2, b2)
            h2 = R.nn.relu(a2)
            m3 = R.matmul(h2, w3)
            a3 = R.add(m3, b3)
            h3 = R.nn.relu(a3)
            m4 = R.matmul(h3, w4)
            a4 = R.add(m4, b4)
            h4 = R.nn.relu(a4)
            m5 = R.matmul(h4, w5)
            a5 = R.add(m5, b5)
            h5 = R.nn.relu(a5)
            m6 = R.matmul(h5, w6)
            a6 = R.add(m6, b6)
            y: R.Tensor((16, 1024), "float32", "llvm:0") = R.nn.softmax(a6, axis=-1)
            R.output(y)
        return y
