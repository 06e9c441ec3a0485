# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

elem_offset = TypeVar("elem_offset")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def cumsum(x0: T.Buffer((T.int64(2), T.int64(4)), "float32", elem_offset=elem_offset), out_buf: T.Buffer((T.int64(2), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        with T.sblock("cumsum_generic"):
            T.reads()
            T.writes()
            for v in T.parallel(T.int64(2)):
                out_buf[v * T.int64(4) // T.int64(4), v * T.int64(4) % T.int64(4)] = x0[v * T.int64(4) // T.int64(4), v * T.int64(4) % T.int64(4)]
                for v_1 in range(T.int64(3)):
                    out_buf[(v * T.int64(4) + (v_1 + T.int64(1))) // T.int64(4), (v * T.int64(4) + (v_1 + T.int64(1))) % T.int64(4)] = out_buf[(v * T.int64(4) + (v_1 + T.int64(1) - T.int64(1))) // T.int64(4), (v * T.int64(4) + (v_1 + T.int64(1) - T.int64(1))) % T.int64(4)] + x0[(v * T.int64(4) + (v_1 + T.int64(1))) // T.int64(4), (v * T.int64(4) + (v_1 + T.int64(1))) % T.int64(4)]

    @R.function
    def main(x0: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.cumsum, (x0,), out_ty=R.Tensor((2, 4), dtype="float32"))
            gv: R.Tensor((2, 4), dtype="float32") = lv
            R.output(gv)
        return gv