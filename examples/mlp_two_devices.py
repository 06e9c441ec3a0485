# A small MLP split over a CPU and a GPU, with a call, an If and a tuple.  Two
# hints decide where every tensor lives: the first layer (inside `layer`, which
# TVM would leave unplaced) runs on the CPU, the rest on the GPU, with one copy.
import tvm
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def layer(
        x: R.Tensor((4, 16), "float32"), w: R.Tensor((16, 16), "float32"), b: R.Tensor((16,), "float32")
    ) -> R.Tensor((4, 16), "float32"):
        with R.dataflow():
            h = R.matmul(x, w)
            h1 = R.add(h, b)
            y = R.nn.relu(h1)
            R.output(y)
        return y

    @R.function
    def main(
        x: R.Tensor((4, 16), "float32"),
        w1: R.Tensor((16, 16), "float32"),
        b1: R.Tensor((16,), "float32"),
        w2: R.Tensor((16, 16), "float32"),
        flag: R.Tensor((), "bool"),
    ) -> R.Tuple([R.Tensor((4, 16), "float32", "cuda:0"), R.Tensor((4,), "float32")]):
        cls = Module
        x1 = R.hint_on_device(x, tvm.cpu())
        h = cls.layer(x1, w1, b1)
        h2 = R.hint_on_device(h, tvm.cuda())
        if flag:
            r = R.nn.softmax(h2, axis=-1)
        else:
            r = R.nn.gelu(h2)
        o = R.matmul(r, w2)
        sm = R.sum(r, axis=[1])
        t = (o, sm)
        out0 = t[0]
        out1 = t[1]
        return (out0, out1)
