# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice({"keys": ["cpu"], "kind": "llvm", "mtriple": "x86_64-conda-linux-gnu", "tag": ""}, 0, "global"), I.vdevice({"arch": "sm_50", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}, 0, "global")]})
    @R.function
    def main(x: R.Tensor((2, 8), dtype="float32", vdevice="llvm:0:global"), idx: R.Tensor((2, 3), dtype="int64"), proj_weight: R.Tensor((8, 8), dtype="float32", vdevice="cuda:0:global"), proj_bias: R.Tensor((8,), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="int64"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="int64"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 8), dtype="float32"), R.Tensor((2, 8), dtype="bool")):
        R.func_attr({"num_input": 2, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1]]})
        with R.dataflow():
            lv: R.Tensor((8, 8), dtype="float32", vdevice="cuda:0:global") = R.permute_dims(proj_weight, axes=[1, 0])
            lv1: R.Tensor((2, 8), dtype="float32") = R.matmul(x, lv, out_dtype=None)
            lv2: R.Tensor((2, 8), dtype="float32") = R.add(lv1, proj_bias)
            lv3: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="int64")) = R.topk(lv2, k=3, axis=-1, ret_type="both", largest=True, dtype="int64")
            lv4: R.Tensor((2, 3), dtype="float32") = lv3[0]
            lv5: R.Tensor((2, 3), dtype="int64") = lv3[1]
            lv6: R.Tensor((2, 8), dtype="bool") = R.greater(lv2, R.const(0.0, "float32"))
            lv7: R.Tensor((2, 8), dtype="float32") = R.where(lv6, lv2, metadata["ir.GenericConst"][0])
            lv8: R.Shape([2, 8]) = R.shape_of(lv2)
            lv9: R.Tensor((2,), dtype="int64") = R.shape_to_tensor(lv8)
            lv10: R.Tensor((2, 3), dtype="bool") = R.less(idx, R.const(0, "int64"))
            lv11: R.Tensor((), dtype="int64") = R.take(lv9, R.const(1, "int64"), axis=0, mode="wrap")
            lv12: R.Tensor((2, 3), dtype="int64") = R.add(idx, lv11)
            lv13: R.Tensor((2, 3), dtype="int64") = R.where(lv10, lv12, idx)
            lv14: R.Tensor((2,), dtype="int64") = R.argmax(lv2, axis=1, keepdims=False)
            lv15: R.Tensor((2, 3), dtype="float32") = R.gather_elements(lv2, lv13, axis=1)
            lv16: R.Tensor((2, 8), dtype="float32") = R.cumsum(lv7, axis=-1, dtype=None, exclusive=False)
            gv: R.Tuple(R.Tensor((2,), dtype="int64"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="int64"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 8), dtype="float32"), R.Tensor((2, 8), dtype="bool")) = lv14, lv4, lv5, lv15, lv16, lv6
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.