# Backward and interprocedural propagation, from the RFC's RealizeVDevice section.
# func1's return annotation places everything before it; func2's trailing hint
# places the computation that feeds it; caller's hint on the result of callee
# reaches *into* callee (TVM's RealizeVDevice never enters callees).
import tvm
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm")]})

    @R.function
    def func1(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32", "cuda:0"):
        a = R.add(x, y)
        b = R.multiply(a, x)
        return b

    @R.function
    def func2(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            s1 = R.add(x, y)
            s2 = R.multiply(s1, s1)
            s3 = R.hint_on_device(s2, tvm.cpu())
            R.output(s3)
        return s3

    @R.function
    def callee(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        r = R.add(x, x)
        return r

    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        s1 = cls.callee(x)
        s2 = R.hint_on_device(s1, tvm.cuda())
        s3 = R.add(s2, s2)
        return s3
