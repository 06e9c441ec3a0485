# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 8, 8, 8), dtype="float32")) -> R.Tuple(R.Tensor((1, 8, 8, 8), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.conv2d(x, metadata["ir.GenericConst"][0], strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="float32")
            lv1: R.Tuple(R.Tensor((1, 8, 8, 8), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")) = R.nn.batch_norm(lv, metadata["ir.GenericConst"][1], metadata["ir.GenericConst"][2], metadata["ir.GenericConst"][3], metadata["ir.GenericConst"][4], axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=False)
            lv2: R.Tensor((1, 8, 8, 8), dtype="float32") = lv1[0]
            lv3: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.relu(lv2)
            lv4: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.conv2d(lv3, metadata["ir.GenericConst"][5], strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="float32")
            lv5: R.Tuple(R.Tensor((1, 8, 8, 8), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")) = R.nn.batch_norm(lv4, metadata["ir.GenericConst"][6], metadata["ir.GenericConst"][7], metadata["ir.GenericConst"][8], metadata["ir.GenericConst"][9], axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=False)
            lv6: R.Tensor((1, 8, 8, 8), dtype="float32") = lv5[0]
            lv7: R.Tensor((1, 8, 8, 8), dtype="float32") = R.add(lv6, x)
            lv8: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.relu(lv7)
            gv: R.Tuple(R.Tensor((1, 8, 8, 8), dtype="float32")) = (lv8,)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.