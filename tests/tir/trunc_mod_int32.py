# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def mod(x0: T.Buffer((T.int64(2), T.int64(4)), "int32"), x1: T.Buffer((T.int64(2), T.int64(4)), "int32"), T_mod: T.Buffer((T.int64(2), T.int64(4)), "int32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(2), T.int64(4)):
            with T.sblock("T_mod"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x0[v_ax0, v_ax1], x1[v_ax0, v_ax1])
                T.writes(T_mod[v_ax0, v_ax1])
                T_mod[v_ax0, v_ax1] = T.truncmod(x0[v_ax0, v_ax1], x1[v_ax0, v_ax1])

    @R.function
    def main(x0: R.Tensor((2, 4), dtype="int32"), x1: R.Tensor((2, 4), dtype="int32")) -> R.Tensor((2, 4), dtype="int32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.mod, (x0, x1), out_ty=R.Tensor((2, 4), dtype="int32"))
            gv: R.Tensor((2, 4), dtype="int32") = lv
            R.output(gv)
        return gv