# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def mirror_pad(x0: T.Buffer((T.int64(3), T.int64(4)), "float32"), MirrorPadInput: T.Buffer((T.int64(6), T.int64(7)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(6), T.int64(7)):
            with T.sblock("MirrorPadInput"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(x0[T.int64(0):T.int64(3), T.int64(0):T.int64(4)])
                T.writes(MirrorPadInput[v_i0, v_i1])
                MirrorPadInput[v_i0, v_i1] = x0[T.if_then_else(T.int64(4) <= v_i0, T.int64(6) - v_i0, T.if_then_else(v_i0 < T.int64(1), T.int64(0) - v_i0, v_i0 - T.int64(1))), T.if_then_else(T.int64(6) <= v_i1, T.int64(9) - v_i1, T.if_then_else(v_i1 < T.int64(2), T.int64(1) - v_i1, v_i1 - T.int64(2)))]

    @R.function
    def main(x0: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((6, 7), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.mirror_pad, (x0,), out_ty=R.Tensor((6, 7), dtype="float32"))
            gv: R.Tensor((6, 7), dtype="float32") = lv
            R.output(gv)
        return gv