# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def einsum(x0: T.Buffer((T.int64(2), T.int64(3), T.int64(4)), "float32"), x1: T.Buffer((T.int64(2), T.int64(4), T.int64(5)), "float32"), T_einsum: T.Buffer((T.int64(2), T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2, j in T.grid(T.int64(2), T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("T_einsum"):
                v_ax0, v_ax1, v_ax2, v_j = T.axis.remap("SSSR", [ax0, ax1, ax2, j])
                T.reads(x0[v_ax0, v_ax1, v_j], x1[v_ax0, v_j, v_ax2])
                T.writes(T_einsum[v_ax0, v_ax1, v_ax2])
                with T.init():
                    T_einsum[v_ax0, v_ax1, v_ax2] = T.float32(0.0)
                T_einsum[v_ax0, v_ax1, v_ax2] = T_einsum[v_ax0, v_ax1, v_ax2] + x0[v_ax0, v_ax1, v_j] * x1[v_ax0, v_j, v_ax2]

    @R.function
    def main(x0: R.Tensor((2, 3, 4), dtype="float32"), x1: R.Tensor((2, 4, 5), dtype="float32")) -> R.Tensor((2, 3, 5), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.einsum, (x0, x1), out_ty=R.Tensor((2, 3, 5), dtype="float32"))
            gv: R.Tensor((2, 3, 5), dtype="float32") = lv
            R.output(gv)
        return gv