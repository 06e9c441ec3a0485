# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), dtype="float32"), idx: R.Tensor((2, 3), dtype="int64"), p_proj_weight: R.Tensor((8, 8), dtype="float32"), p_proj_bias: R.Tensor((8,), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="int64"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="int64"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 8), dtype="float32"), R.Tensor((2, 8), dtype="bool")):
        R.func_attr({"num_input": 2, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1]]})
        with R.dataflow():
            lv: R.Tensor((8, 8), dtype="float32") = R.permute_dims(p_proj_weight, axes=[1, 0])
            lv1: R.Tensor((2, 8), dtype="float32") = R.matmul(x, lv, out_dtype="float32")
            lv2: R.Tensor((2, 8), dtype="float32") = R.add(p_proj_bias, lv1)
            lv3: R.Tensor((2,), dtype="int64") = R.argmax(lv2, axis=-1, keepdims=False)
            lv4: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="int64")) = R.topk(lv2, k=3, axis=-1, ret_type="both", largest=True, dtype="int64")
            lv5: R.Tensor((2, 3), dtype="float32") = lv4[0]
            lv6: R.Tensor((2, 3), dtype="int64") = lv4[1]
            lv7: R.Tensor((2, 3), dtype="float32") = R.gather_elements(lv2, idx, axis=1)
            lv8: R.Tensor((2, 8), dtype="bool") = R.greater(lv2, R.const(0.0, "float32"))
            lv9: R.Tensor((2, 8), dtype="float32") = R.full_like(lv2, R.const(0.0, "float32"), dtype=None)
            lv10: R.Tensor((2, 8), dtype="float32") = R.where(lv8, lv2, lv9)
            lv11: R.Tensor((2, 8), dtype="float32") = R.cumsum(lv10, axis=-1, dtype=None, exclusive=False)
            gv: R.Tuple(R.Tensor((2,), dtype="int64"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="int64"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 8), dtype="float32"), R.Tensor((2, 8), dtype="bool")) = lv3, lv5, lv6, lv7, lv11, lv8
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.