# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def maximum(x0: T.Buffer((T.int64(2), T.int64(3)), "float32"), T_maximum: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_maximum"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x0[v_ax0, v_ax1])
                T.writes(T_maximum[v_ax0, v_ax1])
                T_maximum[v_ax0, v_ax1] = T.max(x0[v_ax0, v_ax1], T.float32("-inf"))

    @T.prim_func(private=True, s_tir=True)
    def minimum(lv: T.Buffer((T.int64(2), T.int64(3)), "float32"), x1: T.Buffer((), "float32"), T_minimum: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_minimum"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv[v_ax0, v_ax1], x1[()])
                T.writes(T_minimum[v_ax0, v_ax1])
                T_minimum[v_ax0, v_ax1] = T.min(lv[v_ax0, v_ax1], x1[()])

    @R.function
    def main(x0: R.Tensor((2, 3), dtype="float32"), x1: R.Tensor((), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.maximum, (x0,), out_ty=R.Tensor((2, 3), dtype="float32"))
            lv1 = R.call_tir(cls.minimum, (lv, x1), out_ty=R.Tensor((2, 3), dtype="float32"))
            gv: R.Tensor((2, 3), dtype="float32") = lv1
            R.output(gv)
        return gv