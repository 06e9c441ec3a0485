# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice({"keys": ["cpu"], "kind": "llvm", "mtriple": "x86_64-conda-linux-gnu", "tag": ""}, 0, "global"), I.vdevice({"arch": "sm_50", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}, 0, "global")]})
    @R.function
    def main(x: R.Tensor((1, 8, 8, 8), dtype="float32"), Conv_29: R.Tensor((16, 8, 3, 3), dtype="float32"), Conv_30: R.Tensor((16,), dtype="float32"), Conv_32: R.Tensor((16, 16, 3, 3), dtype="float32"), Conv_33: R.Tensor((16,), dtype="float32"), Conv_35: R.Tensor((16, 8, 1, 1), dtype="float32"), Conv_36: R.Tensor((16,), dtype="float32")) -> R.Tensor((1, 16, 4, 4), dtype="float32"):
        R.func_attr({"num_input": 1, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1], metadata["ffi.Tensor"][2], metadata["ffi.Tensor"][3], metadata["ffi.Tensor"][4], metadata["ffi.Tensor"][5]]})
        with R.dataflow():
            lv: R.Tensor((1, 16, 4, 4), dtype="float32") = R.nn.conv2d(x, Conv_29, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv1: R.Tensor((1, 16, 1, 1), dtype="float32") = R.reshape(Conv_30, R.shape([1, 16, 1, 1]))
            lv2: R.Tensor((1, 16, 4, 4), dtype="float32") = R.add(lv, lv1)
            lv3: R.Tensor((1, 16, 4, 4), dtype="float32") = R.nn.relu(lv2)
            lv3_1: R.Tensor((1, 16, 4, 4), dtype="float32") = R.hint_on_device(lv3, R.device(device_type=2, index=0), "global")
            lv4: R.Tensor((1, 16, 4, 4), dtype="float32") = R.nn.conv2d(lv3_1, Conv_32, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv5: R.Tensor((1, 16, 1, 1), dtype="float32") = R.reshape(Conv_33, R.shape([1, 16, 1, 1]))
            lv6: R.Tensor((1, 16, 4, 4), dtype="float32") = R.nn.conv2d(x, Conv_35, strides=[2, 2], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv7: R.Tensor((1, 16, 1, 1), dtype="float32") = R.reshape(Conv_36, R.shape([1, 16, 1, 1]))
            lv8: R.Tensor((1, 16, 4, 4), dtype="float32") = R.add(lv4, lv5)
            lv8_1: R.Tensor((1, 16, 4, 4), dtype="float32") = R.hint_on_device(lv8, R.device(device_type=1, index=0), "global")
            lv9: R.Tensor((1, 16, 4, 4), dtype="float32") = R.add(lv6, lv7)
            lv10: R.Tensor((1, 16, 4, 4), dtype="float32") = R.add(lv8_1, lv9)
            gv: R.Tensor((1, 16, 4, 4), dtype="float32") = R.nn.relu(lv10)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.