# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def pad(x0: T.Buffer((T.int64(2), T.int64(3)), "float32"), PadInput: T.Buffer((T.int64(3), T.int64(6)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(3), T.int64(6)):
            with T.sblock("PadInput"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(x0[v_i0, v_i1 - T.int64(1)])
                T.writes(PadInput[v_i0, v_i1])
                PadInput[v_i0, v_i1] = T.if_then_else(T.int64(0) <= v_i0 and v_i0 < T.int64(2) and T.int64(1) <= v_i1 and v_i1 < T.int64(4), x0[v_i0, v_i1 - T.int64(1)], T.float32(1.5))

    @R.function
    def main(x0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((3, 6), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.pad, (x0,), out_ty=R.Tensor((3, 6), dtype="float32"))
            gv: R.Tensor((3, 6), dtype="float32") = lv
            R.output(gv)
        return gv