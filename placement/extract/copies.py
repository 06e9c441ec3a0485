"""Copies of one value: which copy ops move data, from where, and which reuse a copy already made.

A copy op (``hint_on_device``, ``to_vdevice``) is an identity on data: its
result is a *replica* of its input's value on the destination vdevice.  A
*value* is a site modulo aliasing and copying (`ValueRoots`): ``y = x``, a
tuple's field, a tuple item and a copy op's result hold the value their
source holds.  Every site of a value is either

* at *home*: the root site or an alias of it, all tied by hard equalities,
  so they share one device h, which the solver chooses; or
* a replica: a copy op's result or an alias of one, on the vdevice the copy
  op names (`ValueRoots.replica`), fixed by the program.

For a copy op bound as ``y = copy(x, d)`` extraction decides, from the
program alone, what realization will do for every possible h
(`CopyPlan`), and the one soft edge whose cost is exactly the bytes that
realization will move:

1. a replica of the value on d is visible (an earlier copy op's result):
   ``y`` becomes an alias of it; no edge;
2. x is a replica on d: an alias of x; no edge;
3. x is at home: an alias of x when h = d; otherwise a copy from a visible
   replica on d's physical device (no bytes), else from x (x's bytes when h
   is another physical device): the edge (x, y), its weight 0 when such a
   replica exists;
4. x is a replica elsewhere.  With a visible home variable of the value
   (the source of an earlier copy op), ``y`` is its alias when h = d.
   Otherwise the copy is made from a visible replica on d's physical device
   (no bytes), else from the home variable when h is on d's physical device
   (no bytes), else from x.  The edge is (home, y) when a home is visible,
   else the constant (x, y); its weight is 0 when the copy can never move
   bytes (a replica on d's physical device, or x on it).

So the placed module copies each value at most once per destination vdevice
in every scope, never copies a value to where it already is visibly (but
for the program's own round trip through a transit replica, below), and the
objective counts exactly its copies.

No copy is made that nothing reads.  Which copy op reads which replica is
decided once the whole function is walked (`CopyPlanner.finish`, with the
real reads of `liveness`), so that it never hangs on the devices the solver
picks: a replica that only copy ops read (a *transit* replica: ``lv1 =
hint(lv0, gpu); lv2 = hint(lv1, cpu)`` with nothing else reading ``lv1``)
is read as written by a copy op that would otherwise alias or copy its home
where the home ends on the destination (case 4 without the home lookup),
where a copy op that is an alias whatever the devices (case 1 or 2) reads
what it aliases for real when its own result is read for real (``c2 =
hint(x, gpu)`` reusing ``c``, then returned: ``c`` is no transit replica),
and a nearby replica that nothing reads for real is not looked up where the
home may stand in for it; then a copy op whose result nothing needs (no
real read of it or its aliases, and no kept copy op reading it) is dropped
from the placed module with its aliases, and has no edge.  Visibility follows Relax scoping
(`CopyScopes`): a variable bound in a function's body is visible for the
rest of that body, in an If branch for the rest of the branch, and a
``DataflowVar`` only until its dataflow block ends.  A copy op nested inside
another expression is a plain copy from its input (case 3 or 4 without the
lookups) and is never reused.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

from vdplace.ir.expr import Binding, Call, DataflowVar, Var
from vdplace.ir.span import Span
from vdplace.ir.vdevice import VDevice
from vdplace.placement.extract.liveness import Reads, function_reads
from vdplace.placement.model.constraints import Prefer
from vdplace.placement.model.rules import Rule

if TYPE_CHECKING:
    from vdplace.placement.extract.extraction import Extraction, Tree

HOME = -1  # the device slot of a value's home in `CopyScopes` keys
CopyKey = tuple[int, Hashable]  # (value root site, vdevice index | HOME | ("physical", id))


class ValueRoots:
    """The root site of each site's value, and the fixed vdevice of each replica site."""

    __slots__ = ("root", "replica")

    def __init__(self) -> None:
        self.root: dict[int, int] = {}
        self.replica: dict[int, int] = {}

    def alias(self, site: int, of: int) -> None:
        """`site` holds the value `of` holds, where `of` is (a replica, or at home)."""
        self.root[site] = self.root.get(of, of)
        device = self.replica.get(of)
        if device is not None:
            self.replica[site] = device

    def copy(self, site: int, of: int, device: int) -> None:
        """`site` is a replica, on `device`, of the value `of` holds."""
        self.root[site] = self.root.get(of, of)
        self.replica[site] = device

    def of(self, site: int) -> int:
        return self.root.get(site, site)


