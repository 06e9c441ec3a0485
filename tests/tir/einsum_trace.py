# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def einsum(x0: T.Buffer((T.int64(3), T.int64(3)), "float32"), T_einsum: T.Buffer((), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i in range(T.int64(3)):
            with T.sblock("T_einsum"):
                v_i = T.axis.reduce(T.int64(3), i)
                T.reads(x0[v_i, v_i])
                T.writes(T_einsum[()])
                with T.init():
                    T_einsum[()] = T.float32(0.0)
                T_einsum[()] = T_einsum[()] + x0[v_i, v_i]

    @R.function
    def main(x0: R.Tensor((3, 3), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.einsum, (x0,), out_ty=R.Tensor((), dtype="float32"))
            gv: R.Tensor((), dtype="float32") = lv
            R.output(gv)
        return gv