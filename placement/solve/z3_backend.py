"""The Z3 backend: weighted MaxSMT for a `Problem` (the same name decides `PlanProblem`s: `placement.cost.backends`).

One finite-domain variable per class to decide; hard facts as membership
constraints; every soft edge as ``Optimize.add_soft`` (default maxres engine,
``random_seed`` 0, classes and edges in ascending order, so the same problem
always gives the same model).  Edges from a variable to fixed classes are
summed per (variable, device): one soft constraint per device instead of one
per edge, with the same objective.  The lexicographic objective is one Z3
objective per level (``add_soft(..., id=level)``, added in the objective's
order, which Z3 optimizes lexicographically): bytes, hints apart, inputs
off the host, copy ops apart (the last only where two devices share a
physical device, or an edge moves no bytes: elsewhere a copy op apart
always moves bytes).

Encodings of a device variable (`Z3Backend(encoding=...)`): ``"bv"``,
bit-vectors of ceil(log2 n) bits with an upper bound when n is not a power of
two, or ``"enum"``, a Z3 ``EnumSort`` with one constant per device.  Measured
with ``benchmarks/bench_place.py --encodings`` (propagation off, so Z3
decides every constrained class; 2 vdevices; solve phase, seconds):

    family (bindings)              classes  soft   bit-vector  EnumSort
    transformer (103k)               1044   2084      0.213      0.194
    transformer_dense (37.5k)        2502   5000      1.728      1.634
    transformer_dense (125k)         8335  16666     11.452      7.914

Below a few hundred classes the two are within noise (about 10-40 ms, most
of it creating the context).  EnumSort was never slower beyond that, so it
is the default; with propagation on, the benchmark families leave Z3 at most
2 variables and the choice does not show.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Hashable, Mapping, Sequence

import z3

from vdplace.placement.solve.backend import BackendResult, Problem, SoftEdge, register_backend
from vdplace.placement.solve.deadline import interrupt_after

ENCODINGS = ("bv", "enum")
DEFAULT_ENCODING = "enum"


class Z3Backend:
    """Z3 MaxSMT; `encoding` is ``"enum"`` (an EnumSort, the default) or ``"bv"`` (bit-vectors)."""

    def __init__(self, encoding: str = DEFAULT_ENCODING) -> None:
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown encoding {encoding!r}; use one of {', '.join(ENCODINGS)}")
        self.encoding = encoding
        self.name = f"z3-{encoding}"

    def __repr__(self) -> str:
        return f"Z3Backend(encoding={self.encoding!r})"

    def solve(self, problem: Problem) -> BackendResult:
        return _optimize(problem, self.encoding)


class _Encoder:
    """Finite-domain variables over device indices, as bit-vectors or an EnumSort."""

    def __init__(self, n: int, encoding: str, ctx: z3.Context) -> None:
        self.n = n
        self.ctx = ctx
        self.encoding = encoding
        if encoding == "enum":
            self.sort, self.values = z3.EnumSort("VDev", [f"d{i}" for i in range(n)], ctx=ctx)
        else:
            self.width = max(1, (n - 1).bit_length())
            self.sort = z3.BitVecSort(self.width, ctx)
            self.values = [z3.BitVecVal(i, self.width, ctx) for i in range(n)]

    def var(self, name: str) -> z3.ExprRef:
        return z3.Const(name, self.sort)

    def range_constraint(self, v: z3.ExprRef) -> z3.BoolRef | None:
        """Keep a bit-vector inside 0..n-1 (an EnumSort needs nothing)."""
        if self.encoding == "bv" and self.n != 1 << self.width:
            return z3.ULE(v, self.values[self.n - 1])
        return None

    def member(self, v: z3.ExprRef, devs: Collection[int]) -> z3.BoolRef:
        ordered = sorted(devs)
        if not ordered:
            return z3.BoolVal(False, self.ctx)
        if len(ordered) == 1:
            return v == self.values[ordered[0]]
        return z3.Or([v == self.values[d] for d in ordered])

    def value(self, model: z3.ModelRef, v: z3.ExprRef) -> int:
        got = model.eval(v, model_completion=True)
        if self.encoding == "enum":
            return int(str(got)[1:])  # constants are named d0, d1, ...
        return got.as_long()


# -- optimization ---------------------------------------------------------------------


def _optimize(problem: Problem, encoding: str) -> BackendResult:
    """MaxSMT over the problem's classes; the model's devices when it satisfies every fact."""
    ctx = z3.Context()
    enc = _Encoder(max(1, problem.num_devices), encoding, ctx)
    opt = z3.Optimize(ctx=ctx)
    try:
        opt.set("random_seed", 0)
    except z3.Z3Exception:  # Z3 before 5.1 takes no seed for Optimize; its own is fixed
        pass
    if problem.timeout_ms is not None:
        opt.set("timeout", int(problem.timeout_ms))
    variables = {c: enc.var(f"c{c}") for c in problem.classes}
    for c, v in variables.items():
        bound = enc.range_constraint(v)
        if bound is not None:
            opt.add(bound)
        for allowed in problem.facts.get(c, ()):
            opt.add(enc.member(v, allowed))
    soft = _add_objective(opt, enc, variables, problem)
    timeout_s = None if problem.timeout_ms is None else problem.timeout_ms / 1000
    with interrupt_after(ctx, timeout_s):
        result = opt.check()
    status = str(result)
    if result == z3.unsat:  # cannot happen: every class's facts have a common device
        raise RuntimeError("internal error: the soft-constraint problem is unsatisfiable")
    devices = _model_devices(opt, enc, variables, problem, trust=result == z3.sat)
    if devices is None:
        status = "unknown (model discarded)"
        devices = {}
    return BackendResult(status, devices, variables=len(variables), soft=soft)


def _add_objective(opt: z3.Optimize, enc: _Encoder, variables: dict[int, z3.ExprRef], problem: Problem) -> int:
    """The soft constraints of every edge and start with a variable end, one Z3 objective per level of the
    lexicographic objective (`backend`'s docstring), added in its order; returns how many were added."""
    physical = problem.physical
    shared = len(set(physical)) != len(physical)
    to_fixed, between = _split_edges(problem.edges, variables, problem.fixed)
    levels: list[list[tuple[z3.BoolRef, int]]] = [[], [], [], []]  # bytes, hints, inputs, copies not aliased
    for (c, d), (weight, count, hints) in sorted(to_fixed.items()):
        v = variables[c]
        same_entry = v == enc.values[d]
        same_phys = enc.member(v, _same_physical(physical, d)) if shared else same_entry
        _levels(levels, same_phys, same_entry, weight, count, hints, shared)
    groups = _physical_groups(physical) if shared else []
    for edge in between:
        va, vb = variables[edge.a], variables[edge.b]
        same_entry = va == vb
        same_phys = z3.Or([z3.And(enc.member(va, g), enc.member(vb, g)) for g in groups]) if shared else same_entry
        _levels(levels, same_phys, same_entry, edge.weight, edge.count, edge.hints, shared)
    for c, (nbytes, count) in sorted(problem.starts.items()):
        if c in variables:
            on_host = enc.member(variables[c], problem.host)
            if nbytes > 0:
                levels[0].append((on_host, nbytes))
            levels[2].append((on_host, count))
    soft = 0
    for name, level in zip(("bytes", "hints", "inputs", "copies"), levels, strict=True):
        for constraint, weight in level:
            opt.add_soft(constraint, weight, id=name)
            soft += 1
    return soft


def _split_edges(
    edges: Sequence[SoftEdge], variables: dict[int, z3.ExprRef], fixed: Mapping[int, int]
) -> tuple[dict[tuple[int, int], list[int]], list[SoftEdge]]:
    """Edges to a fixed class summed per (variable, device) as [weight, count, hints], and edges between two
    variables."""
    to_fixed: dict[tuple[int, int], list[int]] = {}
    between: list[SoftEdge] = []
    for edge in edges:
        a_free = edge.a in variables
        b_free = edge.b in variables
        if not a_free and not b_free:
            continue  # both ends decided: the cost is a constant
        if a_free and b_free:
            between.append(edge)
            continue
        key = (edge.a, fixed[edge.b]) if a_free else (edge.b, fixed[edge.a])
        acc = to_fixed.setdefault(key, [0, 0, 0])
        acc[0] += edge.weight
        acc[1] += edge.count
        acc[2] += edge.hints
    return to_fixed, between


def _same_physical(physical: Sequence[Hashable], d: int) -> list[int]:
    return [i for i, p in enumerate(physical) if p == physical[d]]


def _physical_groups(physical: Sequence[Hashable]) -> list[list[int]]:
    """The devices of each physical device, in order of first appearance."""
    by_phys: dict[Hashable, list[int]] = {}
    for i, p in enumerate(physical):
        by_phys.setdefault(p, []).append(i)
    return list(by_phys.values())


def _levels(
    levels: list[list[tuple[z3.BoolRef, int]]],
    same_phys: z3.BoolRef,
    same_entry: z3.BoolRef,
    weight: int,
    count: int,
    hints: int,
    shared: bool,
) -> None:
    """One (aggregated) edge's soft constraints: bytes across physical devices, hints apart, copy ops apart
    (needed only where entries can differ without moving bytes)."""
    if weight > 0:
        levels[0].append((same_phys, weight))
    if hints > 0:
        levels[1].append((same_entry, hints))
    if shared or weight == 0:
        levels[3].append((same_entry, count))


def _model_devices(
    opt: z3.Optimize, enc: _Encoder, variables: dict[int, z3.ExprRef], problem: Problem, trust: bool
) -> dict[int, int] | None:
    """The model's device per class, or None when there is no model or it breaks a fact.

    A model after a timeout can break hard constraints (seen with maxres
    interrupted early), so it is checked unless Z3 finished (`trust`).
    """
    try:
        model = opt.model()
    except z3.Z3Exception:
        return None
    chosen = {c: enc.value(model, v) for c, v in variables.items()}
    if trust:
        return chosen
    for c, d in chosen.items():
        if not 0 <= d < problem.num_devices or any(d not in allowed for allowed in problem.facts.get(c, ())):
            return None
    return chosen


register_backend("z3", Z3Backend)
for _encoding in ENCODINGS:
    register_backend(f"z3-{_encoding}", functools.partial(Z3Backend, _encoding))
