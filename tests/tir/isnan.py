# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def isnan(x0: T.Buffer((T.int64(2), T.int64(4)), "float32"), compute: T.Buffer((T.int64(2), T.int64(4)), "bool")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(2), T.int64(4)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(x0[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.isnan(x0[v_i0, v_i1])

    @R.function
    def main(x0: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="bool"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.isnan, (x0,), out_ty=R.Tensor((2, 4), dtype="bool"))
            gv: R.Tensor((2, 4), dtype="bool") = lv
            R.output(gv)
        return gv