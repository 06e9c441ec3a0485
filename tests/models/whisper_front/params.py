# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(mel: R.Tensor((1, 8, 20), dtype="float32"), p_positions: R.Tensor((10, 16), dtype="float32"), p_conv1_weight: R.Tensor((16, 8, 3), dtype="float32"), p_conv1_bias: R.Tensor((16,), dtype="float32"), p_conv2_weight: R.Tensor((16, 16, 3), dtype="float32"), p_conv2_bias: R.Tensor((16,), dtype="float32")) -> R.Tuple(R.Tensor((1, 10, 16), dtype="float32")):
        R.func_attr({"num_input": 1, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1], metadata["ffi.Tensor"][2], metadata["ffi.Tensor"][3], metadata["ffi.Tensor"][4]]})
        with R.dataflow():
            lv: R.Tensor((1, 16, 20), dtype="float32") = R.nn.conv1d(mel, p_conv1_weight, strides=[1], padding=[1, 1], dilation=[1], groups=1, data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype="float32")
            lv1: R.Tensor((1, 16, 1), dtype="float32") = R.reshape(p_conv1_bias, R.shape([1, 16, 1]))
            lv2: R.Tensor((1, 16, 20), dtype="float32") = R.add(lv, lv1)
            lv3: R.Tensor((1, 16, 20), dtype="float32") = R.nn.gelu(lv2)
            lv4: R.Tensor((1, 16, 10), dtype="float32") = R.nn.conv1d(lv3, p_conv2_weight, strides=[2], padding=[1, 1], dilation=[1], groups=1, data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype="float32")
            lv5: R.Tensor((1, 16, 1), dtype="float32") = R.reshape(p_conv2_bias, R.shape([1, 16, 1]))
            lv6: R.Tensor((1, 16, 10), dtype="float32") = R.add(lv4, lv5)
            lv7: R.Tensor((1, 16, 10), dtype="float32") = R.nn.gelu(lv6)
            lv8: R.Tensor((1, 10, 16), dtype="float32") = R.permute_dims(lv7, axes=[0, 2, 1])
            lv9: R.Tensor((1, 10, 16), dtype="float32") = R.add(lv8, p_positions)
            gv: R.Tuple(R.Tensor((1, 10, 16), dtype="float32")) = (lv9,)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.