# The three ways to name a vdevice (RFC): "cuda" and "cuda:0" are the first
# entry of kind cuda; "vdevice:1" is entry 1 of the list, here the sm_80 target.
# "cuda:1" would be the *second cuda entry*, not device id 1.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos(
        {
            "vdevice": [
                I.vdevice("cuda", 0),
                I.vdevice("cuda -arch=sm_80", 0),
                I.vdevice("metal", 0, "global"),
                I.vdevice("llvm"),
            ]
        }
    )

    @R.function
    def main(
        a: R.Tensor((2, 3), "float32", "cuda"),
        b: R.Tensor((2, 3), "float32", "cuda:0"),
        c: R.Tensor((3, 4), "float32", "vdevice:1"),
    ) -> R.Tensor((2, 4), "float32"):
        s1 = R.add(a, b)
        s2 = R.to_vdevice(s1, "vdevice:1")
        s = R.matmul(s2, c)
        return s
