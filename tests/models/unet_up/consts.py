# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(low: R.Tensor((1, 8, 4, 4), dtype="float32"), skip: R.Tensor((1, 4, 8, 8), dtype="float32")) -> R.Tuple(R.Tensor((1, 4, 8, 8), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((1, 4, 8, 8), dtype="float32") = R.nn.conv2d_transpose(low, metadata["ir.GenericConst"][0], strides=[2, 2], padding=[0, 0, 0, 0], output_padding=[0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype="float32")
            lv1: R.Tensor((1, 4, 1, 1), dtype="float32") = R.reshape(metadata["ir.GenericConst"][1], R.shape([1, 4, 1, 1]))
            lv2: R.Tensor((1, 4, 8, 8), dtype="float32") = R.add(lv, lv1)
            lv3: R.Tensor((1, 8, 8, 8), dtype="float32") = R.concat((lv2, skip), axis=1)
            lv4: R.Tensor((1, 4, 8, 8), dtype="float32") = R.nn.conv2d(lv3, metadata["ir.GenericConst"][2], strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="float32")
            lv5: R.Tensor((1, 4, 1, 1), dtype="float32") = R.reshape(metadata["ir.GenericConst"][3], R.shape([1, 4, 1, 1]))
            lv6: R.Tensor((1, 4, 8, 8), dtype="float32") = R.add(lv4, lv5)
            lv7: R.Tensor((1, 4, 8, 8), dtype="float32") = R.nn.relu(lv6)
            lv8: R.Tensor((1, 4, 4, 4), dtype="float32") = R.strided_slice(low, (1,), (0,), (4,), (1,), assume_inbound=False)
            lv9: R.Tensor((1, 4, 8, 8), dtype="float32") = R.image.resize2d(lv8, R.shape([8, 8]), roi=[T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0)], layout="NCHW", method="linear", coordinate_transformation_mode="half_pixel", rounding_method="round", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype=None)
            lv10: R.Tensor((1, 4, 8, 8), dtype="float32") = R.add(lv7, lv9)
            gv: R.Tuple(R.Tensor((1, 4, 8, 8), dtype="float32")) = (lv10,)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.