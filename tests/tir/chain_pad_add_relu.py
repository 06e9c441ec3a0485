# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def pad(x0: T.Buffer((T.int64(2), T.int64(3)), "float32"), PadInput: T.Buffer((T.int64(4), T.int64(5)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(5)):
            with T.sblock("PadInput"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(x0[v_i0 - T.int64(1), v_i1 - T.int64(1)])
                T.writes(PadInput[v_i0, v_i1])
                PadInput[v_i0, v_i1] = T.if_then_else(T.int64(1) <= v_i0 and v_i0 < T.int64(3) and T.int64(1) <= v_i1 and v_i1 < T.int64(4), x0[v_i0 - T.int64(1), v_i1 - T.int64(1)], T.float32(0.0))

    @T.prim_func(private=True, s_tir=True)
    def relu(lv1: T.Buffer((T.int64(4), T.int64(5)), "float32"), compute: T.Buffer((T.int64(4), T.int64(5)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(5)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(lv1[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(lv1[v_i0, v_i1], T.float32(0.0))

    @R.function
    def main(x0: R.Tensor((2, 3), dtype="float32"), x1: R.Tensor((4, 5), dtype="float32")) -> R.Tensor((4, 5), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.pad, (x0,), out_ty=R.Tensor((4, 5), dtype="float32"))
            lv1: R.Tensor((4, 5), dtype="float32") = R.add(lv, x1)
            lv2 = R.call_tir(cls.relu, (lv1,), out_ty=R.Tensor((4, 5), dtype="float32"))
            gv: R.Tensor((4, 5), dtype="float32") = lv2
            R.output(gv)
        return gv