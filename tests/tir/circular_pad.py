# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def circular_pad(x0: T.Buffer((T.int64(3), T.int64(4)), "float32"), CircularPadInput: T.Buffer((T.int64(4), T.int64(7)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(4), T.int64(7)):
            with T.sblock("CircularPadInput"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(x0[v_i0 % T.int64(3), (v_i1 + T.int64(3)) % T.int64(4)])
                T.writes(CircularPadInput[v_i0, v_i1])
                CircularPadInput[v_i0, v_i1] = x0[v_i0 % T.int64(3), (v_i1 + T.int64(3)) % T.int64(4)]

    @R.function
    def main(x0: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((4, 7), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.circular_pad, (x0,), out_ty=R.Tensor((4, 7), dtype="float32"))
            gv: R.Tensor((4, 7), dtype="float32") = lv
            R.output(gv)
        return gv