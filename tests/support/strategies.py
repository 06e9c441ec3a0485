"""Hypothesis strategies: random *valid* IRModules, built through `ir.builder`.

Shared by the round-trip, placement, diagnostics and runtime tests, so the API
is small:

``modules(**options)``
    an `IRModule`.
``generated_modules(**options)``
    a `Generated`: the module plus a *witness* placement (see below).
``small_modules(**options)`` / ``small_generated(**options)``
    the same with at most `SMALL_SITES` tensor sites, for brute-force
    enumeration of every placement (``len(vdevices) ** sites`` candidates).
``vdevice_lists(min_size=1, max_size=4)``
    a module vdevice list: llvm/cuda/metal/vulkan entries, several of one kind
    with different ids or scopes, no two equal.
``tensor_sites(mod)``
    how many tensor sites placement sees (parameters, bindings, returns and
    inline constants, one per tensor leaf).

Options (all keyword-only; the defaults switch every feature on):

``max_functions`` (3)   functions per module; the last is ``main``, earlier ones
                        are callees (each calls only earlier ones: no recursion).
``max_bindings`` (10)   bindings per function body, not counting If branches.
``max_params`` (3)      tensor parameters per function (plus an optional bool
                        ``cond`` parameter used by If).
``max_sites`` (None)    a budget of tensor sites for the whole module.
``vdevices`` (None)     a fixed vdevice list instead of drawing one.
``annotations``         random vdevice annotations on parameters, bindings, returns.
``hints``               ``hint_on_device`` and ``to_vdevice`` calls.
``allow_conflicts``     annotations and operands may disagree with the witness.
``control_flow``        If with a ``R.Tensor((), "bool")`` condition parameter.
``tuples``              tuples, ``t[i]`` and tuple returns.
``constants``           bound and inline ``R.const`` values.
``symbolic``            symbolic first dimensions (``("n", 3)``).
``dataflow``            dataflow blocks next to plain blocks.
``calls``               calls between module functions.

What the strategy guarantees
----------------------------
* The module builds (shapes and dtypes check, every name resolves); every
  vdevice in it is in the module's list; local names are unique per function.
* Ops are only drawn from those registered (`ir.op.has_op`) and supported on
  the witness device of their operands.
* Generation carries a hidden *witness*: one vdevice for every tensor site that
  satisfies every **hard** rule of the placement table in docs/design.md (annotation pins,
  ``same``-rule ops, aliases, tuple fields and items, call arguments and
  results, If branches and result, ``hint_on_device`` result, ``to_vdevice``
  result, supported device types).  Annotations and hints are drawn from the
  witness; with ``allow_conflicts=True`` an annotation or an operand may be
  drawn freely instead, and if any such choice disagrees with the witness,
  `Generated.witness` is None (the module may or may not be satisfiable —
  placement tests decide by brute force).  So ``allow_conflicts=False``
  guarantees a satisfiable module, and ``witness`` is a proof of it.
  Soft preferences (a hint's input) are not part of the witness.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

from vdplace.ir.builder import FunctionBuilder, ModuleBuilder, SeqBuilder, tensor
from vdplace.ir.expr import Constant, DataflowVar, Expr, If, SeqExpr, Var
from vdplace.ir.module import IRModule
from vdplace.ir.normalize import join
from vdplace.ir.op import get_op, has_op
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo, tensor_leaves
from vdplace.ir.vdevice import DeviceSpec, Target, VDevice, lookup_device

SMALL_SITES = 6

KINDS = ("llvm", "cuda", "metal", "vulkan")
SCOPES = ("global", "global", "global", "global.texture")
DTYPES = ("float32", "float32", "float16", "float64")
UNARY = ("exp", "abs", "negative", "tanh", "sigmoid", "nn.relu")
BINARY = ("add", "subtract", "multiply", "maximum", "minimum")

Key = tuple[str, str, tuple[int, ...]]


@dataclass
class Generated:
    """A generated module and, unless a conflict may have been drawn, a satisfying placement.

    `witness` maps ``(function, variable name, tensor leaf path)`` to the
    vdevice of that site; a function's return is keyed ``"<ret>"``; the leaf
    path is ``()`` for a plain tensor and ``(i,)`` for field i of a tuple.
    Inline constants carry no entry (they are free).
    """

    module: IRModule
    witness: dict[Key, VDevice] | None
    pins: int = 0  # vdevice annotations drawn (parameters, bindings, returns)
    hints: int = 0  # hint_on_device calls drawn
    copies: int = 0  # to_vdevice calls drawn

    @property
    def satisfiable(self) -> bool:
        """True when the witness is known to satisfy every hard constraint."""
        return self.witness is not None


@st.composite
def _vdevice(draw: st.DrawFn) -> VDevice:
    kind = draw(st.sampled_from(KINDS))
    if kind == "cuda" and draw(st.booleans()):
        target = Target("cuda", {"arch": draw(st.sampled_from(["sm_80", "sm_50"]))})
    else:
        target = Target(kind)
    return VDevice(target, draw(st.integers(0, 2)), draw(st.sampled_from(SCOPES)))


def vdevice_lists(min_size: int = 1, max_size: int = 4) -> st.SearchStrategy[list[VDevice]]:
    """1-4 distinct vdevices; kinds repeat with other ids or scopes; some targets carry attributes."""
    return st.lists(_vdevice(), min_size=min_size, max_size=max_size, unique=True)


def tensor_sites(mod: IRModule) -> int:
    """Tensor sites placement sees: leaves of parameters, bindings, returns and inline constants."""
    count = 0
    for func in mod.functions.values():
        for p in func.params:
            count += _leaves(p.struct_info)
        count += _leaves(func.ret_struct_info)
        stack: list[SeqExpr] = [func.body]
        while stack:
            seq = stack.pop()
            for block in seq.blocks:
                for b in block.bindings:
                    count += _leaves(b.var.struct_info)
                    value = b.value
                    if isinstance(value, If):
                        stack.extend((value.true_branch, value.false_branch))
                    elif hasattr(value, "args"):
                        count += sum(1 for a in value.args if isinstance(a, Constant))
    return count


def _leaves(sinfo: StructInfo) -> int:
    return sum(1 for _ in tensor_leaves(sinfo))


def generated_modules(
    *,
    max_functions: int = 3,
    max_bindings: int = 10,
    max_params: int = 3,
    max_sites: int | None = None,
    vdevices: Sequence[VDevice] | None = None,
    annotations: bool = True,
    hints: bool = True,
    allow_conflicts: bool = True,
    control_flow: bool = True,
    tuples: bool = True,
    constants: bool = True,
    symbolic: bool = True,
    dataflow: bool = True,
    calls: bool = True,
) -> st.SearchStrategy[Generated]:
    """Random valid modules with a witness placement; see the module docstring for the options."""
    options = _Options(
        max_functions=max_functions,
        max_bindings=max_bindings,
        max_params=max_params,
        max_sites=max_sites,
        annotations=annotations,
        hints=hints,
        allow_conflicts=allow_conflicts,
        control_flow=control_flow,
        tuples=tuples,
        constants=constants,
        symbolic=symbolic,
        dataflow=dataflow,
        calls=calls,
    )
    vdevs = st.just(list(vdevices)) if vdevices is not None else vdevice_lists()

    @st.composite
    def build(draw: st.DrawFn) -> Generated:
        return _Generator(draw, options, draw(vdevs)).module()

    return build()


def modules(**options) -> st.SearchStrategy[IRModule]:
    """Random valid modules (see the module docstring for the options)."""
    return generated_modules(**options).map(lambda g: g.module)


def small_generated(**options) -> st.SearchStrategy[Generated]:
    """Modules with at most `SMALL_SITES` tensor sites, for brute-force placement."""
    defaults = dict(max_functions=2, max_bindings=4, max_params=2, max_sites=SMALL_SITES, symbolic=False)
    defaults.update(options)
    return generated_modules(**defaults)


def small_modules(**options) -> st.SearchStrategy[IRModule]:
    """`small_generated` without the witness."""
    return small_generated(**options).map(lambda g: g.module)


# -- the generator --------------------------------------------------------------------


@dataclass
class _Options:
    max_functions: int
    max_bindings: int
    max_params: int
    max_sites: int | None
    annotations: bool
    hints: bool
    allow_conflicts: bool
    control_flow: bool
    tuples: bool
    constants: bool
    symbolic: bool
    dataflow: bool
    calls: bool


@dataclass
class _Tensor:
    var: Var
    sinfo: TensorStructInfo
    device: VDevice  # the witness


@dataclass
class _TupleValue:
    var: Var
    fields: list[tuple[TensorStructInfo, VDevice]]


@dataclass
class _Signature:
    name: str
    params: list[tuple[TensorStructInfo, VDevice]]
    has_cond: bool
    ret: list[tuple[TensorStructInfo, VDevice]]  # one entry: a tensor; more: a tuple
    ret_is_tuple: bool


@dataclass
class _Scope:
    """Values visible at the current point of a function body."""

    tensors: list[_Tensor] = field(default_factory=list)
    tuples: list[_TupleValue] = field(default_factory=list)

    def child(self) -> _Scope:
        return _Scope(list(self.tensors), list(self.tuples))

    def drop_dataflow(self) -> None:
        self.tensors = [t for t in self.tensors if not isinstance(t.var, DataflowVar)]
        self.tuples = [t for t in self.tuples if not isinstance(t.var, DataflowVar)]


class _Generator:
    def __init__(self, draw: st.DrawFn, options: _Options, vdevices: list[VDevice]) -> None:
        self.draw = draw
        self.opt = options
        self.vdevices = vdevices
        self.dtype = draw(st.sampled_from(DTYPES))
        self.witness: dict[Key, VDevice] = {}
        self.deviated = False
        self.sites = 0
        self.reserve = 0  # sites kept back for functions still to come
        self.pins = self.hints = self.copies = 0
        self.signatures: list[_Signature] = []
        self.cond_device = draw(st.sampled_from(vdevices))
        self.shapes: list[tuple[int | str, ...]] = []
        # Per function:
        self.fname = ""
        self.counter = 0
        self.cond: _Tensor | None = None
        self.symbolic = False

    # -- small draws ------------------------------------------------------------------
    def flip(self, p_true: float = 0.5) -> bool:
        """A biased coin that hypothesis can still shrink towards False."""
        return self.draw(st.integers(0, 99)) < int(p_true * 100)

    def budget(self, cost: int) -> bool:
        return self.opt.max_sites is None or self.sites + cost + self.reserve <= self.opt.max_sites

    def device(self) -> VDevice:
        return self.draw(st.sampled_from(self.vdevices))

    def name(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def pin(self, witness: VDevice) -> VDevice:
        """The vdevice an annotation names: the witness, or (conflicts allowed) any entry."""
        if self.opt.allow_conflicts and self.flip(0.3):
            chosen = self.device()
            if chosen != witness:
                self.deviated = True
            return chosen
        return witness

    def annotation(self, sinfo: StructInfo, devices: Sequence[VDevice], full: bool = False) -> StructInfo | None:
        """Maybe an annotation for a value of struct info `sinfo` whose leaves sit on `devices`.

        `full` writes shape and dtype too (a parameter's annotation is its whole type);
        otherwise some annotations name only the device and leave the rest to inference.
        """
        if not self.opt.annotations or not self.flip(0.4):
            return None
        self.pins += 1
        leaves = list(devices)
        return self._annotate(sinfo, leaves, full)

    def _annotate(self, sinfo: StructInfo, leaves: list[VDevice], full: bool) -> StructInfo:
        if isinstance(sinfo, TupleStructInfo):
            return TupleStructInfo([self._annotate(f, leaves, full) for f in sinfo.fields])
        assert isinstance(sinfo, TensorStructInfo)
        vdev = self.pin(leaves.pop(0))
        form = 0 if full else self.draw(st.integers(0, 2))
        if form == 0:  # everything written out
            return TensorStructInfo(sinfo.shape, sinfo.dtype, sinfo.ndim, vdev)
        if form == 1:  # only the device: shape and dtype come from inference
            return TensorStructInfo(None, "", -1, vdev)
        return TensorStructInfo(None, sinfo.dtype, sinfo.ndim, vdev)

    def shape(self) -> tuple[int | str, ...]:
        """Mostly one of the module's few shapes, so that functions can call each other."""
        if self.shapes and self.flip(0.7):
            dims: list[int | str] = list(self.pick(self.shapes))
        else:
            rank = self.draw(st.sampled_from((1, 2, 2, 2, 3)))
            dims = [self.draw(st.integers(1, 4)) for _ in range(rank)]
            self.shapes.append(tuple(dims))
        if self.symbolic:
            dims[0] = "n"
        return tuple(dims)

    def record(self, key: str, sinfo: StructInfo, devices: Sequence[VDevice]) -> None:
        for (path, _), dev in zip(tensor_leaves(sinfo), devices, strict=True):
            self.witness[(self.fname, key, path)] = dev

    # -- module and functions -------------------------------------------------------------
    def module(self) -> Generated:
        n_funcs = self.draw(st.integers(1, max(1, self.opt.max_functions)))
        attrs = {"attr": 10} if self.flip(0.2) else {}
        mb = ModuleBuilder(self.vdevices, attrs=attrs)
        # Callees first; each leaves room (one parameter, one return) for main.
        self.reserve = 2
        for i in range(n_funcs - 1):
            if not self.budget(2):
                break
            self.function(mb, f"f{i}", is_main=False)
        self.reserve = 0
        self.function(mb, "main", is_main=True)
        mod = mb.get()
        return Generated(
            module=mod,
            witness=None if self.deviated else self.witness,
            pins=self.pins,
            hints=self.hints,
            copies=self.copies,
        )

    def function(self, mb: ModuleBuilder, fname: str, is_main: bool) -> None:
        self.fname = fname
        self.counter = 0
        self.symbolic = self.opt.symbolic and self.flip(0.25)
        scope = _Scope()
        params: list[tuple[str, StructInfo]] = []
        param_values: list[tuple[TensorStructInfo, VDevice]] = []
        # Keep room for at least one parameter and the return.
        n_params = self.draw(st.integers(1, max(1, self.opt.max_params)))
        while n_params > 1 and not self.budget(n_params + 1):
            n_params -= 1
        for i in range(n_params):
            sinfo = tensor(self.shape(), self.dtype)
            dev = self.device()
            ann = self.annotation(sinfo, [dev], full=True)
            params.append((f"x{i}", ann if ann is not None else sinfo))
            param_values.append((sinfo, dev))
        has_cond = self.opt.control_flow and self.budget(n_params + 2) and self.flip(0.4)
        if has_cond:
            cond_sinfo = tensor((), "bool")
            ann = self.annotation(cond_sinfo, [self.cond_device], full=True)
            params.append(("cond", ann if ann is not None else cond_sinfo))
        private = not is_main and self.flip(0.3)
        fb = mb.function(fname, params, private=private)
        self.sites += n_params + (1 if has_cond else 0)
        for var, (sinfo, dev) in zip(fb.params, param_values, strict=False):
            scope.tensors.append(_Tensor(var, var.struct_info, dev))  # type: ignore[arg-type]
            self.record(var.name, sinfo, [dev])
        self.cond = None
        if has_cond:
            cond_var = fb.params[-1]
            self.cond = _Tensor(cond_var, cond_var.struct_info, self.cond_device)  # type: ignore[arg-type]
            self.record("cond", cond_var.struct_info, [self.cond_device])
        self.sites += 1  # the return

        n_bindings = self.draw(st.integers(0, self.opt.max_bindings))
        while n_bindings > 0:
            size = self.draw(st.integers(1, n_bindings))
            n_bindings -= size
            if self.opt.dataflow and self.flip(0.5):
                with fb.dataflow():
                    self.block(fb, scope, size, in_dataflow=True)
                scope.drop_dataflow()
            else:
                self.block(fb, scope, size, in_dataflow=False)
        self.finish(fb, scope, param_values, has_cond)

    def finish(
        self,
        fb: FunctionBuilder,
        scope: _Scope,
        param_values: list[tuple[TensorStructInfo, VDevice]],
        has_cond: bool,
    ) -> None:
        returns_tuple = self.opt.tuples and len(scope.tensors) > 1 and self.budget(1) and self.flip(0.25)
        if returns_tuple:
            picks = [self.pick(scope.tensors), self.pick(scope.tensors)]
            self.sites += 1
            body: Expr = fb.tuple(*(p.var for p in picks))
        else:
            picks = [self.pick(scope.tensors)]
            body = picks[0].var
        devices = [p.device for p in picks]
        ret = self.annotation(body.struct_info, devices)
        func = fb.finish(body, ret)
        self.record("<ret>", func.ret_struct_info, devices)
        self.signatures.append(
            _Signature(
                fb.name,
                param_values,
                has_cond,
                [(_plain(p.sinfo), p.device) for p in picks],
                returns_tuple,
            )
        )

    def pick(self, values: list):
        return self.draw(st.sampled_from(values))

    # -- bindings --------------------------------------------------------------------------
    def block(self, sb: SeqBuilder, scope: _Scope, size: int, in_dataflow: bool) -> None:
        outputs = 0
        for i in range(size):
            last = i == size - 1
            output = in_dataflow and (self.flip(0.4) or (last and outputs == 0))
            if self.step(sb, scope, in_dataflow, output):
                outputs += output

    def step(self, sb: SeqBuilder, scope: _Scope, in_dataflow: bool, output: bool) -> bool:
        """Emit one binding of a randomly chosen kind; False when none fits the budget."""
        if not self.budget(1):
            return False
        kinds = ["unary", "binary", "alias"]
        if any(len(t.sinfo.shape or ()) >= 2 for t in scope.tensors):
            kinds += [k for k, op in (("matmul", "matmul"), ("permute", "permute_dims")) if has_op(op)]
        if has_op("sum"):
            kinds.append("sum")
        if has_op("reshape") and not self.symbolic:
            kinds.append("reshape")
        if self.opt.constants:
            kinds.append("const")
        if self.opt.hints:
            kinds += ["to_vdevice", "hint"]
        if self.opt.tuples:
            kinds.append("tuple")
            if scope.tuples:
                kinds.append("getitem")
        if self.opt.calls and self.signatures:
            kinds += ["call", "call"]
        if self.opt.control_flow and self.cond is not None and not in_dataflow:
            kinds += ["if", "if"]
        kind = self.draw(st.sampled_from(kinds))
        return getattr(self, f"emit_{kind}")(sb, scope, output)

    def bind(
        self,
        sb: SeqBuilder,
        scope: _Scope,
        value: Expr,
        devices: Sequence[VDevice],
        output: bool,
        prefix: str = "v",
    ) -> Var:
        """Bind `value` (witness `devices`, one per tensor leaf), maybe annotated; add it to the scope."""
        ann = self.annotation(value.struct_info, devices)
        var = sb.emit(value, name=self.name(prefix), annotation=ann, output=output)
        self.sites += len(devices)
        self.record(var.name, var.struct_info, devices)
        if isinstance(var.struct_info, TupleStructInfo):
            fields = [(_plain(s), d) for (_, s), d in zip(tensor_leaves(var.struct_info), devices, strict=True)]
            scope.tuples.append(_TupleValue(var, fields))
        else:
            scope.tensors.append(_Tensor(var, var.struct_info, devices[0]))  # type: ignore[arg-type]
        return var

    def supported(self, op: str, device: VDevice) -> bool:
        return has_op(op) and get_op(op).supports(device.device_type)

    def operand(self, scope: _Scope, x: _Tensor, same_shape: bool = True) -> _Tensor:
        """A second operand for `x`: same shape and dtype, on x's witness device unless a conflict is drawn."""
        fits = [t for t in scope.tensors if t.sinfo.dtype == x.sinfo.dtype and t.sinfo.shape == x.sinfo.shape]
        if self.opt.allow_conflicts and self.flip(0.2):
            y = self.pick(fits)
            if y.device != x.device:
                self.deviated = True
            return y
        return self.pick([t for t in fits if t.device == x.device])

    def emit_unary(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        x = self.pick(scope.tensors)
        ops = [op for op in UNARY if self.supported(op, x.device)]
        if not ops:
            return False
        call = sb.call(self.draw(st.sampled_from(ops)), x.var)
        self.bind(sb, scope, call, [x.device], output)
        return True

    def emit_binary(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        x = self.pick(scope.tensors)
        ops = [op for op in BINARY if self.supported(op, x.device)]
        if not ops:
            return False
        op = self.draw(st.sampled_from(ops))
        if self.opt.constants and self.budget(2) and self.flip(0.25):
            # An inline scalar constant: broadcast against x.
            self.sites += 1
            other: Expr = self.constant(())
        else:
            other = self.operand(scope, x).var
        if self.flip(0.5):
            call = sb.call(op, x.var, other)
        else:
            call = sb.call(op, other, x.var)
        self.bind(sb, scope, call, [x.device], output)
        return True

    def emit_alias(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        x = self.pick(scope.tensors)
        self.bind(sb, scope, x.var, [x.device], output)
        return True

    def emit_matmul(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        pairs = [
            (a, b)
            for a in scope.tensors
            if a.sinfo.shape is not None and len(a.sinfo.shape) == 2 and self.supported("matmul", a.device)
            for b in scope.tensors
            if b.sinfo.shape is not None
            and len(b.sinfo.shape) == 2
            and b.sinfo.shape[0] == a.sinfo.shape[1]
            and b.sinfo.dtype == a.sinfo.dtype
            and b.device == a.device
        ]
        if not pairs:
            return False
        a, b = self.pick(pairs)
        self.bind(sb, scope, sb.call("matmul", a.var, b.var), [a.device], output)
        return True

    def emit_permute(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        xs = [t for t in scope.tensors if len(t.sinfo.shape or ()) >= 2 and self.supported("permute_dims", t.device)]
        if not xs:
            return False
        x = self.pick(xs)
        rank = len(x.sinfo.shape)  # type: ignore[arg-type]
        axes = None if self.flip(0.3) else self.draw(st.permutations(list(range(rank))))
        self.bind(sb, scope, sb.call("permute_dims", x.var, axes=axes), [x.device], output)
        return True

    def emit_sum(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        xs = [t for t in scope.tensors if t.sinfo.shape and self.supported("sum", t.device)]
        if not xs:
            return False
        x = self.pick(xs)
        rank = len(x.sinfo.shape)  # type: ignore[arg-type]
        axis = self.draw(st.sampled_from([None, [rank - 1], [0]]))
        keepdims = self.flip(0.3)
        self.bind(sb, scope, sb.call("sum", x.var, axis=axis, keepdims=keepdims), [x.device], output)
        return True

    def emit_reshape(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        xs = [t for t in scope.tensors if t.sinfo.static_shape is not None and self.supported("reshape", t.device)]
        if not xs:
            return False
        x = self.pick(xs)
        shape = x.sinfo.static_shape
        size = int(np.prod(shape))
        new = self.draw(st.sampled_from([(size,), (1, size), tuple(reversed(shape))]))  # type: ignore[arg-type]
        self.bind(sb, scope, sb.call("reshape", x.var, shape=new), [x.device], output)
        return True

    def constant(self, shape: tuple[int, ...]) -> Constant:
        width = {"float16": 16, "float32": 32}.get(self.dtype, 64)
        count = int(np.prod(shape)) if shape else 1
        values = self.draw(
            st.lists(
                st.floats(-100, 100, allow_nan=False, allow_infinity=False, width=width),
                min_size=count,
                max_size=count,
            )
        )
        data = np.array(values, dtype=self.dtype).reshape(shape)
        return Constant(data, tensor(shape, self.dtype))

    def emit_const(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        like = self.pick(scope.tensors)
        shape = like.sinfo.static_shape or ()
        # A bound constant is free: any device is a valid witness.
        self.bind(sb, scope, self.constant(shape), [self.device()], output, prefix="c")
        return True

    def emit_to_vdevice(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        x = self.pick(scope.tensors)
        dst = self.device()
        self.copies += 1
        self.bind(sb, scope, sb.call("to_vdevice", x.var, dst_vdevice=dst), [dst], output)
        return True

    def emit_hint(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        x = self.pick(scope.tensors)
        wanted = self.device()
        spec = DeviceSpec(wanted.device_type, wanted.vdevice_id)
        scope_name = wanted.memory_scope
        # The hint names a physical device; it means the first entry on it with that scope.
        resolved = lookup_device(self.vdevices, spec, scope_name)
        self.hints += 1
        call = sb.call("hint_on_device", x.var, device=spec, memory_scope=scope_name)
        self.bind(sb, scope, call, [resolved], output)
        return True

    def emit_tuple(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        if not self.budget(2):
            return False
        fields = [self.pick(scope.tensors) for _ in range(self.draw(st.integers(1, 2)))]
        self.bind(sb, scope, sb.tuple(*(f.var for f in fields)), [f.device for f in fields], output, prefix="t")
        return True

    def emit_getitem(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        tup = self.pick(scope.tuples)
        index = self.draw(st.integers(0, len(tup.fields) - 1))
        self.bind(sb, scope, sb.get_item(tup.var, index), [tup.fields[index][1]], output)
        return True

    def emit_call(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        sig = self.pick(self.signatures)
        if sig.has_cond and self.cond is None:
            return False
        copies = 0
        plan: list[tuple[_Tensor, VDevice | None]] = []  # (value, to_vdevice target or None)
        for sinfo, dev in sig.params:
            fits = [t for t in scope.tensors if _plain(t.sinfo) == sinfo]
            if not fits:
                return False
            on_dev = [t for t in fits if t.device == dev]
            if on_dev and not (self.opt.allow_conflicts and self.flip(0.2)):
                plan.append((self.pick(on_dev), None))
                continue
            chosen = self.pick(fits)
            if chosen.device == dev:
                plan.append((chosen, None))
            elif self.opt.hints and not self.flip(0.2):
                plan.append((chosen, dev))
                copies += 1
            elif self.opt.allow_conflicts:
                self.deviated = True
                plan.append((chosen, None))
            else:
                return False
        if not self.budget(len(sig.ret) + copies):
            return False
        args: list[Expr] = []
        for value, target in plan:
            if target is None:
                args.append(value.var)
            else:
                self.copies += 1
                moved = self.bind(sb, scope, sb.call("to_vdevice", value.var, dst_vdevice=target), [target], False)
                args.append(moved)
        if sig.has_cond:
            assert self.cond is not None
            args.append(self.cond.var)
        self.bind(sb, scope, sb.call_function(sig.name, *args), [d for _, d in sig.ret], output)
        return True

    def emit_if(self, sb: SeqBuilder, scope: _Scope, output: bool) -> bool:
        assert self.cond is not None
        x = self.pick(scope.tensors)
        branches = []
        self.reserve += 1  # the If's own result, bound after the branches
        for _ in range(2):
            bb = sb.branch()
            inner = scope.child()
            value = x
            for _ in range(self.draw(st.integers(0, 2))):
                if not self.budget(1):
                    break
                if self.opt.hints and self.budget(2) and self.flip(0.3):
                    # Leave x's device and come back: the branch result must be on x's device.
                    away = self.device()
                    self.copies += 2
                    there = self.bind(bb, inner, bb.call("to_vdevice", value.var, dst_vdevice=away), [away], False, "b")
                    back = bb.call("to_vdevice", there, dst_vdevice=x.device)
                    self.bind(bb, inner, back, [x.device], False, "b")
                else:
                    ops = [op for op in UNARY if self.supported(op, x.device)]
                    if not ops:
                        break
                    self.bind(bb, inner, bb.call(self.draw(st.sampled_from(ops)), value.var), [x.device], False, "b")
                value = inner.tensors[-1]
            branches.append(bb.seq(value.var))
        self.reserve -= 1
        true_branch, false_branch = branches
        node = If(self.cond.var, true_branch, false_branch, join(true_branch.struct_info, false_branch.struct_info))
        self.bind(sb, scope, node, [x.device], output, prefix="r")
        return True


def _plain(sinfo: TensorStructInfo) -> TensorStructInfo:
    """Shape and dtype only: what a call's argument must match (the device is the witness's business)."""
    return TensorStructInfo(sinfo.shape, sinfo.dtype, sinfo.ndim)
