# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 8, 16), dtype="float32")) -> R.Tensor((1, 8, 16), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, 8, 16), dtype="float32") = R.matmul(x, metadata["ir.GenericConst"][0], out_dtype=None)
            lv1: R.Tensor((1, 8, 16), dtype="float32") = R.add(metadata["ir.GenericConst"][1], lv)
            lv2: R.Tensor((1, 8, 2, 8), dtype="float32") = R.reshape(lv1, R.shape([1, 8, 2, 8]))
            lv3: R.Tensor((1, 8, 16), dtype="float32") = R.matmul(x, metadata["ir.GenericConst"][2], out_dtype=None)
            lv4: R.Tensor((1, 8, 16), dtype="float32") = R.add(metadata["ir.GenericConst"][3], lv3)
            lv5: R.Tensor((1, 8, 16), dtype="float32") = R.matmul(x, metadata["ir.GenericConst"][4], out_dtype=None)
            lv6: R.Tensor((1, 8, 16), dtype="float32") = R.add(metadata["ir.GenericConst"][5], lv5)
            lv7: R.Tensor((1, 8, 2, 8), dtype="float32") = R.reshape(lv6, R.shape([1, 8, 2, 8]))
            lv8: R.Tensor((1, 8, 2, 8), dtype="float32") = R.reshape(lv4, R.shape([1, 8, 2, 8]))
            lv9: R.Tensor((1, 2, 8, 8), dtype="float32") = R.permute_dims(lv2, axes=[0, 2, 1, 3])
            lv10: R.Tensor((1, 2, 8, 8), dtype="float32") = R.permute_dims(lv8, axes=[0, 2, 3, 1])
            lv11: R.Tensor((1, 2, 8, 8), dtype="float32") = R.matmul(lv9, lv10, out_dtype=None)
            lv12: R.Tensor((8, 8), dtype="bool") = R.triu(metadata["ir.GenericConst"][6], 1)
            lv13: R.Tensor((1, 2, 8, 8), dtype="float32") = R.divide(lv11, R.const(2.8284270763397217, "float32"))
            lv14: R.Tensor((1, 2, 8, 8), dtype="float32") = R.where(lv12, R.const("-inf", "float32"), lv13)
            lv15: R.Tensor((1, 2, 8, 8), dtype="float32") = R.nn.softmax(lv14, axis=-1)
            lv16: R.Tensor((1, 2, 8, 8), dtype="float32") = R.permute_dims(lv7, axes=[0, 2, 1, 3])
            lv17: R.Tensor((1, 2, 8, 8), dtype="float32") = R.matmul(lv15, lv16, out_dtype=None)
            lv18: R.Tensor((1, 8, 2, 8), dtype="float32") = R.permute_dims(lv17, axes=[0, 2, 1, 3])
            lv19: R.Tensor((1, 8, 16), dtype="float32") = R.reshape(lv18, R.shape([1, 8, 16]))
            lv20: R.Tensor((1, 8, 16), dtype="float32") = R.matmul(lv19, metadata["ir.GenericConst"][7], out_dtype=None)
            gv: R.Tensor((1, 8, 16), dtype="float32") = R.add(metadata["ir.GenericConst"][8], lv20)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.