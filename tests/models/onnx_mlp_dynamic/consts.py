# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

batch = TypeVar("batch")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((batch, 16), dtype="float32")) -> R.Tensor((batch, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((16, 32), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][0], axes=[1, 0])
            lv1: R.Tensor((batch, 32), dtype="float32") = R.matmul(x, lv, out_dtype=None)
            lv2: R.Tensor((batch, 32), dtype="float32") = R.add(lv1, metadata["ir.GenericConst"][1])
            lv3: R.Tensor((batch, 32), dtype="float32") = R.nn.relu(lv2)
            lv4: R.Tensor((32, 32), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][2], axes=[1, 0])
            lv5: R.Tensor((batch, 32), dtype="float32") = R.matmul(lv3, lv4, out_dtype=None)
            lv6: R.Tensor((batch, 32), dtype="float32") = R.add(lv5, metadata["ir.GenericConst"][3])
            lv7: R.Tensor((batch, 32), dtype="float32") = R.tanh(lv6)
            lv8: R.Tensor((32, 8), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][4], axes=[1, 0])
            lv9: R.Tensor((batch, 8), dtype="float32") = R.matmul(lv7, lv8, out_dtype=None)
            gv: R.Tensor((batch, 8), dtype="float32") = R.add(lv9, metadata["ir.GenericConst"][5])
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.