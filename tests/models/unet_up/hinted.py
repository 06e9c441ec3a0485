# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice({"keys": ["cpu"], "kind": "llvm", "mtriple": "x86_64-conda-linux-gnu", "tag": ""}, 0, "global"), I.vdevice({"arch": "sm_50", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}, 0, "global")]})
    @R.function
    def main(low: R.Tensor((1, 8, 4, 4), dtype="float32"), skip: R.Tensor((1, 4, 8, 8), dtype="float32"), p_up_weight: R.Tensor((8, 4, 2, 2), dtype="float32"), p_up_bias: R.Tensor((4,), dtype="float32"), p_conv_weight: R.Tensor((4, 8, 3, 3), dtype="float32"), p_conv_bias: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((1, 4, 8, 8), dtype="float32")):
        R.func_attr({"num_input": 2, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1], metadata["ffi.Tensor"][2], metadata["ffi.Tensor"][3]]})
        with R.dataflow():
            lv: R.Tensor((1, 4, 8, 8), dtype="float32") = R.nn.conv2d_transpose(low, p_up_weight, strides=[2, 2], padding=[0, 0, 0, 0], output_padding=[0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype="float32")
            lv1: R.Tensor((1, 4, 1, 1), dtype="float32") = R.reshape(p_up_bias, R.shape([1, 4, 1, 1]))
            lv2: R.Tensor((1, 4, 8, 8), dtype="float32") = R.add(lv, lv1)
            lv3: R.Tensor((1, 8, 8, 8), dtype="float32") = R.concat((lv2, skip), axis=1)
            lv3_1: R.Tensor((1, 8, 8, 8), dtype="float32") = R.hint_on_device(lv3, R.device(device_type=2, index=0), "global")
            lv4: R.Tensor((1, 4, 8, 8), dtype="float32") = R.nn.conv2d(lv3_1, p_conv_weight, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="float32")
            lv5: R.Tensor((1, 4, 1, 1), dtype="float32") = R.reshape(p_conv_bias, R.shape([1, 4, 1, 1]))
            lv6: R.Tensor((1, 4, 8, 8), dtype="float32") = R.add(lv4, lv5)
            lv7: R.Tensor((1, 4, 8, 8), dtype="float32") = R.nn.relu(lv6)
            lv7_1: R.Tensor((1, 4, 8, 8), dtype="float32") = R.hint_on_device(lv7, R.device(device_type=1, index=0), "global")
            lv8: R.Tensor((1, 4, 4, 4), dtype="float32") = R.strided_slice(low, (1,), (0,), (4,), (1,), assume_inbound=False)
            lv9: R.Tensor((1, 4, 8, 8), dtype="float32") = R.image.resize2d(lv8, R.shape([8, 8]), roi=[T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0)], layout="NCHW", method="linear", coordinate_transformation_mode="half_pixel", rounding_method="round", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype=None)
            lv10: R.Tensor((1, 4, 8, 8), dtype="float32") = R.add(lv7_1, lv9)
            gv: R.Tuple(R.Tensor((1, 4, 8, 8), dtype="float32")) = (lv10,)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.