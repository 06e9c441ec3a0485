"""The constraint graph: what placement must satisfy, each fact with its provenance.

One walk over the module (`placement.extract`) produces a `ConstraintSet`.
Every tensor-valued *site* (a parameter, a binding, a function's return, one
tensor leaf of a tuple) gets an integer id; a site's device is an index into
the module's vdevice list.  Each constraint remembers the rule that produced
it, the source span it came from and the IR node (`origin`: a Binding, a
parameter Var or a Function), so that the solver's answer can be
checked independently and a conflict can be explained in source terms.
"""

from __future__ import annotations

from vdplace.ir.span import Span
from vdplace.ir.vdevice import VDevice
from vdplace.placement.model.rules import Rule


class Site:
    """A place that holds one tensor: ``func``'s variable `name`, leaf `path`."""

    __slots__ = ("id", "func", "name", "path", "span", "nbytes", "kind")

    def __init__(
        self,
        id: int,
        func: str,
        name: str,
        path: tuple[int, ...],
        span: Span | None,
        nbytes: int,
        kind: str,
    ) -> None:
        self.id = id
        self.func = func
        self.name = name  # the variable's name; "<ret>" for a function's return
        self.path = path  # tensor leaf inside a tuple, () for a plain tensor
        self.span = span
        self.nbytes = nbytes
        self.kind = kind  # "param", "binding", "return", "value" (an anonymous expression)

    @property
    def label(self) -> str:
        """``f:x``, ``f:t.1``, ``f:<ret>`` — unique enough for messages."""
        leaf = "".join(f".{i}" for i in self.path)
        return f"{self.func}:{self.name}{leaf}"

    def __repr__(self) -> str:
        return f"Site({self.id}, {self.label})"


class Pin:
    """Hard: site's device is `device` (an index into the vdevice list)."""

    __slots__ = ("site", "device", "rule", "span", "origin")

    def __init__(self, site: int, device: int, rule: Rule, span: Span | None, origin: object = None) -> None:
        self.site = site
        self.device = device
        self.rule = rule
        self.span = span
        self.origin = origin  # the IR node that produced it (Binding, parameter Var, Function) or None

    def __repr__(self) -> str:
        return f"Pin({self.site}={self.device}, {self.rule!r})"


class Equal:
    """Hard: sites `a` and `b` share a device."""

    __slots__ = ("a", "b", "rule", "span", "origin")

    def __init__(self, a: int, b: int, rule: Rule, span: Span | None, origin: object = None) -> None:
        self.a = a
        self.b = b
        self.rule = rule
        self.span = span
        self.origin = origin

    def __repr__(self) -> str:
        return f"Equal({self.a}, {self.b}, {self.rule!r})"


class Prefer:
    """Soft: `a` and `b` should share a device; violating it copies `weight` bytes (a's size).

    One per copy op that the placed module may execute: ``hint_on_device``
    and ``to_vdevice`` (a is the input, b the pinned result), except a copy op
    that reuses an earlier copy of the same value to the same vdevice
    (`placement.extract.copies`).  `strict_hints` turns a hint's into `Equal`.
    """

    __slots__ = ("a", "b", "weight", "rule", "span", "origin")

    def __init__(self, a: int, b: int, weight: int, rule: Rule, span: Span | None, origin: object = None) -> None:
        self.a = a
        self.b = b
        self.weight = weight
        self.rule = rule
        self.span = span
        self.origin = origin

    def __repr__(self) -> str:
        return f"Prefer({self.a}~{self.b}, {self.weight}B)"


class Domain:
    """Hard: site's device is one of `allowed` (an op's supported device types)."""

    __slots__ = ("site", "allowed", "rule", "span", "origin")

    def __init__(
        self, site: int, allowed: frozenset[int], rule: Rule, span: Span | None, origin: object = None
    ) -> None:
        self.site = site
        self.allowed = allowed
        self.rule = rule
        self.span = span
        self.origin = origin

    def __repr__(self) -> str:
        return f"Domain({self.site} in {sorted(self.allowed)}, {self.rule!r})"


class ConstraintSet:
    """Sites and the constraints over them, for one module."""

    __slots__ = ("vdevices", "sites", "pins", "equals", "prefers", "domains")

    def __init__(self, vdevices: list[VDevice]) -> None:
        self.vdevices = vdevices
        self.sites: list[Site] = []
        self.pins: list[Pin] = []
        self.equals: list[Equal] = []
        self.prefers: list[Prefer] = []
        self.domains: list[Domain] = []

    def add_site(self, func: str, name: str, path: tuple[int, ...], span: Span | None, nbytes: int, kind: str) -> int:
        site_id = len(self.sites)
        self.sites.append(Site(site_id, func, name, path, span, nbytes, kind))
        return site_id

    @property
    def num_constraints(self) -> int:
        return len(self.pins) + len(self.equals) + len(self.prefers) + len(self.domains)
