"""The one registry of backends, and the contracts of the two problems they decide.

A backend is a decision procedure that an objective (`placement.objective`)
hands what its own exact steps could not decide.  Every backend is
registered here by name, side by side, with the problem kinds it decides
(`register_backend(name, factory, problem_kinds=...)`):

    name                 decides       file
    z3, z3-enum, z3-bv   Problem       `z3_backend.py` (MaxSMT)
    z3                   PlanProblem   `placement/cost/backends.py` (MaxSAT with pseudo-Boolean limits)
    highs                PlanProblem   `placement/cost/backends.py` (a MILP for HiGHS)
    mincut               PlanProblem   `placement/cost/backends.py` (two vdevices, no memory limit)

`place(mod, backend=name)` means the same under every objective: the
procedure that decides what is left.  A name that is not registered, or that
does not decide the objective's kind of problem, is a `ValueError` listing
the names that do.  A backend object has a `name` and `solve(problem)`; it
may list the kinds it decides in `problem_kinds` (default: `Problem` only).

`Problem` (the `Bytes` objective)
---------------------------------

`solve` hands a backend only what propagation could not decide, as a
`Problem` over equality classes and device indices:

* `classes`: the classes to decide, ascending;
* `facts[c]`: hard unary facts on class c, each a set of devices it must be
  in (a pin is a one-device set, an op's supported devices a larger one);
  a class with no entry may take any device ``0 .. num_devices-1``;
* `fixed`: classes already decided, with their device; they appear only as
  ends of soft edges;
* `edges`: soft edges between classes, summed per pair of classes, ``a < b``,
  in ascending ``(a, b)`` order.  Keeping an edge's ends on one physical
  device saves `weight` bytes; `count` copy ops were summed into it, `hints`
  of them ``hint_on_device``.  An
  edge with one end in `classes` has its other end in `classes` or `fixed`.
  An edge with neither end in `classes` has a constant cost and a backend
  ignores it; it is still listed, so that a backend scaling weights by the
  number of edges sees the same numbers however propagation went;
* `starts[c]`: ``(bytes, count)``: class c holds `count` runtime inputs of
  entry functions, which arrive on the host: on a device outside `host`
  (the CPU devices) it uploads `bytes`;
* `physical[i]`: the physical device of device i: entries with equal values
  share memory, so an edge between them moves no bytes;
* `timeout_ms`: a limit for the search, or None.

The objective, lexicographic: first the bytes moved (the weight of the
edges whose ends are on different physical devices, plus the bytes of the
starts off the host), then the hints not honoured (the `hints` of the edges
whose ends are on different devices: where bytes tie, a hinted expression
runs on the hinted device), then the runtime inputs moved off the host, then
the count of the edges whose ends are on different devices (so that a copy
op still becomes a plain alias where it can).  Weights are non-negative.

Every class's facts have a device in common: `solve` finds the classes
whose facts do not (classes are independent in every hard fact, so that is
exact and needs no search) and never hands them to a backend.  A problem is
therefore always satisfiable, and a backend only optimizes.

A backend returns a `BackendResult`:

* `devices` is either empty (no answer within the limit; the
  caller keeps its own, which satisfies every fact) or maps every class of
  `classes` to a device satisfying all its facts.  ``status == "sat"``
  means the answer minimizes the objective; any other status (``"unknown"``
  and the like, after a timeout) means it may not.
* `variables` and `soft`: the size of the backend's encoding, for `Stats`.

Answers must be deterministic: the same problem always gives the same
devices, so that placing a module twice gives the same module.

`PlanProblem` (objectives over units: `Cost`, and a time objective)
-------------------------------------------------------------------

The contract of the other kind is `placement.cost.backends`'s docstring:
its backends (``"highs"``, ``"mincut"``, ``"z3"``) are registered from
there, where the algorithms live, into this registry, so that this package
never imports the objectives' problems.  One name may decide both kinds
(``"z3"``): it is registered once per kind, each with its own factory.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

ProblemT = TypeVar("ProblemT", contravariant=True)
ResultT = TypeVar("ResultT", covariant=True)


class SoftEdge:
    """A soft edge between classes `a` < `b`: `weight` bytes moved if they end apart, `count` copy ops summed,
    `hints` of them hints."""

    __slots__ = ("a", "b", "weight", "count", "hints")

    def __init__(self, a: int, b: int, weight: int, count: int, hints: int = 0) -> None:
        self.a = a
        self.b = b
        self.weight = weight
        self.count = count
        self.hints = hints

    def __repr__(self) -> str:
        return f"SoftEdge({self.a}, {self.b}, weight={self.weight}, count={self.count}, hints={self.hints})"


class Problem:
    """What a backend decides; see the module docstring for the meaning of every field."""

    __slots__ = ("classes", "num_devices", "facts", "fixed", "edges", "physical", "timeout_ms", "starts", "host")

    def __init__(
        self,
        classes: Sequence[int],
        num_devices: int,
        facts: Mapping[int, Sequence[frozenset[int]]],
        fixed: Mapping[int, int],
        edges: Sequence[SoftEdge],
        physical: Sequence[Hashable],
        timeout_ms: int | None = None,
        starts: Mapping[int, tuple[int, int]] | None = None,
        host: frozenset[int] = frozenset(),
    ) -> None:
        self.classes = classes
        self.num_devices = num_devices
        self.facts = facts
        self.fixed = fixed
        self.edges = edges
        self.physical = physical
        self.timeout_ms = timeout_ms
        self.starts = starts or {}
        self.host = host


class BackendResult:
    """A backend's answer: devices per class, plus encoding statistics."""

    __slots__ = ("status", "devices", "variables", "soft")

    def __init__(
        self,
        status: str,
        devices: dict[int, int] | None = None,
        variables: int = 0,
        soft: int = 0,
    ) -> None:
        self.status = status
        self.devices = devices if devices is not None else {}
        self.variables = variables
        self.soft = soft


