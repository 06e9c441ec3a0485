"""The `Start` of every unannotated runtime input of an entry function (`placement.model.entry`)."""

from __future__ import annotations

from vdplace.ir.expr import Function, Var
from vdplace.ir.sizes import Sizes
from vdplace.ir.struct_info import TensorStructInfo
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
    starts, nbytes = cs.starts, sizes.nbytes
    for param in func.params[: num_inputs(func)]:
        sinfo, tree = param.struct_info, var_sites[param]
        if type(sinfo) is TensorStructInfo and type(tree) is int:  # the common case, without generators
            if sinfo.vdevice is None:
                starts.append(Start(tree, nbytes(sinfo, fname), _INPUT, param.span, param))
            continue
        for leaf_sinfo, leaf in zip(tensor_leaves(sinfo), tree_leaves(tree), strict=False):
            if leaf_sinfo.vdevice is None:
                starts.append(Start(leaf, nbytes(leaf_sinfo, fname), _INPUT, param.span, param))
