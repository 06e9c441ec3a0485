# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def one_hot(x0: T.Buffer((T.int64(4),), "int64"), T_one_hot: T.Buffer((T.int64(4), T.int64(5)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(5)):
            with T.sblock("T_one_hot"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x0[v_ax0])
                T.writes(T_one_hot[v_ax0, v_ax1])
                T_one_hot[v_ax0, v_ax1] = T.Select(x0[v_ax0] == v_ax1, T.float32(1.0), T.float32(0.0))

    @R.function
    def main(x0: R.Tensor((4,), dtype="int64")) -> R.Tensor((4, 5), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.one_hot, (x0,), out_ty=R.Tensor((4, 5), dtype="float32"))
            gv: R.Tensor((4, 5), dtype="float32") = lv
            R.output(gv)
        return gv