# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

batch = TypeVar("batch")
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice({"keys": ["cpu"], "kind": "llvm", "mtriple": "x86_64-conda-linux-gnu", "tag": ""}, 0, "global"), I.vdevice({"arch": "sm_50", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}, 0, "global")]})
    @R.function
    def main(x: R.Tensor((batch, 16), dtype="float32"), fc1_weight: R.Tensor((32, 16), dtype="float32"), fc1_bias: R.Tensor((32,), dtype="float32"), fc2_weight: R.Tensor((32, 32), dtype="float32"), fc2_bias: R.Tensor((32,), dtype="float32"), fc3_weight: R.Tensor((8, 32), dtype="float32"), fc3_bias: R.Tensor((8,), dtype="float32")) -> R.Tensor((batch, 8), dtype="float32"):
        R.func_attr({"num_input": 1, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1], metadata["ffi.Tensor"][2], metadata["ffi.Tensor"][3], metadata["ffi.Tensor"][4], metadata["ffi.Tensor"][5]]})
        with R.dataflow():
            lv: R.Tensor((16, 32), dtype="float32") = R.permute_dims(fc1_weight, axes=[1, 0])
            lv1: R.Tensor((batch, 32), dtype="float32") = R.matmul(x, lv, out_dtype=None)
            lv2: R.Tensor((batch, 32), dtype="float32") = R.add(lv1, fc1_bias)
            lv3: R.Tensor((batch, 32), dtype="float32") = R.nn.relu(lv2)
            lv3_1: R.Tensor((batch, 32), dtype="float32") = R.hint_on_device(lv3, R.device(device_type=2, index=0), "global")
            lv4: R.Tensor((32, 32), dtype="float32") = R.permute_dims(fc2_weight, axes=[1, 0])
            lv5: R.Tensor((batch, 32), dtype="float32") = R.matmul(lv3_1, lv4, out_dtype=None)
            lv6: R.Tensor((batch, 32), dtype="float32") = R.add(lv5, fc2_bias)
            lv6_1: R.Tensor((batch, 32), dtype="float32") = R.hint_on_device(lv6, R.device(device_type=1, index=0), "global")
            lv7: R.Tensor((batch, 32), dtype="float32") = R.tanh(lv6_1)
            lv8: R.Tensor((32, 8), dtype="float32") = R.permute_dims(fc3_weight, axes=[1, 0])
            lv9: R.Tensor((batch, 8), dtype="float32") = R.matmul(lv7, lv8, out_dtype=None)
            gv: R.Tensor((batch, 8), dtype="float32") = R.add(lv9, fc3_bias)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.