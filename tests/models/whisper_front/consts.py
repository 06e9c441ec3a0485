# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(mel: R.Tensor((1, 8, 20), dtype="float32")) -> R.Tuple(R.Tensor((1, 10, 16), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((1, 16, 20), dtype="float32") = R.nn.conv1d(mel, metadata["ir.GenericConst"][0], strides=[1], padding=[1, 1], dilation=[1], groups=1, data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype="float32")
            lv1: R.Tensor((1, 16, 1), dtype="float32") = R.reshape(metadata["ir.GenericConst"][1], R.shape([1, 16, 1]))
            lv2: R.Tensor((1, 16, 20), dtype="float32") = R.add(lv, lv1)
            lv3: R.Tensor((1, 16, 20), dtype="float32") = R.nn.gelu(lv2)
            lv4: R.Tensor((1, 16, 10), dtype="float32") = R.nn.conv1d(lv3, metadata["ir.GenericConst"][2], strides=[2], padding=[1, 1], dilation=[1], groups=1, data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype="float32")
            lv5: R.Tensor((1, 16, 1), dtype="float32") = R.reshape(metadata["ir.GenericConst"][3], R.shape([1, 16, 1]))
            lv6: R.Tensor((1, 16, 10), dtype="float32") = R.add(lv4, lv5)
            lv7: R.Tensor((1, 16, 10), dtype="float32") = R.nn.gelu(lv6)
            lv8: R.Tensor((1, 10, 16), dtype="float32") = R.permute_dims(lv7, axes=[0, 2, 1])
            lv9: R.Tensor((1, 10, 16), dtype="float32") = R.add(lv8, metadata["ir.GenericConst"][4])
            gv: R.Tuple(R.Tensor((1, 10, 16), dtype="float32")) = (lv9,)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.