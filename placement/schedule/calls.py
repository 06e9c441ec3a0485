"""Calls of module functions in the time objective's task graph: each call scheduled as its callee's body.

The time objective schedules one run of the entry function (`graph`).  A
call ``r = f(a, ...)`` of a module function runs f's body at that call site:
every op call of f is an op of the task graph once per *instance* (a call
site, reached through a chain of calls from the entry), and every value f
makes is a value per instance.  What is decided stays what the placed
module can express: f is placed once (the time objective does not
specialize), so every instance of an op or value of f is on f's unit, the
one vdevice variable all its call sites share.

* **Arguments.**  A tensor argument written as a variable is *passed*:
  the parameter's instance is a value of kind ``PARAM`` whose
  `TaskGraph.val_source` is the argument's value.  It is on the parameter's
  vdevice once the argument is there (the argument's home, or its copy
  there: the cost problem lists the parameter's unit among the argument's
  consumers, so the copy is the one the placed module writes before the
  call); it holds no bytes of its own there (a view of the argument's stay
  there, so the argument lives until the call returns, `liveness.call_ends`:
  the runtime's caller holds what it passes until then; a weight passed is
  loaded, read by the callee or not); a
  reader of the parameter elsewhere copies it from the parameter's vdevice,
  as the placed callee does.  Any other argument (a tuple, a constant) is
  tied to its parameter, one unit: the parameter names the argument's
  values.
* **Results.**  The call's variable names the values the callee returns
  (tied to them: one unit), so they live in the caller as long as it reads
  them.
* **Constants** in a callee are one tensor for the whole run: the instance
  of a constant in a second call site is a view of the first's (no bytes of
  its own at home); its copies are per call, as the placed callee makes
  them.
* **Not scheduled**, a `PlacementError` located at the call: recursion (a
  call of a function that is running already, directly or not), and a call
  whose callee is not a function of the module.  A function the entry never
  calls is refused where it is defined (it would be placed without being
  scheduled).

An `Instance` names a run of a function: the entry's is ``()``; a call's is
the chain of call bindings from the entry, ``("main:p",)``,
``("main:p", "scale:q")``.  Events carry it (`Event.call`), which tells two
call sites of one callee apart.
"""

from __future__ import annotations

from vdplace.ir.expr import Binding, Call, Function, GlobalVar, If
from vdplace.ir.module import IRModule
from vdplace.placement.errors import PlacementError
from vdplace.placement.extract.extraction import Tree


class Instance:
    """One run of `function` in the schedule: `call` is the chain of call bindings from the entry (``()`` for
    the entry); `site_root` and `root_value` map its sites to their roots and its root sites to value ids."""

    __slots__ = ("function", "call", "site_root", "root_value")

    def __init__(self, function: str, call: tuple[str, ...]) -> None:
        self.function = function
        self.call = call
        self.site_root: dict[int, int] = {}
        self.root_value: dict[int, int] = {}

    def __repr__(self) -> str:
        return f"Instance({self.function}, call={self.call})"


def called_from(mod: IRModule, entry: str) -> set[str]:
    """The functions that the entry function calls, directly or through other calls (the entry included)."""
    seen = {entry}
    stack = [entry]
    while stack:
        for callee in _callees(mod.functions[stack.pop()]):
            if callee in mod.functions and callee not in seen:
                seen.add(callee)
                stack.append(callee)
    return seen


def _callees(func: Function) -> list[str]:
    """The functions `func` calls, in its bindings and the branches of its ``If`` s."""
    out = []
    seqs = [func.body]
    while seqs:
        for block in seqs.pop().blocks:
            for binding in block.bindings:
                value = binding.value
                if type(value) is Call and type(value.op) is GlobalVar:
                    out.append(value.op.name)
                elif type(value) is If:
                    seqs += [value.true_branch, value.false_branch]
    return out


def refuse_uncalled(mod: IRModule, entry: str) -> None:
    """A `PlacementError` located at the first function of `mod` that the entry never calls."""
    reached = called_from(mod, entry)
    for name, func in mod.functions.items():
        if name not in reached:
            raise PlacementError(
                f"the time objective schedules the run of {entry!r}, which never calls {name!r}: "
                "remove it, call it, or place with the cost objective",
                func.span,
            )


def check_call(mod: IRModule, binding: Binding, callee: str, running: list[str]) -> Function:
    """The callee of the call `binding`, or a `PlacementError` located at the call (module docstring)."""
    func = mod.functions.get(callee)
    if func is None:
        raise PlacementError(
            f"the time objective schedules calls of module functions: {binding.var.name!r} calls {callee!r}, "
            "which is not one",
            binding.span,
        )
    if callee in running:
        chain = " -> ".join([*running, callee])
        raise PlacementError(
            f"the time objective does not schedule recursion: {binding.var.name!r} calls {callee!r}, which is "
            f"running already ({chain}); place this module with the cost objective",
            binding.span,
        )
    return func


def pairs(a: Tree, b: Tree) -> list[tuple[int, int]]:
    """The leaves of trees `a` and `b` at the same paths, as ``(leaf of a, leaf of b)``."""
    if type(a) is int and type(b) is int:
        return [(a, b)]
    if type(a) is tuple and type(b) is tuple:
        return [p for x, y in zip(a, b, strict=False) for p in pairs(x, y)]
    return []