@runtime_checkable
class Backend(Protocol[ProblemT, ResultT]):
    """A decision procedure for one kind of problem: ``Backend[Problem, BackendResult]`` for the bytes
    objective, ``Backend[PlanProblem, PlanResult]`` for objectives over units (`placement.cost.backends`).

    `solve` must honour the contract of its kind; a backend deciding another kind than `Problem`
    lists its kinds in `problem_kinds`.
    """

    name: str

    def solve(self, problem: ProblemT) -> ResultT: ...


Factory = Callable[[], Any]
_REGISTRY: dict[str, dict[type, Factory]] = {}


def register_backend(name: str, factory: Factory, problem_kinds: tuple[type, ...] = (Problem,)) -> None:
    """Make `name` usable as ``place(mod, backend=name)`` for `problem_kinds`; `factory` builds a fresh backend."""
    kinds = _REGISTRY.setdefault(name, {})
    for kind in problem_kinds:
        kinds[kind] = factory


def backend_names(problem: type | None = None) -> list[str]:
    """The registered backend names (those deciding `problem`, when given), sorted."""
    return sorted(name for name, kinds in _REGISTRY.items() if problem is None or problem in kinds)


def decides(backend: Backend[Any, Any], problem: type) -> bool:
    """Whether `backend` decides problems of kind `problem` (its `problem_kinds`, default `Problem` only)."""
    kinds: tuple[type, ...] = getattr(backend, "problem_kinds", (Problem,))
    return problem in kinds


def resolve_backend(
    backend: Backend[Any, Any] | str, problem: type = Problem, noun: str = "placement backend"
) -> Backend[Any, Any]:
    """A backend instance deciding `problem`, from an instance or a registered name; anything else is an error.

    `noun` names a backend in the messages (``"cost solver"`` under `Cost`).
    """
    names = ", ".join(backend_names(problem))
    if isinstance(backend, str):
        kinds = _REGISTRY.get(backend)
        if kinds is None:
            raise ValueError(f"unknown {noun} {backend!r}; use one of {names}")
        if problem not in kinds:
            raise ValueError(f"{noun} {backend!r} does not decide {problem.__name__}s; use one of {names}")
        return kinds[problem]()
    if not isinstance(backend, Backend):
        raise TypeError(f"backend must be a Backend or a registered name, not {type(backend).__name__}")
    if not decides(backend, problem):
        raise ValueError(f"{noun} {backend.name!r} does not decide {problem.__name__}s; use one of {names}")
    return backend
