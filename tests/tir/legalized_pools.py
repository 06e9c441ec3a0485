# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def adaptive_avg_pool2d(a_0: T.Buffer((T.int64(1), T.int64(2), T.int64(7), T.int64(7)), "float32"), adaptive_pool_avg: T.Buffer((T.int64(1), T.int64(2), T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        adaptive_pool_sum = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(2), T.int64(3)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(2), T.int64(2), T.int64(3)):
            with T.sblock("adaptive_pool_sum_l1"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a_0[v_ax0, v_ax1, v_ax2 * T.int64(7) // T.int64(2):v_ax2 * T.int64(7) // T.int64(2) + (v_ax2 % T.int64(2) + T.int64(4)), v_ax3 * T.int64(7) // T.int64(3):v_ax3 * T.int64(7) // T.int64(3) + ((v_ax3 % T.int64(3) + T.int64(7)) // T.int64(3) + T.int64(1))])
                T.writes(adaptive_pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
                for rv0, rv1 in T.grid(T.Select((v_ax2 * T.int64(7) + T.int64(1)) % T.int64(2) == T.int64(0), (v_ax2 * T.int64(7) + T.int64(7)) // T.int64(2), (v_ax2 * T.int64(7) + T.int64(7)) // T.int64(2) + T.int64(1)) - v_ax2 * T.int64(7) // T.int64(2), T.Select((v_ax3 * T.int64(7) + T.int64(1)) % T.int64(3) == T.int64(0), (v_ax3 * T.int64(7) + T.int64(7)) // T.int64(3), (v_ax3 * T.int64(7) + T.int64(7)) // T.int64(3) + T.int64(1)) - v_ax3 * T.int64(7) // T.int64(3)):
                    with T.sblock("adaptive_pool_sum"):
                        v_ax0_1 = T.axis.spatial((v_ax0, v_ax0 + T.int64(1)), v_ax0)
                        v_ax1_1 = T.axis.spatial((v_ax1, v_ax1 + T.int64(1)), v_ax1)
                        v_ax2_1 = T.axis.spatial((v_ax2, v_ax2 + (T.int64(1) - v_ax2)), v_ax2)
                        v_ax3_1 = T.axis.spatial((v_ax3, v_ax3 + (T.int64(1) - v_ax3)), v_ax3)
                        v_rv0, v_rv1 = T.axis.remap("RR", [rv0, rv1])
                        T.reads(a_0[v_ax0_1, v_ax1_1, v_ax2_1 * T.int64(7) // T.int64(2) + v_rv0, v_ax3_1 * T.int64(7) // T.int64(3) + v_rv1])
                        T.writes(adaptive_pool_sum[v_ax0_1, v_ax1_1, v_ax2_1, v_ax3_1])
                        with T.init():
                            adaptive_pool_sum[v_ax0_1, v_ax1_1, v_ax2_1, v_ax3_1] = T.float32(0.0)
                        adaptive_pool_sum[v_ax0_1, v_ax1_1, v_ax2_1, v_ax3_1] = adaptive_pool_sum[v_ax0_1, v_ax1_1, v_ax2_1, v_ax3_1] + a_0[v_ax0_1, v_ax1_1, v_ax2_1 * T.int64(7) // T.int64(2) + v_rv0, v_ax3_1 * T.int64(7) // T.int64(3) + v_rv1]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(2), T.int64(2), T.int64(3)):
            with T.sblock("adaptive_pool_avg"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(adaptive_pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
                T.writes(adaptive_pool_avg[v_ax0, v_ax1, v_ax2, v_ax3])
                T.sblock_attr({"schedule_rule": "meta_schedule.adaptive_pool_avg"})
                adaptive_pool_avg[v_ax0, v_ax1, v_ax2, v_ax3] = adaptive_pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] / (T.Cast("float32", T.Cast("int32", T.Select((v_ax2 * T.int64(7) + T.int64(1)) % T.int64(2) == T.int64(0), (T.Cast("int64", v_ax2) * T.int64(7) + T.int64(7)) // T.int64(2), (T.Cast("int64", v_ax2) * T.int64(7) + T.int64(7)) // T.int64(2) + T.int64(1)) - T.Cast("int64", v_ax2) * T.int64(7) // T.int64(2))) * T.Cast("float32", T.Cast("int32", T.Select((v_ax3 * T.int64(7) + T.int64(1)) % T.int64(3) == T.int64(0), (T.Cast("int64", v_ax3) * T.int64(7) + T.int64(7)) // T.int64(3), (T.Cast("int64", v_ax3) * T.int64(7) + T.int64(7)) // T.int64(3) + T.int64(1)) - T.Cast("int64", v_ax3) * T.int64(7) // T.int64(3))))

    @T.prim_func(private=True, s_tir=True)
    def add(lv6: T.Buffer((), "float32"), lv7: T.Buffer((), "float32"), T_add: T.Buffer((), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        with T.sblock("T_add"):
            vi = T.axis.spatial(T.int64(1), T.int64(0))
            T.reads(lv6[()], lv7[()])
            T.writes(T_add[()])
            T_add[()] = lv6[()] + lv7[()]

    @T.prim_func(private=True, s_tir=True)
    def avg_pool2d(a_0: T.Buffer((T.int64(1), T.int64(2), T.int64(7), T.int64(7)), "float32"), pool_avg: T.Buffer((T.int64(1), T.int64(2), T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(10), T.int64(10)))
        pool_sum = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(4), T.int64(4)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(2), T.int64(10), T.int64(10)):
            with T.sblock("pad_temp"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a_0[v_ax0, v_ax1, v_ax2 - T.int64(1), v_ax3 - T.int64(1)])
                T.writes(pad_temp[v_ax0, v_ax1, v_ax2, v_ax3])
                pad_temp[v_ax0, v_ax1, v_ax2, v_ax3] = T.if_then_else(T.int64(1) <= v_ax2 and v_ax2 < T.int64(8) and T.int64(1) <= v_ax3 and v_ax3 < T.int64(8), a_0[v_ax0, v_ax1, v_ax2 - T.int64(1), v_ax3 - T.int64(1)], T.float32(0.0))
        for ax0, ax1, ax2, ax3, rv0, rv1 in T.grid(T.int64(1), T.int64(2), T.int64(4), T.int64(4), T.int64(3), T.int64(3)):
            with T.sblock("pool_sum"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_rv0, v_rv1 = T.axis.remap("SSSSRR", [ax0, ax1, ax2, ax3, rv0, rv1])
                T.reads(pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0, v_ax3 * T.int64(2) + v_rv1])
                T.writes(pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
                with T.init():
                    pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] = T.float32(0.0)
                pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] = pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] + pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0, v_ax3 * T.int64(2) + v_rv1]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(2), T.int64(4), T.int64(4)):
            with T.sblock("pool_avg"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
                T.writes(pool_avg[v_ax0, v_ax1, v_ax2, v_ax3])
                T.sblock_attr({"schedule_rule": "meta_schedule.pool_avg"})
                pool_avg[v_ax0, v_ax1, v_ax2, v_ax3] = pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] / T.Cast("float32", T.max((T.min(v_ax2 * T.int64(2) + T.int64(1), T.int64(6)) + T.int64(2) - T.max(T.int64(1) - v_ax2 * T.int64(2), T.int64(0)) - v_ax2 * T.int64(2)) * (T.min(v_ax3 * T.int64(2) + T.int64(1), T.int64(6)) + T.int64(2) - T.max(T.int64(1) - v_ax3 * T.int64(2), T.int64(0)) - v_ax3 * T.int64(2)), T.int64(1)))

    @T.prim_func(private=True, s_tir=True)
    def max_pool2d(a_0: T.Buffer((T.int64(1), T.int64(2), T.int64(7), T.int64(7)), "float32"), pool_max: T.Buffer((T.int64(1), T.int64(2), T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(10), T.int64(10)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(2), T.int64(10), T.int64(10)):
            with T.sblock("pad_temp"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a_0[v_ax0, v_ax1, v_ax2 - T.int64(1), v_ax3 - T.int64(1)])
                T.writes(pad_temp[v_ax0, v_ax1, v_ax2, v_ax3])
                pad_temp[v_ax0, v_ax1, v_ax2, v_ax3] = T.if_then_else(T.int64(1) <= v_ax2 and v_ax2 < T.int64(8) and T.int64(1) <= v_ax3 and v_ax3 < T.int64(8), a_0[v_ax0, v_ax1, v_ax2 - T.int64(1), v_ax3 - T.int64(1)], T.float32(-340282346638528859811704183484516925440.0))
        for ax0, ax1, ax2, ax3, rv0, rv1 in T.grid(T.int64(1), T.int64(2), T.int64(4), T.int64(4), T.int64(3), T.int64(3)):
            with T.sblock("pool_max"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_rv0, v_rv1 = T.axis.remap("SSSSRR", [ax0, ax1, ax2, ax3, rv0, rv1])
                T.reads(pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0, v_ax3 * T.int64(2) + v_rv1])
                T.writes(pool_max[v_ax0, v_ax1, v_ax2, v_ax3])
                T.sblock_attr({"schedule_rule": "meta_schedule.pool_max"})
                with T.init():
                    pool_max[v_ax0, v_ax1, v_ax2, v_ax3] = T.float32(-340282346638528859811704183484516925440.0)
                pool_max[v_ax0, v_ax1, v_ax2, v_ax3] = T.max(pool_max[v_ax0, v_ax1, v_ax2, v_ax3], pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0, v_ax3 * T.int64(2) + v_rv1])

    @T.prim_func(private=True, s_tir=True)
    def sum(lv: T.Buffer((T.int64(1), T.int64(2), T.int64(4), T.int64(4)), "float32"), lv_red: T.Buffer((), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for k0, k1, k2, k3 in T.grid(T.int64(1), T.int64(2), T.int64(4), T.int64(4)):
            with T.sblock("lv_red"):
                v_k0, v_k1, v_k2, v_k3 = T.axis.remap("RRRR", [k0, k1, k2, k3])
                T.reads(lv[v_k0, v_k1, v_k2, v_k3])
                T.writes(lv_red[()])
                with T.init():
                    lv_red[()] = T.float32(0.0)
                lv_red[()] = lv_red[()] + lv[v_k0, v_k1, v_k2, v_k3]

    @T.prim_func(private=True, s_tir=True)
    def sum1(lv1: T.Buffer((T.int64(1), T.int64(2), T.int64(2), T.int64(3)), "float32"), lv1_red: T.Buffer((), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for k0, k1, k2, k3 in T.grid(T.int64(1), T.int64(2), T.int64(2), T.int64(3)):
            with T.sblock("lv1_red"):
                v_k0, v_k1, v_k2, v_k3 = T.axis.remap("RRRR", [k0, k1, k2, k3])
                T.reads(lv1[v_k0, v_k1, v_k2, v_k3])
                T.writes(lv1_red[()])
                with T.init():
                    lv1_red[()] = T.float32(0.0)
                lv1_red[()] = lv1_red[()] + lv1[v_k0, v_k1, v_k2, v_k3]

    @T.prim_func(private=True, s_tir=True)
    def zeros(T_full: T.Buffer((T.int64(1), T.int64(2), T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(2), T.int64(4), T.int64(4)):
            with T.sblock("T_full"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads()
                T.writes(T_full[v_ax0, v_ax1, v_ax2, v_ax3])
                T_full[v_ax0, v_ax1, v_ax2, v_ax3] = T.float32(0.0)

    @R.function
    def main(a_0: R.Tensor((1, 2, 7, 7), dtype="float32")) -> R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((1, 2, 4, 4), dtype="float32"), R.Tensor((1, 2, 2, 3), dtype="float32"), R.Tensor((1, 2, 4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.avg_pool2d, (a_0,), out_ty=R.Tensor((1, 2, 4, 4), dtype="float32"))
            lv1 = R.call_tir(cls.adaptive_avg_pool2d, (a_0,), out_ty=R.Tensor((1, 2, 2, 3), dtype="float32"))
            lv2 = R.call_tir(cls.max_pool2d, (a_0,), out_ty=R.Tensor((1, 2, 4, 4), dtype="float32"))
            lv3 = R.call_tir(cls.zeros, R.tuple(), out_ty=R.Tensor((1, 2, 4, 4), dtype="float32"))
            lv4: R.Tuple(R.Tensor((1, 2, 4, 4), dtype="float32"), R.Tensor((1, 2, 4, 4), dtype="float32")) = lv2, lv3
            lv5: R.Tensor((1, 2, 4, 4), dtype="float32") = lv4[0]
            lv6 = R.call_tir(cls.sum, (lv,), out_ty=R.Tensor((), dtype="float32"))
            lv7 = R.call_tir(cls.sum1, (lv1,), out_ty=R.Tensor((), dtype="float32"))
            lv8 = R.call_tir(cls.add, (lv6, lv7), out_ty=R.Tensor((), dtype="float32"))
            lv9 = R.call_tir(cls.sum, (lv5,), out_ty=R.Tensor((), dtype="float32"))
            lv10 = R.call_tir(cls.add, (lv8, lv9), out_ty=R.Tensor((), dtype="float32"))
            gv: R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((1, 2, 4, 4), dtype="float32"), R.Tensor((1, 2, 2, 3), dtype="float32"), R.Tensor((1, 2, 4, 4), dtype="float32")) = lv10, lv, lv1, lv5
            R.output(gv)
        return gv