# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(ids: R.Tensor((2, 6), dtype="int64"), x: R.Tensor((2, 6, 16), dtype="float32")) -> R.Tuple(R.Tensor((2, 6, 16), dtype="float32"), R.Tensor((2,), dtype="int64")):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            lv: R.Tensor((2, 6), dtype="int64") = R.broadcast_to(metadata["ir.GenericConst"][0], R.shape([2, 6]))
            lv1: R.Tensor((2, 6, 1), dtype="int64") = R.expand_dims(lv, axis=[2])
            lv2: R.Shape([32, 16]) = R.shape_of(metadata["ir.GenericConst"][1])
            lv3: R.Tensor((2,), dtype="int64") = R.shape_to_tensor(lv2)
            lv4: R.Tensor((2, 6), dtype="bool") = R.less(ids, R.const(0, "int64"))
            lv5: R.Tensor((), dtype="int64") = R.take(lv3, R.const(0, "int64"), axis=0, mode="wrap")
            lv6: R.Tensor((2, 6), dtype="int64") = R.add(ids, lv5)
            lv7: R.Tensor((2, 6), dtype="int64") = R.where(lv4, lv6, ids)
            lv8: R.Tensor((2, 6, 16), dtype="float32") = R.take(metadata["ir.GenericConst"][1], lv7, axis=0, mode="fast")
            lv9: R.Tensor((2, 6, 16), dtype="float32") = R.strided_slice(lv8, (1,), (0,), (6,), (1,), assume_inbound=False)
            lv10: R.Tensor((2, 6, 32), dtype="float32") = R.concat((lv9, x), axis=-1)
            lv11: R.Tensor((2, 6, 16), dtype="float32") = R.strided_slice(lv10, (2,), (0,), (16,), (1,), assume_inbound=False)
            lv12: R.Tensor((2, 6, 1), dtype="float32") = R.astype(lv1, dtype="float32")
            lv13: R.Tensor((2, 6, 16), dtype="float32") = R.add(lv11, lv12)
            lv14: R.Tensor((12, 16), dtype="float32") = R.reshape(lv13, R.shape([12, 16]))
            lv15: R.Tensor((16, 16), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][2], axes=[1, 0])
            lv16: R.Tensor((12, 16), dtype="float32") = R.matmul(lv14, lv15, out_dtype=None)
            lv17: R.Tensor((12, 16), dtype="float32") = R.add(lv16, metadata["ir.GenericConst"][3])
            lv18: R.Tensor((2, 6), dtype="bool") = R.greater(ids, R.const(3, "int64"))
            lv19: R.Tensor((2, 6), dtype="int64") = R.astype(lv18, dtype="int64")
            lv20: R.Tensor((2, 6, 16), dtype="float32") = R.reshape(lv17, R.shape([2, 6, 16]))
            lv21: R.Tensor((2,), dtype="int64") = R.sum(lv19, axis=[1], keepdims=False)
            gv: R.Tuple(R.Tensor((2, 6, 16), dtype="float32"), R.Tensor((2,), dtype="int64")) = lv20, lv21
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.