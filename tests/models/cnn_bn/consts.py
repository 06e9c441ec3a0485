# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 16, 16), dtype="float32")) -> R.Tuple(R.Tensor((1, 8, 8, 8), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((1, 8, 16, 16), dtype="float32") = R.nn.conv2d(x, metadata["ir.GenericConst"][0], strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="float32")
            lv1: R.Tensor((1, 8, 1, 1), dtype="float32") = R.reshape(metadata["ir.GenericConst"][1], R.shape([1, 8, 1, 1]))
            lv2: R.Tensor((1, 8, 16, 16), dtype="float32") = R.add(lv, lv1)
            lv3: R.Tuple(R.Tensor((1, 8, 16, 16), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")) = R.nn.batch_norm(lv2, metadata["ir.GenericConst"][2], metadata["ir.GenericConst"][3], metadata["ir.GenericConst"][4], metadata["ir.GenericConst"][5], axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=False)
            lv4: R.Tensor((1, 8, 16, 16), dtype="float32") = lv3[0]
            lv5: R.Tensor((1, 8, 16, 16), dtype="float32") = R.nn.relu(lv4)
            lv6: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.max_pool2d(lv5, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
            lv7: R.Tensor((1, 8, 8, 8), dtype="float32") = R.zeros_like(lv6, dtype=None)
            lv8: R.Tuple(R.Tensor((1, 8, 8, 8), dtype="float32"), R.Tensor((1, 8, 8, 8), dtype="float32")) = lv6, lv7
            lv9: R.Tensor((1, 8, 8, 8), dtype="float32") = lv8[0]
            gv: R.Tuple(R.Tensor((1, 8, 8, 8), dtype="float32")) = (lv9,)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.