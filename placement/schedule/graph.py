"""The task graph of a coarsened program: op calls with their times per vdevice, the values they pass.

Built from cost-aware placement's coarsened problem (`placement.cost.problem`)
and one more walk over the entry function's bindings:

* an *op* is every binding whose value is a call of a registered op that
  makes a tensor (the ones `CostProblem.compute` prices), the copy ops
  (``R.to_vdevice``, ``R.hint_on_device``) excepted; its time on vdevice d is
  `CostModel.kernel` (None where it cannot run, or where its unit may not go);
* a *value* is a tensor that something makes: a parameter leaf, an op result
  leaf, a constant (bound, or passed to an op); aliases, tuples and tuple
  items, and copy ops name the value they read (its *root*, as
  `placement.extract.copies.ValueRoots` defines it).  Its home is its unit's
  vdevice.  A constant that is only a reference (``metadata[kind][i]``
  without its value, `ir.bind_constants`) has no known size: it holds no
  bytes here, with one warning naming it;
* an op reads a value *locally* (on its own vdevice: the value is copied
  there when it lives elsewhere) when the two share a unit or the read is one
  of the coarsened problem's relaxed uses; otherwise (an operand of an op
  whose device rule does not tie it, such as ``host``) where the value lives;
* the vdevices a value is copied to are those of `Value.consumers` other than
  its home; a copy goes from the home (or, a relay, from an earlier copy on
  the same physical device: `simulate.relay_source`), in `CostModel.copy` seconds,
  of which the first `CostModel.send` seconds keep the source's device busy
  too (the sender's share: 0 in every model but a calibrated Ray one; a
  strided view's at its own rate, as the sender makes it contiguous);
* the *runtime inputs* (the first ``num_input`` parameters of the entry
  function as its ``R.func_attr`` says; all of them without it) start on the
  host (the last CPU vdevice): one placed elsewhere is uploaded first.  The
  other parameters (weights) and constants are where they are placed when the
  run starts.  A module with no CPU vdevice has no host: inputs start where
  they are placed.  With the model's `upload_time` (inputs sent by Ray's
  driver to the actor that reads them) an upload lasts what it says and the
  input never sits on the host (`inputs_from_driver`); otherwise the host
  is its sender (`CostModel.upload_send`).
* the *outputs* are the values the entry function returns, each on the unit
  that returns it;
* an op *waits* for the ops (`TaskGraph.op_after`) that make the other
  fields of a tuple it reads an item of (``t[1]`` of ``t = (a, b)`` waits
  for a's op, through aliases, items and nested tuples): it reads b only,
  but the program binds t, so a, before it, and the run (the VM, each Ray
  actor) keeps that order; a call's variable stands for what its callee
  returns (its arguments make no wait of its readers);
* a *view* is an op's value that shares the memory of the operand it reads
  locally (`vdplace.ir.views` decides which, as the runtime does): it holds
  no bytes of its own where it is made, and keeps its operand's (there:
  home, or the copy there) alive while it is read (`liveness`).

The entry function is scheduled; a call of a module function is scheduled as
its callee's body, once per call site (`calls`: an `Instance` per run of a
function; a passed argument is a ``PASSED`` value on the parameter's vdevice
once the argument is there).  An ``If``, recursion, and a function the entry
never calls are a `PlacementError` located at them.
"""

from __future__ import annotations

import logging

from vdplace.ir.expr import Binding, Call, Constant, DataflowVar, Function, If, Tuple, TupleGetItem, Var
from vdplace.ir.module import IRModule
from vdplace.ir.op import Op
from vdplace.ir.span import Span
from vdplace.ir.vdevice import vdevice_name
from vdplace.ir.views import view_result
from vdplace.placement.cost.model import CostModel, OpInfo
from vdplace.placement.cost.problem import COPY_OPS, Coarsened, RootWalk
from vdplace.placement.errors import PlacementError
from vdplace.placement.extract.extraction import Tree, tree_leaves
from vdplace.placement.schedule.calls import Instance, check_call, pairs, refuse_uncalled

