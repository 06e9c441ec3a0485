# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

batch = TypeVar("batch")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def maximum(x: T.Buffer((batch, T.int64(3), T.int64(4)), "float32"), lv1: T.Buffer((), "float32"), T_maximum: T.Buffer((batch, T.int64(3), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2 in T.grid(batch, T.int64(3), T.int64(4)):
            with T.sblock("T_maximum"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(x[v_ax0, v_ax1, v_ax2], lv1[()])
                T.writes(T_maximum[v_ax0, v_ax1, v_ax2])
                T_maximum[v_ax0, v_ax1, v_ax2] = T.max(x[v_ax0, v_ax1, v_ax2], lv1[()])

    @T.prim_func(private=True, s_tir=True)
    def minimum(lv2: T.Buffer((batch, T.int64(3), T.int64(4)), "float32"), lv4: T.Buffer((), "float32"), T_minimum: T.Buffer((batch, T.int64(3), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2 in T.grid(batch, T.int64(3), T.int64(4)):
            with T.sblock("T_minimum"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv2[v_ax0, v_ax1, v_ax2], lv4[()])
                T.writes(T_minimum[v_ax0, v_ax1, v_ax2])
                T_minimum[v_ax0, v_ax1, v_ax2] = T.min(lv2[v_ax0, v_ax1, v_ax2], lv4[()])

    @R.function
    def main(x: R.Tensor((batch, 3, 4), dtype="float32")) -> R.Tensor((batch, 3, 4), dtype="float32"):
        R.func_attr({"num_input": 1})
        cls = Module
        with R.dataflow():
            lv: R.Tensor((), dtype="bool") = R.isnan(R.const(0.0, "float32"))
            lv1: R.Tensor((), dtype="float32") = R.where(lv, R.const("-inf", "float32"), R.const(0.0, "float32"))
            lv2 = R.call_tir(cls.maximum, (x, lv1), out_ty=R.Tensor((batch, 3, 4), dtype="float32"))
            lv3: R.Tensor((), dtype="bool") = R.isnan(R.const(6.0, "float32"))
            lv4: R.Tensor((), dtype="float32") = R.where(lv3, R.const("inf", "float32"), R.const(6.0, "float32"))
            lv5 = R.call_tir(cls.minimum, (lv2, lv4), out_ty=R.Tensor((batch, 3, 4), dtype="float32"))
            gv: R.Tensor((batch, 3, 4), dtype="float32") = R.multiply(lv5, R.const(2.0, "float32"))
            R.output(gv)
        return gv