"""Targets and virtual devices, and how names in the text find them.

A `VDevice` is a value: two vdevices are equal when their target, id and
memory scope are equal, never by object identity.  Two vdevices with the same
*device type* and id are the same physical device (`VDevice.physical`), so
moving a tensor between them costs nothing.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping, Sequence
from typing import Any

# Target kind -> device type.  Several kinds compile for one device type.
KIND_TO_DEVICE_TYPE: dict[str, str] = {
    "llvm": "cpu",
    "c": "cpu",
    "cpu": "cpu",
    "cuda": "cuda",
    "nvptx": "cuda",
    "rocm": "rocm",
    "opencl": "opencl",
    "vulkan": "vulkan",
    "metal": "metal",
    "webgpu": "webgpu",
    "hexagon": "hexagon",
    "ext_dev": "ext_dev",
}

# DLPack device type codes, as `R.device(device_type=2, index=0)` writes them.
DEVICE_TYPE_CODES: dict[int, str] = {
    1: "cpu",
    2: "cuda",
    4: "opencl",
    7: "vulkan",
    8: "metal",
    10: "rocm",
    12: "ext_dev",
    15: "webgpu",
    16: "hexagon",
}
DEVICE_TYPE_TO_CODE: dict[str, int] = {v: k for k, v in DEVICE_TYPE_CODES.items()}

# `tvm.cpu()`, `tvm.cuda(1)`, ... helper names -> device type.
TVM_DEVICE_FUNCS: dict[str, str] = {
    "cpu": "cpu",
    "cuda": "cuda",
    "gpu": "cuda",
    "rocm": "rocm",
    "opencl": "opencl",
    "cl": "opencl",
    "vulkan": "vulkan",
    "metal": "metal",
    "webgpu": "webgpu",
    "hexagon": "hexagon",
    "ext_dev": "ext_dev",
}


def _freeze(value: Any) -> Any:
    """A hashable, order-insensitive-for-dicts copy of a target attribute value."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


class Target:
    """A compilation target: a kind (``llvm``, ``cuda``...) and its attributes.

    Built from a CLI string (``"cuda -arch=sm_80"``) or a dict
    (``{"kind": "cuda", "arch": "sm_80"}``); both spellings of one target are
    equal.  Only the kind matters for placement; the attributes are kept so the
    printer can write back what the user wrote.  The kind must be one of
    `KIND_TO_DEVICE_TYPE` (TVM, too, refuses a kind it has not registered);
    anything else is a `ValueError` that lists the known kinds.
    """

    __slots__ = ("kind", "attrs", "_hash")

    def __init__(self, kind: str, attrs: Mapping[str, Any] | None = None) -> None:
        if not isinstance(kind, str) or not kind:
            raise ValueError("a target needs a non-empty kind")
        if kind not in KIND_TO_DEVICE_TYPE:
            shown = kind if len(kind) <= 40 else kind[:37] + "..."
            raise ValueError(f"unknown target kind {shown!r}; known kinds: {', '.join(KIND_TO_DEVICE_TYPE)}")
        self.kind = kind
        self.attrs: tuple[tuple[str, Any], ...] = _freeze(dict(attrs or {}))
        self._hash = hash((self.kind, self.attrs))

    @classmethod
    def parse(cls, spec: str | Mapping[str, Any] | Target) -> Target:
        """Read a target from a CLI string, a dict or another `Target`."""
        if isinstance(spec, Target):
            return spec
        if isinstance(spec, Mapping):
            attrs = dict(spec)
            kind = attrs.pop("kind", None)
            if not isinstance(kind, str):
                raise ValueError("a target dict needs a string 'kind'")
            return cls(kind, attrs)
        if isinstance(spec, str):
            words = spec.split()
            if not words:
                raise ValueError("empty target string")
            options: dict[str, Any] = {}
            for word in words[1:]:
                if not word.startswith("-") or "=" not in word:
                    raise ValueError(f"cannot read target option {word!r} (want -key=value)")
                key, _, value = word.lstrip("-").partition("=")
                options[key] = value.split(",") if key in ("keys", "libs", "mattr") else value
            return cls(words[0], options)
        raise ValueError(f"cannot make a target from {type(spec).__name__}")

    @property
    def device_type(self) -> str:
        return KIND_TO_DEVICE_TYPE[self.kind]

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: _thaw(v) for k, v in self.attrs}
        out["kind"] = self.kind
        return dict(sorted(out.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Target) and self.kind == other.kind and self.attrs == other.attrs

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        if not self.attrs:
            return f"Target({self.kind!r})"
        return f"Target({self.as_dict()!r})"


class VDevice:
    """A virtual device: where a tensor lives (target, device id, memory scope)."""

    __slots__ = ("target", "vdevice_id", "memory_scope", "_hash")

    def __init__(
        self,
        target: Target | str | Mapping[str, Any],
        vdevice_id: int = 0,
        memory_scope: str = "global",
    ) -> None:
        if isinstance(vdevice_id, bool) or not isinstance(vdevice_id, int) or vdevice_id < 0:
            raise ValueError(f"vdevice_id must be a non-negative int, got {vdevice_id!r}")
        if not isinstance(memory_scope, str) or not memory_scope:
            raise ValueError(f"memory_scope must be a non-empty string, got {memory_scope!r}")
        self.target = Target.parse(target)
        self.vdevice_id = vdevice_id
        self.memory_scope = memory_scope
        self._hash = hash((self.target, vdevice_id, memory_scope))

    @property
    def kind(self) -> str:
        return self.target.kind

    @property
    def device_type(self) -> str:
        return self.target.device_type

    @property
    def physical(self) -> tuple[str, int]:
        """(device type, id): vdevices that share it share memory."""
        return (self.target.device_type, self.vdevice_id)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, VDevice)
            and self.vdevice_id == other.vdevice_id
            and self.memory_scope == other.memory_scope
            and self.target == other.target
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"VDevice({self.target!r}, {self.vdevice_id}, {self.memory_scope!r})"