class CopyPlan:
    """What realization does with one bound copy op (see the module docstring).

    reuse         the variable of a visible replica on the destination: the op becomes its alias
    home          a visible home variable of the value (case 4), or None
    near          a visible replica on the destination's physical device: the copy's source, or None
    """

    __slots__ = ("reuse", "home", "near")

    def __init__(self, reuse: Var | None = None, home: Var | None = None, near: Var | None = None) -> None:
        self.reuse = reuse
        self.home = home
        self.near = near


class CopyScopes:
    """The replicas and home variables visible at the current binding, innermost scope last.

    `enter` / `leave` bracket a sequence (a function body or an If branch),
    `enter_block` / `leave_block` a binding block: leaving a dataflow block
    forgets what was bound to its dataflow variables and hands the rest to
    the enclosing scope.
    """

    __slots__ = ("stack",)

    def __init__(self) -> None:
        self.stack: list[dict[CopyKey, Var]] = []

    def enter(self) -> None:
        self.stack.append({})

    def leave(self) -> None:
        self.stack.pop()

    def enter_block(self, dataflow: bool) -> None:
        if dataflow:
            self.stack.append({})

    def leave_block(self, dataflow: bool) -> None:
        if dataflow:
            inner = self.stack.pop()
            outer = self.stack[-1]
            for key, var in inner.items():
                if type(var) is not DataflowVar:
                    outer.setdefault(key, var)

    def find(self, key: CopyKey) -> Var | None:
        """The variable bound under `key` that is visible here (innermost first), or None."""
        for scope in reversed(self.stack):
            var = scope.get(key)
            if var is not None:
                return var
        return None

    def add(self, key: CopyKey, var: Var) -> None:
        """Make `var` visible under `key` for the rest of the current scope (an earlier one stays)."""
        self.stack[-1].setdefault(key, var)


class _Pending:
    """A bound copy op seen by the walk, waiting for `CopyPlanner.finish` to settle its plan and edge."""

    __slots__ = ("func", "call", "var", "src", "res", "at", "device", "rule", "span", "origin", "plan")

    def __init__(
        self,
        func: str,
        call: Call,
        origin: Binding,
        src: int,
        res: int,
        at: int | None,
        device: int,
        rule: Rule,
        span: Span | None,
        plan: CopyPlan,
    ) -> None:
        self.func = func
        self.call = call
        self.var = origin.var
        self.src = src
        self.res = res
        self.at = at
        self.device = device
        self.rule = rule
        self.span = span
        self.origin = origin
        self.plan = plan


