"""Every op call of a module as the cost models see it: one `OpInfo` each, in program order.

`describe_ops` walks every function, If branches included, and every
expression inside a binding's value, so that a call nested in another call's
arguments, in a tuple, or written as a function's or branch's result is
described too.  A call's arguments are described before the call (the order
they are evaluated in).  Calls of module functions (``cls.f(x)``) are not ops:
their arguments are walked, the callee is described as its own function.

`OpInfo.name` is the bound variable for a call that is a binding's whole
value, and ``<R.op>`` otherwise, as placement labels such an anonymous site;
`OpInfo.span` is the binding's span, or the call's own for an unbound call.
The walk keeps its own stack: nesting depth costs no Python recursion.
"""

from __future__ import annotations

from vdplace.ir.expr import Binding, Call, Expr, GlobalVar, If, SeqExpr, Tuple, TupleGetItem
from vdplace.ir.module import IRModule
from vdplace.ir.sizes import Sizes
from vdplace.ir.span import Span
from vdplace.ir.struct_info import StructInfo

from .model import OpInfo


def describe_ops(mod: IRModule, sizes: Sizes | None = None) -> list[OpInfo]:
    """One `OpInfo` per op call of `mod` (module docstring), function by function in the module's order; their
    symbolic dims sized by `sizes` (default: `Sizes(mod)`, the module's bounds)."""
    found: list[OpInfo] = []
    sizes = Sizes(mod) if sizes is None else sizes
    for name, func in mod.functions.items():
        _describe(name, func.body, found, sizes)
    return found


def op_info(
    function: str,
    name: str,
    call: Call,
    span: Span | None = None,
    result: StructInfo | None = None,
    sizes: Sizes | None = None,
) -> OpInfo:
    """The `OpInfo` of one call of a registered op, in `function`, named `name` (a variable or ``<R.op>``).

    `result` is the struct info of what the call makes (default: the call's own).  A binding's call
    is given its variable's: placement writes that one into the placed call, so an annotation more
    precise than the inferred struct info (a shape the inference left unknown) counts the same work
    before and after placement.
    """
    op = call.op
    if isinstance(op, GlobalVar):
        raise ValueError(f"{function}:{name} calls the module function {op.name!r}, not an op")
    args = [arg.struct_info for arg in call.args]
    out = call.struct_info if result is None else result
    return OpInfo(function, name, op.name, args, out, call.attrs, span or call.span, op, sizes)


# Work items: ("expr", node, name, binding) walks a node; ("emit", call, name, binding) describes a call
# whose arguments are already walked.  `name` and `binding` are set for a binding's whole value only; the
# binding's span is read when its call is described (a span not built yet is built then, and only then).
_Item = tuple[str, Expr, "str | None", "Binding | None"]


def _describe(function: str, body: SeqExpr, found: list[OpInfo], sizes: Sizes) -> None:
    stack: list[_Item] = [("expr", body, None, None)]
    while stack:
        what, node, name, binding = stack.pop()
        if what == "emit":
            assert isinstance(node, Call)
            span = result = None
            if binding is not None:
                span, result = binding.span, binding.var.struct_info
            found.append(op_info(function, name or f"<R.{node.op.name}>", node, span, result, sizes))
        elif isinstance(node, SeqExpr):
            items: list[_Item] = [("expr", b.value, b.var.name, b) for block in node.blocks for b in block.bindings]
            items.append(("expr", node.body, None, None))
            stack.extend(reversed(items))
        else:
            stack.extend(reversed(_children(node, name, binding)))


def _children(node: Expr, name: str | None, binding: Binding | None) -> list[_Item]:
    """What to walk for `node`, in evaluation order; a call of an op ends with its own "emit"."""
    if isinstance(node, Call):
        args: list[_Item] = [("expr", arg, None, None) for arg in node.args]
        if isinstance(node.op, GlobalVar):
            return args
        return [*args, ("emit", node, name, binding)]
    if isinstance(node, Tuple):
        return [("expr", field, None, None) for field in node.fields]
    if isinstance(node, TupleGetItem):
        return [("expr", node.tuple_value, None, None)]
    if isinstance(node, If):
        return [("expr", part, None, None) for part in (node.cond, node.true_branch, node.false_branch)]
    return []
