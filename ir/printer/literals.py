"""Literal text: attribute values, dimensions, targets, vdevices and constant arrays, in TVM's spelling."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..expr import Constant
from ..metadata import MetadataRef
from ..struct_info import TensorStructInfo
from ..vdevice import Target, VDevice


class PrintError(ValueError):
    """The module holds something the printed form cannot express."""


def format_target(target: Target) -> str:
    """A target as its kind string when it has no attributes, else as a sorted dict."""
    if not target.attrs:
        return literal(target.kind)
    return literal(target.as_dict())


def format_vdevice(vdevice: VDevice) -> str:
    """``I.vdevice(target, id, "scope")`` as a module's global infos list it."""
    return f"I.vdevice({format_target(vdevice.target)}, {vdevice.vdevice_id}, {literal(vdevice.memory_scope)})"


# Characters a string literal writes as a short escape rather than as themselves.
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def string_literal(text: str) -> str:
    """`text` as a double-quoted literal that Python's (and so TVM's) parser reads back as exactly `text`.

    Printable characters, non-ASCII ones included (``"cüda😀"``), are written
    as themselves; quotes, backslashes and control characters as their
    escapes; every other character that ``str.isprintable`` rejects (lone
    surrogates, format and separator characters) as ``\\x``/``\\u``/``\\U``
    escapes.  So the printed text is valid UTF-8 for any string, even one a
    UTF-8 file could not hold as it is, and reads back unchanged.
    """
    if text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return '"' + "".join(_escape(ch) for ch in text) + '"'


def _escape(ch: str) -> str:
    short = _SHORT_ESCAPES.get(ch)
    if short is not None:
        return short
    if ch.isprintable():
        return ch
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def literal(value: Any) -> str:
    """A Python literal in TVM's spelling: double-quoted strings, tuples as lists."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return string_literal(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return float_literal(float(value))
    if isinstance(value, np.bool_):
        return repr(bool(value))
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, VDevice):
        return format_vdevice(value)
    if isinstance(value, Target):
        return format_target(value)
    if isinstance(value, MetadataRef):
        return repr(value)
    raise PrintError(f"cannot print attribute value {value!r} of type {type(value).__name__}")


def float_literal(x: float) -> str:
    """repr() round-trips every finite double exactly; 1e999 is the literal for inf; NaN has none."""
    if math.isnan(x):
        raise PrintError("cannot print NaN: TVMScript has no literal for it")
    if math.isinf(x):
        return "1e999" if x > 0 else "-1e999"
    return repr(x)


def nonfinite_name(x: float) -> str:
    """``"inf"``, ``"-inf"`` or ``"nan"``: how TVM writes a non-finite scalar constant's value."""
    if math.isnan(x):
        return "nan"
    return "inf" if x > 0 else "-inf"


def _dim(d: int | str, bare: bool = False) -> str:
    """A dim: an int, or a symbolic dim's text, quoted (as a signature writes it) or `bare` (as a body does)."""
    return str(d) if isinstance(d, int) or bare else string_literal(d)


def dims_tuple(dims: Sequence[int | str], bare: bool = False) -> str:
    """``(2, "n")`` (`bare`: ``(2, n)``); a one-element tuple keeps its comma."""
    if len(dims) == 1:
        return f"({_dim(dims[0], bare)},)"
    return "(" + ", ".join(_dim(d, bare) for d in dims) + ")"


def dims_list(dims: Sequence[int | str], bare: bool = False) -> str:
    """``[2, "n"]`` (`bare`: ``[2, n]``)."""
    return "[" + ", ".join(_dim(d, bare) for d in dims) + "]"


_NAME = re.compile(r"(?<![.\w])[A-Za-z_]\w*")


def dim_symbols(dims: Iterable[object]) -> set[str]:
    """The symbols the symbolic dims among `dims` name (``n * 2`` and ``T.min(n, 4)`` both name ``n``)."""
    return {name for d in dims if isinstance(d, str) for name in _NAME.findall(d) if name != "T"}


def _scalar_formatter(data: np.ndarray) -> Callable[[Any], str]:
    """How one element is written: the shortest text that reads back to the same value."""
    kind = data.dtype.kind
    if kind == "b":
        return lambda x: "True" if x else "False"
    if kind in "iu":
        return lambda x: str(int(x))
    if kind == "f":
        # str() of a NumPy float is the shortest string that round-trips in its own
        # precision (0.1 for float32, not 0.10000000149011612).
        return lambda x: float_literal(float(x)) if not np.isfinite(x) else str(x)
    raise PrintError(f"cannot print a constant of NumPy dtype {data.dtype}")


def array_literal(data: np.ndarray) -> str:
    """A scalar, or nested lists for an array, grouped innermost axis first."""
    fmt = _scalar_formatter(data)
    if data.ndim == 0:
        return fmt(data[()])
    if data.size == 0:
        # Only the axes before the first empty one can be written.
        text = "[]"
        for axis_len in reversed(data.shape[: data.shape.index(0)]):
            text = "[" + ", ".join([text] * axis_len) + "]"
        return text
    items = [fmt(x) for x in data.ravel()]
    for axis_len in reversed(data.shape):
        items = ["[" + ", ".join(items[i : i + axis_len]) + "]" for i in range(0, len(items), axis_len)]
    return items[0]


def constant_dtype(c: Constant) -> str:
    """The dtype a constant is printed with: its struct info's, else its array's."""
    sinfo = c.struct_info
    if isinstance(sinfo, TensorStructInfo) and sinfo.dtype:
        return sinfo.dtype
    return str(np.asarray(c.data).dtype)
