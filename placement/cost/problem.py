"""The coarsened cost problem: units that must share a vdevice, the values that flow between them.

Built from placement's ordinary extraction (`placement.extract`), with the
ties that cost-aware placement turns into copies taken out:

* an op's tensor operand that is a variable (``y = op(..., a, ...)``) and a
  call's tensor argument that is a variable (``r = cls.f(..., a, ...)``) no
  longer share the op's / parameter's vdevice: the value is *used* there, and
  copied there when it lives elsewhere;
* a copy op bound as ``y = R.to_vdevice(a, d)`` / ``R.hint_on_device(a, d)``
  pins ``y`` to d and uses a's value on d.

Every other hard fact stays hard (pins, aliases, tuple fields and items, If
branches, call results and returns, an operand written as a tuple or as a
nested constant): a *unit* is an equality class under those, one variable
for the solvers.

A *value* is a root as `placement.extract.copies.ValueRoots` defines it: a
site modulo aliases, tuple fields and items, and copy ops.  Its home is its
root site's unit; it is copied once to every other vdevice it is used on
(`transfer_time` gives the time of that set of copies).  A use whose value
has no variable to copy from (a tuple field written as a constant) stays a
hard tie.

Memory that a unit holds: the bytes of every parameter leaf, op result leaf
and constant in it; aliases, tuples, calls' results and returns hold
nothing of their own.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

from vdplace.ir.expr import Binding, Call, Constant, DataflowVar, Expr, If, SeqExpr, Tuple, TupleGetItem, Var
from vdplace.ir.op import Op
from vdplace.ir.vdevice import VDevice
from vdplace.placement.cost.describe import op_info
from vdplace.placement.cost.model import CostModel, OpInfo
from vdplace.placement.errors import PlacementError
from vdplace.placement.extract.extraction import Extraction, Tree, tree_leaves
from vdplace.placement.model.classes import Classes
from vdplace.placement.model.constraints import EqualTable, pin_columns
from vdplace.placement.model.union_find import UnionFind

COPY_OPS = ("to_vdevice", "hint_on_device")


class Value:
    """One value that other units use: its `root` site, home `unit`, `nbytes`, and the `consumers` units."""

    __slots__ = ("root", "unit", "nbytes", "consumers")

    def __init__(self, root: int, unit: int, nbytes: int, consumers: tuple[int, ...]) -> None:
        self.root = root
        self.unit = unit
        self.nbytes = nbytes
        self.consumers = consumers

    def __repr__(self) -> str:
        return f"Value(site {self.root}, unit {self.unit}, {self.nbytes}B -> units {list(self.consumers)})"


class CostProblem:
    """What the solvers decide: one vdevice per unit.

    vdevices   the module's vdevice list; devices are indices into it
    physical   ``physical[d]``: the physical device of vdevice d
    compute    ``compute[u][d]``: seconds of unit u's ops on d, None where u cannot go on d
               (an op's kernel is None there, a pin elsewhere, a supported-types domain)
    memory     ``memory[u]``: bytes unit u holds wherever it goes
    values     every `Value` with a consumer outside its home unit
    limits     ``limits[d]``: bytes available on d, or None
    copy       ``copy[v][h][d]``: seconds to copy value v from h to d (0 on one physical device)
    pinned     ``pinned[u]``: the device a pin puts u on, or None
    """

    __slots__ = ("vdevices", "physical", "compute", "memory", "values", "limits", "copy", "pinned")

    def __init__(self, vdevices: Sequence[VDevice], limits: list[int | None]) -> None:
        self.vdevices = list(vdevices)
        self.physical = [v.physical for v in vdevices]
        self.compute: list[list[float | None]] = []
        self.memory: list[int] = []
        self.values: list[Value] = []
        self.limits = limits
        self.copy: list[list[list[float]]] = []
        self.pinned: list[int | None] = []

    @property
    def num_units(self) -> int:
        return len(self.compute)

    @property
    def num_devices(self) -> int:
        return len(self.vdevices)

    def transfer_time(self, v: int, home: int, dests: set[int] | frozenset[int]) -> float:
        """Seconds to copy value v from `home` to every device of `dests`.

        The first copy into each physical device (in vdevice order) comes from
        the home; a later copy into the same physical device comes from that
        one and moves no bytes (what realization does, `placement.rewrite.realize`).
        """
        first: dict[object, int] = {}
        for d in sorted(dests):
            if d != home:
                first.setdefault(self.physical[d], d)
        return sum(self.copy[v][home][d] for d in first.values())


class Use:
    """A variable `var` used on the unit of site `consumer`, at a binding (`binding`, argument `index`).

    `index` is None for a copy op bound as a whole binding (the binding becomes an alias).
    """

    __slots__ = ("var", "root", "consumer", "binding", "index")

    def __init__(self, var: Var, root: int, consumer: int, binding: Binding, index: int | None) -> None:
        self.var = var
        self.root = root
        self.consumer = consumer
        self.binding = binding
        self.index = index


class Coarsened:
    """A `CostProblem` plus what realization and reports need to map it back to the module.

    classes   the units as equality classes of the extraction's sites
    uses      every relaxed use, in program order
    owner     ``owner[site]``: (variable, path) of the variable whose tree introduced a root site
    ops       ``(OpInfo, anchor site)`` of every op binding that runs a kernel
    kept      indices into ``ex.constraints.equals`` of the equalities that stay hard
    """

    __slots__ = ("ex", "problem", "classes", "uses", "owner", "ops", "kept")

    def __init__(self, ex: Extraction, problem: CostProblem, classes: Classes, uses: list[Use]) -> None:
        self.ex = ex
        self.problem = problem
        self.classes = classes
        self.uses = uses
        self.owner: dict[int, tuple[Var, tuple[int, ...]]] = {}
        self.ops: list[tuple[OpInfo, int]] = []
        self.kept: list[int] = []


def coarsen(ex: Extraction, model: CostModel) -> Coarsened:
    """The cost problem of an extracted module under `model`."""
    walk = _Walk(ex)
    walk.run()
    cs = ex.constraints
    drop = walk.relaxed
    equals = cs.equals
    a_col: Sequence[int]
    b_col: Sequence[int]
    if isinstance(equals, EqualTable):
        a_col, b_col = equals.a, equals.b
    else:
        a_col, b_col = [e.a for e in equals], [e.b for e in equals]
    kept_a, kept_b = array("i"), array("i")
    kept: list[int] = []  # the index of each kept equality in `cs.equals`
    for i, (a, b) in enumerate(zip(a_col, b_col, strict=True)):
        if (a, b) not in drop:
            kept_a.append(a)
            kept_b.append(b)
            kept.append(i)
    uf = UnionFind(len(cs.sites))
    uf.union_pairs(kept_a, kept_b)
    classes = Classes(*uf.sets())
    vdevices = cs.vdevices
    problem = CostProblem(vdevices, [model.limit(v, vdevices) for v in vdevices])
    out = Coarsened(ex, problem, classes, walk.uses)
    out.owner = walk.owner
    out.ops = walk.ops
    out.kept = kept
    _units(out, model, walk.memory_sites)
    _values(out, model)
    return out


def _units(out: Coarsened, model: CostModel, memory_sites: list[int]) -> None:
    """Fill compute, memory and pinned per unit."""
    p, classes, cs = out.problem, out.classes, out.ex.constraints
    n, k = len(classes), p.num_devices
    allowed: list[set[int]] = [set(range(k)) for _ in range(n)]
    pinned: list[int | None] = [None] * n
    for site, device in zip(*pin_columns(cs.pins), strict=True):
        u = classes.of[site]
        allowed[u] &= {device}
        pinned[u] = device
    for dom in cs.domains:
        allowed[classes.of[dom.site]] &= dom.allowed
    compute: list[list[float | None]] = [[0.0] * k for _ in range(n)]
    for info, anchor in out.ops:
        row = compute[classes.of[anchor]]
        for d in range(k):
            so_far = row[d]
            if so_far is not None:
                t = model.kernel(info, p.vdevices[d], p.vdevices)
                row[d] = None if t is None else so_far + t
    for u in range(n):
        for d in range(k):
            if d not in allowed[u]:
                compute[u][d] = None
    memory = [0] * n
    sites = cs.sites
    for s in memory_sites:
        memory[classes.of[s]] += sites[s].nbytes
    p.compute, p.memory, p.pinned = compute, memory, pinned


def _values(out: Coarsened, model: CostModel) -> None:
    p, classes, sites = out.problem, out.classes, out.ex.constraints.sites
    consumers: dict[int, set[int]] = {}
    for use in out.uses:
        consumers.setdefault(use.root, set()).add(classes.of[use.consumer])
    for root in sorted(consumers):
        home = classes.of[root]
        others = tuple(sorted(consumers[root] - {home}))
        if others:
            p.values.append(Value(root, home, sites[root].nbytes, others))
    vd = p.vdevices
    tables: dict[int, list[list[float]]] = {}  # a copy's time is the model's function of its bytes: once per size
    for value in p.values:
        table = tables.get(value.nbytes)
        if table is None:
            table = [[model.copy(value.nbytes, vd[h], vd[d], vd) for d in range(len(vd))] for h in range(len(vd))]
            tables[value.nbytes] = table
        p.copy.append([list(row) for row in table])


class RootWalk:
    """A walk over a function's bindings that follows value roots (`placement.extract.copies.ValueRoots`).

    ``root[site]`` is the root of every site seen so far that is not its own
    (aliases, tuple fields and items, copy ops' results: `alias` records
    them).  `binding` dispatches each binding: a call to `call`, an ``If`` to
    `branch`, a constant to `constant`, and an alias, tuple or tuple item to
    `alias`; subclasses say what calls, branches and constants mean.
    """

    def __init__(self, ex: Extraction) -> None:
        self.ex = ex
        self.var_sites = ex.var_sites
        self.expr_sites = ex.expr_sites
        self.root: dict[int, int] = {}

    def of(self, site: int) -> int:
        """The root of `site`."""
        return self.root.get(site, site)

    def alias(self, a: Tree, b: Tree) -> None:
        """Make every leaf of tree `a` share the root of the leaf of `b` at the same path."""
        if type(a) is int and type(b) is int:
            self.root[a] = self.of(b)
        elif type(a) is tuple and type(b) is tuple:
            for x, y in zip(a, b, strict=False):
                self.alias(x, y)

    def tree(self, e: object) -> Tree:
        """The site tree of an expression (a variable, a tuple, a tuple item, a constant), None if it has none."""
        t = type(e)
        if t is Var or t is DataflowVar:
            return self.var_sites[e]  # type: ignore[index]
        if t is TupleGetItem:
            sub = self.tree(e.tuple_value)  # type: ignore[attr-defined]
            i = e.index  # type: ignore[attr-defined]
            return sub[i] if type(sub) is tuple and 0 <= i < len(sub) else None
        if t is Tuple:
            return tuple(self.tree(f) for f in e.fields)  # type: ignore[attr-defined]
        return self.expr_sites.get(id(e))

    def seq(self, seq: SeqExpr) -> None:
        for block in seq.blocks:
            for binding in block.bindings:
                self.binding(binding)

    def binding(self, binding: Binding) -> None:
        var, value = binding.var, binding.value
        tree = self.var_sites[var]
        self.enter(binding, tree)
        vt = type(value)
        if vt is Call:
            self.call(binding, value, tree)  # type: ignore[arg-type]
        elif vt is If:
            self.branch(binding, value)  # type: ignore[arg-type]
        elif vt is Var or vt is DataflowVar:
            self.alias(tree, self.var_sites[value])  # type: ignore[index]
        elif vt is Tuple and type(tree) is tuple:
            for sub, field in zip(tree, value.fields, strict=False):  # type: ignore[attr-defined]
                self.alias(sub, self.tree(field))
        elif vt is TupleGetItem:
            self.alias(tree, self.tree(value))
        elif vt is Constant:
            self.constant(value, tree)  # type: ignore[arg-type]

    def enter(self, binding: Binding, tree: Tree) -> None:
        """Called first for every binding, `tree` its variable's sites; nothing by default."""

    def call(self, binding: Binding, call: Call, tree: Tree) -> None:
        """A binding whose value is a call; nothing by default."""

    def branch(self, binding: Binding, value: If) -> None:
        """A binding whose value is an ``If``: both branches are walked by default."""
        self.seq(value.true_branch)
        self.seq(value.false_branch)

    def constant(self, value: Constant, tree: Tree) -> None:
        """A binding whose value is a constant; nothing by default."""


class _Walk(RootWalk):
    """One walk over the module: relaxed uses, value roots, owners of root sites, kernels, memory sites."""

    def __init__(self, ex: Extraction) -> None:
        super().__init__(ex)
        self.owner: dict[int, tuple[Var, tuple[int, ...]]] = {}
        self.uses: list[Use] = []
        self.relaxed: set[tuple[int, int]] = set()
        self.ops: list[tuple[OpInfo, int]] = []
        self.memory_sites: list[int] = []
        self.func = ""

    def run(self) -> None:
        for fname, func in self.ex.module.functions.items():
            self.func = fname
            for param in func.params:
                tree = self.var_sites[param]
                self._own(param, tree, ())
                self.memory_sites.extend(tree_leaves(tree))
            self.seq(func.body)

    def _own(self, var: Var, tree: Tree, path: tuple[int, ...]) -> None:
        if type(tree) is int:
            self.owner.setdefault(tree, (var, path))
        elif type(tree) is tuple:
            for i, sub in enumerate(tree):
                self._own(var, sub, path + (i,))

    def enter(self, binding: Binding, tree: Tree) -> None:
        _refuse_nested_calls(binding.value, binding)
        self._own(binding.var, tree, ())

    def constant(self, value: Constant, tree: Tree) -> None:
        self.memory_sites.extend(tree_leaves(self.ex.expr_sites[id(value)]))

    def call(self, binding: Binding, call: Call, tree: Tree) -> None:
        op = call.op
        if type(op) is not Op:
            params = self.ex.module.functions[op.name].params
            for i, (arg, param) in enumerate(zip(call.args, params, strict=True)):
                self.use(arg, self.var_sites[param], binding, i, tie=True)
            return
        leaves = list(tree_leaves(tree))
        if not leaves and op.name not in COPY_OPS:
            return  # no tensor made (``R.shape_of``): no work, and a constant read only so is held nowhere
        for arg in call.args:
            if type(arg) is Constant:
                self.memory_sites.extend(tree_leaves(self.ex.expr_sites[id(arg)]))
        if op.name in COPY_OPS:
            if type(tree) is int and not self.use(call.args[0], tree, binding, None, tie=False):
                raise PlacementError(
                    f"cost-aware placement copies variables: bind the input of R.{op.name} to a variable first",
                    binding.span,
                )
            self.alias(tree, self.tree(call.args[0]))
            return
        self.memory_sites.extend(leaves)
        anchor = leaves[0]
        info = op_info(self.func, binding.var.name, call, binding.span, binding.var.struct_info, self.ex.sizes)
        self.ops.append((info, anchor))
        if op.device_rule == "same" and type(tree) is int:
            for i, arg in enumerate(call.args):
                self.use(arg, tree, binding, i, tie=True)

    def use(self, arg: Expr, consumer: Tree, binding: Binding, index: int | None, *, tie: bool) -> bool:
        """Record a relaxed use of variable `arg` on `consumer`'s unit, if its value has a variable to copy."""
        if type(arg) is not Var and type(arg) is not DataflowVar:
            return False
        site = self.var_sites[arg]
        if type(site) is not int or type(consumer) is not int:
            return False
        root = self.of(site)
        if root not in self.owner:
            return False
        self.uses.append(Use(arg, root, consumer, binding, index))
        if tie:
            self.relaxed.add((site, consumer))
        return True


def _refuse_nested_calls(value: Expr, binding: Binding) -> None:
    """A call inside a binding's value (an argument, a tuple field) is a `PlacementError`: bind it first."""
    inner: tuple[Expr, ...]
    if type(value) is Call:
        inner = value.args
    elif type(value) is Tuple:
        inner = value.fields
    elif type(value) is TupleGetItem:
        inner = (value.tuple_value,)
    else:
        return
    for sub in inner:
        if type(sub) is Call:
            name = sub.op.name
            raise PlacementError(
                f"cost-aware placement needs every call bound to a variable: bind the nested call of {name} first",
                sub.span or binding.span,
            )
        _refuse_nested_calls(sub, binding)
