# A layer written once as a function and called at three sites: the time objective schedules each call as
# the layer's body at its call site (docs/schedule.md, "Calls").  `layer` is placed once for all its call
# sites (as TVM runs it), so its matmul and relu run on one device at every call; main's own `head` branch
# may run on the other device at the same time.  The schedule's events of `layer` carry their call site:
#
#     vdplace place examples/schedule_calls.py --objective time --cost roofline --json
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})

    @R.function
    def layer(x: R.Tensor((64, 1024), "float32"), w: R.Tensor((1024, 1024), "float32")) -> R.Tensor(
        (64, 1024), "float32"
    ):
        m = R.matmul(x, w)
        y = R.nn.relu(m)
        return y

    @R.function
    def main(
        x: R.Tensor((64, 1024), "float32", "llvm:0"),
        w1: R.Tensor((1024, 1024), "float32"),
        w2: R.Tensor((1024, 1024), "float32"),
        w3: R.Tensor((1024, 1024), "float32"),
        wh: R.Tensor((1024, 1024), "float32"),
    ) -> R.Tensor((64, 1024), "float32", "llvm:0"):
        R.func_attr({"num_input": 1})
        a1 = Module.layer(x, w1)
        a2 = Module.layer(a1, w2)
        a3 = Module.layer(a2, w3)
        mh = R.matmul(x, wh)
        h = R.nn.relu(mh)
        y = R.add(a3, h)
        return y
