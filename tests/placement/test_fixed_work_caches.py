"""What the time objective's fixed work keeps instead of redoing: each cache answers as the work it saves would.

`OpInfo.work` keeps the work of one op signature per `Sizes` (`Sizes.works`):
calls that differ in shape, dtype, attribute (``1`` and ``True`` too) or
function get their own; calls that differ in vdevices only share one.
`liveness.stays` keeps a timing's stays on it (`Timing.stays`) until the
timing runs another task.  `vdevice_name` answers for a list it saw last
and for a new one alike.
"""

from __future__ import annotations

from vdplace.bench.generators import build_chain
from vdplace.ir.op import get_op
from vdplace.ir.sizes import Sizes
from vdplace.ir.struct_info import TensorStructInfo
from vdplace.ir.vdevice import VDevice, vdevice_name
from vdplace.placement import CostModel
from vdplace.placement.cost.model import OpInfo
from vdplace.placement.cost.problem import coarsen
from vdplace.placement.extract.extract import extract
from vdplace.placement.schedule import liveness
from vdplace.placement.schedule.graph import build_graph
from vdplace.placement.schedule.simulate import Simulator

CPU, GPU = VDevice("llvm"), VDevice("cuda")
MODEL = CostModel.roofline()


def _info(shape, dtype="float32", vdevice=None, attrs=None, function="main", sizes=None) -> OpInfo:
    t = TensorStructInfo(shape, dtype, vdevice=vdevice)
    op = get_op("nn.softmax")
    return OpInfo(function, "y", op.name, [t], t, attrs or {}, None, op, sizes)


def test_work_of_one_signature_is_shared_and_of_another_its_own() -> None:
    sizes = Sizes()
    first = _info((4, 8), sizes=sizes).work
    assert _info((4, 8), vdevice=GPU, sizes=sizes).work is first  # vdevices aside: the same signature
    assert len(sizes.works) == 1
    assert _info((8, 8), sizes=sizes).work.flops == 2 * first.flops  # another shape: its own
    assert _info((4, 8), "float16", sizes=sizes).work.bytes == first.bytes / 2
    assert _info((4, 8), function="other", sizes=sizes).work == first  # another function: its own entry
    assert len(sizes.works) == 4
    one, true = (_info((4, 8), attrs={"axis": a}, sizes=sizes).work for a in (1, True))
    assert one == true and len(sizes.works) == 6  # 1 and True are equal keys in a dict, not the same attribute
    unhashable = _info((4, 8), attrs={"axes": [0, 1]}, sizes=sizes)
    assert unhashable.work == first and len(sizes.works) == 6  # computed, not kept


def test_work_with_a_symbolic_dim_follows_the_sizes_it_is_given() -> None:
    small, large = Sizes(dims={"n": 2}), Sizes(dims={"n": 64})
    assert _info(("n", 8), sizes=large).work.flops == 32 * _info(("n", 8), sizes=small).work.flops


def test_stays_are_kept_on_the_timing_until_it_runs_another_task() -> None:
    mod = build_chain(30).replace(vdevices=[CPU, GPU])
    g = build_graph(coarsen(extract(mod, settle=False), MODEL), MODEL)
    placement = [g.allowed[u][0] for u in range(g.num_units)]
    sim = Simulator(g, placement)
    sim.op(0, ensure=True)
    early = liveness.stays(g, sim.timing)
    assert liveness.stays(g, sim.timing) is early  # kept
    for i in range(1, g.num_ops):
        sim.op(i, ensure=True)
    timing = sim.finish()
    done = liveness.stays(g, timing)
    assert done is not early and done == liveness._stays(g, timing)  # the later tasks are in it


def test_vdevice_names_of_a_list_seen_last_and_of_another() -> None:
    vds = [CPU, GPU, VDevice("cuda", 1)]
    assert [vdevice_name(vds, v) for v in vds] == ["llvm:0:global", "cuda:0:global", "cuda:1:global"]
    other = [GPU, VDevice("cuda", 1)]  # the same objects in another list: other ordinals
    assert vdevice_name(other, other[1]) == "cuda:1:global"
    assert vdevice_name([VDevice("cuda", 1)], VDevice("cuda", 1)) == "cuda:0:global"
    assert vdevice_name(vds, VDevice("cuda", 1)) == "cuda:1:global"  # equal, not the same object
