"""A measured cost table: seconds per op call and device, with a roofline for what was not measured.

`vdplace calibrate` writes one (`calibrate.calibrate`); a user may write one
by hand.  Times are keyed by device (as in `roofline`: a device type, a target
kind, or a vdevice as the module names it) and then by `op_key`, the op's name
with the signature of its arguments and the attributes it sets to other than
their defaults::

    matmul(float32[16, 1024], float32[1024, 1024])
    sum(float32[4, 8]; axis=[1], keepdims=True)

A time of None (JSON null) says the op cannot run on that device.  An op with
no entry for any of the vdevice's keys takes the `fallback` roofline's time;
without a fallback that is a `ValueError` naming the op and the vdevice.
Copies always use the fallback's links.  The device ops (``to_vdevice``,
``hint_on_device``) take no kernel time, as in the roofline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from vdplace.ir.op import REQUIRED
from vdplace.ir.struct_info import PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo

from .roofline import Roofline, candidates, check_key
from .schema import at, expect_number, expect_object, expect_string

if TYPE_CHECKING:
    from .model import OpInfo


class Table:
    """Seconds per device key and `op_key`, and a fallback `Roofline` (or None)."""

    def __init__(
        self,
        times: Mapping[str, Mapping[str, float | None]],
        fallback: Roofline | None = None,
        *,
        where: str = "",
    ) -> None:
        """`where`: the location of `times` in a document (``"$.table"``), for error messages."""
        where = where or "table"
        self.times: dict[str, dict[str, float | None]] = {}
        for device, ops in expect_object(times, where).items():
            place = at(where, str(device))
            self.times[check_key(device, place)] = {
                expect_string(key, place): None if seconds is None else expect_number(seconds, at(place, key))
                for key, seconds in expect_object(ops, place).items()
            }
        self.fallback = fallback
        self._keys: dict[OpInfo, str] = {}

    def kernel_time(self, op: OpInfo, vdevice: str) -> float | None:
        """The measured seconds of `op` on the vdevice named `vdevice`, else the fallback's (module docstring)."""
        if op.registry is not None and op.registry.device_rule == "explicit":
            return 0.0
        key = self._keys.get(op)
        if key is None:
            key = self._keys[op] = op_key(op)
        for device in candidates(vdevice):
            ops = self.times.get(device)
            if ops is not None and key in ops:
                return ops[key]
        if self.fallback is None:
            raise ValueError(f"the cost table has no time for {key} on {vdevice!r} and no fallback roofline")
        return self.fallback.kernel_time(op, vdevice)

    def copy_time(self, nbytes: int, src: str, dst: str) -> float:
        """The fallback roofline's copy time; `ValueError` without one."""
        if self.fallback is None:
            raise ValueError(f"the cost table has no links (no fallback roofline) to copy from {src!r} to {dst!r}")
        return self.fallback.copy_time(nbytes, src, dst)

    def send_time(self, nbytes: int, src: str, dst: str, strided: bool = False) -> float:
        """The fallback roofline's sender share of a copy (`Roofline.send_time`); 0 without one."""
        return 0.0 if self.fallback is None else self.fallback.send_time(nbytes, src, dst, strided)

    def to_dict(self) -> dict[str, Any]:
        """The ``table``, ``devices`` and ``links`` members of the JSON document."""
        document: dict[str, Any] = {"table": {device: dict(ops) for device, ops in self.times.items()}}
        if self.fallback is not None:
            document.update(self.fallback.to_dict())
        return document

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Table) and self.times == other.times and self.fallback == other.fallback

    def __repr__(self) -> str:
        ops = sum(len(v) for v in self.times.values())
        return f"Table({ops} times on {list(self.times)}, fallback={self.fallback is not None})"


def op_key(op: OpInfo) -> str:
    """``name(arg signatures; attr=value, ...)``: what a table keys one op call by (module docstring)."""
    args = ", ".join(signature(sinfo) for sinfo in op.args)
    attrs = _attrs_text(op)
    return f"{op.op}({args}; {attrs})" if attrs else f"{op.op}({args})"


def signature(sinfo: StructInfo) -> str:
    """A struct info as a key writes it: ``float32[2, n]``, ``(float32[2], int64[])``, ``shape[2, 3]``."""
    if isinstance(sinfo, TensorStructInfo):
        dtype = sinfo.dtype or "?"
        if sinfo.shape is not None:
            return f"{dtype}[{', '.join(str(d) for d in sinfo.shape)}]"
        return f"{dtype}[ndim={sinfo.ndim}]" if sinfo.ndim >= 0 else f"{dtype}[?]"
    if isinstance(sinfo, TupleStructInfo):
        return f"({', '.join(signature(f) for f in sinfo.fields)})"
    if isinstance(sinfo, ShapeStructInfo):
        if sinfo.values is not None:
            return f"shape[{', '.join(str(d) for d in sinfo.values)}]"
        return f"shape[ndim={sinfo.ndim}]"
    if isinstance(sinfo, PrimStructInfo):
        return sinfo.dtype if sinfo.value is None else f"{sinfo.dtype}={sinfo.value!r}"
    return "object"


def _attrs_text(op: OpInfo) -> str:
    """The call's attributes in the registry's parameter order, those equal to their default left out."""
    defaults: dict[str, Any] = {}
    if op.registry is not None:
        defaults = {p.name: p.default for p in op.registry.attr_params if p.default is not REQUIRED}
    order = [p.name for p in op.registry.attr_params] if op.registry is not None else []
    names = [n for n in order if n in op.attrs] + sorted(n for n in op.attrs if n not in order)
    parts = []
    for name in names:
        text = _value_text(op.attrs[name])
        if name in defaults and text == _value_text(defaults[name]):
            continue
        parts.append(f"{name}={text}")
    return ", ".join(parts)


def _value_text(value: Any) -> str:
    """An attribute value as a key writes it: lists and tuples alike as ``[1, 0]``, strings quoted."""
    if isinstance(value, (list, tuple)):
        return f"[{', '.join(_value_text(v) for v in value)}]"
    return repr(value)
