# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def take(x0: T.Buffer((T.int64(3), T.int64(4)), "float32"), x1: T.Buffer((T.int64(2), T.int64(2)), "int32"), T_take: T.Buffer((T.int64(2), T.int64(2)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(2), T.int64(2)):
            with T.sblock("T_take"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x0[T.min(T.max(T.int64(0), T.Cast("int64", x1[v_ax0, v_ax1])), T.int64(11)) // T.int64(4), T.min(T.max(T.int64(0), T.Cast("int64", x1[v_ax0, v_ax1])), T.int64(11)) % T.int64(4)], x1[v_ax0, v_ax1])
                T.writes(T_take[v_ax0, v_ax1])
                T_take[v_ax0, v_ax1] = x0[T.min(T.max(T.int64(0), T.Cast("int64", x1[v_ax0, v_ax1])), T.int64(11)) // T.int64(4), T.min(T.max(T.int64(0), T.Cast("int64", x1[v_ax0, v_ax1])), T.int64(11)) % T.int64(4)]

    @R.function
    def main(x0: R.Tensor((3, 4), dtype="float32"), x1: R.Tensor((2, 2), dtype="int32")) -> R.Tensor((2, 2), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.take, (x0, x1), out_ty=R.Tensor((2, 2), dtype="float32"))
            gv: R.Tensor((2, 2), dtype="float32") = lv
            R.output(gv)
        return gv