"""The cost-model JSON file: a roofline, a measured table, or both, and memory limits (docs/cost.md).

One JSON object::

    {"format": "vdplace-cost/1",
     "devices": {"cpu": {"flops": 1.28e12, "bandwidth": 5.12e10, "overhead": 0.0}, "rocm": null},
     "links":   [{"src": "*", "dst": "*", "latency": 1e-05, "bandwidth": 2.5e10}],
     "table":   {"cpu": {"matmul(float32[16, 1024], float32[1024, 1024])": 0.00021}},
     "memory":  {"cuda:0": "16MiB"},
     "contention": [{"devices": ["llvm:0", "cuda:0"], "factor": 1.4}],
     "about":   {"made by": "vdplace calibrate", ...}}

Only ``format`` is required.  With ``table`` the model is a `Table` whose
fallback is the roofline of ``devices`` and ``links`` (None if both are
absent); without, it is that `Roofline`.  A file holds what it says: the
defaults of `CostModel.roofline` are not added.  ``memory`` values are bytes
or size strings (``"2GiB"``); ``contention`` lists pairs of device keys
and the factor (a number >= 1) by which an op on either runs slower while
the other is busy too (`CostModel.slowdown`); ``about`` (an object: who made the file, how)
is kept as it is and means nothing to the model.  Every error is a `ValueError` starting with the file's path and
the location in it: ``costs.json:3:14: invalid JSON: ...`` or
``costs.json: $.devices.cuda.flops: expected a number, got a string ('fast')``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .model import parse_bytes
from .roofline import Roofline, check_key
from .schema import at, expect_keys, expect_list, expect_number, expect_object, expect_string
from .table import Table

FORMAT = "vdplace-cost/1"
_KEYS = ("devices", "links", "table", "memory", "contention", "about")


Document = tuple[Roofline | Table, dict[str, int], dict[str, Any], dict[tuple[str, str], float]]


def load(path: str) -> Document:
    """The model, memory limits (bytes per vdevice name), notes and contention factors of the file at `path`;
    `ValueError` if bad."""
    from vdplace.ir import ParseError, read_text_bytes
    from vdplace.ir.source_file import universal_newlines

    try:
        with open(path, "rb") as f:
            text = read_text_bytes(f, path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read {path}: {err}") from None
    except ParseError as err:  # longer than any cost table
        raise ValueError(str(err)) from None
    return loads(universal_newlines(text), path)


def loads(text: str, source: str = "<json>") -> Document:
    """`load` of a document's text; `source` names it in errors."""
    try:
        document = json.loads(text, object_pairs_hook=_unique)
    except json.JSONDecodeError as err:
        raise ValueError(f"{source}:{err.lineno}:{err.colno}: invalid JSON: {err.msg}") from None
    except ValueError as err:
        raise ValueError(f"{source}: {err}") from None
    try:
        return from_document(document)
    except ValueError as err:
        raise ValueError(f"{source}: {err}") from None


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different: a key written twice is an error, not the last one winning."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the key {key!r} appears twice in one object")
        found[key] = value
    return found


def from_document(document: Any) -> Document:
    """`load` of a parsed document; errors name the JSON location (``$.table.cpu``)."""
    expect_keys(expect_object(document, "$"), "$", ("format",), _KEYS)
    version = expect_string(document["format"], "$.format")
    if version != FORMAT:
        raise ValueError(f"$.format: unknown format {version!r}; this vdplace reads {FORMAT!r}")
    memory: dict[str, int] = {}
    for name, size in expect_object(document.get("memory", {}), "$.memory").items():
        try:
            memory[name] = parse_bytes(size)
        except ValueError as err:
            raise ValueError(f"{at('$.memory', name)}: {err}") from None
    about = dict(expect_object(document.get("about", {}), "$.about"))
    contention = _contention(document.get("contention", []), "$.contention")
    roofline = None
    if "devices" in document or "links" in document:
        roofline = Roofline.from_dict(document, "$")
    if "table" in document:
        return Table(document["table"], roofline, where="$.table"), memory, about, contention
    return (roofline if roofline is not None else Roofline({})), memory, about, contention


def _contention(value: Any, where: str) -> dict[tuple[str, str], float]:
    """``contention``: a list of ``{"devices": [key, key], "factor": f}``, two different device keys, f >= 1."""
    out: dict[tuple[str, str], float] = {}
    for i, entry in enumerate(expect_list(value, where)):
        place = at(where, i)
        expect_keys(expect_object(entry, place), place, ("devices", "factor"), ())
        pair = expect_list(entry["devices"], at(place, "devices"))
        if len(pair) != 2:
            raise ValueError(f"{at(place, 'devices')}: expected two device keys, got {len(pair)}")
        a, b = (
            check_key(expect_string(k, at(at(place, "devices"), j)), at(at(place, "devices"), j))
            for j, k in enumerate(pair)
        )
        if a == b:
            raise ValueError(f"{at(place, 'devices')}: a device does not contend with itself ({a!r} twice)")
        factor = expect_number(entry["factor"], at(place, "factor"))
        if factor < 1:
            raise ValueError(f"{at(place, 'factor')}: expected a number >= 1 (a slowdown), got {factor!r}")
        out[a, b] = factor
    return out


def dumps(
    model: Roofline | Table,
    memory: Mapping[str, int],
    about: Mapping[str, Any],
    contention: Mapping[tuple[str, str], float] | None = None,
) -> str:
    """The JSON text of `model`, `memory` (bytes per vdevice name), `about` and `contention`, as `load` reads
    it back."""
    document: dict[str, Any] = {"format": FORMAT, **model.to_dict()}
    if memory:
        document["memory"] = dict(memory)
    if contention:
        document["contention"] = [{"devices": list(pair), "factor": f} for pair, f in contention.items()]
    if about:
        document["about"] = dict(about)
    return json.dumps(document, indent=2) + "\n"