OP, INPUT, WEIGHT, CONST, PASSED = "op", "input", "weight", "const", "passed"
log = logging.getLogger(__name__)


class TaskGraph:
    """What the schedulers see (module docstring); every list is indexed by op, value or unit id.

    vdevices, names   the module's vdevices and their printed names
    physical          ``physical[d]``: the first vdevice index on d's physical device (a compute stream)
    host              the host vdevice index, or None
    limits            ``limits[d]``: bytes available on d, or None; the solvers' (`solve.with_limits`: a limit
                      of at least every value's bytes together, which no plan reaches, is None)
    stated_limits     the limits as the model and the caller gave them (what a schedule reports)
    allowed           ``allowed[u]``: the vdevices unit u may go on
    op_*              name, span, unit, ``time[d]`` (seconds or None), ``local`` / ``home`` values read,
                      ``makes`` values made, ``after`` ops it waits for without reading what they make
                      (module docstring; earlier ops in program order)
    val_*             label, span, bytes, home unit, kind (``"op"``, ``"input"``, ``"weight"``, ``"const"``),
                      producer op (-1 for none), ``users`` (units other than home that read it: copy
                      destinations), ``copy[h][d]`` seconds (None when it has no users elsewhere),
                      ``upload[d]`` seconds from the host (inputs), ``readers`` / ``home_readers`` ops;
                      ``send[h][d]`` / ``upload_send[d]``: the sender's share of those (`CostModel.send`),
                      None where every share is 0 (``has_send``: some share is not)
    outputs           ``(value, unit)`` of every leaf the entry function returns
    val_view          the value a view shares memory with (the operand it reads), -1 for a value of its own;
                      ``val_base``: the end of that chain (itself for a value of its own); ``val_strided``:
                      a strided view (`vdplace.ir.views`)
    unit_ops          ``unit_ops[u]``: the ops of unit u (units with ops only), in program order
    instances         every run of a function (`calls.Instance`): the entry's first, then each call's
    op_instance, val_instance  the instance each op and value is in
    val_source        a ``PASSED`` value's argument value (`calls`), -1 for every other value; a ``PASSED``
                      value is a view of it, its `val_producer` the op that makes the value it passes on
                      (-1 for none), and it is among that op's ``op_makes`` (ranks and tails see through calls);
                      ``val_passed``: whether a value is some ``PASSED`` value's argument
    site_root         the root site of every site of the entry function that is not its own root
    root_value        the value id of every root site of the entry function that holds a value
    """

    def value_at(self, site: int, instance: int = 0) -> int | None:
        """The value a site holds (an alias's, a tuple item's, a copy op's input's) in `instance`, or None."""
        inst = self.instances[instance]
        return inst.root_value.get(inst.site_root.get(site, site))

    def op_function(self, i: int) -> str:
        """The function op i is in."""
        return self.instances[self.op_instance[i]].function

    def __init__(self, co: Coarsened, function: str) -> None:
        p = co.problem
        self.co = co
        self.sites = co.ex.constraints.sites  # the sites the values are of (`add_value`)
        self.function = function
        self.vdevices = list(p.vdevices)
        self.names = [vdevice_name(self.vdevices, v) for v in self.vdevices]
        first: dict[object, int] = {}
        self.physical = [first.setdefault(v.physical, d) for d, v in enumerate(self.vdevices)]
        cpus = [d for d, v in enumerate(self.vdevices) if v.device_type == "cpu"]
        self.host: int | None = cpus[-1] if cpus else None
        self.inputs_from_driver = False  # the model's `upload_time`: an input never sits on the host (Ray)
        self.limits: list[int | None] = list(p.limits)
        self.stated_limits: list[int | None] = list(p.limits)
        self.allowed = [[d for d, t in enumerate(row) if t is not None] for row in p.compute]
        self.pinned = list(p.pinned)
        self.op_name: list[str] = []
        self.op_span: list[Span | None] = []
        self.op_unit: list[int] = []
        self.op_time: list[list[float | None]] = []
        self.op_local: list[list[int]] = []
        self.op_home: list[list[int]] = []
        self.op_makes: list[list[int]] = []
        self.op_after: list[list[int]] = []
        self.val_label: list[str] = []
        self.val_span: list[Span | None] = []
        self.val_bytes: list[int] = []
        self.val_unit: list[int] = []
        self.val_kind: list[str] = []
        self.val_producer: list[int] = []
        self.val_users: list[tuple[int, ...]] = []
        self.val_copy: list[list[list[float]] | None] = []
        self.val_upload: list[list[float] | None] = []
        self.val_send: list[list[list[float]] | None] = []
        self.val_upload_send: list[list[float] | None] = []
        self.has_send = False
        self.val_readers: list[list[int]] = []
        self.val_home_readers: list[list[int]] = []
        self.val_root: list[int] = []
        self.val_view: list[int] = []
        self.val_base: list[int] = []
        self.val_strided: list[bool] = []
        self.outputs: list[tuple[int, int]] = []
        self.unit_ops: dict[int, list[int]] = {}
        self.instances: list[Instance] = [Instance(function, ())]
        self.current = 0  # the instance being walked
        self.op_instance: list[int] = []
        self.val_instance: list[int] = []
        self.val_source: list[int] = []
        self.val_passed: list[bool] = []
        self.site_root: dict[int, int] = {}
        self.root_value: dict[int, int] = {}

    @property
    def num_ops(self) -> int:
        return len(self.op_name)

    @property
    def num_values(self) -> int:
        return len(self.val_label)

    @property
    def num_units(self) -> int:
        return len(self.allowed)

    @property
    def num_devices(self) -> int:
        return len(self.vdevices)

    def add_value(self, root: int, kind: str, unit: int, producer: int = -1) -> int:
        site = self.sites[root]
        self.val_root.append(root)
        self.val_label.append(site.label)
        self.val_span.append(site.span)
        self.val_bytes.append(site.nbytes)
        self.val_unit.append(unit)
        self.val_kind.append(kind)
        self.val_producer.append(producer)
        self.val_users.append(())
        self.val_copy.append(None)
        self.val_upload.append(None)
        self.val_send.append(None)
        self.val_upload_send.append(None)
        self.val_readers.append([])
        self.val_home_readers.append([])
        self.val_view.append(-1)
        self.val_base.append(len(self.val_label) - 1)
        self.val_strided.append(False)
        self.val_instance.append(self.current)
        self.val_source.append(-1)
        self.val_passed.append(False)
        return len(self.val_label) - 1

    def make_view(self, v: int, of: int, strided: bool) -> None:
        """Value v is a view of value `of` (class docstring)."""
        self.val_view[v] = of
        self.val_base[v] = self.val_base[of]
        self.val_strided[v] = strided


