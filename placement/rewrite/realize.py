"""Write a placement back into a new module (the input is never mutated).

Every tensor site gets its device in its struct info (parameters, binding
variables, nested values, return struct infos, tuple leaves); each binding's
`annotation` is set to its new struct info, so placing the result again
changes nothing.  ``hint_on_device`` becomes a plain alias when its input
ends on the hinted vdevice and ``R.to_vdevice`` otherwise; a user's
``to_vdevice`` whose input already ends on its destination becomes an alias.
A bound copy op follows its `CopyPlan` (`placement.extract.copies`): it
becomes an alias of a visible copy of the same value on its destination, or
copies from the visible replica that moves the fewest bytes, so each value
is copied at most once per destination in every scope.  A copy op nothing
needs, and every alias of it (`Extraction.dropped`), is left out: no placed
module holds a copy whose result nothing reads.

A ``to_vdevice`` between two list entries that are the same physical device
(`VDevice.physical`: same device type and id, e.g. ``"cuda"`` and
``{"kind": "cuda", "arch": "sm_80"}``) stays in the IR so that every struct
info stays consistent with its value, and is recorded as a `Copy` with
``physical=False`` and ``nbytes=0``: no data moves.

Only vdevices change, so shapes and dtypes of the old struct infos are kept
and no inference is re-run: a struct info is rebuilt leaf by leaf with the
devices of its sites.  A node whose rebuilt form would equal it field for
field (a variable whose struct info stays the same object, a call of kept
arguments, a binding, block, sequence or function of kept parts) is kept
itself, shared with the input module (nodes are immutable): placing a module
that is placed already, such as a placed module printed and parsed back,
builds almost nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from vdplace.ir.expr import (
    Binding,
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    If,
    SeqExpr,
    Tuple,
    TupleGetItem,
    Var,
)
from vdplace.ir.module import IRModule
from vdplace.ir.normalize import join
from vdplace.ir.op import Op, get_op
from vdplace.ir.span import Span
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from vdplace.ir.vdevice import VDevice, vdevice_name
from vdplace.placement.extract.extraction import Extraction, Tree

_NO_DEVICE = object()  # `_Realizer.seq`'s last device before it has made a struct info
_NO_SINFO = TensorStructInfo()  # its last old and new struct infos then (never read: no device is `_NO_DEVICE`)


class Copy:
    """One explicit copy in the placed module: ``var = R.to_vdevice(...)`` in `function`.

    `inserted` is True when placement made it (from a ``hint_on_device``, or
    where a cost plan moves a value: then `why` says so) and False for a
    ``to_vdevice`` the user wrote; `physical` is False when source
    and destination are the same physical device (then `nbytes` is 0).
    `src` is None when the input's device was left unplaced.
    """

    __slots__ = ("function", "var", "span", "src", "dst", "nbytes", "physical", "inserted", "why")

    def __init__(
        self,
        function: str,
        var: str,
        span: Span | None,
        src: VDevice | None,
        dst: VDevice,
        nbytes: int,
        physical: bool,
        inserted: bool,
    ) -> None:
        self.function = function
        self.var = var
        self.span = span
        self.src = src
        self.dst = dst
        self.nbytes = nbytes
        self.physical = physical
        self.inserted = inserted
        self.why = "from a hint" if inserted else "written by the user"

    def __repr__(self) -> str:
        kind = "inserted" if self.inserted else "user"
        return f"Copy({self.function}:{self.var}, {self.src!r} -> {self.dst!r}, {self.nbytes}B, {kind})"

    def as_dict(self, vdevices: Sequence[VDevice]) -> dict[str, object]:
        """JSON-ready fields, devices by their printed names (``"cuda:0:global"``)."""
        return {
            "function": self.function,
            "var": self.var,
            "line": None if self.span is None else self.span.line,
            "src": None if self.src is None else vdevice_name(vdevices, self.src),
            "dst": vdevice_name(vdevices, self.dst),
            "bytes": self.nbytes,
            "physical": self.physical,
            "inserted": self.inserted,
        }

    def describe(self, vdevices: Sequence[VDevice]) -> str:
        """One line for a terminal: where, from, to, how many bytes, and why."""
        fields = self.as_dict(vdevices)
        where = f"{self.function}:{self.var}" + (f" (line {fields['line']})" if fields["line"] else "")
        why = self.why
        moved = f"{self.nbytes} bytes" if self.physical else "same physical device, no bytes"
        return f"{where}: {fields['src'] or 'unplaced'} -> {fields['dst']}, {moved}, {why}"


def _device(e: Expr) -> VDevice | None:
    """The vdevice a realized tensor expression's struct info names (None for anything else)."""
    sinfo = e.struct_info
    return sinfo.vdevice if type(sinfo) is TensorStructInfo else None


