"""Device-annotated variants of a converted model, built with TVM's own API so the printed text is TVM's.

* `hinted`: the module gains two vdevices (``llvm`` then ``cuda``) and two
  ``R.hint_on_device`` calls, inserted the way a TVM user would write
  ``lv = R.hint_on_device(lv, tvm.cuda(0))``: an activation (a float tensor
  computed from the inputs) about a third of the way through ``main`` is
  hinted onto the GPU, one about two thirds of the way through back onto the
  CPU, so the middle of the model runs on the GPU.  The first placement near
  those points that TVM's RealizeVDevice turns into a module where no op
  takes tensors from both devices is taken; failing all pairs, one GPU hint.
* `conflict`: the same two vdevices, and two parameters of ``main`` annotated
  on different ones (the first on ``llvm``, the second on ``cuda``) where they
  meet, through one-variable ops (transposes, reshapes, casts), in one op; so
  no placement exists.  The first such pair TVM accepts is taken.

Both keep every constant object of the input, so the metadata indices, and the
``params.npz`` of the input, stay valid (`make_corpus` checks it).
"""

from __future__ import annotations

import tvm
from tvm import relax
from tvm.relax import VDevice

DEVICE_OPS = {"relax.to_vdevice", "relax.hint_on_device"}


def vdevices() -> list[VDevice]:
    """The two vdevices the variants declare: ``llvm:0`` (the host) and ``cuda:0``."""
    return [VDevice(tvm.target.Target("llvm"), 0, "global"), VDevice(tvm.target.Target("cuda"), 0, "global")]


def _with_main(mod: tvm.IRModule, main: relax.Function, declared: list[VDevice]) -> tvm.IRModule:
    """A new module: `mod`'s functions with ``main`` replaced, declaring the vdevices `declared`.

    The annotations in `main` must be these very objects: the printer finds a
    vdevice's index in the declaration by identity (another, equal object prints
    as index -1).
    """
    functions = {gv: mod[gv] for gv in mod.get_global_vars()}
    functions[mod.get_global_var("main")] = main
    return tvm.IRModule(functions, attrs=mod.attrs, global_infos={"vdevice": declared})


def _call_bindings(func: relax.Function) -> list[relax.VarBinding]:
    """The bindings of `func` whose value is a call, in order."""
    return [b for block in func.body.blocks for b in block.bindings if isinstance(b.value, relax.Call)]


@relax.expr_functor.mutator
class _Hinter(relax.PyExprMutator):
    """Re-emits every binding; after the ones named in `hints`, adds ``hint_on_device`` and uses its result."""

    def __init__(self, hints: dict[str, tvm.runtime.Device]) -> None:
        super().__init__()
        self.hints = hints

    def visit_var_binding_(self, binding: relax.VarBinding) -> None:
        super().visit_var_binding_(binding)
        device = self.hints.get(binding.var.name)
        if device is not None:
            hinted = self.builder_.emit(relax.op.hint_on_device(binding.var, device), binding.var.name)
            self.set_var_remap(binding.var, hinted)


def _near(count: int, at: int) -> list[int]:
    """0..count-1 ordered by distance from `at`, the earlier first on a tie."""
    return sorted(range(count), key=lambda i: (abs(i - at), i))


def _activations(func: relax.Function) -> list[str]:
    """Names of `func`'s float tensor-valued call bindings that depend on a user input, in order (last excluded)."""
    num_input = int(func.attrs["num_input"]) if func.attrs and "num_input" in func.attrs else len(func.params)
    live = list(func.params[:num_input])
    names = []
    for block in func.body.blocks:
        for binding in block.bindings:
            if not any(used.same_as(var) for used in relax.analysis.free_vars(binding.value) for var in live):
                continue
            live.append(binding.var)
            ty = binding.var.ty
            if isinstance(binding.value, relax.Call) and isinstance(ty, relax.TensorType) and "float" in str(ty.dtype):
                names.append(binding.var.name)
    return names[:-1]


