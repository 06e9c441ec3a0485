"""A cost plan made explicit: the input module with every copy the plan needs written as ``R.to_vdevice``.

For every value (`problem.Value`) and every vdevice e other than its home
where the plan uses it, one binding ``v_e = R.to_vdevice(src, e)`` is
inserted right after the value's definition (a parameter's at the top of the
body), in vdevice order; `src` is the value's variable, or a *holder*
``v_h = t[i]`` (a tuple leaf's value) / ``v_h = v`` (a dataflow variable's,
so that the value can be read after its block).  Inserted variables are
dataflow variables when the value is a dataflow variable's and every use of
it reads a dataflow variable (all its readers are in that block), else plain
variables, visible wherever the value is.

Every relaxed use (`problem.Use`) of a variable ``a`` on vdevice e becomes:
``a`` itself when it is on e already, the holder (or the value's variable)
when e is the value's home, else ``v_e``.  A copy op the user bound
(``y = R.to_vdevice(a, d)`` / ``R.hint_on_device(a, d)``) becomes the alias
``y = <that>``.  So every copy of the result is one of the inserted ones,
one per value and destination, and ordinary realization
(`placement.rewrite.realize`) writes every device into the struct infos.
"""

from __future__ import annotations

import re

from vdplace.ir.expr import Binding, BindingBlock, Call, DataflowVar, Expr, Function, If, SeqExpr, TupleGetItem, Var
from vdplace.ir.module import IRModule
from vdplace.ir.op import get_op
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from vdplace.ir.vdevice import VDevice, vdevice_name
from vdplace.placement.cost.problem import Coarsened, Use
from vdplace.placement.extract.extraction import Tree, tree_leaves

_TO_VDEVICE = get_op("to_vdevice")


def leaf_sinfo(sinfo: StructInfo, path: tuple[int, ...]) -> StructInfo:
    for i in path:
        assert isinstance(sinfo, TupleStructInfo)
        sinfo = sinfo.fields[i]
    return sinfo


class _Plan:
    """Per root site: its destinations, its holder var and copy vars, once decided."""

    def __init__(self, co: Coarsened, plan: list[int]) -> None:
        self.co = co
        self.plan = plan
        self.of = co.classes.of
        self.dests: dict[int, set[int]] = {}
        self.home_reads: set[int] = set()
        self.var_sites = co.ex.var_sites
        read_outside: set[int] = set()
        for use in co.uses:
            if type(use.var) is not DataflowVar:
                read_outside.add(use.root)
            e = self.dev(use.consumer)
            if self.var_dev(use.var) == e:
                continue
            if e == self.dev(use.root):
                self.home_reads.add(use.root)
            else:
                self.dests.setdefault(use.root, set()).add(e)
        # roots whose every relaxed use reads a dataflow variable: their copies and holders are read in the block only
        self.block_local = {use.root for use in co.uses} - read_outside
        self.holder: dict[int, Var] = {}
        self.copies: dict[tuple[int, int], Var] = {}
        self.after: dict[int, list[Binding]] = {}  # id(var) of a definition -> bindings to insert after it
        self.names: set[str] = set()
        self.labels: dict[int, str] = {}  # vdevice index -> its name as a copy's name takes it

    def dev(self, site: int) -> int:
        """The device the plan puts `site` on."""
        return self.plan[self.of[site]]

    def var_dev(self, var: Var) -> int:
        """The device the plan puts variable `var` on: a relaxed use's variable is one tensor site."""
        site = self.var_sites[var]
        assert type(site) is int, "a relaxed use reads one tensor site (`problem._Walk.use`)"
        return self.dev(site)

    def fresh(self, base: str) -> str:
        name, k = base, 1
        while name in self.names:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        return name

    def define(self, root: int) -> None:
        """Make the holder and copy bindings of root site `root` (scheduled after its owner's definition)."""
        var, path = self.co.owner[root]
        dests = sorted(self.dests.get(root, ()))
        dataflow = type(var) is DataflowVar
        kind = DataflowVar if dataflow and root in self.block_local else Var
        need_holder = bool(path) and (dests or root in self.home_reads) or (dataflow and root in self.home_reads)
        out = self.after.setdefault(id(var), [])
        sinfo = leaf_sinfo(var.struct_info, path)
        home = self.co.problem.vdevices[self.dev(root)]
        src: Expr = var
        if need_holder:
            value: Expr = var
            for depth, i in enumerate(path):
                value = TupleGetItem(value, i, leaf_sinfo(var.struct_info, path[: depth + 1]))
            held = _with_device(sinfo, home)
            holder = kind(self.fresh(f"{var.name}_{'_'.join(map(str, path)) or 'out'}"), held)
            out.append(Binding(holder, value, held))
            self.holder[root] = src = holder
        vdevices = self.co.problem.vdevices
        for d in dests:
            label = self.labels.get(d)
            if label is None:
                label = self.labels[d] = re.sub(r"[^0-9A-Za-z]+", "_", vdevice_name(vdevices, vdevices[d])).strip("_")
            moved = _with_device(sinfo, vdevices[d])
            copy = kind(self.fresh(f"{var.name}_{label}"), moved)
            out.append(Binding(copy, Call(_TO_VDEVICE, [src], {"dst_vdevice": vdevices[d]}, moved), moved))
            self.copies[root, d] = copy

    def read(self, use: Use) -> Expr:
        """What a use reads (see the module docstring)."""
        e = self.dev(use.consumer)
        if self.var_dev(use.var) == e:
            return use.var
        if e == self.dev(use.root):
            return self.holder.get(use.root) or self.co.owner[use.root][0]
        return self.copies[use.root, e]


