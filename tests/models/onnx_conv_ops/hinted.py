# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice({"keys": ["cpu"], "kind": "llvm", "mtriple": "x86_64-conda-linux-gnu", "tag": ""}, 0, "global"), I.vdevice({"arch": "sm_50", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}, 0, "global")]})
    @R.function
    def main(x: R.Tensor((1, 8, 8, 8), dtype="float32"), depthwise_weight: R.Tensor((8, 1, 3, 3), dtype="float32"), depthwise_bias: R.Tensor((8,), dtype="float32"), pointwise_weight: R.Tensor((8, 8, 1, 1), dtype="float32"), pointwise_bias: R.Tensor((8,), dtype="float32"), up_weight: R.Tensor((8, 8, 2, 2), dtype="float32"), up_bias: R.Tensor((8,), dtype="float32"), fuse_weight: R.Tensor((8, 16, 3, 3), dtype="float32"), fuse_bias: R.Tensor((8,), dtype="float32")) -> R.Tensor((1, 8, 8, 8), dtype="float32"):
        R.func_attr({"num_input": 1, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1], metadata["ffi.Tensor"][2], metadata["ffi.Tensor"][3], metadata["ffi.Tensor"][4], metadata["ffi.Tensor"][5], metadata["ffi.Tensor"][6], metadata["ffi.Tensor"][7]]})
        with R.dataflow():
            lv: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.conv2d(x, depthwise_weight, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=8, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv1: R.Tensor((1, 8, 1, 1), dtype="float32") = R.reshape(depthwise_bias, R.shape([1, 8, 1, 1]))
            lv2: R.Tensor((1, 8, 8, 8), dtype="float32") = R.add(lv, lv1)
            lv3: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.leakyrelu(lv2, alpha=0.10000000149011612)
            lv4: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.conv2d(lv3, pointwise_weight, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv5: R.Tensor((1, 8, 1, 1), dtype="float32") = R.reshape(pointwise_bias, R.shape([1, 8, 1, 1]))
            lv6: R.Tensor((1, 8, 8, 8), dtype="float32") = R.add(lv4, lv5)
            lv7: R.Tensor((1, 8, 8, 8), dtype="float32") = R.add(lv6, R.const(3.0, "float32"))
            lv7_1: R.Tensor((1, 8, 8, 8), dtype="float32") = R.hint_on_device(lv7, R.device(device_type=2, index=0), "global")
            lv8: R.Tensor((1, 8, 8, 8), dtype="float32") = R.clip(lv7_1, 0, 6)
            lv9: R.Tensor((1, 8, 8, 8), dtype="float32") = R.divide(lv8, R.const(6.0, "float32"))
            lv10: R.Tensor((1, 8, 8, 8), dtype="float32") = R.multiply(lv6, lv9)
            lv11: R.Tensor((1, 8, 4, 4), dtype="float32") = R.nn.avg_pool2d(lv10, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=True, layout="NCHW", out_layout="NCHW")
            lv11_1: R.Tensor((1, 8, 4, 4), dtype="float32") = R.hint_on_device(lv11, R.device(device_type=1, index=0), "global")
            lv12: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.conv2d_transpose(lv11_1, up_weight, strides=[2, 2], padding=[0, 0, 0, 0], output_padding=[0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype=None)
            lv13: R.Tensor((1, 8, 1, 1), dtype="float32") = R.reshape(up_bias, R.shape([1, 8, 1, 1]))
            lv14: R.Tensor((1, 8, 8, 8), dtype="float32") = R.add(lv12, lv13)
            lv15: R.Tensor((1, 8, 8, 8), dtype="float32") = R.image.resize2d(lv11_1, R.shape([8, 8]), roi=[T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0)], layout="NCHW", method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="floor", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype=None)
            lv16: R.Tensor((1, 16, 8, 8), dtype="float32") = R.concat((lv14, lv15), axis=1)
            lv17: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.conv2d(lv16, fuse_weight, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv18: R.Tensor((1, 8, 1, 1), dtype="float32") = R.reshape(fuse_bias, R.shape([1, 8, 1, 1]))
            gv: R.Tensor((1, 8, 8, 8), dtype="float32") = R.add(lv17, lv18)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.