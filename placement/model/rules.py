"""Why a constraint exists: a `Rule` of one `RuleKind` with its parameters.

Every constraint (`Pin`, `Equal`, `Prefer`, `Domain`) carries the rule that
produced it and, separately, the source span it came from.  Code that needs to
know *why* a constraint exists (diagnosis, fixes, reports) switches on
`Rule.kind` and reads `Rule.params`; it never parses text.  The English text
of a rule is made in one place, `rule_text`, only when a report shows it, so
rewording a message changes nothing but the message.

Invariants:
* a `Rule` is immutable and interned: `Rule.of(kind, **params)` returns one
  shared object per (kind, params), so a module of 300k bindings holds one
  rule object per distinct op or callee, not one per constraint;
* the parameters a kind takes are fixed (`PARAMS`): ``op`` is an op name such
  as ``"add"``, ``index`` a tuple field or argument position, ``func`` a
  module function's global name.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class RuleKind(StrEnum):
    """The rules of placement, one per row of the rule table in docs/placement.md."""

    ANNOTATION = "annotation"  # Pin: a binding's written annotation
    PARAM = "param"  # Pin: a parameter's annotation
    RETURN = "return"  # Pin: a function's return annotation
    HINT = "hint"  # Pin (result) and Prefer (input ~ result): R.hint_on_device
    HINT_STRICT = "hint_strict"  # Equal (input, result): a hint under strict_hints
    TO_VDEVICE = "to_vdevice"  # Pin (result) and Prefer (input ~ result): R.to_vdevice
    SUPPORTED = "supported"  # Domain: the device types an op runs on; params: op
    SAME = "same"  # Equal (operand, result): an op whose tensors share a device; params: op
    HOST = "host"  # Pin: an op that puts its result on the host; params: op
    ALIAS = "alias"  # Equal (result, source): y = x
    TUPLE_FIELD = "tuple_field"  # Equal (tuple leaf, field): t = (a, b); params: index
    GET_ITEM = "get_item"  # Equal (result, tuple leaf): y = t[i]; params: index
    CONSTANT = "constant"  # Equal (binding, constant): y = R.const(...)
    CALL_ARG = "call_arg"  # Equal (argument, parameter): cls.f(a); params: index, func
    CALL_RESULT = "call_result"  # Equal (result, return): y = cls.f(...); params: func
    IF = "if"  # Equal (If's result, branch result)
    FUNC_RESULT = "func_result"  # Equal (return site, returned value)
    INPUT = "input"  # Start: an entry function's runtime input arrives on the host

    @property
    def input_first(self) -> bool | None:
        """Direction of an equality of this kind: True when its `a` is the value flowing in and
        `b` the one it becomes, False when it is the other way round, None for non-equalities."""
        return _INPUT_FIRST.get(self)


_INPUT_FIRST: dict[RuleKind, bool] = {
    RuleKind.SAME: True,
    RuleKind.CALL_ARG: True,
    RuleKind.HINT_STRICT: True,
    RuleKind.ALIAS: False,
    RuleKind.TUPLE_FIELD: False,
    RuleKind.GET_ITEM: False,
    RuleKind.CONSTANT: False,
    RuleKind.IF: False,
    RuleKind.CALL_RESULT: False,
    RuleKind.FUNC_RESULT: False,
}

PARAMS: dict[RuleKind, tuple[str, ...]] = {
    RuleKind.SUPPORTED: ("op",),
    RuleKind.SAME: ("op",),
    RuleKind.HOST: ("op",),
    RuleKind.TUPLE_FIELD: ("index",),
    RuleKind.GET_ITEM: ("index",),
    RuleKind.CALL_ARG: ("index", "func"),
    RuleKind.CALL_RESULT: ("func",),
}

# Per kind, by the kind's id (hashing a kind runs Python code): its parameter names in order, and as a set.
_SPECS: dict[int, tuple[tuple[str, ...], frozenset[str]]] = {
    id(kind): (PARAMS.get(kind, ()), frozenset(PARAMS.get(kind, ()))) for kind in RuleKind
}
_NO_PARAMS: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset())


class Rule:
    """A rule and its parameters; build with `Rule.of`, compare by identity or equality."""

    __slots__ = ("kind", "params")

    # Every rule by its kind's id and its params in `PARAMS` order, and again as `of` was
    # called (the kind's id, then the keywords in call order): a hit costs one tuple and
    # one lookup.
    _interned: dict[tuple[int, tuple[tuple[str, Any], ...]], Rule] = {}
    _by_call: dict[tuple[Any, ...], Rule] = {}

    def __init__(self, kind: RuleKind, params: tuple[tuple[str, Any], ...]) -> None:
        self.kind = kind
        self.params = params

    @classmethod
    def of(cls, kind: RuleKind, **params: Any) -> Rule:
        """The one `Rule` for `kind` and `params`; the params must be exactly those `PARAMS` names for `kind`."""
        call = (id(kind), *params.items())
        rule = cls._by_call.get(call)
        if rule is None:
            rule = cls._by_call[call] = cls._intern(kind, params)
        return rule

    @classmethod
    def _intern(cls, kind: RuleKind, params: dict[str, Any]) -> Rule:
        """`of` the first time it is called so: check the params, order them as `PARAMS` does, intern."""
        names, expected = _SPECS.get(id(kind), _NO_PARAMS)
        if params.keys() != expected:
            raise ValueError(f"rule {kind.value} takes {names}, got {tuple(params)}")
        key = (id(kind), tuple([(name, params[name]) for name in names]))
        rule = cls._interned.get(key)
        if rule is None:
            rule = cls._interned[key] = cls(kind, key[1])
        return rule

    def __getitem__(self, name: str) -> Any:
        for key, value in self.params:
            if key == name:
                return value
        raise KeyError(f"rule {self.kind.value} has no parameter {name!r}")

    def get(self, name: str, default: Any = None) -> Any:
        for key, value in self.params:
            if key == name:
                return value
        return default

    @property
    def text(self) -> str:
        """The rule in a few words, as reports show it."""
        return rule_text(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rule) and self.kind is other.kind and self.params == other.params

    def __hash__(self) -> int:
        return hash((self.kind, self.params))

    def __repr__(self) -> str:
        args = "".join(f", {k}={v!r}" for k, v in self.params)
        return f"Rule({self.kind.value}{args})"

    def __str__(self) -> str:
        return self.text


_TEXT: dict[RuleKind, str] = {
    RuleKind.ANNOTATION: "annotation",
    RuleKind.PARAM: "parameter annotation",
    RuleKind.RETURN: "return annotation",
    RuleKind.HINT: "hint_on_device",
    RuleKind.HINT_STRICT: "hint_on_device (strict)",
    RuleKind.TO_VDEVICE: "to_vdevice",
    RuleKind.SUPPORTED: "supported devices of R.{op}",
    RuleKind.SAME: "operands and result of R.{op} share a device",
    RuleKind.HOST: "R.{op} puts its result on the host",
    RuleKind.ALIAS: "alias",
    RuleKind.TUPLE_FIELD: "tuple field {index}",
    RuleKind.GET_ITEM: "tuple item {index}",
    RuleKind.CONSTANT: "bound constant",
    RuleKind.CALL_ARG: "argument {index} of cls.{func}",
    RuleKind.CALL_RESULT: "result of cls.{func}",
    RuleKind.IF: "If branches and result share a device",
    RuleKind.FUNC_RESULT: "returned value",
    RuleKind.INPUT: "runtime input of an entry function, handed over on the host",
}


def rule_text(rule: Rule) -> str:
    """The one place a rule becomes English: ``argument 0 of cls.f``, ``tuple item 1``."""
    return _TEXT[rule.kind].format(**dict(rule.params))


RuleSpec = tuple[Any, ...]
"""A rule not built yet, one tuple: its kind, then its params' values in the order `SPEC_PARAMS` names them.

A million call arguments each carry one; the `Rule` is built only if a report asks (`built`).
"""

SPEC_PARAMS: dict[RuleKind, tuple[str, ...]] = {
    RuleKind.CALL_ARG: ("index", "func"),
    RuleKind.CALL_RESULT: ("func",),
}


def built(rule: Rule | RuleSpec) -> Rule:
    """`rule` itself, or the `Rule` a `RuleSpec` stands for (``Rule.of(kind, **params)``)."""
    if isinstance(rule, Rule):
        return rule
    kind = rule[0]
    return Rule.of(kind, **dict(zip(SPEC_PARAMS[kind], rule[1:], strict=True)))
