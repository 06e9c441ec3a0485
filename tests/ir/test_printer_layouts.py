"""Calls that share one attributes dict (a parsed module's) print as calls that do not (`ValuePrinter.layouts`)."""

from __future__ import annotations

from vdplace import ir
from vdplace.ir.expr import Call
from vdplace.ir.module import iter_bindings
from vdplace.ir.struct_info import FuncStructInfo, TensorStructInfo, TupleStructInfo

TEXT = """# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        a: R.Tensor((4, 4), dtype="float32") = R.matmul(x, x, out_dtype=None)
        b: R.Tensor((4, 4), dtype="float32") = R.matmul(a, x, out_dtype=None)
        c: R.Tensor((4, 4), dtype="float32") = R.permute_dims(b, axes=[1, 0])
        d: R.Tensor((4, 4), dtype="float32") = R.matmul(c, a, out_dtype="float32")
        e: R.Tensor((4, 4), dtype="float32") = R.permute_dims(d, axes=[1, 0])
        f: R.Tensor((4,), dtype="float32") = R.sum(e, axis=[1], keepdims=False)
        return f
"""


def test_calls_sharing_an_attributes_dict_print_their_own_arguments_and_attributes():
    mod = ir.parse(TEXT)
    calls = [b.value for b in iter_bindings(mod["main"]) if type(b.value) is Call]
    assert calls[0].attrs is calls[1].attrs and calls[2].attrs is calls[4].attrs  # what the layouts reuse
    assert calls[0].attrs is not calls[3].attrs
    assert ir.script(mod).strip() == TEXT.strip()


def test_a_function_struct_info_nests_as_deep_as_its_deepest_part():
    t = TensorStructInfo((2,), "float32")
    deep = TupleStructInfo([TupleStructInfo([t])])
    assert FuncStructInfo([t], t).nesting == 0
    assert FuncStructInfo([t, deep], t).nesting == 2
    assert FuncStructInfo([], deep).nesting == 2
    assert TupleStructInfo([FuncStructInfo([deep], t)]).nesting == 3
