# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def bitwise_and(lv7: T.Buffer((T.int64(3), T.int64(4)), "bool"), a_1: T.Buffer((T.int64(3), T.int64(4)), "bool"), T_bitwise_and: T.Buffer((T.int64(3), T.int64(4)), "bool")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_bitwise_and"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv7[v_ax0, v_ax1], a_1[v_ax0, v_ax1])
                T.writes(T_bitwise_and[v_ax0, v_ax1])
                T_bitwise_and[v_ax0, v_ax1] = lv7[v_ax0, v_ax1] & a_1[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def bitwise_or(lv8: T.Buffer((T.int64(3), T.int64(4)), "bool"), lv9: T.Buffer((T.int64(3), T.int64(4)), "bool"), T_bitwise_or: T.Buffer((T.int64(3), T.int64(4)), "bool")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_bitwise_or"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv8[v_ax0, v_ax1], lv9[v_ax0, v_ax1])
                T.writes(T_bitwise_or[v_ax0, v_ax1])
                T_bitwise_or[v_ax0, v_ax1] = lv8[v_ax0, v_ax1] | lv9[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def full(T_full: T.Buffer((T.int64(3), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_full"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads()
                T.writes(T_full[v_ax0, v_ax1])
                T_full[v_ax0, v_ax1] = T.float32(0.0)

    @T.prim_func(private=True, s_tir=True)
    def greater(a_0: T.Buffer((T.int64(3), T.int64(4)), "float32"), T_greater: T.Buffer((T.int64(3), T.int64(4)), "bool")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_greater"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a_0[v_ax0, v_ax1])
                T.writes(T_greater[v_ax0, v_ax1])
                T_greater[v_ax0, v_ax1] = T.float32(0.0) < a_0[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def greater1(a_0: T.Buffer((T.int64(3), T.int64(4)), "float32"), T_greater: T.Buffer((T.int64(3), T.int64(4)), "bool")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_greater"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a_0[v_ax0, v_ax1])
                T.writes(T_greater[v_ax0, v_ax1])
                T_greater[v_ax0, v_ax1] = T.float32(0.5) < a_0[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def less(a_0: T.Buffer((T.int64(3), T.int64(4)), "float32"), T_less: T.Buffer((T.int64(3), T.int64(4)), "bool")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_less"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a_0[v_ax0, v_ax1])
                T.writes(T_less[v_ax0, v_ax1])
                T_less[v_ax0, v_ax1] = a_0[v_ax0, v_ax1] < T.float32(0.0)

    @T.prim_func(private=True, s_tir=True)
    def logical_xor(lv11: T.Buffer((T.int64(3), T.int64(4)), "bool"), a_1: T.Buffer((T.int64(3), T.int64(4)), "bool"), T_logical_xor: T.Buffer((T.int64(3), T.int64(4)), "bool")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_logical_xor"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv11[v_ax0, v_ax1], a_1[v_ax0, v_ax1])
                T.writes(T_logical_xor[v_ax0, v_ax1])
                T_logical_xor[v_ax0, v_ax1] = lv11[v_ax0, v_ax1] ^ a_1[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def tir_bitwise_not(a_1: T.Buffer((T.int64(3), T.int64(4)), "bool"), T_bitwise_not: T.Buffer((T.int64(3), T.int64(4)), "bool")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_bitwise_not"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a_1[v_ax0, v_ax1])
                T.writes(T_bitwise_not[v_ax0, v_ax1])
                T_bitwise_not[v_ax0, v_ax1] = ~a_1[v_ax0, v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def where(lv: T.Buffer((T.int64(3), T.int64(4)), "bool"), a_0: T.Buffer((T.int64(3), T.int64(4)), "float32"), lv1: T.Buffer((), "float32"), T_where: T.Buffer((T.int64(3), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_where"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv[v_ax0, v_ax1], a_0[v_ax0, v_ax1], lv1[()])
                T.writes(T_where[v_ax0, v_ax1])
                T_where[v_ax0, v_ax1] = T.Select(T.int64(0) < T.Cast("int64", lv[v_ax0, v_ax1]), a_0[v_ax0, v_ax1], lv1[()])

    @T.prim_func(private=True, s_tir=True)
    def where1(a_1: T.Buffer((T.int64(3), T.int64(4)), "bool"), lv3: T.Buffer((), "float32"), a_0: T.Buffer((T.int64(3), T.int64(4)), "float32"), T_where: T.Buffer((T.int64(3), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_where"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a_1[v_ax0, v_ax1], lv3[()], a_0[v_ax0, v_ax1])
                T.writes(T_where[v_ax0, v_ax1])
                T_where[v_ax0, v_ax1] = T.Select(T.int64(0) < T.Cast("int64", a_1[v_ax0, v_ax1]), lv3[()], a_0[v_ax0, v_ax1])

    @T.prim_func(private=True, s_tir=True)
    def where2(a_1: T.Buffer((T.int64(3), T.int64(4)), "bool"), a_0: T.Buffer((T.int64(3), T.int64(4)), "float32"), lv5: T.Buffer((T.int64(3), T.int64(4)), "float32"), T_where: T.Buffer((T.int64(3), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_where"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a_1[v_ax0, v_ax1], a_0[v_ax0, v_ax1], lv5[v_ax0, v_ax1])
                T.writes(T_where[v_ax0, v_ax1])
                T_where[v_ax0, v_ax1] = T.Select(T.int64(0) < T.Cast("int64", a_1[v_ax0, v_ax1]), a_0[v_ax0, v_ax1], lv5[v_ax0, v_ax1])

    @R.function
    def main(a_0: R.Tensor((3, 4), dtype="float32"), a_1: R.Tensor((3, 4), dtype="bool")) -> R.Tuple(R.Tensor((3, 4), dtype="float32"), R.Tensor((3, 4), dtype="float32"), R.Tensor((3, 4), dtype="float32"), R.Tensor((3, 4), dtype="bool"), R.Tensor((3, 4), dtype="bool")):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.greater, (a_0,), out_ty=R.Tensor((3, 4), dtype="bool"))
            lv1: R.Tensor((), dtype="float32") = R.const(0.5, "float32")
            lv2 = R.call_tir(cls.where, (lv, a_0, lv1), out_ty=R.Tensor((3, 4), dtype="float32"))
            lv3: R.Tensor((), dtype="float32") = R.const(-10000.0, "float32")
            lv4 = R.call_tir(cls.where1, (a_1, lv3, a_0), out_ty=R.Tensor((3, 4), dtype="float32"))
            lv5 = R.call_tir(cls.full, R.tuple(), out_ty=R.Tensor((3, 4), dtype="float32"))
            lv6 = R.call_tir(cls.where2, (a_1, a_0, lv5), out_ty=R.Tensor((3, 4), dtype="float32"))
            lv7 = R.call_tir(cls.greater1, (a_0,), out_ty=R.Tensor((3, 4), dtype="bool"))
            lv8 = R.call_tir(cls.bitwise_and, (lv7, a_1), out_ty=R.Tensor((3, 4), dtype="bool"))
            lv9 = R.call_tir(cls.tir_bitwise_not, (a_1,), out_ty=R.Tensor((3, 4), dtype="bool"))
            lv10 = R.call_tir(cls.bitwise_or, (lv8, lv9), out_ty=R.Tensor((3, 4), dtype="bool"))
            lv11 = R.call_tir(cls.less, (a_0,), out_ty=R.Tensor((3, 4), dtype="bool"))
            lv12 = R.call_tir(cls.logical_xor, (lv11, a_1), out_ty=R.Tensor((3, 4), dtype="bool"))
            gv: R.Tuple(R.Tensor((3, 4), dtype="float32"), R.Tensor((3, 4), dtype="float32"), R.Tensor((3, 4), dtype="float32"), R.Tensor((3, 4), dtype="bool"), R.Tensor((3, 4), dtype="bool")) = lv2, lv4, lv6, lv10, lv12
            R.output(gv)
        return gv