def realize(ex: Extraction, assignment: Sequence[int | None]) -> tuple[IRModule, list[Copy]]:
    """The placed module and the copies it contains."""
    return _Realizer(ex, assignment).run()


class _Realizer:
    """One realization: functions and bindings in program order, each variable realized before any use of it."""

    def __init__(self, ex: Extraction, assignment: Sequence[int | None]) -> None:
        self.ex = ex
        # Site i's vdevice is ``devices[assignment[i]]`` (`devices` maps None to None): two lookups
        # instead of a list of a vdevice per site.
        self.assignment = assignment
        self.devices: dict[int | None, VDevice | None] = {None: None, **dict(enumerate(ex.constraints.vdevices))}
        # Each variable's site tree until it is realized, its placed counterpart after: the
        # extraction's own dict, spent here (`Extraction.take_var_sites`), so that a million
        # variables need no second dict or list and their site ids die as they are replaced.
        self.var_sites = cast("dict[Var, Tree | Var]", ex.take_var_sites())  # a Tree's value becomes a Var
        self.var_sites_size = len(self.var_sites)  # its length when last built (`forget`)
        self.expr_sites = ex.expr_sites
        self.copies: list[Copy] = []
        self.func = ""
        self.where: tuple[str, Span | None] = ("", None)
        self.shared: dict[tuple, TensorStructInfo] = {}
        self.hint_op = get_op("hint_on_device")
        self.to_vdevice_op = get_op("to_vdevice")

    def run(self) -> tuple[IRModule, list[Copy]]:
        mod = self.ex.module
        functions = {}
        last = len(mod.functions) - 1
        for i, (fname, func) in enumerate(mod.functions.items()):
            self.func = fname
            functions[fname] = self.function(fname, func)
            if i < last:  # the last function's map is dropped with the rest
                self.forget(func)
        return mod.replace(functions=functions), self.copies

    def forget(self, func: Function) -> None:
        """Drop the entries of `func`'s variables, which no other function uses (extraction checks it), and
        rebuild the map once three quarters of it are gone: a module of many functions then holds no map
        of all its variables while its last ones are realized."""
        var_sites = self.var_sites
        for p in func.params:
            del var_sites[p]
        pending = [func.body]
        while pending:
            for block in pending.pop().blocks:
                for b in block.bindings:
                    del var_sites[b.var]
                    if type(b.value) is If:
                        pending += (b.value.true_branch, b.value.false_branch)
        if len(var_sites) * 4 < self.var_sites_size:
            self.var_sites = dict(var_sites)
            self.var_sites_size = len(var_sites)

    def new_var(self, var: Var) -> Var:
        """`var`'s counterpart in the placed module (KeyError for an expression that is not a variable)."""
        new = self.var_sites[var]
        if not isinstance(new, Var):  # realized before every use: a use before the definition is rejected earlier
            raise RuntimeError(f"internal error: variable {var.name!r} used before it was realized")
        return new

    # -- struct infos ---------------------------------------------------------
    def sinfo(self, sinfo: StructInfo, tree: Tree) -> StructInfo:
        """`sinfo` with the devices `tree`'s sites were given."""
        if type(tree) is int:
            if type(sinfo) is TensorStructInfo:
                return self.tensor_sinfo(sinfo, self.devices[self.assignment[tree]])
            return sinfo
        if type(tree) is tuple and type(sinfo) is TupleStructInfo:
            fields = tuple(self.sinfo(f, t) for f, t in zip(sinfo.fields, tree, strict=False))
            return sinfo if fields == sinfo.fields else TupleStructInfo(fields)
        return sinfo

    def tensor_sinfo(self, old: TensorStructInfo, dev: VDevice | None) -> TensorStructInfo:
        """`old` on `dev`: `old` itself if it names `dev`, else one object per shape, dtype and device.

        `seq` and `function` inline this.
        """
        if old.vdevice is dev:
            return old
        key = (old.shape, old.dtype, old.ndim, id(dev))
        sinfo = self.shared.get(key)
        if sinfo is None:
            sinfo = self.shared[key] = old.with_vdevice(dev)
        return sinfo

    # -- functions and blocks ---------------------------------------------------
    def function(self, fname: str, func: Function) -> Function:
        # Once per function: a module of many small functions pays it as often as it has
        # functions, so a tensor parameter's struct info and new self are looked up inline.
        var_sites, assignment, devices, shared = self.var_sites, self.assignment, self.devices, self.shared
        params = []
        kept = True  # every parameter kept
        sinfo: StructInfo | None
        for p in func.params:
            tree = var_sites[p]
            assert not isinstance(tree, Var), "a parameter is realized here, once"
            old = p.struct_info
            if type(tree) is int and type(old) is TensorStructInfo:
                dev = devices[assignment[tree]]
                sinfo = old if old.vdevice is dev else shared.get((old.shape, old.dtype, old.ndim, id(dev)))
                if sinfo is None:
                    sinfo = self.tensor_sinfo(old, dev)
            else:
                sinfo = self.sinfo(old, tree)
            new = p if sinfo is old else p.rebuilt(sinfo)
            var_sites[p] = new
            kept = kept and new is p
            params.append(new)
        body = self.seq(func.body)
        old_ret = func.ret_struct_info
        ret_tree = self.ex.ret_sites[fname]
        ret: StructInfo
        if type(ret_tree) is int and type(old_ret) is TensorStructInfo:
            ret = self.tensor_sinfo(old_ret, devices[assignment[ret_tree]])
        else:
            ret = self.sinfo(old_ret, ret_tree)
        if kept and body is func.body and ret is old_ret:
            return func  # nothing changes: kept as it is, like the nodes `seq` keeps
        return Function(params, body, ret, func.attrs, func.span, func.ret_span)

    def seq(self, seq: SeqExpr) -> SeqExpr:
        """`seq` realized, binding by binding.

        Long because: the hot loop is inlined on purpose (as calls, it costs a tenth of realization).
        """
        # The hot loop: locals instead of attribute lookups, struct infos shared between bindings
        # of one shape, dtype and device, a lookup of the arguments (unrolled for one and two) that
        # falls back to the general path when one is not a variable (KeyError from `var_sites`, read
        # as `realized`: an argument's entry is its new self; a definition's, read as `trees`, its site
        # tree), nodes rebuilt as their `rebuilt` does it, inline (their spans as stored: a parsed module's
        # stay packed or unbuilt; a call per node would cost a tenth of realization), and a node whose
        # rebuilt form would equal it field for field kept: placing a placed module again builds almost nothing.
        var_sites = self.var_sites
        trees, realized = cast("dict[Var, Tree]", var_sites), cast("dict[Expr, Expr]", var_sites)
        assignment = self.assignment
        devices = self.devices
        shared = self.shared
        last_old = last_sinfo = _NO_SINFO
        last_dev: object = _NO_DEVICE  # no struct info made yet
        sinfo: StructInfo | None
        blocks = []
        blocks_kept = True
        for block in seq.blocks:
            bindings = []
            kept = True  # every binding of the block kept
            for b in block.bindings:
                var = b.var
                value = b.value
                tree = trees[var]
                old = var.struct_info
                if type(tree) is int and type(old) is TensorStructInfo:
                    dev = devices[assignment[tree]]
                    if old.vdevice is dev:
                        sinfo = old  # placed there already: the variable is kept
                    elif dev is last_dev and (
                        old is last_old  # a parsed module shares struct infos
                        or (old.shape == last_old.shape and old.dtype == last_old.dtype and old.ndim == last_old.ndim)
                    ):
                        sinfo = last_sinfo
                    else:
                        key = (old.shape, old.dtype, old.ndim, id(dev))
                        sinfo = shared.get(key)
                        if sinfo is None:
                            sinfo = shared[key] = old.with_vdevice(dev)
                        last_old, last_dev, last_sinfo = old, dev, sinfo
                else:
                    sinfo = self.sinfo(old, tree)
                if type(value) is Call and (
                    (type(op := value.op) is Op and op.device_rule != "explicit") or type(op) is GlobalVar
                ):
                    try:
                        args = value.args
                        if len(args) == 2:
                            args = (realized[args[0]], realized[args[1]])
                        elif len(args) == 1:
                            args = (realized[args[0]],)
                        else:
                            args = tuple([realized[a] for a in args])
                    except KeyError:
                        self.where = (var.name, b.span or var.span)
                        args = tuple([self.expr(a) for a in value.args])
                    if sinfo is not value.struct_info or args != value.args:  # Exprs compare by identity
                        value = Call(op, args, value.attrs, sinfo, value._span)  # `Call.rebuilt`
                    rebuilt = True  # `value` is the old one or has its span
                else:
                    if var in self.ex.dropped:  # a copy op nothing needs, or an alias of one: left out
                        kept = False
                        continue
                    self.where = (var.name, b.span or var.span)
                    value = self.other_value(value, tree, sinfo)
                    rebuilt = False
                new_var = var if sinfo is old else type(var)(var.name, sinfo, var._span)  # `Var.rebuilt`
                var_sites[var] = new_var
                if new_var is var and value is b.value and b.annotation is sinfo:
                    bindings.append(b)
                    continue
                kept = False
                if rebuilt:
                    bindings.append(Binding(new_var, value, sinfo, b._span))  # `Binding.rebuilt`
                else:
                    bindings.append(Binding(new_var, value, sinfo, b.span))
            blocks.append(block if kept else type(block)(bindings, block.span))
            blocks_kept = blocks_kept and kept
        body = self.expr(seq.body)
        if blocks_kept and body is seq.body and body.struct_info is seq.struct_info:
            return seq
        return SeqExpr(blocks, body, None, seq.span)

    def other_value(self, value: Expr, tree: Tree, sinfo: StructInfo) -> Expr:
        """A binding's new value when it is not a call of a "same" or "host" op or a function (`seq`'s slow path)."""
        if type(value) is Call:
            return self.call(value, tree, sinfo)
        if isinstance(value, Var):
            return self.new_var(value)
        if type(value) is If:
            true_branch = self.seq(value.true_branch)
            false_branch = self.seq(value.false_branch)
            joined = join(true_branch.struct_info, false_branch.struct_info)
            return If(self.expr(value.cond), true_branch, false_branch, joined, value.span)
        return self.expr(value)

    # -- expressions ------------------------------------------------------------
    def expr(self, e: Expr) -> Expr:
        if isinstance(e, Var):
            return self.new_var(e)
        if type(e) is Call:
            tree = self.expr_sites.get(id(e))
            return self.call(e, tree, self.sinfo(e.struct_info, tree))
        if type(e) is Tuple:
            fields = [self.expr(f) for f in e.fields]
            return Tuple(fields, TupleStructInfo([f.struct_info for f in fields]), e.span)
        if type(e) is TupleGetItem:
            value = self.expr(e.tuple_value)
            sinfo = value.struct_info
            index = e.index
            if type(sinfo) is TupleStructInfo and 0 <= index < len(sinfo.fields):
                item = sinfo.fields[index]
            else:
                item = e.struct_info
            return TupleGetItem(value, index, item, e.span)
        if type(e) is Constant:
            tree = self.expr_sites.get(id(e))
            return e.with_struct_info(self.sinfo(e.struct_info, tree))
        return e  # shapes, prim values, strings, global vars: immutable and device-free

    def call(self, call: Call, tree: Tree, sinfo: StructInfo) -> Expr:
        op = call.op
        if type(op) is Op and op.device_rule == "explicit":
            return self.copy(call, tree, sinfo)
        return call.rebuilt([self.expr(a) for a in call.args], sinfo)

    def copy(self, call: Call, tree: Tree, sinfo: StructInfo) -> Expr:
        """A copy op: an alias, or ``R.to_vdevice`` from the source its `CopyPlan` names (see `extract.copies`).

        Its input is realized only where it is the source: one its plan bypasses may have been left out.
        """
        op = call.op
        dst = self.devices[self.assignment[tree]] if type(tree) is int else None
        if dst is None:  # cannot happen: both rules pin their result
            raise RuntimeError(f"internal error: {op.name} result has no device")
        plan = self.ex.copy_plans.get(id(call))
        if plan is not None and plan.reuse is not None:
            return self.new_var(plan.reuse)
        arg = call.args[0]
        placed = self.var_sites.get(arg) if isinstance(arg, Var) else None
        if type(placed) is int:  # not realized yet: its site's device
            source, src = None, self.devices[self.assignment[placed]]
        else:
            source = placed if isinstance(placed, Var) else self.expr(arg)
            src = _device(source)
        if plan is not None:
            home_var = plan.home
            home = None if home_var is None else _device(self.new_var(home_var))
            if src != dst and home_var is not None and home == dst:
                return self.new_var(home_var)
            if src != dst and plan.near is not None:
                source = self.new_var(plan.near)
                src = _device(source)
            elif src != dst and home_var is not None and home is not None and home.physical == dst.physical:
                source, src = self.new_var(home_var), home
        if source is None:
            source = self.expr(arg)  # a left-out input read after all is an internal error `new_var` reports
        if src is not None and src == dst:
            return source  # already there: a plain alias
        sinfo_in = call.args[0].struct_info
        nbytes = self.ex.sizes.nbytes(sinfo_in, self.func) if type(sinfo_in) is TensorStructInfo else 0
        physical = src is None or src.physical != dst.physical
        name, span = self.where
        inserted = op is self.hint_op
        self.copies.append(Copy(self.func, name, span, src, dst, nbytes if physical else 0, physical, inserted))
        attrs = {"dst_vdevice": dst} if inserted else call.attrs
        return Call(self.to_vdevice_op, [source], attrs, sinfo, call.span)
