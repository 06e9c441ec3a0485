# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def maximum(x0: T.Buffer((n, T.int64(3)), "float32"), T_maximum: T.Buffer((n, T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(n, T.int64(3)):
            with T.sblock("T_maximum"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x0[v_ax0, v_ax1])
                T.writes(T_maximum[v_ax0, v_ax1])
                T_maximum[v_ax0, v_ax1] = T.max(x0[v_ax0, v_ax1], T.float32(0.5))

    @T.prim_func(private=True, s_tir=True)
    def pad(lv1: T.Buffer(("n * T.int64(2)", T.int64(3)), "float32"), n: T.int64, PadInput: T.Buffer((n * T.int64(2) + T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(n * T.int64(2) + T.int64(2), T.int64(3)):
            with T.sblock("PadInput"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(lv1[v_i0 - T.int64(1), v_i1])
                T.writes(PadInput[v_i0, v_i1])
                PadInput[v_i0, v_i1] = T.if_then_else(T.int64(1) <= v_i0 and v_i0 <= n * T.int64(2), lv1[v_i0 - T.int64(1), v_i1], T.float32(0.0))

    @T.prim_func(private=True, s_tir=True)
    def tile(lv: T.Buffer((n, T.int64(3)), "float32"), T_tile: T.Buffer(("n * T.int64(2)", T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(n * T.int64(2), T.int64(3)):
            with T.sblock("T_tile"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv[v_ax0 % n, v_ax1 % T.int64(3)])
                T.writes(T_tile[v_ax0, v_ax1])
                T_tile[v_ax0, v_ax1] = lv[v_ax0 % n, v_ax1 % T.int64(3)]

    @R.function
    def main(x0: R.Tensor((n, 3), dtype="float32")) -> R.Tensor(("n * 2 + 2", 3), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.maximum, (x0,), out_ty=R.Tensor((n, 3), dtype="float32"))
            lv1 = R.call_tir(cls.tile, (lv,), out_ty=R.Tensor((n * 2, 3), dtype="float32"))
            lv2 = R.call_tir(cls.pad, (lv1, n), out_ty=R.Tensor((n * 2 + 2, 3), dtype="float32"))
            gv: R.Tensor((n * 2 + 2, 3), dtype="float32") = lv2
            R.output(gv)
        return gv