class DeviceSpec:
    """A runtime device as a hint names it: device type and device id (``tvm.cuda(1)``)."""

    __slots__ = ("device_type", "index")

    def __init__(self, device_type: str, index: int = 0) -> None:
        self.device_type = device_type
        self.index = index

    @property
    def code(self) -> int:
        return DEVICE_TYPE_TO_CODE.get(self.device_type, 0)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeviceSpec) and self.device_type == other.device_type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.device_type, self.index))

    def __repr__(self) -> str:
        return f"DeviceSpec({self.device_type!r}, {self.index})"


def kind_ordinal(vdevices: Sequence[VDevice], index: int) -> int:
    """Position of entry `index` among the entries of the same target kind."""
    kind = vdevices[index].kind
    return sum(1 for v in vdevices[:index] if v.kind == kind)


def vdevice_name(vdevices: Sequence[VDevice], vdevice: VDevice) -> str:
    """The printed string form ``"kind:ordinal:scope"`` of a vdevice of the list."""
    entries, names = _last[0]
    if len(vdevices) != len(entries) or not all(map(operator.is_, vdevices, entries)):
        entries = tuple(vdevices)  # else the list of the last call, the same objects: no tuple to build and hash
        names = _names(entries)
        _last[0] = (entries, names)
    name = names.get(vdevice)
    if name is None:
        raise LookupError(f"{vdevice!r} is not in the module's vdevice list")
    return name


# (the vdevice list `vdevice_name` was last asked of, `_names` of it), swapped whole
_last: list[tuple[tuple[VDevice, ...], dict[VDevice, str]]] = [((), {})]


@functools.lru_cache(maxsize=64)
def _names(vdevices: tuple[VDevice, ...]) -> dict[VDevice, str]:
    """`vdevice_name` of every entry (the first of equal entries), per vdevice list: the cost model asks it
    per op and per value, hundreds of thousands of times on a large module."""
    out: dict[VDevice, str] = {}
    for index, v in enumerate(vdevices):
        out.setdefault(v, f"{v.kind}:{kind_ordinal(vdevices, index)}:{v.memory_scope}")
    return out


def index_of(vdevices: Sequence[VDevice], vdevice: VDevice) -> int | None:
    for i, v in enumerate(vdevices):
        if v == vdevice:
            return i
    return None


def lookup_vdevice(vdevices: Sequence[VDevice], name: str) -> VDevice:
    """Resolve ``"cuda"``, ``"cuda:1"``, ``"cuda:1:global"`` or ``"vdevice:3"``.

    ``kind:i`` is the i-th entry *of that target kind* in the list (not device
    id i); ``vdevice:j`` is entry j.  A trailing memory scope must match the
    entry's; it is everything after the second colon, so a scope may hold
    colons itself.  Raises `LookupError` with the available names when
    nothing fits.
    """
    parts = name.split(":", 2)
    if not parts[0]:
        raise LookupError(f"cannot read vdevice name {name!r} (want 'kind', 'kind:i' or 'kind:i:scope')")
    kind = parts[0]
    try:
        ordinal = int(parts[1]) if len(parts) > 1 and parts[1] != "" else 0
    except ValueError:
        raise LookupError(f"vdevice name {name!r}: {parts[1]!r} is not an index") from None
    scope = parts[2] if len(parts) > 2 else None
    if kind == "vdevice":
        if not 0 <= ordinal < len(vdevices):
            raise LookupError(
                f"vdevice {name!r}: the module declares {len(vdevices)} vdevice(s), indices 0..{len(vdevices) - 1}"
            )
        found = vdevices[ordinal]
    else:
        same = [v for v in vdevices if v.kind == kind]
        if not same:
            same = [v for v in vdevices if v.device_type == kind]
        if not same:
            raise LookupError(f"no vdevice of kind {kind!r} in the module; it declares {describe(vdevices)}")
        if not 0 <= ordinal < len(same):
            raise LookupError(
                f"vdevice {name!r}: the module declares {len(same)} vdevice(s) of kind {kind!r}, "
                f"so the index must be 0..{len(same) - 1}"
            )
        found = same[ordinal]
    if scope is not None and scope != found.memory_scope:
        raise LookupError(f"vdevice {name!r}: that entry has memory scope {found.memory_scope!r}, not {scope!r}")
    return found


def lookup_device(vdevices: Sequence[VDevice], spec: DeviceSpec, memory_scope: str | None = None) -> VDevice:
    """The first vdevice of the list on the runtime device `spec` (a hint's device)."""
    for v in vdevices:
        if v.device_type == spec.device_type and v.vdevice_id == spec.index:
            if memory_scope is None or v.memory_scope == memory_scope:
                return v
    scope = f" with memory scope {memory_scope!r}" if memory_scope else ""
    raise LookupError(
        f"no vdevice on device {spec.device_type}({spec.index}){scope} in the module; it declares {describe(vdevices)}"
    )


def describe(vdevices: Sequence[VDevice]) -> str:
    if not vdevices:
        return "no vdevices"
    return ", ".join(f"{vdevice_name(vdevices, v)} ({v.device_type}({v.vdevice_id}))" for v in vdevices)
