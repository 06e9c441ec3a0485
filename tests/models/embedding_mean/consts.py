# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(ids: R.Tensor((2, 6), dtype="int64")) -> R.Tuple(R.Tensor((2, 4), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((2, 6), dtype="int32") = R.astype(ids, dtype="int32")
            lv1: R.Tensor((12,), dtype="int32") = R.reshape(lv, R.shape([12]))
            lv2: R.Tensor((12, 16), dtype="float32") = R.take(metadata["ir.GenericConst"][0], lv1, axis=0, mode="fast")
            lv3: R.Tensor((2, 6, 16), dtype="float32") = R.reshape(lv2, R.shape([2, 6, 16]))
            lv4: R.Tensor((2, 16), dtype="float32") = R.mean(lv3, axis=[1], keepdims=False)
            lv5: R.Tensor((16, 4), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][1], axes=[1, 0])
            lv6: R.Tensor((2, 4), dtype="float32") = R.matmul(lv4, lv5, out_dtype="float32")
            lv7: R.Tensor((2, 4), dtype="float32") = R.add(metadata["ir.GenericConst"][2], lv6)
            gv: R.Tuple(R.Tensor((2, 4), dtype="float32")) = (lv7,)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.