"""Kernel cases of ``R.call_tir`` (joined into KERNEL_CASES, tests/ir/ops/test_kernels.py).

Each TIR function is written as TVM prints one; the references are plain
NumPy of what the loops compute.
"""

from __future__ import annotations

import numpy as np

from vdplace.ir import tensor
from vdplace.ir.struct_info import TupleStructInfo
from vdplace.ir.tir import prim_func_from_text

_RNG = np.random.default_rng(41)
_X = _RNG.standard_normal((3, 4)).astype(np.float32)
_LO = np.array(0.25, np.float32)

_MAXIMUM = prim_func_from_text("""
@T.prim_func(private=True, s_tir=True)
def maximum(x: T.Buffer((T.int64(3), T.int64(4)), "float32"), lo: T.Buffer((), "float32"),
            out: T.Buffer((T.int64(3), T.int64(4)), "float32")):
    for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
        with T.sblock("out"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            out[v0, v1] = T.max(x[v0, v1], lo[()])
""")

# Row sums and row maxima: a reduction with T.init, two outputs (a tuple result).
_SUM_MAX = prim_func_from_text("""
@T.prim_func(private=True, s_tir=True)
def sum_max(x: T.Buffer((T.int64(3), T.int64(4)), "float32"), s: T.Buffer((T.int64(3),), "float32"),
            m: T.Buffer((T.int64(3),), "float32")):
    for ax0, k in T.grid(T.int64(3), T.int64(4)):
        with T.sblock("s"):
            v0, vk = T.axis.remap("SR", [ax0, k])
            with T.init():
                s[v0] = T.float32(0.0)
            s[v0] = s[v0] + x[v0, vk]
    for ax0, k in T.grid(T.int64(3), T.int64(4)):
        with T.sblock("m"):
            v0, vk = T.axis.remap("SR", [ax0, k])
            with T.init():
                m[v0] = T.min_value("float32")
            m[v0] = T.max(m[v0], x[v0, vk])
""")

CASES = [
    ("call_tir", ((_X, _LO),), {"gvar": _MAXIMUM, "out_ty": tensor((3, 4))}, lambda t: np.maximum(t[0], t[1])),
    (
        "call_tir",
        ((_X,),),
        {"gvar": _SUM_MAX, "out_ty": TupleStructInfo([tensor((3,)), tensor((3,))])},
        lambda t: (t[0].sum(axis=1, dtype=np.float32), t[0].max(axis=1)),
    ),
]
