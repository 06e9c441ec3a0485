# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice({"keys": ["cpu"], "kind": "llvm", "mtriple": "x86_64-conda-linux-gnu", "tag": ""}, 0, "global"), I.vdevice({"arch": "sm_50", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}, 0, "global")]})
    @R.function
    def main(ids: R.Tensor((2, 6), dtype="int64"), p_embed_weight: R.Tensor((32, 16), dtype="float32"), p_head_weight: R.Tensor((4, 16), dtype="float32"), p_head_bias: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((2, 4), dtype="float32")):
        R.func_attr({"num_input": 1, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1], metadata["ffi.Tensor"][2]]})
        with R.dataflow():
            lv: R.Tensor((2, 6), dtype="int32") = R.astype(ids, dtype="int32")
            lv1: R.Tensor((12,), dtype="int32") = R.reshape(lv, R.shape([12]))
            lv2: R.Tensor((12, 16), dtype="float32") = R.take(p_embed_weight, lv1, axis=0, mode="fast")
            lv3: R.Tensor((2, 6, 16), dtype="float32") = R.reshape(lv2, R.shape([2, 6, 16]))
            lv3_1: R.Tensor((2, 6, 16), dtype="float32") = R.hint_on_device(lv3, R.device(device_type=2, index=0), "global")
            lv4: R.Tensor((2, 16), dtype="float32") = R.mean(lv3_1, axis=[1], keepdims=False)
            lv4_1: R.Tensor((2, 16), dtype="float32") = R.hint_on_device(lv4, R.device(device_type=1, index=0), "global")
            lv5: R.Tensor((16, 4), dtype="float32") = R.permute_dims(p_head_weight, axes=[1, 0])
            lv6: R.Tensor((2, 4), dtype="float32") = R.matmul(lv4_1, lv5, out_dtype="float32")
            lv7: R.Tensor((2, 4), dtype="float32") = R.add(p_head_bias, lv6)
            gv: R.Tuple(R.Tensor((2, 4), dtype="float32")) = (lv7,)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.