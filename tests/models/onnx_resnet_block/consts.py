# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 8, 8, 8), dtype="float32")) -> R.Tensor((1, 16, 4, 4), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, 16, 4, 4), dtype="float32") = R.nn.conv2d(x, metadata["ir.GenericConst"][0], strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv1: R.Tensor((1, 16, 1, 1), dtype="float32") = R.reshape(metadata["ir.GenericConst"][1], R.shape([1, 16, 1, 1]))
            lv2: R.Tensor((1, 16, 4, 4), dtype="float32") = R.add(lv, lv1)
            lv3: R.Tensor((1, 16, 4, 4), dtype="float32") = R.nn.relu(lv2)
            lv4: R.Tensor((1, 16, 4, 4), dtype="float32") = R.nn.conv2d(lv3, metadata["ir.GenericConst"][2], strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv5: R.Tensor((1, 16, 1, 1), dtype="float32") = R.reshape(metadata["ir.GenericConst"][3], R.shape([1, 16, 1, 1]))
            lv6: R.Tensor((1, 16, 4, 4), dtype="float32") = R.nn.conv2d(x, metadata["ir.GenericConst"][4], strides=[2, 2], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv7: R.Tensor((1, 16, 1, 1), dtype="float32") = R.reshape(metadata["ir.GenericConst"][5], R.shape([1, 16, 1, 1]))
            lv8: R.Tensor((1, 16, 4, 4), dtype="float32") = R.add(lv4, lv5)
            lv9: R.Tensor((1, 16, 4, 4), dtype="float32") = R.add(lv6, lv7)
            lv10: R.Tensor((1, 16, 4, 4), dtype="float32") = R.add(lv8, lv9)
            gv: R.Tensor((1, 16, 4, 4), dtype="float32") = R.nn.relu(lv10)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.