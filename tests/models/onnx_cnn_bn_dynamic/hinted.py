# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

batch = TypeVar("batch")
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice({"keys": ["cpu"], "kind": "llvm", "mtriple": "x86_64-conda-linux-gnu", "tag": ""}, 0, "global"), I.vdevice({"arch": "sm_50", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}, 0, "global")]})
    @R.function
    def main(x: R.Tensor((batch, 3, 8, 8), dtype="float32"), conv2_weight: R.Tensor((8, 8, 3, 3), dtype="float32"), conv2_bias: R.Tensor((8,), dtype="float32"), bn2_weight: R.Tensor((8,), dtype="float32"), bn2_bias: R.Tensor((8,), dtype="float32"), bn2_running_mean: R.Tensor((8,), dtype="float32"), bn2_running_var: R.Tensor((8,), dtype="float32"), head_weight: R.Tensor((4, 8), dtype="float32"), head_bias: R.Tensor((4,), dtype="float32"), Conv_28: R.Tensor((8, 3, 3, 3), dtype="float32"), Conv_29: R.Tensor((8,), dtype="float32")) -> R.Tensor((batch, 4), dtype="float32"):
        R.func_attr({"num_input": 1, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1], metadata["ffi.Tensor"][2], metadata["ffi.Tensor"][3], metadata["ffi.Tensor"][4], metadata["ffi.Tensor"][5], metadata["ffi.Tensor"][6], metadata["ffi.Tensor"][7], metadata["ffi.Tensor"][8], metadata["ffi.Tensor"][9]]})
        with R.dataflow():
            lv: R.Tensor((batch, 8, 8, 8), dtype="float32") = R.nn.conv2d(x, Conv_28, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv1: R.Tensor((1, 8, 1, 1), dtype="float32") = R.reshape(Conv_29, R.shape([1, 8, 1, 1]))
            lv2: R.Tensor((batch, 8, 8, 8), dtype="float32") = R.add(lv, lv1)
            lv3: R.Tensor((batch, 8, 8, 8), dtype="float32") = R.nn.relu(lv2)
            lv4: R.Tensor((batch, 8, 4, 4), dtype="float32") = R.nn.max_pool2d(lv3, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
            lv4_1: R.Tensor((batch, 8, 4, 4), dtype="float32") = R.hint_on_device(lv4, R.device(device_type=2, index=0), "global")
            lv5: R.Tensor((batch, 8, 4, 4), dtype="float32") = R.nn.conv2d(lv4_1, conv2_weight, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv6: R.Tensor((1, 8, 1, 1), dtype="float32") = R.reshape(conv2_bias, R.shape([1, 8, 1, 1]))
            lv7: R.Tensor((batch, 8, 4, 4), dtype="float32") = R.add(lv5, lv6)
            lv8: R.Tensor((batch, 8, 4, 4), dtype="float32") = R.nn.relu(lv7)
            lv8_1: R.Tensor((batch, 8, 4, 4), dtype="float32") = R.hint_on_device(lv8, R.device(device_type=1, index=0), "global")
            lv9: R.Tuple(R.Tensor((batch, 8, 4, 4), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")) = R.nn.batch_norm(lv8_1, bn2_weight, bn2_bias, bn2_running_mean, bn2_running_var, axis=1, epsilon=9.9999997473787516e-06, center=True, scale=True, momentum=0.89999997615814209, training=False)
            lv10: R.Tensor((batch, 8, 4, 4), dtype="float32") = lv9[0]
            lv11: R.Tensor((8,), dtype="float32") = lv9[1]
            lv12: R.Tensor((8,), dtype="float32") = lv9[2]
            lv13: R.Tensor((batch, 8, 1, 1), dtype="float32") = R.mean(lv10, axis=[2, 3], keepdims=True)
            lv14: R.Tensor((batch, 8), dtype="float32") = R.reshape(lv13, R.shape([batch, 8]))
            lv15: R.Tensor((8, 4), dtype="float32") = R.permute_dims(head_weight, axes=[1, 0])
            lv16: R.Tensor((batch, 4), dtype="float32") = R.matmul(lv14, lv15, out_dtype=None)
            gv: R.Tensor((batch, 4), dtype="float32") = R.add(lv16, head_bias)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.