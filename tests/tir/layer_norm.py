# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def layer_norm(x0: T.Buffer((T.int64(2), T.int64(3), T.int64(4)), "float32"), x1: T.Buffer((T.int64(4),), "float32"), x2: T.Buffer((T.int64(4),), "float32"), T_layer_norm: T.Buffer((T.int64(2), T.int64(3), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        x0_sum = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        x0_mean = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        x0_var_sum = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        for ax0, ax1, k2 in T.grid(T.int64(2), T.int64(3), T.int64(4)):
            with T.sblock("x0_sum"):
                v_ax0, v_ax1, v_k2 = T.axis.remap("SSR", [ax0, ax1, k2])
                T.reads(x0[v_ax0, v_ax1, v_k2])
                T.writes(x0_sum[v_ax0, v_ax1])
                with T.init():
                    x0_sum[v_ax0, v_ax1] = T.float32(0.0)
                x0_sum[v_ax0, v_ax1] = x0_sum[v_ax0, v_ax1] + x0[v_ax0, v_ax1, v_k2]
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("x0_mean"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x0_sum[v_ax0, v_ax1])
                T.writes(x0_mean[v_ax0, v_ax1])
                x0_mean[v_ax0, v_ax1] = x0_sum[v_ax0, v_ax1] / T.float32(4.0)
        for ax0, ax1, k2 in T.grid(T.int64(2), T.int64(3), T.int64(4)):
            with T.sblock("x0_var_sum"):
                v_ax0, v_ax1, v_k2 = T.axis.remap("SSR", [ax0, ax1, k2])
                T.reads(x0[v_ax0, v_ax1, v_k2], x0_mean[v_ax0, v_ax1])
                T.writes(x0_var_sum[v_ax0, v_ax1])
                with T.init():
                    x0_var_sum[v_ax0, v_ax1] = T.float32(0.0)
                x0_var_sum[v_ax0, v_ax1] = x0_var_sum[v_ax0, v_ax1] + (x0[v_ax0, v_ax1, v_k2] - x0_mean[v_ax0, v_ax1]) * (x0[v_ax0, v_ax1, v_k2] - x0_mean[v_ax0, v_ax1])
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(3), T.int64(4)):
            with T.sblock("T_layer_norm"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(x0[v_ax0, v_ax1, v_ax2], x0_mean[v_ax0, v_ax1], x0_var_sum[v_ax0, v_ax1], x1[v_ax2], x2[v_ax2])
                T.writes(T_layer_norm[v_ax0, v_ax1, v_ax2])
                T_layer_norm[v_ax0, v_ax1, v_ax2] = (x0[v_ax0, v_ax1, v_ax2] - x0_mean[v_ax0, v_ax1]) * T.rsqrt(x0_var_sum[v_ax0, v_ax1] / T.float32(4.0) + T.float32(1.0000000000000001e-05)) * x1[v_ax2] + x2[v_ax2]

    @R.function
    def main(x0: R.Tensor((2, 3, 4), dtype="float32"), x1: R.Tensor((4,), dtype="float32"), x2: R.Tensor((4,), dtype="float32")) -> R.Tensor((2, 3, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.layer_norm, (x0, x1, x2), out_ty=R.Tensor((2, 3, 4), dtype="float32"))
            gv: R.Tensor((2, 3, 4), dtype="float32") = lv
            R.output(gv)
        return gv