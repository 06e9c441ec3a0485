# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice({"keys": ["cpu"], "kind": "llvm", "mtriple": "x86_64-conda-linux-gnu", "tag": ""}, 0, "global"), I.vdevice({"arch": "sm_50", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}, 0, "global")]})
    @R.function
    def main(x: R.Tensor((1, 8, 16), dtype="float32"), norm1_weight: R.Tensor((16,), dtype="float32"), norm1_bias: R.Tensor((16,), dtype="float32"), qkv_bias: R.Tensor((48,), dtype="float32"), out_bias: R.Tensor((16,), dtype="float32"), ff1_bias: R.Tensor((32,), dtype="float32"), ff2_bias: R.Tensor((16,), dtype="float32"), MatMul_83: R.Tensor((16, 48), dtype="float32"), MatMul_94: R.Tensor((16, 16), dtype="float32"), MatMul_95: R.Tensor((16, 32), dtype="float32"), MatMul_96: R.Tensor((32, 16), dtype="float32")) -> R.Tensor((1, 8, 16), dtype="float32"):
        R.func_attr({"num_input": 1, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1], metadata["ffi.Tensor"][2], metadata["ffi.Tensor"][3], metadata["ffi.Tensor"][4], metadata["ffi.Tensor"][5], metadata["ffi.Tensor"][6], metadata["ffi.Tensor"][7], metadata["ffi.Tensor"][8], metadata["ffi.Tensor"][9]]})
        with R.dataflow():
            lv: R.Tensor((1, 8, 16), dtype="float32") = R.nn.layer_norm(x, norm1_weight, norm1_bias, axes=[-1], epsilon=9.9999997473787516e-06, center=True, scale=True)
            lv1: R.Tensor((1, 8, 48), dtype="float32") = R.matmul(lv, MatMul_83, out_dtype=None)
            lv2: R.Tensor((1, 8, 48), dtype="float32") = R.add(qkv_bias, lv1)
            lv3: R.Tensor((1, 8, 3, 2, 8), dtype="float32") = R.reshape(lv2, R.shape([1, 8, 3, 2, 8]))
            lv4: R.Tensor((3, 1, 2, 8, 8), dtype="float32") = R.permute_dims(lv3, axes=[2, 0, 3, 1, 4])
            lv5: R.Tuple(R.Tensor((1, 1, 2, 8, 8), dtype="float32"), R.Tensor((1, 1, 2, 8, 8), dtype="float32"), R.Tensor((1, 1, 2, 8, 8), dtype="float32")) = R.split(lv4, indices_or_sections=[1, 2], axis=0)
            lv6: R.Tensor((1, 1, 2, 8, 8), dtype="float32") = lv5[0]
            lv7: R.Tensor((1, 1, 2, 8, 8), dtype="float32") = lv5[1]
            lv8: R.Tensor((1, 1, 2, 8, 8), dtype="float32") = lv5[2]
            lv9: R.Tensor((1, 2, 8, 8), dtype="float32") = R.squeeze(lv7, axis=[0])
            lv10: R.Tensor((1, 2, 8, 8), dtype="float32") = R.squeeze(lv6, axis=[0])
            lv11: R.Tensor((1, 2, 8, 8), dtype="float32") = R.permute_dims(lv9, axes=[0, 1, 3, 2])
            lv12: R.Tensor((1, 2, 8, 8), dtype="float32") = R.matmul(lv10, lv11, out_dtype=None)
            lv13: R.Tensor((1, 2, 8, 8), dtype="float32") = R.multiply(lv12, R.const(0.35355338454246521, "float32"))
            lv13_1: R.Tensor((1, 2, 8, 8), dtype="float32") = R.hint_on_device(lv13, R.device(device_type=2, index=0), "global")
            lv14: R.Tensor((1, 2, 8, 8), dtype="float32") = R.nn.softmax(lv13_1, axis=-1)
            lv14_1: R.Tensor((1, 2, 8, 8), dtype="float32") = R.hint_on_device(lv14, R.device(device_type=1, index=0), "global")
            lv15: R.Tensor((1, 2, 8, 8), dtype="float32") = R.squeeze(lv8, axis=[0])
            lv16: R.Tensor((1, 2, 8, 8), dtype="float32") = R.matmul(lv14_1, lv15, out_dtype=None)
            lv17: R.Tensor((1, 8, 2, 8), dtype="float32") = R.permute_dims(lv16, axes=[0, 2, 1, 3])
            lv18: R.Tensor((1, 8, 16), dtype="float32") = R.reshape(lv17, R.shape([1, 8, 16]))
            lv19: R.Tensor((1, 8, 16), dtype="float32") = R.matmul(lv18, MatMul_94, out_dtype=None)
            lv20: R.Tensor((1, 8, 16), dtype="float32") = R.add(out_bias, lv19)
            lv21: R.Tensor((1, 8, 16), dtype="float32") = R.add(x, lv20)
            lv22: R.Tensor((1, 8, 16), dtype="float32") = R.nn.layer_norm(lv21, norm1_weight, norm1_bias, axes=[-1], epsilon=9.9999997473787516e-06, center=True, scale=True)
            lv23: R.Tensor((1, 8, 32), dtype="float32") = R.matmul(lv22, MatMul_95, out_dtype=None)
            lv24: R.Tensor((1, 8, 32), dtype="float32") = R.add(ff1_bias, lv23)
            lv25: R.Tensor((1, 8, 32), dtype="float32") = R.divide(lv24, R.const(1.4142135381698608, "float32"))
            lv26: R.Tensor((1, 8, 32), dtype="float32") = R.erf(lv25)
            lv27: R.Tensor((1, 8, 32), dtype="float32") = R.add(lv26, R.const(1.0, "float32"))
            lv28: R.Tensor((1, 8, 32), dtype="float32") = R.multiply(lv24, lv27)
            lv29: R.Tensor((1, 8, 32), dtype="float32") = R.multiply(lv28, R.const(0.5, "float32"))
            lv30: R.Tensor((1, 8, 16), dtype="float32") = R.matmul(lv29, MatMul_96, out_dtype=None)
            lv31: R.Tensor((1, 8, 16), dtype="float32") = R.add(ff2_bias, lv30)
            gv: R.Tensor((1, 8, 16), dtype="float32") = R.add(lv21, lv31)
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.