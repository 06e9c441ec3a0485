# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

s77 = TypeVar("s77")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((s77, 16), dtype="float32"), p_layers_0_weight: R.Tensor((32, 16), dtype="float32"), p_layers_0_bias: R.Tensor((32,), dtype="float32"), p_layers_2_weight: R.Tensor((32, 32), dtype="float32"), p_layers_2_bias: R.Tensor((32,), dtype="float32"), p_layers_4_weight: R.Tensor((8, 32), dtype="float32"), p_layers_4_bias: R.Tensor((8,), dtype="float32")) -> R.Tuple(R.Tensor((s77, 8), dtype="float32")):
        R.func_attr({"num_input": 1, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1], metadata["ffi.Tensor"][2], metadata["ffi.Tensor"][3], metadata["ffi.Tensor"][4], metadata["ffi.Tensor"][5]], "tir_var_lower_bound": {"s77": 2}, "tir_var_upper_bound": {"s77": 64}})
        with R.dataflow():
            lv: R.Tensor((16, 32), dtype="float32") = R.permute_dims(p_layers_0_weight, axes=[1, 0])
            lv1: R.Tensor((s77, 32), dtype="float32") = R.matmul(x, lv, out_dtype="float32")
            lv2: R.Tensor((s77, 32), dtype="float32") = R.add(p_layers_0_bias, lv1)
            lv3: R.Tensor((s77, 32), dtype="float32") = R.nn.relu(lv2)
            lv4: R.Tensor((32, 32), dtype="float32") = R.permute_dims(p_layers_2_weight, axes=[1, 0])
            lv5: R.Tensor((s77, 32), dtype="float32") = R.matmul(lv3, lv4, out_dtype="float32")
            lv6: R.Tensor((s77, 32), dtype="float32") = R.add(p_layers_2_bias, lv5)
            lv7: R.Tensor((s77, 32), dtype="float32") = R.nn.relu(lv6)
            lv8: R.Tensor((32, 8), dtype="float32") = R.permute_dims(p_layers_4_weight, axes=[1, 0])
            lv9: R.Tensor((s77, 8), dtype="float32") = R.matmul(lv7, lv8, out_dtype="float32")
            lv10: R.Tensor((s77, 8), dtype="float32") = R.add(p_layers_4_bias, lv9)
            gv: R.Tuple(R.Tensor((s77, 8), dtype="float32")) = (lv10,)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.