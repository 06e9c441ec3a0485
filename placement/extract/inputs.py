"""The `Start` of every unannotated runtime input of an entry function (`placement.model.entry`)."""

from __future__ import annotations

from vdplace.ir.expr import Function, Var
from vdplace.ir.sizes import Sizes
from vdplace.placement.extract.extraction import Tree, tree_leaves
from vdplace.placement.model.constraints import ConstraintSet, Start
from vdplace.placement.model.entry import is_entry, num_inputs, tensor_leaves
from vdplace.placement.model.rules import Rule, RuleKind

_INPUT = Rule.of(RuleKind.INPUT)


def add_starts(cs: ConstraintSet, fname: str, func: Function, var_sites: dict[Var, Tree], sizes: Sizes) -> None:
    """A `Start` per unannotated tensor leaf of `func`'s runtime inputs, when it is an entry function and the
    module has a CPU vdevice (a host to start from); nothing otherwise."""
    if not cs.host_devices or not is_entry(fname, func):
        return
    for param in func.params[: num_inputs(func)]:
        for sinfo, leaf in zip(tensor_leaves(param.struct_info), tree_leaves(var_sites[param]), strict=False):
            if sinfo.vdevice is None:
                cs.starts.append(Start(leaf, sizes.nbytes(sinfo, fname), _INPUT, param.span, param))