def _with_device(sinfo: StructInfo, vdevice: VDevice) -> StructInfo:
    return sinfo.with_vdevice(vdevice) if isinstance(sinfo, TensorStructInfo) else sinfo


def rewrite(co: Coarsened, plan: list[int]) -> tuple[IRModule, set[str]]:
    """The input module with the plan's copies inserted and its uses redirected (module docstring),
    and the names of the inserted copies' variables (unique in the module)."""
    p = _Plan(co, plan)
    mod = co.ex.module
    for func in mod.functions.values():
        p.names.update(_names(func))
    for root in sorted(set(p.dests) | p.home_reads):
        p.define(root)
    edits: dict[int, list[Use]] = {}
    for use in co.uses:
        edits.setdefault(id(use.binding), []).append(use)
    functions = {}
    for name, func in mod.functions.items():
        body = _seq(func.body, p, edits)
        top = [b for param in func.params for b in p.after.get(id(param), ())]
        if top:
            body = SeqExpr([BindingBlock(top), *body.blocks], body.body, body.struct_info, body.span)
        functions[name] = func if body is func.body else _function(func, body)
    return mod.replace(functions=functions), {var.name for var in p.copies.values()}


def _function(func: Function, body: SeqExpr) -> Function:
    return Function(func.params, body, func.ret_struct_info, func.attrs, func.span, func.ret_span)


def _seq(seq: SeqExpr, p: _Plan, edits: dict[int, list[Use]]) -> SeqExpr:
    blocks = []
    changed = False
    for block in seq.blocks:
        bindings = []
        for binding in block.bindings:
            new = _binding(binding, p, edits)
            changed |= new is not binding
            bindings.append(new)
            extra = p.after.get(id(binding.var))
            if extra:
                bindings.extend(extra)
                changed = True
        blocks.append(type(block)(bindings, block.span))
    if not changed:
        return seq
    return SeqExpr(blocks, seq.body, seq.struct_info, seq.span)


def _binding(binding: Binding, p: _Plan, edits: dict[int, list[Use]]) -> Binding:
    value = binding.value
    if type(value) is If:
        t, f = _seq(value.true_branch, p, edits), _seq(value.false_branch, p, edits)
        if t is value.true_branch and f is value.false_branch:
            return binding
        return binding.rebuilt(binding.var, If(value.cond, t, f, value.struct_info, value.span), binding.annotation)
    uses = edits.get(id(binding))
    if not uses:
        return binding
    assert type(value) is Call
    args = list(value.args)
    for use in uses:
        read = p.read(use)
        if use.index is None:
            return binding.rebuilt(binding.var, read, binding.annotation)
        args[use.index] = read
    if all(a is b for a, b in zip(args, value.args, strict=True)):
        return binding
    call = Call(value.op, args, value.attrs, value.struct_info, value.span)
    return binding.rebuilt(binding.var, call, binding.annotation)


def _names(func: Function) -> set[str]:
    names = {param.name for param in func.params}

    def walk(seq: SeqExpr) -> None:
        for block in seq.blocks:
            for binding in block.bindings:
                names.add(binding.var.name)
                if type(binding.value) is If:
                    walk(binding.value.true_branch)
                    walk(binding.value.false_branch)

    walk(func.body)
    return names


def site_devices(co: Coarsened, plan: list[int], ex2_var_sites: dict[Var, Tree]) -> dict[int, int]:
    """Devices of the rewritten module's sites that belong to the input's variables."""
    of = co.classes.of
    out: dict[int, int] = {}
    for var, tree in co.ex.var_sites.items():
        new = ex2_var_sites.get(var)
        if new is None:
            continue
        for old_site, new_site in zip(tree_leaves(tree), tree_leaves(new), strict=True):
            out[new_site] = plan[of[old_site]]
    return out
