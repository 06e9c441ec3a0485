"""The `Time` objective on a bound constant read on two devices: its copy is scheduled, as the module makes it."""

from __future__ import annotations

from vdplace import ir
from vdplace.placement import CostModel, Time, place

# c is read on the host (by a) and on the GPU (by y), each pinned by its annotation: one of the two reads
# needs a copy of c.  The schedule used to miss it (it tracked the constant's expression, not the variable),
# and the placement failed its own check ("the schedule's copies [...] are not the placed module's").
CONST_TWICE = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32", "cuda:0")):
        R.func_attr({"num_input": 1})
        c: R.Tensor((), dtype="float32") = R.const(-3.0, "float32")
        a: R.Tensor((4,), "float32", "llvm:0") = R.add(x, c)
        g = R.greater(w, a)
        y: R.Tensor((4,), "float32", "cuda:0") = R.where(g, w, c)
        return y
"""


def test_a_bound_constant_read_on_two_devices_is_copied_in_the_schedule():
    result = place(ir.parse(CONST_TWICE), objective=Time(CostModel.roofline()))
    copies = {e.name: e.device for e in result.schedule.events if e.kind == "copy"}
    moved = [n for n in copies if n.startswith("c_")]
    assert len(moved) == 1, copies
    src, dst = copies[moved[0]]
    assert {src, dst} == {"llvm:0:global", "cuda:0:global"}
    assert result.schedule.makespan >= result.schedule.lower_bound
