"""What extraction produces: the constraint set plus where every variable's and expression's sites are.

A *site tree* mirrors a struct info: an ``int`` (site id) for a tensor, a
``tuple`` of trees for a tuple, ``None`` for anything that carries no device
(shapes, prim values, objects).  Realization reads these trees to write the
solver's answer back without walking the constraints again.
"""

from __future__ import annotations

from collections.abc import Iterator

from vdplace.ir.expr import Function, Var
from vdplace.ir.module import IRModule
from vdplace.ir.sizes import Sizes
from vdplace.ir.struct_info import StructInfo
from vdplace.placement.extract.copies import CopyPlan
from vdplace.placement.model.constraints import ConstraintSet

Tree = int | tuple["Tree", ...] | None


def declared_return(func: Function) -> StructInfo | None:
    """The return struct info the user wrote, or None when it is the body's inferred one.

    The parser records a written return annotation's span; a return type
    without one (parsed with no annotation, or built without ``ret=``) equals
    the body's struct info, vdevice inferred forward included: a consequence,
    not a pin.  A builder-made return type that differs from the body's says
    something the body does not, so it is a pin.
    """
    if func.ret_span is not None:
        return func.ret_struct_info
    if func.ret_struct_info == func.body.struct_info:
        return None
    return func.ret_struct_info


def tree_leaves(tree: Tree) -> Iterator[int]:
    """The site ids of a tree, in field order."""
    if type(tree) is int:
        yield tree
    elif type(tree) is tuple:
        for sub in tree:
            yield from tree_leaves(sub)


class Extraction:
    """A module's constraints plus where each variable's and expression's sites are.

    `expr_sites` is keyed by ``id(expr)`` for nested, non-variable tensor
    expressions (their nodes stay alive in the input module, so ids are stable
    while the extraction is in use).  `copy_plans` maps ``id(call)`` of every
    copy op bound as a binding's whole value to its `copies.CopyPlan`;
    `dropped` holds the variables of the copy ops nothing needs and of their
    aliases, which realization leaves out (`copies.CopyPlanner.finish`);
    `sizes` weighs symbolic dims for every byte figure (`ir.sizes.Sizes`).

    Realization spends an extraction: it takes `var_sites` (`take_var_sites`)
    and replaces each variable's tree with its placed counterpart as it goes,
    so a module of a million variables needs no second map; to realize
    another assignment, extract again.
    """

    __slots__ = ("module", "constraints", "sizes", "var_sites", "expr_sites", "ret_sites", "copy_plans", "dropped")

    def __init__(self, module: IRModule, constraints: ConstraintSet, sizes: Sizes) -> None:
        self.module = module
        self.constraints = constraints
        self.sizes = sizes
        self.var_sites: dict[Var, Tree] = {}
        self.expr_sites: dict[int, Tree] = {}
        self.ret_sites: dict[str, Tree] = {}
        self.copy_plans: dict[int, CopyPlan] = {}
        self.dropped: set[Var] = set()

    def take_var_sites(self) -> dict[Var, Tree]:
        """`var_sites`, for realization to rewrite in place (the attribute goes); a second call is an error."""
        try:
            var_sites = self.var_sites
        except AttributeError:
            raise RuntimeError("this extraction was realized already: extract the module again") from None
        del self.var_sites
        return var_sites