def hint_candidates(func: relax.Function, tries: int = 400) -> list[dict[str, tvm.runtime.Device]]:
    """Hint placements to try, best first: {binding name: device}.

    First pairs (a GPU hint, then a later CPU hint) nearest to a third and two
    thirds of the way through `_activations`, then a lone GPU hint; at most
    `tries` pairs.
    """
    names = _activations(func)
    count = len(names)
    pairs = [(i, j) for i in _near(count, count // 3) for j in _near(count, 2 * count // 3) if j > i]
    out = [{names[i]: tvm.cuda(0), names[j]: tvm.cpu(0)} for i, j in pairs[:tries]]
    return out + [{names[i]: tvm.cuda(0)} for i in _near(count, count // 3)]


def _devices_agree(realized: tvm.IRModule) -> bool:
    """Whether, in a module RealizeVDevice returned, each call's tensor operands and result share one vdevice.

    RealizeVDevice itself lets an op take operands from two devices (only some
    ops' inference checks it); a module where that happens cannot be built.
    """
    for binding in (b for block in realized["main"].body.blocks for b in block.bindings):
        value = binding.value
        if not isinstance(value, relax.Call) or str(value.op.name) in DEVICE_OPS:
            continue
        operands = [binding.var, *value.args]
        operands += [f for a in value.args if isinstance(a, relax.Tuple) for f in a.fields]
        found = {str(v.ty.vdevice) for v in operands if isinstance(v.ty, relax.TensorType) and v.ty.vdevice}
        if len(found) > 1:
            return False
    return True


def hinted(mod: tvm.IRModule) -> tvm.IRModule:
    """`mod` with the first of `hint_candidates` that TVM's RealizeVDevice turns into a consistent module."""
    for hints in hint_candidates(mod["main"]):
        out = _with_main(mod, _Hinter(hints).visit_expr(mod["main"]), vdevices())
        try:
            realized = relax.transform.RealizeVDevice()(out)
        except Exception:  # TVM rejects devices meeting in one op: try the next placement
            continue
        if _devices_agree(realized):
            return out
    raise AssertionError("RealizeVDevice makes no hint placement tried consistent")


@relax.expr_functor.mutator
class _Remapper(relax.PyExprMutator):
    """An ExprMutator that only applies the variable remapping it is given (`set_var_remap`)."""


def conflict_pairs(func: relax.Function) -> list[tuple[int, int]]:
    """Pairs of parameter indices of `func` that meet in one call through one-variable calls, in call order."""
    origin: list[tuple[relax.Var, int]] = [(p, i) for i, p in enumerate(func.params)]
    pairs: list[tuple[int, int]] = []

    def source(arg: relax.Expr) -> int | None:
        """The parameter `arg` is, or is a chain of one-variable calls from."""
        return next((i for var, i in origin if arg.same_as(var)), None)

    for binding in _call_bindings(func):
        args = list(binding.value.args)
        found = sorted({s for s in map(source, args) if s is not None})
        pairs += [(a, b) for a in found for b in found if a < b and (a, b) not in pairs]
        if len([a for a in args if isinstance(a, relax.Var)]) == 1 and found:
            origin.append((binding.var, found[0]))
    return pairs


def _annotated(mod: tvm.IRModule, first: int, second: int) -> tvm.IRModule:
    """`mod` with parameter `first` of ``main`` annotated ``llvm`` and `second` ``cuda``."""
    func = mod["main"]
    declared = vdevices()
    params = list(func.params)
    mutator = _Remapper()
    for i, vdevice in ((first, declared[0]), (second, declared[1])):
        ty = params[i].ty
        params[i] = relax.Var(params[i].name, relax.TensorType(ty.shape, ty.dtype, vdevice))
        mutator.set_var_remap(func.params[i], params[i])
    body = mutator.visit_with_new_scope(func.body)
    main = relax.Function(params, body, func.ret_ty, func.is_pure, func.attrs)
    return _with_main(mod, main, declared)


def conflict(mod: tvm.IRModule) -> tvm.IRModule | None:
    """`mod` with the first of `conflict_pairs` TVM accepts annotated ``llvm`` and ``cuda``; None if none is.

    TVM itself refuses some such modules (binary ops and convolutions check
    that their operands share a vdevice), so the pairs are tried in order.
    """
    for first, second in conflict_pairs(mod["main"]):
        try:
            return _annotated(mod, first, second)
        except Exception:  # TVM's inference rejects this pair: try the next
            continue
    return None