class CopyPlanner:
    """Extraction's part at each copy op: the value roots, the visible copies, the plan and the soft edge.

    `roots` and `scopes` follow the walk (extraction records aliases in
    `roots` and brackets sequences and blocks in `scopes`); `plan` handles
    one copy op once its input's and result's trees are known; `finish`,
    after the walk, settles what each bound copy op reads, which are dropped,
    and adds their edges.  ``settle=False`` keeps every op as its walk-time
    plan says, with its edge (the cost plan's module, whose copies the cost
    solver priced).
    """

    __slots__ = ("ex", "vdevices", "roots", "scopes", "pending", "settle")

    def __init__(self, ex: Extraction, vdevices: Sequence[VDevice], settle: bool = True) -> None:
        self.ex = ex
        self.vdevices = vdevices
        self.roots = ValueRoots()
        self.scopes = CopyScopes()
        self.pending: list[_Pending] = []
        self.settle = settle  # False: every copy op as its walk-time plan says, its edge added at once

    def plan(
        self,
        func: str,
        call: Call,
        src: Tree,
        res: Tree,
        device: int,
        rule: Rule,
        span: Span | None,
        origin: object,
    ) -> None:
        """The plan of the copy op `call` (the cases of the module docstring); a nested one's edge at once."""
        if type(src) is not int or type(res) is not int:
            return  # copy ops take and give one tensor: inference has refused anything else
        roots, cs = self.roots, self.ex.constraints
        value = roots.of(src)
        at = roots.replica.get(src)  # None: the input is at home
        roots.copy(res, src, device)
        if not (type(origin) is Binding and origin.value is call):
            cs.prefers.append(Prefer(src, res, cs.sites[src].nbytes, rule, span, origin))
            return
        scopes = self.scopes
        physical = ("physical", self.vdevices[device].physical)
        reuse = scopes.find((value, device))
        plan = CopyPlan(reuse)
        if reuse is None and at != device:
            plan.near = scopes.find((value, physical))
            if at is not None:
                plan.home = scopes.find((value, HOME))
        self.ex.copy_plans[id(call)] = plan
        if not self.settle:
            if reuse is None and at != device:
                self._edge(plan, src, res, at, device, rule, span, origin)
        else:
            self.pending.append(_Pending(func, call, origin, src, res, at, device, rule, span, plan))
        var = origin.var
        scopes.add((value, device), var)
        scopes.add((value, physical), var)
        arg = call.args[0]
        if at is None and isinstance(arg, Var):
            scopes.add((value, HOME), arg)

    def finish(self) -> None:
        """Settle every bound copy op, a function at a time: transit inputs read as written, unneeded ops
        dropped (into `Extraction.dropped`, with their aliases), an edge for each op the module keeps.
        (Without `settle` there is nothing left to do: `plan` added every edge.)"""
        by_func: dict[str, list[_Pending]] = {}
        for rec in self.pending:
            by_func.setdefault(rec.func, []).append(rec)
        for fname, recs in by_func.items():
            body = self.ex.module.functions[fname].body
            tracked = {rec.var for rec in recs} | {a for rec in recs if isinstance(a := rec.call.args[0], Var)}
            self._settle(recs, function_reads(body, {id(rec.call) for rec in recs}, tracked))
        self.pending = []

    def _settle(self, recs: list[_Pending], reads: Reads) -> None:
        # An op that is an alias whatever the devices (it reuses a replica, or its input is on its destination)
        # reads its replica for real where its own result is read for real: later ops first, so a chain is followed.
        for rec in reversed(recs):
            target = rec.plan.reuse
            if target is None and rec.at == rec.device and isinstance(rec.call.args[0], Var):
                target = rec.call.args[0]
            if target is not None and reads.is_read(rec.var):
                reads.read.add(reads.root(target))
        # What each op reads whatever the devices turn out to be (a replica that may be a copy's result), or None.
        static = [self._static_read(rec, reads) for rec in recs]
        wanted: set[Var] = set()  # group roots a kept copy op reads
        keep: list[bool] = [False] * len(recs)
        for i in range(len(recs) - 1, -1, -1):
            rec = recs[i]
            root = reads.root(rec.var)
            if root not in reads.read and root not in wanted:
                self.ex.dropped.add(rec.var)
                self.ex.dropped.update(reads.members.get(root, ()))
                continue
            keep[i] = True
            read = static[i]
            if read is not None:
                wanted.add(reads.root(read))
        for rec, kept in zip(recs, keep, strict=True):
            if kept and rec.plan.reuse is None and rec.at != rec.device:
                self._edge(rec.plan, rec.src, rec.res, rec.at, rec.device, rec.rule, rec.span, rec.origin)

    def _static_read(self, rec: _Pending, reads: Reads) -> Var | None:
        """Settle `rec`'s plan so that whether it reads a replica does not hang on the devices; that replica.

        Realization reads a nearby replica only where the home is not on the destination, and the home
        instead of the input replica only where the home is (physically) there: a lookup so read that nothing
        reads for real is dropped from the plan, and an input replica that only copy ops read is read as
        written (its home is not looked up), so that no replica is left unread by what the solver decides.
        """
        plan, arg = rec.plan, rec.call.args[0]
        x = arg if isinstance(arg, Var) else None
        if plan.reuse is not None:
            return plan.reuse
        if rec.at == rec.device:
            return x  # an alias of the input
        if plan.near is not None and (rec.at is None or plan.home is not None) and not reads.is_read(plan.near):
            plan.near = None
        if rec.at is None:
            return None  # the input is at home: no copy's result
        if plan.home is None:
            return plan.near if plan.near is not None else x
        if plan.near is None and x is not None and not reads.is_read(x):
            plan.home = None
            return x
        return None  # the input is read for real, or never (a home or a nearby replica stands in)

    def _edge(
        self,
        plan: CopyPlan,
        src: int,
        res: int,
        at: int | None,
        device: int,
        rule: Rule,
        span: Span | None,
        origin: object,
    ) -> None:
        """The soft edge whose cost is what realizing `plan` moves (`at`: the input's fixed vdevice, if a replica)."""
        free = plan.near is not None
        if at is not None and self.vdevices[at].physical == self.vdevices[device].physical:
            free = True
        a = src if plan.home is None else self.ex.var_sites[plan.home]
        assert type(a) is int, "a home variable is a copy op's input: one tensor site"
        cs = self.ex.constraints
        weight = 0 if free else cs.sites[src].nbytes
        cs.prefers.append(Prefer(a, res, weight, rule, span, origin))
