# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def resize3d(x0: T.Buffer((T.int64(1), T.int64(1), T.int64(2), T.int64(3), T.int64(3)), "float32"), resize: T.Buffer((T.int64(1), T.int64(1), T.int64(4), T.int64(3), T.int64(6)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, i2, i3, i4 in T.grid(T.int64(1), T.int64(1), T.int64(4), T.int64(3), T.int64(6)):
            with T.sblock("resize"):
                v_i0, v_i1, v_i2, v_i3, v_i4 = T.axis.remap("SSSSS", [i0, i1, i2, i3, i4])
                T.reads(x0[v_i0, v_i1, T.int64(0):T.int64(2), T.int64(0):T.int64(3), T.int64(0):T.int64(3)])
                T.writes(resize[v_i0, v_i1, v_i2, v_i3, v_i4])
                resize[v_i0, v_i1, v_i2, v_i3, v_i4] = x0[v_i0, v_i1, T.max(T.min(T.Cast("int64", T.round(T.float32(0.5) * T.Cast("float32", v_i2))), T.int64(1)), T.int64(0)), T.max(T.min(T.Cast("int64", T.round(T.Cast("float32", v_i3))), T.int64(2)), T.int64(0)), T.max(T.min(T.Cast("int64", T.round(T.float32(0.5) * T.Cast("float32", v_i4))), T.int64(2)), T.int64(0))]

    @R.function
    def main(x0: R.Tensor((1, 1, 2, 3, 3), dtype="float32")) -> R.Tensor((1, 1, 4, 3, 6), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.resize3d, (x0,), out_ty=R.Tensor((1, 1, 4, 3, 6), dtype="float32"))
            gv: R.Tensor((1, 1, 4, 3, 6), dtype="float32") = lv
            R.output(gv)
        return gv