def entry_function(mod: IRModule) -> tuple[str, Function]:
    """The function the time objective schedules (``main``, else the first); a `PlacementError` located at a
    function it never calls (`calls.refuse_uncalled`)."""
    names = list(mod.functions)
    if not names:
        raise PlacementError("the time objective needs a function to schedule; the module has none")
    name = "main" if "main" in mod.functions else names[0]
    refuse_uncalled(mod, name)
    return name, mod.functions[name]


def build_graph(co: Coarsened, model: CostModel) -> TaskGraph:
    """The `TaskGraph` of the coarsened module `co` under `model` (module docstring)."""
    mod = co.ex.module
    name, func = entry_function(mod)
    g = TaskGraph(co, name)
    walk = _Walk(g, co, model)
    walk.params(func)
    walk.seq(func.body)
    walk.finish(func)
    g.site_root, g.root_value = walk.root, walk.value
    g.instances[0].site_root, g.instances[0].root_value = walk.root, walk.value
    if walk.unbound:
        _warn_unbound(mod, name, walk.unbound)
    return g


def _warn_unbound(mod: IRModule, function: str, unbound: list[Constant]) -> None:
    """One warning naming the constants whose values the module does not hold: the schedule counts none of
    their bytes, which the run holds for the whole run (docs/schedule.md, "Memory by liveness")."""
    shown = []
    for const in unbound[:3]:
        at = "" if const.span is None else f" at {mod.filename or '<module>'}:{const.span.line}"
        shown.append(f"{const.ref!r}{at}")
    more = f" and {len(unbound) - 3} more" if len(unbound) > 3 else ""
    log.warning(
        "%s: %d constant(s) without a value (%s%s): their bytes are unknown and not in the schedule's memory; "
        "bind their values first (ir.bind_constants(mod, values), or ir.parse(text, constants=values)) to count them",
        function,
        len(unbound),
        ", ".join(shown),
        more,
    )


