"""One walk over a module builds its `ConstraintSet` (the rules are tabled in docs/placement.md).

Every tensor leaf of every parameter, binding variable and function return is
a *site*; a nested tensor expression that is not a variable (a constant
operand, a call inside a call's arguments) gets an anonymous site of its own.
Each rule of the table adds constraints that remember the rule's text, the
span and the IR node (`origin`) they came from.

The walk also records which sites belong to which variable and expression
(`extraction.Extraction`: `var_sites`, `expr_sites`, `ret_sites`, as site
trees), so that realization can write the solver's answer back without
walking the constraints again.

Long because: one walk over every construct of the IR, its hot loop (`seq`)
inlined; the parts that stand alone live beside it (`copies`, `inputs`).

Only annotations the user wrote are pins (`Binding.annotation`, parameter and
return struct infos); a vdevice the normalizer inferred forward into
``var.struct_info`` is a consequence of the pins, not a pin.
"""

from __future__ import annotations

from collections.abc import Sequence

from vdplace.ir.errors import VDeviceLookupError
from vdplace.ir.expr import (
    Binding,
    Call,
    Constant,
    DataflowBlock,
    DataflowVar,
    Expr,
    Function,
    GlobalVar,
    If,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    StringImm,
    Tuple,
    TupleGetItem,
    Var,
)
from vdplace.ir.module import IRModule
from vdplace.ir.normalize import hint_target, host_vdevice
from vdplace.ir.op import Op
from vdplace.ir.sizes import Sizes
from vdplace.ir.span import Span
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from vdplace.ir.vdevice import VDevice, describe
from vdplace.placement.errors import PlacementError, bound_twice
from vdplace.placement.extract.copies import CopyPlanner
from vdplace.placement.extract.extraction import Extraction, Tree, declared_return, tree_leaves
from vdplace.placement.extract.inputs import add_starts
from vdplace.placement.model.constraints import (
    MAX_LINKED_TIES,
    ConstraintSet,
    Domain,
    EqualTable,
    PinTable,
    Site,
    SiteTable,
)
from vdplace.placement.model.rules import Rule, RuleKind, RuleSpec

_PARAM = Rule.of(RuleKind.PARAM)
_RETURN = Rule.of(RuleKind.RETURN)
_FUNC_RESULT = Rule.of(RuleKind.FUNC_RESULT)
_ANNOTATION = Rule.of(RuleKind.ANNOTATION)
_ALIAS = Rule.of(RuleKind.ALIAS)
_IF = Rule.of(RuleKind.IF)
_CONSTANT = Rule.of(RuleKind.CONSTANT)
_TO_VDEVICE = Rule.of(RuleKind.TO_VDEVICE)
_HINT_STRICT = Rule.of(RuleKind.HINT_STRICT)
_HINT = Rule.of(RuleKind.HINT)
_CALL_ARG = RuleKind.CALL_ARG  # a call's ties carry a `RuleSpec`: built only if a report asks
_CALL_RESULT = RuleKind.CALL_RESULT


def extract(
    mod: IRModule, *, strict_hints: bool = False, sizes: Sizes | None = None, settle: bool = True
) -> Extraction:
    """The constraint set of `mod` (read only), dims sized by `sizes` (default ``Sizes(mod)``);
    ``settle=False``: every copy op kept as the walk plans it (`copies.CopyPlanner`)."""
    return _Extractor(mod, strict_hints, Sizes(mod) if sizes is None else sizes, settle).run()


