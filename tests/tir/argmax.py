# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def argmax(x0: T.Buffer((T.int64(3), T.int64(4)), "float32"), x0_red: T.Buffer((T.int64(3),), "int64")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        x0_red_temp_v0 = T.sblock_alloc_buffer((T.int64(3),), "int64")
        x0_red_temp_v1 = T.sblock_alloc_buffer((T.int64(3),))
        for ax0, k1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("x0_red_temp"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(x0[v_ax0, v_k1])
                T.writes(x0_red_temp_v0[v_ax0], x0_red_temp_v1[v_ax0])
                with T.init():
                    x0_red_temp_v0[v_ax0] = T.int64(-1)
                    x0_red_temp_v1[v_ax0] = T.float32(-340282346638528859811704183484516925440.0)
                v_x0_red_temp_v0: T.let[T.int64] = T.Select(x0_red_temp_v1[v_ax0] > x0[v_ax0, v_k1] or x0_red_temp_v1[v_ax0] == x0[v_ax0, v_k1] and x0_red_temp_v0[v_ax0] < v_k1, x0_red_temp_v0[v_ax0], v_k1)
                v_x0_red_temp_v1: T.let[T.float32] = T.Select(x0_red_temp_v1[v_ax0] > x0[v_ax0, v_k1], x0_red_temp_v1[v_ax0], x0[v_ax0, v_k1])
                x0_red_temp_v0[v_ax0] = v_x0_red_temp_v0
                x0_red_temp_v1[v_ax0] = v_x0_red_temp_v1
        for ax0 in range(T.int64(3)):
            with T.sblock("x0_red"):
                v_ax0 = T.axis.spatial(T.int64(3), ax0)
                T.reads(x0_red_temp_v0[v_ax0])
                T.writes(x0_red[v_ax0])
                x0_red[v_ax0] = x0_red_temp_v0[v_ax0]

    @R.function
    def main(x0: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((3,), dtype="int64"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.argmax, (x0,), out_ty=R.Tensor((3,), dtype="int64"))
            gv: R.Tensor((3,), dtype="int64") = lv
            R.output(gv)
        return gv