"""The constraint graph: what placement must satisfy, each fact with its provenance.

One walk over the module (`placement.extract`) produces a `ConstraintSet`.
Every tensor-valued *site* (a parameter, a binding, a function's return, one
tensor leaf of a tuple) gets an integer id; a site's device is an index into
the module's vdevice list.  Each constraint remembers the rule that produced
it, the source span it came from and the IR node (`origin`: a Binding, a
parameter Var or a Function), so that the solver's answer can be
checked independently and a conflict can be explained in source terms.

Sites, pins and equalities come by the hundred thousand, so the set stores
them as columns (`SiteTable`, `PinTable`, `EqualTable`) rather than one
object each: the solver and the checker read the columns, and a `Site`,
`Pin` or `Equal` object is built only when something asks for it by index
or iteration (diagnosis, reports, `Placement.devices`), once, so that each
keeps its identity afterwards.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import Generic, TypeVar, final

from vdplace.ir.expr import Binding, Call, Function, GlobalVar, Var
from vdplace.ir.sizes import Sizes
from vdplace.ir.span import Span
from vdplace.ir.struct_info import TensorStructInfo
from vdplace.ir.vdevice import VDevice
from vdplace.placement.model.rules import Rule, RuleKind, RuleSpec, built

T = TypeVar("T")


@final
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


class Start:
    """Soft: `site` starts on the host; placing it on a device that is not a CPU uploads `weight` bytes.

    One per unannotated tensor leaf of an entry function's runtime inputs
    (`placement.model.entry`): the caller hands them over in host memory,
    which every CPU vdevice shares (as the runtime counts it).
    """

    __slots__ = ("site", "weight", "rule", "span", "origin")

    def __init__(self, site: int, weight: int, rule: Rule, span: Span | None, origin: object = None) -> None:
        self.site = site
        self.weight = weight
        self.rule = rule
        self.span = span
        self.origin = origin

    def __repr__(self) -> str:
        return f"Start({self.site}@host, {self.weight}B)"


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


class SiteTable:
    """The sites of a constraint set, by id: ``table[i]`` is the `Site` with id i.

    `records[i]` is that `Site`, or the IR node whose tensor is site i:
    extraction records the common sites that way (`enter` the function,
    then append nodes to `records`), and the `Site` is built on first access
    and kept, so it is the same object on every access.  The function of
    each site is kept by runs (a run's first site id and its function's
    name), not per site.  A node stands for

    * a `Binding`: its variable, kind ``"binding"``, the variable's span or else the binding's;
    * a parameter `Var`: kind ``"param"``, its span;
    * a `Function`: its return, ``"<ret>"``, kind ``"return"``, the return annotation's span or else the function's;

    each a plain tensor (path ``()``), its bytes from that struct info under
    `sizes` (`ir.sizes.Sizes`: how big a symbolic dim is taken to be).
    """

    __slots__ = ("records", "sizes", "_run_starts", "_run_funcs")

    def __init__(self, sizes: Sizes | None = None) -> None:
        self.records: list[Site | Binding | Var | Function] = []
        self.sizes = Sizes() if sizes is None else sizes
        self._run_starts: list[int] = []  # increasing site ids
        self._run_funcs: list[str] = []

    def enter(self, func: str) -> None:
        """The sites recorded from now on belong to function `func`."""
        starts, funcs = self._run_starts, self._run_funcs
        if funcs and funcs[-1] == func:
            return
        if starts and starts[-1] == len(self.records):  # the last run has no site
            funcs[-1] = func
        else:
            starts.append(len(self.records))
            funcs.append(func)

    def append(self, site: Site) -> None:
        """Add `site`, whose id must be ``len(self)``."""
        self.enter(site.func)
        self.records.append(site)

    def func_of(self, i: int) -> str:
        """The function of site `i` (``0 <= i < len(self)``)."""
        return self._run_funcs[bisect_right(self._run_starts, i) - 1]

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, i: int) -> Site:
        record = self.records[i]
        if type(record) is Site:
            return record
        if i < 0:
            i += len(self.records)
        func = self.func_of(i)
        if type(record) is Binding:
            var = record.var
            name, span, sinfo, kind = var.name, var.span or record.span, var.struct_info, "binding"
        elif type(record) is Function:
            name, span, sinfo, kind = "<ret>", record.ret_span or record.span, record.ret_struct_info, "return"
        else:
            name, span, sinfo, kind = record.name, record.span, record.struct_info, "param"
        assert type(sinfo) is TensorStructInfo, "a node is recorded for a plain tensor only"
        site = Site(i, func, name, (), span, self.sizes.nbytes(sinfo, func), kind)
        self.records[i] = site
        return site

    def __iter__(self) -> Iterator[Site]:
        for i in range(len(self.records)):
            yield self[i]


class _Rows(Generic[T]):
    """A list of constraint objects kept as columns: row i's object is built on first use and kept.

    Subclasses hold the columns and say how long they are (`__len__`), how to
    add an object's row (`_add`) and how to build row i's object (`_object`).
    Reading by index or iterating builds every row's object not built yet, so
    each object keeps its identity; `append` and ``+=`` take objects; a table
    equals a list of the same objects.
    """

    __slots__ = ("_objects",)

    def __init__(self) -> None:
        self._objects: list[T] = []

    def __len__(self) -> int:
        raise NotImplementedError

    def _add(self, obj: T) -> None:
        raise NotImplementedError

    def _object(self, i: int) -> T:
        raise NotImplementedError

    def append(self, obj: T) -> None:
        self._build()
        self._add(obj)
        self._objects.append(obj)

    def __iadd__(self, objs: Iterable[T]) -> _Rows[T]:
        for obj in objs:
            self.append(obj)
        return self

    def __getitem__(self, i: int) -> T:
        self._build()
        return self._objects[i]

    def __iter__(self) -> Iterator[T]:
        self._build()
        return iter(self._objects)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, _Rows)):
            return list(self) == list(other)
        return NotImplemented

    # Unhashable, as a list is: a class that defines __eq__ and no __hash__ gets __hash__ = None.

    def _build(self) -> None:
        """Build the objects not built yet."""
        objects = self._objects
        for i in range(len(objects), len(self)):
            objects.append(self._object(i))


class EqualTable(_Rows[Equal]):
    """The hard equalities of a constraint set as columns: equality i is ``a[i] == b[i]``.

    `why[i]` says where it comes from, in one of these forms (the last four
    are extraction's common cases, recorded without a tuple each):

    * a ``(rule, span, origin)`` tuple; the rule may be a `RuleSpec`, built
      with the object (a call's ties name a rule per callee that nothing but
      a conflict report reads);
    * the `Binding` ``y = op(..., x, ...)`` of a "same"-rule op, tying an
      operand to its result: that op's `RuleKind.SAME` rule;
    * the `Binding` ``y = cls.f(a_0, ..., a_n-1)``: the call's first tie,
      ``a_0`` to f's first parameter (`RuleKind.CALL_ARG`), or, for a
      function of no parameters, ``y`` to f's result (`RuleKind.CALL_RESULT`);
    * an int k (1 to `MAX_LINKED_TIES`): tie k of the call whose binding is
      ``why[i - k]``, its ties recorded in a row: ``a_k`` to parameter k for
      k < n, else ``y`` to f's result;
    * a `Function`: its result tied to its return site (`RuleKind.FUNC_RESULT`).

    A binding's span is its own, else its variable's, and it is the origin;
    a function's span is its result's, else its return annotation's, else
    its own.  Collapsing and checking read the columns `a` and `b`; `Equal`
    objects are built as `_Rows` says.
    """

    __slots__ = ("a", "b", "why")

    def __init__(self) -> None:
        super().__init__()
        self.a: array[int] = array("i")  # site ids: 4 bytes each, no int object kept per entry
        self.b: array[int] = array("i")
        self.why: list[tuple[Rule | RuleSpec, Span | None, object] | Binding | Function | int] = []

    def add(self, a: int, b: int, rule: Rule | RuleSpec, span: Span | None, origin: object) -> None:
        """Add the equality ``a == b`` (what `append` does, without an `Equal`)."""
        self.a.append(a)
        self.b.append(b)
        self.why.append((rule, span, origin))

    def __len__(self) -> int:
        return len(self.a)

    def _add(self, eq: Equal) -> None:
        self.add(eq.a, eq.b, eq.rule, eq.span, eq.origin)

    def _object(self, i: int) -> Equal:
        why = self.why[i]
        if isinstance(why, tuple):
            rule, span, origin = why
            return Equal(self.a[i], self.b[i], built(rule), span, origin)
        if type(why) is Function:
            result = why.body.body
            return Equal(self.a[i], self.b[i], _FUNC_RESULT, result.span or why.ret_span or why.span, why)
        k = 0
        if isinstance(why, int):
            k, why = why, self.why[i - why]
        assert isinstance(why, Binding), "an offset leads back to the call's first tie, a Binding"
        call = why.value
        assert isinstance(call, Call), "a tie recorded as its Binding is a call's"
        op = call.op
        if type(op) is GlobalVar:
            if k < len(call.args):
                rule = Rule.of(RuleKind.CALL_ARG, index=k, func=op.name)
            else:
                rule = Rule.of(RuleKind.CALL_RESULT, func=op.name)
        else:
            rule = Rule.of(RuleKind.SAME, op=op.name)
        return Equal(self.a[i], self.b[i], rule, why.span or why.var.span, why)


MAX_LINKED_TIES = 255
"""The most ties after a call's first that `EqualTable.why` records as ints (CPython shares ints up to 256)."""

_FUNC_RESULT = Rule.of(RuleKind.FUNC_RESULT)


class PinTable(_Rows[Pin]):
    """The pins of a constraint set as columns: pin i puts site `site[i]` on device `device[i]`.

    `why[i]` says where it comes from: a ``(rule, span, origin)`` tuple, or the
    `Binding` whose written annotation pins its variable (extraction's common
    case, recorded without a tuple), which stands for `RuleKind.ANNOTATION`
    at the binding's span (else its variable's), the binding as origin.
    Solving and checking read the columns `site` and `device`; `Pin` objects
    are built as `_Rows` says.
    """

    __slots__ = ("site", "device", "why")

    def __init__(self) -> None:
        super().__init__()
        self.site: array[int] = array("i")
        self.device: array[int] = array("i")
        self.why: list[tuple[Rule, Span | None, object] | Binding] = []

    def add(self, site: int, device: int, rule: Rule, span: Span | None, origin: object) -> None:
        """Add the pin of `site` on `device` (what `append` does, without a `Pin`)."""
        self.site.append(site)
        self.device.append(device)
        self.why.append((rule, span, origin))

    def __len__(self) -> int:
        return len(self.site)

    def _add(self, pin: Pin) -> None:
        self.add(pin.site, pin.device, pin.rule, pin.span, pin.origin)

    def _object(self, i: int) -> Pin:
        why = self.why[i]
        if isinstance(why, tuple):
            rule, span, origin = why
        else:
            rule, span, origin = _ANNOTATION, why.span or why.var.span, why
        return Pin(self.site[i], self.device[i], rule, span, origin)


def pin_columns(pins: PinTable | Sequence[Pin]) -> tuple[Sequence[int], Sequence[int]]:
    """The pinned sites and their devices, in order (a `PinTable`'s own columns)."""
    if type(pins) is PinTable:
        return pins.site, pins.device
    return [p.site for p in pins], [p.device for p in pins]


_ANNOTATION = Rule.of(RuleKind.ANNOTATION)


class ConstraintSet:
    """Sites and the constraints over them, for one module.

    `sites`, `pins` and `equals` are a `SiteTable`, a `PinTable` and an
    `EqualTable` as extraction builds them; a derived set (a fix applied by
    diagnosis) may hold plain lists.  `host_devices` are the indices of the
    CPU vdevices, where a `Start` costs nothing.
    """

    __slots__ = ("vdevices", "sites", "pins", "equals", "prefers", "starts", "domains", "host_devices")

    def __init__(self, vdevices: list[VDevice], sizes: Sizes | None = None) -> None:
        self.vdevices = vdevices
        self.sites: SiteTable | list[Site] = SiteTable(sizes)
        self.pins: PinTable | list[Pin] = PinTable()
        self.equals: EqualTable | list[Equal] = EqualTable()
        self.prefers: list[Prefer] = []
        self.starts: list[Start] = []
        self.domains: list[Domain] = []
        self.host_devices = frozenset(i for i, v in enumerate(vdevices) if v.device_type == "cpu")

    def add_site(self, func: str, name: str, path: tuple[int, ...], span: Span | None, nbytes: int, kind: str) -> int:
        site_id = len(self.sites)
        self.sites.append(Site(site_id, func, name, path, span, nbytes, kind))
        return site_id

    @property
    def num_constraints(self) -> int:
        return len(self.pins) + len(self.equals) + len(self.prefers) + len(self.starts) + len(self.domains)