class _Extractor:
    def __init__(self, mod: IRModule, strict_hints: bool, sizes: Sizes, settle: bool) -> None:
        self.mod = mod
        self.strict = strict_hints
        self.vdevices: list[VDevice] = list(mod.vdevices)
        self.index: dict[VDevice, int] = {}
        for i, v in enumerate(self.vdevices):
            self.index.setdefault(v, i)
        host = host_vdevice(self.vdevices)
        self.host = None if host is None else self.index[host]
        self.cs = cs = ConstraintSet(self.vdevices, sizes)
        self.ex = Extraction(mod, cs, sizes)
        assert type(cs.sites) is SiteTable and type(cs.equals) is EqualTable and type(cs.pins) is PinTable
        self.sites = cs.sites  # a new set's tables, which the walk fills column by column
        self.equals = cs.equals
        self.pins = cs.pins
        self._same_rules: dict[str, Rule] = {}
        self._domains: dict[str, frozenset[int] | None] = {}
        self.copies = CopyPlanner(self.ex, self.vdevices, settle)
        self.func = ""
        self.params_of: dict[str, tuple[int, int]] = {}  # each function's parameter and return sites [lo, hi)
        self.own_sites = (0, 0, 0)  # the walked function's: those two bounds, then its body's first site

    # -- sites ----------------------------------------------------------------
    def new_tree(self, sinfo: StructInfo, name: str, span: Span | None, kind: str, path: tuple[int, ...] = ()) -> Tree:
        if type(sinfo) is TensorStructInfo:
            sites = self.sites
            sid = len(sites)
            sites.append(Site(sid, self.func, name, path, span, self.ex.sizes.nbytes(sinfo, self.func), kind))
            return sid
        if type(sinfo) is TupleStructInfo:
            return tuple(self.new_tree(f, name, span, kind, path + (i,)) for i, f in enumerate(sinfo.fields))
        return None

    def pin_tree(self, sinfo: StructInfo | None, tree: Tree, rule: Rule, span: Span | None, origin: object) -> None:
        """Pin every leaf of `tree` whose counterpart in the written `sinfo` names a vdevice."""
        if sinfo is None:
            return
        if type(sinfo) is TensorStructInfo:
            vdevice = sinfo.vdevice
            if vdevice is not None and type(tree) is int:
                self.pins.add(tree, self.device_index(vdevice, span), rule, span, origin)
        elif type(sinfo) is TupleStructInfo and type(tree) is tuple:
            for sub_sinfo, sub_tree in zip(sinfo.fields, tree, strict=False):
                self.pin_tree(sub_sinfo, sub_tree, rule, span, origin)

    def device_index(self, vdevice: VDevice, span: Span | None) -> int:
        found = self.index.get(vdevice)
        if found is None:
            raise PlacementError(
                f"{vdevice!r} is used but is not in the module's vdevice list ({describe(self.vdevices)})", span
            )
        return found

    def tie(self, a: Tree, b: Tree, rule: Rule | RuleSpec, span: Span | None, origin: object) -> None:
        """Equal leaf-wise where both trees have a tensor at the same path."""
        if type(a) is int:
            if type(b) is int:
                self.equals.add(a, b, rule, span, origin)
        elif type(a) is tuple and type(b) is tuple:
            for x, y in zip(a, b, strict=False):
                self.tie(x, y, rule, span, origin)

    # -- the walk ---------------------------------------------------------------
    def run(self) -> Extraction:
        ex = self.ex
        var_sites = ex.var_sites
        sites = self.sites
        records = sites.records
        equals = self.equals
        for fname, func in self.mod.functions.items():
            self.func = fname
            sites.enter(fname)
            first = len(records)
            tree: Tree
            for param in func.params:
                sinfo = param.struct_info
                if type(sinfo) is TensorStructInfo:  # a plain tensor: recorded, built on demand
                    tree = len(records)
                    records.append(param)
                    if sinfo.vdevice is not None:
                        self.pin_tree(sinfo, tree, _PARAM, param.span, param)
                else:
                    tree = self.new_tree(sinfo, param.name, param.span, "param")
                    self.pin_tree(sinfo, tree, _PARAM, param.span, param)
                if param in var_sites:
                    raise bound_twice(param, fname, param.span)
                var_sites[param] = tree
            ret_span = func.ret_span or func.span
            if type(func) is Function and type(func.ret_struct_info) is TensorStructInfo:
                tree = len(records)
                records.append(func)
            else:
                tree = self.new_tree(func.ret_struct_info, "<ret>", ret_span, "return")
            ex.ret_sites[fname] = tree
            self.params_of[fname] = (first, len(records))
            declared = declared_return(func)
            if declared is not None and (type(declared) is not TensorStructInfo or declared.vdevice is not None):
                self.pin_tree(declared, tree, _RETURN, ret_span, func)
            add_starts(self.cs, fname, func, var_sites, ex.sizes)
        for fname, func in self.mod.functions.items():
            self.func = fname
            sites.enter(fname)
            if not isinstance(func, Function):
                raise PlacementError(f"module entry {fname!r} is not a Relax function")
            body = func.body
            self.own_sites = (*self.params_of[fname], len(records))
            self.seq(body)  # leaves `copies.scopes` as it found it: empty
            result = body.body
            result_var = result if type(result) is Var or type(result) is DataflowVar else None
            tree = None if result_var is None else var_sites.get(result_var)
            ret = ex.ret_sites[fname]
            lo, hi, start = self.own_sites
            if type(tree) is int and type(ret) is int and (tree >= start or lo <= tree < hi):
                equals.a.append(ret)  # the common case, its provenance the function (`EqualTable.why`)
                equals.b.append(tree)
                equals.why.append(func)
                continue
            span = result.span or func.ret_span or func.span
            if result_var is None or tree is None:
                tree = self.expr(result, span, func)
            else:
                tree = self.own(result_var, tree, span)
            self.tie(ret, tree, _FUNC_RESULT, span, func)
        self.copies.finish()
        return ex

    def seq(self, seq: SeqExpr) -> None:
        # The hot loop of the whole pipeline: the common binding (a tensor variable bound to a
        # "same"-rule op on variables) is handled inline, with locals instead of attribute lookups;
        # its site is recorded as the binding itself (`SiteTable.records`, a `Site` built only
        # when asked for), and so is the provenance of its equalities and of the pin its
        # annotation makes (`EqualTable.why`, `PinTable.why`), so its span is never read
        # (a parsed binding's span is built on first read).
        # Everything else goes through the general methods below.
        var_sites = self.ex.var_sites
        site_records = self.sites.records
        site_record = site_records.append
        equals = self.equals
        eq_a = equals.a.append
        eq_b = equals.b.append
        eq_why = equals.why.append
        pin_site = self.pins.site.append
        pin_device = self.pins.device.append
        pin_why = self.pins.why.append
        last_vdevice: VDevice | None = None  # the last annotation's vdevice and its device index
        last_index = -1
        tree: Tree
        lo, hi, start = self.own_sites  # a site below `start` and outside [lo, hi) is another function's
        scopes = self.copies.scopes
        scopes.enter()
        for block in seq.blocks:
            dataflow = type(block) is DataflowBlock
            scopes.enter_block(dataflow)
            for binding in block.bindings:
                var = binding.var
                value = binding.value
                sinfo = var.struct_info
                if type(sinfo) is TensorStructInfo:
                    tree = len(site_records)
                    site_record(binding)
                else:
                    tree = self.new_tree(sinfo, var.name, var.span or binding.span, "binding")
                if var_sites.setdefault(var, tree) is not tree:  # bound before (a tree without sites is not seen)
                    raise bound_twice(var, self.func, var.span or binding.span)
                annotation = binding.annotation
                if annotation is not None:
                    if type(annotation) is TensorStructInfo and type(tree) is int:
                        vdevice = annotation.vdevice
                        if vdevice is not None:  # a pin, its provenance the binding (`PinTable.why`)
                            if vdevice is not last_vdevice:
                                last_vdevice, last_index = vdevice, self.device_index(vdevice, binding.span or var.span)
                            pin_site(tree)
                            pin_device(last_index)
                            pin_why(binding)
                    else:
                        self.pin_tree(annotation, tree, _ANNOTATION, binding.span or var.span, binding)
                if type(value) is Call:
                    op = value.op
                    if type(op) is Op and op.device_rule == "same" and op.device_types is None and type(tree) is int:
                        for arg in value.args:
                            if type(arg) is Var or type(arg) is DataflowVar:
                                leaf = var_sites.get(arg)
                                if type(leaf) is int:
                                    if leaf < start and not lo <= leaf < hi:
                                        self.own(arg, leaf, binding.span or var.span)
                                    eq_a(leaf)
                                    eq_b(tree)
                                    eq_why(binding)
                                    continue
                            self.same_arg(arg, tree, self.same_rule(op.name), binding.span or var.span, binding)
                    elif type(op) is not GlobalVar or not self.linked_call(value, op.name, tree, binding):
                        self.call(value, tree, binding.span or var.span, binding)
                else:
                    self.other_value(value, tree, binding.span or var.span, binding)
            scopes.leave_block(dataflow)
        scopes.leave()

    def other_value(self, value: Expr, tree: Tree, span: Span | None, binding: Binding) -> None:
        """A binding's value that is not a call: an alias, an If, a tuple, a tuple item, a constant, a leaf."""
        if type(value) is Var or type(value) is DataflowVar:
            source = self.var(value, span)
            self.tie(tree, source, _ALIAS, span, binding)
            self.alias(tree, source)
        elif type(value) is If:
            self.expr(value.cond, span, binding)
            self.seq(value.true_branch)
            self.seq(value.false_branch)
            for branch in (value.true_branch, value.false_branch):
                self.tie(tree, self.expr(branch.body, span, binding), _IF, span, binding)
        elif type(value) is Tuple and type(tree) is tuple:
            for i, (sub, field) in enumerate(zip(tree, value.fields, strict=False)):
                rule = Rule.of(RuleKind.TUPLE_FIELD, index=i)
                source = self.expr(field, span, binding)
                self.tie(sub, source, rule, span, binding)
                self.alias(sub, source)
        elif type(value) is TupleGetItem:
            rule = Rule.of(RuleKind.GET_ITEM, index=value.index)
            source = self.expr(value, span, binding)
            self.tie(tree, source, rule, span, binding)
            self.alias(tree, source)
        elif type(value) is Constant:
            self.tie(tree, self.expr(value, span, binding), _CONSTANT, span, binding)
        else:
            self.expr(value, span, binding)

    def alias(self, a: Tree, b: Tree) -> None:
        """Record, leaf-wise, that `a` holds the value `b` holds (see `copies.ValueRoots`)."""
        if type(a) is int:
            if type(b) is int:
                self.copies.roots.alias(a, b)
        elif type(a) is tuple and type(b) is tuple:
            for x, y in zip(a, b, strict=False):
                self.alias(x, y)

    def var(self, var: Var, span: Span | None) -> Tree:
        try:
            tree = self.ex.var_sites[var]
        except KeyError:
            raise PlacementError(
                f"variable {var.name!r} is used in function {self.func!r} but not defined there", var.span or span
            ) from None
        return self.own(var, tree, span)

    def own(self, var: Var, tree: Tree, span: Span | None) -> Tree:
        """`var`'s `tree`, where the walked function uses it; a variable of another function is an error."""
        leaf = tree if type(tree) is int else next(tree_leaves(tree), None)
        lo, hi, start = self.own_sites
        if leaf is not None and leaf < start and not lo <= leaf < hi:
            raise PlacementError(
                f"variable {var.name!r} is used in function {self.func!r} but bound in another function",
                span or var.span,
            )
        return tree

    def expr(self, e: Expr, span: Span | None, origin: object) -> Tree:
        """The site tree of an expression used as a value (walking nested calls)."""
        if type(e) is Var or type(e) is DataflowVar:
            return self.var(e, span)
        if type(e) is Tuple:
            return tuple(self.expr(f, span, origin) for f in e.fields)
        if type(e) is TupleGetItem:
            tree = self.expr(e.tuple_value, span, origin)
            index = e.index
            if type(tree) is tuple and 0 <= index < len(tree):
                return tree[index]
            return None
        t = type(e)
        if t is ShapeExpr or t is PrimValue or t is StringImm or t is GlobalVar:
            return None
        where = e.span or span
        if t is Constant:
            tree = self.new_tree(e.struct_info, "<const>", where, "value")
            self.ex.expr_sites[id(e)] = tree
            return tree
        if type(e) is Call:
            callee = e.op
            label = f"<cls.{callee.name}>" if type(callee) is GlobalVar else f"<R.{callee.name}>"
            tree = self.new_tree(e.struct_info, label, where, "value")
            self.ex.expr_sites[id(e)] = tree
            self.call(e, tree, where, origin)
            return tree
        if isinstance(e, Var):
            return self.var(e, span)
        raise PlacementError(f"placement cannot handle a nested {type(e).__name__} expression here", where)

    # -- calls ------------------------------------------------------------------
    def call(self, call: Call, res: Tree, span: Span | None, origin: object) -> None:
        op = call.op
        if isinstance(op, GlobalVar):
            self.call_function(call, op.name, res, span, origin)
            return
        rule = op.device_rule
        if rule == "same":
            self.call_same(op, call.args, res, span, origin)
        elif rule == "host":
            for arg in call.args:
                self.expr(arg, span, origin)
            if self.host is not None:
                text = Rule.of(RuleKind.HOST, op=op.name)
                for leaf in tree_leaves(res):
                    self.pins.add(leaf, self.host, text, span, origin)
            self.add_domain(op, res, span, origin)
        elif op.name == "hint_on_device":
            self.call_hint(call, res, span, origin)
        elif op.name == "to_vdevice":
            src = self.expr(call.args[0], span, origin)
            dst = self.device_index(call.attrs["dst_vdevice"], span)
            for leaf in tree_leaves(res):
                self.pins.add(leaf, dst, _TO_VDEVICE, span, origin)
            self.copies.plan(self.func, call, src, res, dst, _TO_VDEVICE, span, origin)
        else:
            raise PlacementError(f"R.{op.name}: unknown explicit device rule", span)

    def same_rule(self, name: str) -> Rule:
        """The `RuleKind.SAME` rule of op `name`."""
        rule = self._same_rules.get(name)
        if rule is None:
            rule = self._same_rules[name] = Rule.of(RuleKind.SAME, op=name)
        return rule

    def same_arg(self, arg: Expr, anchor: int, text: Rule, span: Span | None, origin: object) -> None:
        """Tie every tensor leaf of one argument to `anchor` (the slow path of `seq`)."""
        for leaf in tree_leaves(self.expr(arg, span, origin)):
            self.equals.add(leaf, anchor, text, span, origin)

    def call_same(self, op: Op, args: Sequence[Expr], res: Tree, span: Span | None, origin: object) -> None:
        text = self.same_rule(op.name)
        equals = self.equals
        anchor = res if type(res) is int else next(tree_leaves(res), None)
        for arg in args:
            tree = self.var(arg, span) if type(arg) is Var or type(arg) is DataflowVar else self.expr(arg, span, origin)
            if type(tree) is int:
                if anchor is None:
                    anchor = tree
                else:
                    equals.add(tree, anchor, text, span, origin)
            elif tree is not None:
                for leaf in tree_leaves(tree):
                    if anchor is None:
                        anchor = leaf
                    else:
                        equals.add(leaf, anchor, text, span, origin)
        if type(res) is not int and anchor is not None:  # (no anchor: `res` has no leaf)
            for leaf in tree_leaves(res):
                if leaf != anchor:
                    equals.add(leaf, anchor, text, span, origin)
        if op.device_types is not None and anchor is not None:
            self.add_domain(op, anchor, span, origin)

    def add_domain(self, op: Op, tree: Tree, span: Span | None, origin: object) -> None:
        if op.device_types is None or not self.vdevices:
            return
        allowed = self._domains.get(op.name)
        if allowed is None:
            allowed = frozenset(i for i, v in enumerate(self.vdevices) if v.device_type in op.device_types)
            self._domains[op.name] = allowed
        leaf = tree if type(tree) is int else next(tree_leaves(tree), None)
        if leaf is not None:
            self.cs.domains.append(Domain(leaf, allowed, Rule.of(RuleKind.SUPPORTED, op=op.name), span, origin))

    def call_hint(self, call: Call, res: Tree, span: Span | None, origin: object) -> None:
        src = self.expr(call.args[0], span, origin)
        attrs = call.attrs
        try:
            target = hint_target(self.vdevices, attrs["device"], attrs.get("memory_scope", "global"), span)
        except VDeviceLookupError as err:
            raise PlacementError(f"R.hint_on_device: {err.reason}", err.span) from None
        device = self.index[target]
        for leaf in tree_leaves(res):
            self.pins.add(leaf, device, _HINT, span, origin)
        if self.strict:
            self.tie(src, res, _HINT_STRICT, span, origin)
            self.alias(res, src)
        else:
            self.copies.plan(self.func, call, src, res, device, _HINT, span, origin)

    def call_function(self, call: Call, name: str, res: Tree, span: Span | None, origin: object) -> None:
        callee = self.mod.functions.get(name)
        if callee is None:
            raise PlacementError(
                f"call to undefined function cls.{name} (the module defines {', '.join(self.mod.functions) or 'none'})",
                span,
            )
        params = callee.params
        if len(params) != len(call.args):
            raise PlacementError(f"cls.{name} takes {len(params)} argument(s) but {len(call.args)} were given", span)
        var_sites = self.ex.var_sites
        for i, param in enumerate(params):  # once per call: a variable argument is looked up inline
            arg = call.args[i]
            if type(arg) is Var or type(arg) is DataflowVar:
                tree = var_sites.get(arg)
                if tree is None:
                    tree = self.var(arg, span)
                else:
                    self.own(arg, tree, span)
            else:
                tree = self.expr(arg, span, origin)
            self.tie(tree, var_sites[param], (_CALL_ARG, i, name), span, origin)
        self.tie(res, self.ex.ret_sites[name], (_CALL_RESULT, name), span, origin)

    def linked_call(self, call: Call, name: str, res: Tree, binding: Binding) -> bool:
        """Tie the call `binding` binds to its callee, linked as `EqualTable.why` says, when the call is well
        formed, each argument is a tensor variable of this function and each parameter, the result and the
        return one site; else False, having added nothing (`call_function` then records or reports it)."""
        callee = self.mod.functions.get(name)
        args = call.args
        if callee is None or len(callee.params) != len(args) or len(args) > MAX_LINKED_TIES or type(res) is not int:
            return False
        var_sites, (lo, hi, start), ret = self.ex.var_sites, self.own_sites, self.ex.ret_sites[name]
        if type(ret) is not int:
            return False
        trees: list[int] = []
        for a in args:
            tree = var_sites.get(a) if type(a) is Var or type(a) is DataflowVar else None
            if type(tree) is not int or (tree < start and not lo <= tree < hi):
                return False
            trees.append(tree)
        params: list[int] = []
        for p in callee.params:
            tree = var_sites[p]
            if type(tree) is not int:
                return False
            params.append(tree)
        equals = self.equals
        equals.a.extend(trees)
        equals.a.append(res)
        equals.b.extend(params)
        equals.b.append(ret)
        equals.why.append(binding)
        equals.why.extend(range(1, len(args) + 1))
        return True