class _Walk(RootWalk):
    """One walk over the entry function: values by root (the coarsening's `RootWalk`), op calls, reads, outputs."""

    def __init__(self, g: TaskGraph, co: Coarsened, model: CostModel) -> None:
        super().__init__(co.ex)
        self.g = g
        self.co = co
        self.model = model
        self.unit_of = co.classes.of
        self.value: dict[int, int] = {}  # root site -> value id
        self.relaxed = {(id(use.binding), use.index) for use in co.uses}
        self.infos = {anchor: info for info, anchor in co.ops}
        self.running = [g.function]  # the functions being walked, the entry first (recursion is refused)
        self.first_const: dict[int, int] = {}  # a constant's site -> its value in the first instance that has it
        self.ops_in_unit: dict[int, int] = {}
        # The ops a variable's binding depends on (an op's variable: its op; a tuple, item or alias: those of
        # what it names), and those of the binding being walked (`op_after`).
        self.deps: dict[Var, frozenset[int]] = {}
        self.pending: frozenset[int] = frozenset()
        self.unbound: list[Constant] = []  # constants with no value: bytes unknown, counted as none
        for _, anchor in co.ops:
            u = self.unit_of[anchor]
            self.ops_in_unit[u] = self.ops_in_unit.get(u, 0) + 1

    def params(self, func: Function) -> None:
        num_input = func.attrs.get("num_input")
        inputs = len(func.params) if not isinstance(num_input, int) else max(0, min(num_input, len(func.params)))
        for i, param in enumerate(func.params):
            for leaf in tree_leaves(self.var_sites[param]):
                self.value[leaf] = self.g.add_value(leaf, INPUT if i < inputs else WEIGHT, self.unit_of[leaf])

    def enter(self, binding: Binding, tree: Tree) -> None:
        deps: set[int] = set()
        for var in _variables(binding.value):
            deps |= self.deps.get(var, frozenset())
        self.pending = self.deps[binding.var] = frozenset(deps)

    def constants(self, tree: Tree, const: Constant) -> None:
        for leaf in tree_leaves(tree):
            if leaf not in self.value:
                v = self.value[leaf] = self.g.add_value(leaf, CONST, self.unit_of[leaf])
                if const.data is None:  # a reference without its value: a tensor of unknown size
                    self.g.val_bytes[v] = 0
                    self.unbound.append(const)
                first = self.first_const.setdefault(leaf, v)
                if first != v:  # one tensor for the whole run: a second call's instance holds no bytes
                    self.g.make_view(v, first, False)

    def branch(self, binding: Binding, value: If) -> None:
        raise PlacementError(
            f"the time objective does not schedule R.If yet (binding {binding.var.name!r}): "
            "place this module with the cost objective",
            binding.span,
        )

    def constant(self, value: Constant, tree: Tree) -> None:
        # The value is the bound variable's (the root `placement.cost.problem` copies and prices), not
        # the constant expression's own site, which names the same tensor.
        self.constants(tree, value)
        site = self.expr_sites.get(id(value))
        if site is not None:
            self.alias(site, tree)

    def call(self, binding: Binding, call: Call, tree: Tree) -> None:
        op = call.op
        if type(op) is not Op:
            self.module_call(binding, call, tree)
            return
        if op.name in COPY_OPS:
            self.alias(tree, self.tree(call.args[0]))
            return
        leaves = list(tree_leaves(tree))
        if not leaves:
            return  # no tensor made (``R.shape_of``): no work, nothing held
        g = self.g
        anchor = leaves[0]
        unit = self.unit_of[anchor]
        i = g.num_ops
        info = self.infos[anchor]
        g.op_name.append(binding.var.name)
        g.op_span.append(binding.span)
        g.op_instance.append(g.current)
        g.op_unit.append(unit)
        g.unit_ops.setdefault(unit, []).append(i)
        g.op_time.append(self.times(info, unit))
        local: list[int] = []
        home: list[int] = []
        # The loop over the operands, with locals instead of attribute lookups: every op call comes here.
        value_of, root, var_sites, bid = self.value, self.root, self.var_sites, id(binding)
        val_unit, val_readers, val_home_readers = g.val_unit, g.val_readers, g.val_home_readers
        for index, arg in enumerate(call.args):
            if type(arg) is Constant:
                self.constants(self.expr_sites.get(id(arg)), arg)
            relaxed = (bid, index) in self.relaxed
            sites = var_sites[arg] if type(arg) is Var or type(arg) is DataflowVar else self.tree(arg)
            for leaf in (sites,) if type(sites) is int else tree_leaves(sites):
                v = value_of.get(root.get(leaf, leaf))  # `of`
                if v is None:
                    continue
                if relaxed or val_unit[v] == unit:
                    if v not in local:
                        local.append(v)
                        val_readers[v].append(i)
                elif v not in home:
                    home.append(v)
                    val_home_readers[v].append(i)
        g.op_local.append(local)
        g.op_home.append(home)
        g.op_makes.append([])
        read = {g.val_producer[v] for v in local + home}
        g.op_after.append(sorted(self.pending - read))
        self.deps[binding.var] = frozenset((i,))
        for leaf in leaves:
            v = g.add_value(leaf, OP, self.unit_of[leaf], i)
            self.value[leaf] = v
            g.op_makes[i].append(v)
        if op.view_of is not None and len(leaves) == 1 and op.view_of < len(call.args):
            self.view(call, op, op.view_of, local, g.op_makes[i][0])

    def module_call(self, binding: Binding, call: Call, tree: Tree) -> None:
        """The callee's body as a new instance at this call site (`calls`)."""
        g = self.g
        name = call.op.name
        func = check_call(self.co.ex.module, binding, name, self.running)
        for arg in call.args:
            if type(arg) is Constant:  # a constant argument is the caller's (tied to its parameter)
                self.constants(self.expr_sites.get(id(arg)), arg)
        caller, caller_root, caller_value = g.current, self.root, self.value
        g.instances.append(Instance(name, (*g.instances[caller].call, f"{self.running[-1]}:{binding.var.name}")))
        g.current = len(g.instances) - 1
        self.root, self.value = g.instances[g.current].site_root, g.instances[g.current].root_value
        for arg, param in zip(call.args, func.params, strict=True):
            for leaf, arg_leaf in pairs(self.var_sites[param], self.tree(arg)):
                src = caller_value.get(caller_root.get(arg_leaf, arg_leaf))
                if src is not None:
                    self.value[leaf] = self.passed(leaf, src)
        self.running.append(name)
        self.seq(func.body)
        self.running.pop()
        # The call's variable names what the callee returns: a reader of it waits for what that depends on,
        # not for the arguments (the callee's ops wait for what they read; one that reads no argument does not).
        self.deps[binding.var] = frozenset().union(
            *(self.deps.get(var, frozenset()) for var in _variables(func.body.body))
        )
        ret = self.tree(func.body.body)
        returned = {leaf: self.value.get(self.of(leaf)) for leaf in tree_leaves(ret)}
        g.current, self.root, self.value = caller, caller_root, caller_value
        for leaf, ret_leaf in pairs(tree, ret):
            src = returned.get(ret_leaf)
            if src is not None:
                self.value[leaf] = self.passed(leaf, src)

    def passed(self, site: int, src: int) -> int:
        """A ``PASSED`` value at `site` (a parameter's, a call result's) in the current instance, from value
        `src` (the argument, the callee's returned value): a view of it on the site's unit (`calls`)."""
        g = self.g
        v = g.add_value(site, PASSED, self.unit_of[site], g.val_producer[src])
        g.val_source[v] = src
        g.val_passed[src] = True
        g.make_view(v, src, g.val_strided[src])
        if g.val_producer[v] >= 0:
            g.op_makes[g.val_producer[v]].append(v)
        return v

    def view(self, call: Call, op: Op, k: int, local: list[int], v: int) -> None:
        """Value v, made by `call` (of `op`), a view of operand k where `vdplace.ir.views` says so."""
        g = self.g
        operand = [self.value.get(self.of(leaf)) for leaf in tree_leaves(self.tree(call.args[k]))]
        if len(operand) != 1 or operand[0] is None or operand[0] not in local:
            return
        b = operand[0]
        args = [a.struct_info for a in call.args]
        layout = view_result(op, args, dict(call.attrs), not g.val_strided[b])
        if layout is not None:
            g.make_view(v, b, not layout)

    def times(self, info: OpInfo, unit: int) -> list[float | None]:
        """Seconds of one op on each vdevice: the unit's row when it is the unit's only op."""
        row = self.co.problem.compute[unit]
        if self.ops_in_unit.get(unit, 0) == 1:
            return list(row)
        vds = self.g.vdevices
        return [None if t is None else self.model.kernel(info, vds[d], vds) for d, t in enumerate(row)]

    def finish(self, func: Function) -> None:
        g, p = self.g, self.co.problem
        by_root: dict[int, list[int]] = {}
        for v, root in enumerate(g.val_root):
            by_root.setdefault(root, []).append(v)
        vds = g.vdevices
        for k, value in enumerate(p.values):
            shares: dict[bool, list[list[float]] | None] = {}  # by strided: a strided view's share is its own
            for v in by_root.get(value.root, ()):  # every instance of the value
                g.val_users[v] = value.consumers
                g.val_copy[v] = p.copy[k]
                strided = g.val_strided[v]
                if self.model.send_time is not None and strided not in shares:
                    table = [[self.model.send(value.nbytes, h, d, vds, strided) for d in vds] for h in vds]
                    shares[strided] = _nonzero(table)
                g.val_send[v] = shares.get(strided)
        if g.host is not None:
            g.inputs_from_driver = getattr(self.model, "upload_time", None) is not None
            host = vds[g.host]
            for v, kind in enumerate(g.val_kind):
                if kind == INPUT:
                    g.val_upload[v] = [self.model.upload(g.val_bytes[v], host, d, vds) for d in vds]
                    upload_sends = [self.model.upload_send(g.val_bytes[v], host, d, vds) for d in vds]
                    g.val_upload_send[v] = upload_sends if any(upload_sends) else None
        g.has_send = any(t is not None for t in g.val_send) or any(t is not None for t in g.val_upload_send)
        for leaf in tree_leaves(self.tree(func.body.body)):
            out = self.value.get(self.of(leaf))
            if out is not None:
                g.outputs.append((out, self.unit_of[leaf]))


def _variables(value: object) -> list[Var]:
    """The variables a binding's value names: its call's arguments, a tuple's fields, an item's tuple, an alias
    (not into an ``If``'s branches: the time objective refuses them)."""
    out: list[Var] = []
    stack = [value]
    while stack:
        e = stack.pop()
        if isinstance(e, Var):
            out.append(e)
        elif isinstance(e, Call):
            stack.extend(e.args)
        elif isinstance(e, Tuple):
            stack.extend(e.fields)
        elif isinstance(e, TupleGetItem):
            stack.append(e.tuple_value)
    return out


def _nonzero(table: list[list[float]]) -> list[list[float]] | None:
    """`table`, or None where every entry is 0."""
    return table if any(any(row) for row in table) else None
