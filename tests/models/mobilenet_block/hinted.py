# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice({"keys": ["cpu"], "kind": "llvm", "mtriple": "x86_64-conda-linux-gnu", "tag": ""}, 0, "global"), I.vdevice({"arch": "sm_50", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}, 0, "global")]})
    @R.function
    def main(x: R.Tensor((1, 8, 8, 8), dtype="float32"), p_depthwise_weight: R.Tensor((8, 1, 3, 3), dtype="float32"), p_bn1_weight: R.Tensor((8,), dtype="float32"), p_bn1_bias: R.Tensor((8,), dtype="float32"), p_pointwise_weight: R.Tensor((16, 8, 1, 1), dtype="float32"), p_bn2_weight: R.Tensor((16,), dtype="float32"), p_bn2_bias: R.Tensor((16,), dtype="float32")) -> R.Tuple(R.Tensor((1, 16, 8, 8), dtype="float32")):
        R.func_attr({"num_input": 1, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1], metadata["ffi.Tensor"][2], metadata["ffi.Tensor"][3], metadata["ffi.Tensor"][4], metadata["ffi.Tensor"][5]]})
        with R.dataflow():
            lv: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.conv2d(x, p_depthwise_weight, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=8, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="float32")
            lv1: R.Tuple(R.Tensor((1, 8, 8, 8), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")) = R.nn.batch_norm(lv, p_bn1_weight, p_bn1_bias, metadata["ir.GenericConst"][0], metadata["ir.GenericConst"][1], axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=False)
            lv2: R.Tensor((1, 8, 8, 8), dtype="float32") = lv1[0]
            lv3: R.Tensor((1, 8, 8, 8), dtype="float32") = R.clip(lv2, 0, 6)
            lv3_1: R.Tensor((1, 8, 8, 8), dtype="float32") = R.hint_on_device(lv3, R.device(device_type=2, index=0), "global")
            lv4: R.Tensor((1, 16, 8, 8), dtype="float32") = R.nn.conv2d(lv3_1, p_pointwise_weight, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="float32")
            lv4_1: R.Tensor((1, 16, 8, 8), dtype="float32") = R.hint_on_device(lv4, R.device(device_type=1, index=0), "global")
            lv5: R.Tuple(R.Tensor((1, 16, 8, 8), dtype="float32"), R.Tensor((16,), dtype="float32"), R.Tensor((16,), dtype="float32")) = R.nn.batch_norm(lv4_1, p_bn2_weight, p_bn2_bias, metadata["ir.GenericConst"][2], metadata["ir.GenericConst"][3], axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=False)
            lv6: R.Tensor((1, 16, 8, 8), dtype="float32") = lv5[0]
            lv7: R.Tensor((1, 16, 8, 8), dtype="float32") = R.clip(lv6, 0, 6)
            gv: R.Tuple(R.Tensor((1, 16, 8, 8), dtype="float32")) = (lv7,)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.