# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def split(x0: T.Buffer((T.int64(2), T.int64(6)), "float32"), T_split_sections: T.Buffer((T.int64(2), T.int64(2)), "float32"), T_split_sections_1: T.Buffer((T.int64(2), T.int64(2)), "float32"), T_split_sections_2: T.Buffer((T.int64(2), T.int64(2)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(2), T.int64(2)):
            with T.sblock("T_split_sections"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x0[v_ax0, v_ax1])
                T.writes(T_split_sections[v_ax0, v_ax1])
                T_split_sections[v_ax0, v_ax1] = x0[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(2), T.int64(2)):
            with T.sblock("T_split_sections_1"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x0[v_ax0, v_ax1 + T.int64(2)])
                T.writes(T_split_sections_1[v_ax0, v_ax1])
                T_split_sections_1[v_ax0, v_ax1] = x0[v_ax0, v_ax1 + T.int64(2)]
        for ax0, ax1 in T.grid(T.int64(2), T.int64(2)):
            with T.sblock("T_split_sections_2"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x0[v_ax0, v_ax1 + T.int64(4)])
                T.writes(T_split_sections_2[v_ax0, v_ax1])
                T_split_sections_2[v_ax0, v_ax1] = x0[v_ax0, v_ax1 + T.int64(4)]

    @R.function
    def main(x0: R.Tensor((2, 6), dtype="float32")) -> R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="float32")):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.split, (x0,), out_ty=[R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="float32")])
            gv: R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="float32")) = lv
            R.output(gv)
        return gv