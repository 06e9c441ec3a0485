# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 8, 8, 8), dtype="float32")) -> R.Tensor((1, 8, 8, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.conv2d(x, metadata["ir.GenericConst"][0], strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=8, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv1: R.Tensor((1, 8, 1, 1), dtype="float32") = R.reshape(metadata["ir.GenericConst"][1], R.shape([1, 8, 1, 1]))
            lv2: R.Tensor((1, 8, 8, 8), dtype="float32") = R.add(lv, lv1)
            lv3: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.leakyrelu(lv2, alpha=0.10000000149011612)
            lv4: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.conv2d(lv3, metadata["ir.GenericConst"][2], strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv5: R.Tensor((1, 8, 1, 1), dtype="float32") = R.reshape(metadata["ir.GenericConst"][3], R.shape([1, 8, 1, 1]))
            lv6: R.Tensor((1, 8, 8, 8), dtype="float32") = R.add(lv4, lv5)
            lv7: R.Tensor((1, 8, 8, 8), dtype="float32") = R.add(lv6, R.const(3.0, "float32"))
            lv8: R.Tensor((1, 8, 8, 8), dtype="float32") = R.clip(lv7, 0, 6)
            lv9: R.Tensor((1, 8, 8, 8), dtype="float32") = R.divide(lv8, R.const(6.0, "float32"))
            lv10: R.Tensor((1, 8, 8, 8), dtype="float32") = R.multiply(lv6, lv9)
            lv11: R.Tensor((1, 8, 4, 4), dtype="float32") = R.nn.avg_pool2d(lv10, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=True, layout="NCHW", out_layout="NCHW")
            lv12: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.conv2d_transpose(lv11, metadata["ir.GenericConst"][4], strides=[2, 2], padding=[0, 0, 0, 0], output_padding=[0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype=None)
            lv13: R.Tensor((1, 8, 1, 1), dtype="float32") = R.reshape(metadata["ir.GenericConst"][5], R.shape([1, 8, 1, 1]))
            lv14: R.Tensor((1, 8, 8, 8), dtype="float32") = R.add(lv12, lv13)
            lv15: R.Tensor((1, 8, 8, 8), dtype="float32") = R.image.resize2d(lv11, R.shape([8, 8]), roi=[T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0)], layout="NCHW", method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="floor", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype=None)
            lv16: R.Tensor((1, 16, 8, 8), dtype="float32") = R.concat((lv14, lv15), axis=1)
            lv17: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.conv2d(lv16, metadata["ir.GenericConst"][6], strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv18: R.Tensor((1, 8, 1, 1), dtype="float32") = R.reshape(metadata["ir.GenericConst"][7], R.shape([1, 8, 1, 1]))
            gv: R.Tensor((1, 8, 8, 8), dtype="float32") = R.add(lv17, lv18)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.