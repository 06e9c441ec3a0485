"""Proof that a reported conflict is a minimal unsatisfiable set.

Two independent checks, both exact for pins, domains and equalities:

* `z3_minimal`: the set itself is unsatisfiable and every one-deletion is
  satisfiable, decided by Z3 with one tracking literal per constraint
  (``Implies(p_i, c_i)`` and ``check(*assumptions)``: with Z3's
  ``assert_and_track`` every tracked literal is assumed on every check, so
  subsets could not be checked).
  One variable per site of the set, so it is used on sets up to a size bound.
* `structurally_minimal`: linear time, for any size.  The edges form a tree
  over the constrained sites whose leaves all carry a constraint, the unary
  constraints have no common device and every proper subset of them has one.
  Dropping a unary constraint then leaves a satisfiable set, and dropping an
  edge splits the tree into two parts that each contain a leaf, hence each
  miss a constraint, hence are each satisfiable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import z3

from vdplace.placement.model.constraints import Domain, Equal, Pin

Constraint = Pin | Equal | Domain


def _encode(constraint: Constraint, var: Callable[[int], z3.ArithRef], ctx: z3.Context) -> z3.BoolRef:
    if isinstance(constraint, Pin):
        return var(constraint.site) == constraint.device
    if isinstance(constraint, Domain):
        if not constraint.allowed:
            return z3.BoolVal(False, ctx)
        v = var(constraint.site)
        return z3.Or([v == d for d in sorted(constraint.allowed)] + [z3.BoolVal(False, ctx)])
    return var(constraint.a) == var(constraint.b)


def z3_minimal(constraints: Sequence[Constraint], num_devices: int) -> bool:
    """True when `constraints` are unsatisfiable together and each one-deletion is satisfiable."""
    ctx = z3.Context()
    solver = z3.Solver(ctx=ctx)
    variables: dict[int, z3.ArithRef] = {}

    def var(site: int) -> z3.ArithRef:
        v = variables.get(site)
        if v is None:
            v = variables[site] = z3.Int(f"s{site}", ctx)
            solver.add(v >= 0, v < num_devices)
        return v

    literals = []
    for i, c in enumerate(constraints):
        p = z3.Bool(f"p{i}", ctx)
        solver.add(z3.Implies(p, _encode(c, var, ctx)))
        literals.append(p)
    if solver.check(*literals) != z3.unsat:
        return False
    for i in range(len(literals)):
        if solver.check(*(literals[:i] + literals[i + 1 :])) != z3.sat:
            return False
    return True


def structurally_minimal(unary: Sequence[Pin | Domain], edges: Sequence[Equal], num_devices: int) -> bool:
    """The linear-time certificate described in the module docstring."""
    if not unary:
        return False
    allowed = [frozenset((u.device,)) if isinstance(u, Pin) else frozenset(u.allowed) for u in unary]
    universe = frozenset(range(num_devices))

    def common(skip: int) -> frozenset[int]:
        out = universe
        for i, a in enumerate(allowed):
            if i != skip:
                out &= a
        return out

    if common(-1) or (len(allowed) > 1 and any(not common(i) for i in range(len(allowed)))):
        return False
    terminals = {u.site for u in unary}
    nodes = set(terminals)
    degree: dict[int, int] = {}
    adj: dict[int, list[int]] = {}
    for eq in edges:
        if eq.a == eq.b:
            return False
        nodes.update((eq.a, eq.b))
        degree[eq.a] = degree.get(eq.a, 0) + 1
        degree[eq.b] = degree.get(eq.b, 0) + 1
        adj.setdefault(eq.a, []).append(eq.b)
        adj.setdefault(eq.b, []).append(eq.a)
    if len(edges) != len(nodes) - 1:
        return False
    start = next(iter(terminals))
    seen = {start}
    stack = [start]
    while stack:
        for v in adj.get(stack.pop(), ()):
            if v not in seen:
                seen.add(v)
                stack.append(v)
    if seen != nodes:
        return False
    return all(s in terminals for s in nodes if degree.get(s, 0) <= 1)
