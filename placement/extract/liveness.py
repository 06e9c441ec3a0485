"""Which variables a function's program reads other than through a copy op: what keeps copies alive.

A *real read* of a variable is any use of it except two: as the input of a
copy op bound as a binding's whole value (a ``hint_on_device`` or
``to_vdevice`` that `copies.CopyPlanner` planned), and as the whole value of
an alias binding ``z = y``, which only names the value again.  Aliases are
followed: ``y``'s *group* is ``y`` and every alias of it, and a group is read
when one of its members is.  An If's condition, a tuple's field, a call's
argument, a returned value: all are real reads.

`copies.CopyPlanner.finish` reads these facts to decide, from the program
alone, which copy op reads which replica and which copy ops nothing needs.
Only the variables it asks about (copy ops' results and inputs) and their
aliases are tracked, so the walk is one membership test per argument.
"""

from __future__ import annotations

from collections.abc import Container

from vdplace.ir.expr import Call, DataflowVar, Expr, If, SeqExpr, Tuple, TupleGetItem, Var


class Reads:
    """A function's real reads, by alias group: `root(v)` names `v`'s group, `members[root]` lists it."""

    __slots__ = ("alias_of", "read", "members")

    def __init__(self) -> None:
        self.alias_of: dict[Var, Var] = {}  # z -> y for every binding ``z = y``
        self.read: set[Var] = set()  # group roots with a real read
        self.members: dict[Var, list[Var]] = {}

    def root(self, var: Var) -> Var:
        alias_of = self.alias_of
        while var in alias_of:
            var = alias_of[var]
        return var

    def is_read(self, var: Var) -> bool:
        """Whether `var`'s group has a real read."""
        return self.root(var) in self.read


def function_reads(body: SeqExpr, copy_calls: Container[int], tracked: set[Var]) -> Reads:
    """The real reads of the `tracked` variables of a function `body` (and of their aliases); `copy_calls` holds
    ``id(call)`` of its planned copy ops.  A variable not tracked, nor an alias of one, counts as unread."""
    out = Reads()
    interesting, used = set(tracked), set[Var]()
    _seq(body, copy_calls, out.alias_of, interesting, used)
    out.read = {out.root(var) for var in used}
    for var in out.alias_of:
        if var in interesting:
            out.members.setdefault(out.root(var), []).append(var)
    return out


def _seq(
    seq: SeqExpr, copy_calls: Container[int], alias_of: dict[Var, Var], interesting: set[Var], used: set[Var]
) -> None:
    for block in seq.blocks:
        for binding in block.bindings:
            value = binding.value
            if type(value) is Call:
                if id(value) in copy_calls and isinstance(value.args[0], Var):
                    continue
                for arg in value.args:
                    if type(arg) is Var or type(arg) is DataflowVar:
                        if arg in interesting:
                            used.add(arg)
                    else:
                        _expr(arg, interesting, used)
            elif type(value) is Var or type(value) is DataflowVar:
                alias_of[binding.var] = value
                if value in interesting:
                    interesting.add(binding.var)
            elif type(value) is If:
                _expr(value.cond, interesting, used)
                _seq(value.true_branch, copy_calls, alias_of, interesting, used)
                _seq(value.false_branch, copy_calls, alias_of, interesting, used)
            else:
                _expr(value, interesting, used)
    _expr(seq.body, interesting, used)


def _expr(e: Expr, interesting: set[Var], used: set[Var]) -> None:
    """Every variable of `interesting` that `e` uses, into `used` (a nested sequence's too)."""
    pending = [e]
    while pending:
        e = pending.pop()
        if isinstance(e, Var):
            if e in interesting:
                used.add(e)
        elif type(e) is Call:
            pending.extend(e.args)
        elif type(e) is Tuple:
            pending.extend(e.fields)
        elif type(e) is TupleGetItem:
            pending.append(e.tuple_value)
        elif type(e) is If:
            pending += (e.cond, e.true_branch, e.false_branch)
        elif type(e) is SeqExpr:
            pending += [b.value for block in e.blocks for b in block.bindings]
            pending.append(e.body)
