# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def softmax(x0: T.Buffer((T.int64(2), T.int64(5)), "float32"), T_softmax_norm: T.Buffer((T.int64(2), T.int64(5)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_softmax_maxelem = T.sblock_alloc_buffer((T.int64(2),))
        T_softmax_exp = T.sblock_alloc_buffer((T.int64(2), T.int64(5)))
        T_softmax_expsum = T.sblock_alloc_buffer((T.int64(2),))
        for i0, k in T.grid(T.int64(2), T.int64(5)):
            with T.sblock("T_softmax_maxelem"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(x0[v_i0, v_k])
                T.writes(T_softmax_maxelem[v_i0])
                with T.init():
                    T_softmax_maxelem[v_i0] = T.float32(-340282346638528859811704183484516925440.0)
                T_softmax_maxelem[v_i0] = T.max(T_softmax_maxelem[v_i0], x0[v_i0, v_k])
        for i0, i1 in T.grid(T.int64(2), T.int64(5)):
            with T.sblock("T_softmax_exp"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(x0[v_i0, v_i1], T_softmax_maxelem[v_i0])
                T.writes(T_softmax_exp[v_i0, v_i1])
                T_softmax_exp[v_i0, v_i1] = T.exp(x0[v_i0, v_i1] - T_softmax_maxelem[v_i0])
        for i0, k in T.grid(T.int64(2), T.int64(5)):
            with T.sblock("T_softmax_expsum"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(T_softmax_exp[v_i0, v_k])
                T.writes(T_softmax_expsum[v_i0])
                with T.init():
                    T_softmax_expsum[v_i0] = T.float32(0.0)
                T_softmax_expsum[v_i0] = T_softmax_expsum[v_i0] + T_softmax_exp[v_i0, v_k]
        for i0, i1 in T.grid(T.int64(2), T.int64(5)):
            with T.sblock("T_softmax_norm"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_softmax_exp[v_i0, v_i1], T_softmax_expsum[v_i0])
                T.writes(T_softmax_norm[v_i0, v_i1])
                T.sblock_attr({"axis": 1})
                T_softmax_norm[v_i0, v_i1] = T_softmax_exp[v_i0, v_i1] / T_softmax_expsum[v_i0]

    @R.function
    def main(x0: R.Tensor((2, 5), dtype="float32")) -> R.Tensor((2, 5), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.softmax, (x0,), out_ty=R.Tensor((2, 5), dtype="float32"))
            gv: R.Tensor((2, 5), dtype="float32") = lv
            R.output(gv)
        return gv