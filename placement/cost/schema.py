"""Reading a cost-model JSON document: each value checked where it is, each error naming its location.

A location is the JSON path from the document's root, written as
``$.devices.cuda.flops`` or ``$.links[2].latency``; with the file's path in
front (``costs.json: $.devices.cuda.flops: ...``) it says exactly which value
is wrong.  Every check raises `ValueError`; nothing here prints or guesses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


def at(where: str, key: str | int) -> str:
    """The location of member `key` (a name or a list index) inside the value at `where`."""
    return f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}"


def expect_object(value: Any, where: str) -> Mapping[str, Any]:
    """`value` if it is a JSON object, else a `ValueError` saying what it is."""
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: expected an object, got {describe(value)}")
    return value


def expect_list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected a list, got {describe(value)}")
    return value


def expect_string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{where}: expected a string, got {describe(value)}")
    return value


def expect_number(value: Any, where: str, *, positive: bool = False) -> float:
    """A finite number >= 0 (> 0 when `positive`: a rate that divides)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where}: expected a number, got {describe(value)}")
    if value < 0 or (positive and value == 0):
        raise ValueError(f"{where}: expected a number {'> 0' if positive else '>= 0'}, got {value!r}")
    return float(value)


def expect_keys(value: Mapping[str, Any], where: str, required: tuple[str, ...], optional: tuple[str, ...]) -> None:
    """Every key of `required` present, and no key outside `required` + `optional` (a typo is an error)."""
    missing = [k for k in required if k not in value]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(repr(k) for k in missing)}")
    unknown = [k for k in value if k not in required and k not in optional]
    if unknown:
        known = ", ".join(repr(k) for k in (*required, *optional))
        raise ValueError(f"{where}: unknown key {unknown[0]!r} (known keys: {known})")


def describe(value: Any) -> str:
    """A JSON value's kind, as an error message names it: ``a string ('fast')``, ``null``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, (int, float)):
        return f"a number ({value!r})"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"a string ({shown!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__
