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
  vdevice;
* an op reads a value *locally* (on its own vdevice: the value is copied
  there when it lives elsewhere) when the two share a unit or the read is one
  of the coarsened problem's relaxed uses; otherwise (an operand of an op
  whose device rule does not tie it, such as ``host``) where the value lives;
* the vdevices a value is copied to are those of `Value.consumers` other than
  its home; a copy goes from the home (or, a relay, from an earlier copy on
  the same physical device: `simulate.relay_source`), in `CostModel.copy` seconds,
  of which the first `CostModel.send` seconds keep the source's device busy
  too (the sender's share: 0 in every model but a calibrated Ray one);
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
* a *view* is an op's value that shares the memory of the operand it reads
  locally (`vdplace.ir.views` decides which, as the runtime does): it holds
  no bytes of its own where it is made, and keeps its operand's (there:
  home, or the copy there) alive while it is read (`liveness`).

One entry function is scheduled: a module with more than one function, or a
call of a module function, or an ``If``, is a `PlacementError` located at it
(the time objective does not schedule calls or branches yet).
"""

from __future__ import annotations

from vdplace.ir.expr import Binding, Call, Constant, Function, If
from vdplace.ir.module import IRModule
from vdplace.ir.op import Op
from vdplace.ir.span import Span
from vdplace.ir.vdevice import vdevice_name
from vdplace.ir.views import view_result
from vdplace.placement.cost.model import CostModel, OpInfo
from vdplace.placement.cost.problem import COPY_OPS, Coarsened, RootWalk
from vdplace.placement.errors import PlacementError
from vdplace.placement.extract.extraction import Tree, tree_leaves

OP, INPUT, WEIGHT, CONST = "op", "input", "weight", "const"


class TaskGraph:
    """What the schedulers see (module docstring); every list is indexed by op, value or unit id.

    vdevices, names   the module's vdevices and their printed names
    physical          ``physical[d]``: the first vdevice index on d's physical device (a compute stream)
    host              the host vdevice index, or None
    limits            ``limits[d]``: bytes available on d, or None
    allowed           ``allowed[u]``: the vdevices unit u may go on
    op_*              name, span, unit, ``time[d]`` (seconds or None), ``local`` / ``home`` values read,
                      ``makes`` values made
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
    site_root         the root site of every site that is not its own root
    root_value        the value id of every root site that holds a value
    """

    def value_at(self, site: int) -> int | None:
        """The value a site holds (an alias's, a tuple item's, a copy op's input's), or None."""
        return self.root_value.get(self.site_root.get(site, site))

    def __init__(self, co: Coarsened, function: str) -> None:
        p = co.problem
        self.co = co
        self.function = function
        self.vdevices = list(p.vdevices)
        self.names = [vdevice_name(self.vdevices, v) for v in self.vdevices]
        first: dict[object, int] = {}
        self.physical = [first.setdefault(v.physical, d) for d, v in enumerate(self.vdevices)]
        cpus = [d for d, v in enumerate(self.vdevices) if v.device_type == "cpu"]
        self.host: int | None = cpus[-1] if cpus else None
        self.inputs_from_driver = False  # the model's `upload_time`: an input never sits on the host (Ray)
        self.limits: list[int | None] = list(p.limits)
        self.allowed = [[d for d, t in enumerate(row) if t is not None] for row in p.compute]
        self.pinned = list(p.pinned)
        self.op_name: list[str] = []
        self.op_span: list[Span | None] = []
        self.op_unit: list[int] = []
        self.op_time: list[list[float | None]] = []
        self.op_local: list[list[int]] = []
        self.op_home: list[list[int]] = []
        self.op_makes: list[list[int]] = []
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
        site = self.co.ex.constraints.sites[root]
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
        return len(self.val_label) - 1

    def make_view(self, v: int, of: int, strided: bool) -> None:
        """Value v is a view of value `of` (class docstring)."""
        self.val_view[v] = of
        self.val_base[v] = self.val_base[of]
        self.val_strided[v] = strided


def entry_function(mod: IRModule) -> tuple[str, Function]:
    """The one function the time objective schedules; a `PlacementError` located at what it cannot schedule."""
    names = list(mod.functions)
    if not names:
        raise PlacementError("the time objective needs a function to schedule; the module has none")
    name = "main" if "main" in mod.functions else names[0]
    for other, func in mod.functions.items():
        if other != name:
            raise PlacementError(
                f"the time objective schedules one function ({name!r}); the module also has {other!r}: "
                "calls of module functions are not scheduled yet (inline it, or place with the cost objective)",
                func.span,
            )
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
    return g


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
        self.ops_in_unit: dict[int, int] = {}
        for _, anchor in co.ops:
            u = self.unit_of[anchor]
            self.ops_in_unit[u] = self.ops_in_unit.get(u, 0) + 1

    def params(self, func: Function) -> None:
        num_input = func.attrs.get("num_input")
        inputs = len(func.params) if not isinstance(num_input, int) else max(0, min(num_input, len(func.params)))
        for i, param in enumerate(func.params):
            for leaf in tree_leaves(self.var_sites[param]):
                self.value[leaf] = self.g.add_value(leaf, INPUT if i < inputs else WEIGHT, self.unit_of[leaf])

    def constants(self, tree: Tree) -> None:
        for leaf in tree_leaves(tree):
            if leaf not in self.value:
                self.value[leaf] = self.g.add_value(leaf, CONST, self.unit_of[leaf])

    def branch(self, binding: Binding, value: If) -> None:
        raise PlacementError(
            f"the time objective does not schedule R.If yet (binding {binding.var.name!r}): "
            "place this module with the cost objective",
            binding.span,
        )

    def constant(self, value: Constant, tree: Tree) -> None:
        # The value is the bound variable's (the root `placement.cost.problem` copies and prices), not
        # the constant expression's own site, which names the same tensor.
        self.constants(tree)
        site = self.expr_sites.get(id(value))
        if site is not None:
            self.alias(site, tree)

    def call(self, binding: Binding, call: Call, tree: Tree) -> None:
        op = call.op
        if type(op) is not Op:
            raise PlacementError(
                f"the time objective does not schedule calls of module functions yet: {binding.var.name!r} calls "
                f"{op.name!r} (inline it, or place with the cost objective)",
                binding.span,
            )
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
        g.op_unit.append(unit)
        g.unit_ops.setdefault(unit, []).append(i)
        g.op_time.append(self.times(info, unit))
        local: list[int] = []
        home: list[int] = []
        for index, arg in enumerate(call.args):
            if type(arg) is Constant:
                self.constants(self.expr_sites.get(id(arg)))
            relaxed = (id(binding), index) in self.relaxed
            for leaf in tree_leaves(self.tree(arg)):
                v = self.value.get(self.of(leaf))
                if v is None:
                    continue
                if relaxed or g.val_unit[v] == unit:
                    if v not in local:
                        local.append(v)
                        g.val_readers[v].append(i)
                elif v not in home:
                    home.append(v)
                    g.val_home_readers[v].append(i)
        g.op_local.append(local)
        g.op_home.append(home)
        g.op_makes.append([])
        for leaf in leaves:
            v = g.add_value(leaf, OP, self.unit_of[leaf], i)
            self.value[leaf] = v
            g.op_makes[i].append(v)
        if op.view_of is not None and len(leaves) == 1 and op.view_of < len(call.args):
            self.view(call, op, op.view_of, local, g.op_makes[i][0])

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
        vds = g.vdevices
        for k, value in enumerate(p.values):
            v = self.value.get(value.root)
            if v is None:
                continue  # a value outside the entry function cannot be here (one function): defensive
            g.val_users[v] = value.consumers
            g.val_copy[v] = p.copy[k]
            if self.model.send_time is not None:
                g.val_send[v] = _nonzero([[self.model.send(value.nbytes, h, d, vds) for d in vds] for h in vds])
        if g.host is not None:
            g.inputs_from_driver = getattr(self.model, "upload_time", None) is not None
            host = vds[g.host]
            for v, kind in enumerate(g.val_kind):
                if kind == INPUT:
                    g.val_upload[v] = [self.model.upload(g.val_bytes[v], host, d, vds) for d in vds]
                    sends = [self.model.upload_send(g.val_bytes[v], host, d, vds) for d in vds]
                    g.val_upload_send[v] = sends if any(sends) else None
        g.has_send = any(t is not None for t in g.val_send) or any(t is not None for t in g.val_upload_send)
        for leaf in tree_leaves(self.tree(func.body.body)):
            v = self.value.get(self.of(leaf))
            if v is not None:
                g.outputs.append((v, self.unit_of[leaf]))


def _nonzero(table: list[list[float]]) -> list[list[float]] | None:
    """`table`, or None where every entry is 0."""
    return table if any(any(row) for row in table) else None
