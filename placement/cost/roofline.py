"""The roofline cost model: kernel times from each op's registered FLOPs and bytes, copy times from links.

A device (a device type such as ``"cuda"``, a target kind such as ``"llvm"``,
or one vdevice as the module names it, ``"cuda:1"`` / ``"cuda:1:global"``)
has a `Roof`: peak FLOP/s, memory bandwidth in bytes/s and a fixed overhead
per kernel.  One op on it takes

    max(flops / peak, bytes / bandwidth) + overhead

with ``flops`` and ``bytes`` (read + written) from `OpInfo.work`, the op
registry's estimate: compute-bound or memory-bound, whichever is slower.  An
op whose estimated work is zero (a view, an op the registry does not know)
takes no time on a device where ops run; the device ops (``to_vdevice``,
``hint_on_device``: their cost is a copy's) take none anywhere.

A device entry of None says that nothing runs there (`kernel_time` is None).
A vdevice that no entry names is a `ValueError` naming it and the entries:
a forgotten device must not silently mean "free" or "impossible".

A `Link` from one device to another costs ``latency + nbytes / bandwidth``,
of which ``send_latency + nbytes * send_per_byte`` (0 unless given) keeps
the source device busy from the copy's start (`CostModel.send`); a strided
value (a transposed view, made contiguous as it is sent) at
``send_strided_per_byte`` a byte where that is given.
Links are directed and keyed like devices, with ``"*"`` for any device;
the most specific entry wins (a vdevice name before its kind, its kind before
its device type, anything before ``"*"``; counted over both ends, the source
end first on a tie).  Copies between vdevices on one physical device never
reach the link table: `CostModel.copy` makes them free.

The lookup order for a vdevice ``"cuda:1:global"`` is that name, ``"cuda:1"``,
the kind ``"cuda"``, then its device type.

Each device and link entry may say where its numbers come from (``origin``,
kept in `origins` / `link_origins`, written back by `to_dict`; the model
never reads it): ``"measured"`` (fitted to timings on this machine, by
`vdplace calibrate`), ``"default"`` (vdplace's declared defaults below, not
measured), or, for a device, an object giving one of those per number
(``{"flops": "default", "bandwidth": "measured", "overhead": "measured"}``).
An entry without ``origin`` says nothing about where it comes from.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from vdplace.ir.vdevice import KIND_TO_DEVICE_TYPE

from .schema import at, expect_keys, expect_list, expect_number, expect_object, expect_string

if TYPE_CHECKING:
    from .model import OpInfo

ANY = "*"
ORIGINS = ("measured", "default")
ROOF_FIELDS = ("flops", "bandwidth", "overhead")
SEND_FIELDS = (
    "send_latency",
    "send_per_byte",
    "send_strided_per_byte",
)  # a link's optional sender share (`Link`), written when not 0
Origin = str | dict[str, str]  # one of ORIGINS, or one per field of a Roof


class Roof(NamedTuple):
    """One device's roofline: peak FLOP/s, memory bandwidth (bytes/s), seconds of overhead per kernel."""

    flops: float
    bandwidth: float
    overhead: float = 0.0


class Link(NamedTuple):
    """A copy path: seconds of latency per copy and bandwidth in bytes/s; and the sender's share of a copy.

    ``send_latency + nbytes * send_per_byte`` seconds (at most the copy's) is how long the copy keeps
    its *source* device busy from its start (a Ray actor putting the value into the object store):
    0 by default, a copy that only takes its link (`CostModel.send`).  A strided value (a view that is
    not C-contiguous, `vdplace.ir.views`) is made contiguous as it is sent: ``send_strided_per_byte``
    a byte in place of ``send_per_byte`` where it is not 0.
    """

    latency: float
    bandwidth: float
    send_latency: float = 0.0
    send_per_byte: float = 0.0
    send_strided_per_byte: float = 0.0


# The defaults, for fp32 work.  CPU: a 16-core AVX2 server part at 2.5 GHz, 32 FP32 FLOP per cycle and core
# (two 8-wide FMA units), 16 * 2.5e9 * 32 = 1.28 TFLOP/s; two channels of DDR4-3200, 2 * 25.6 = 51.2 GB/s.
# CUDA: NVIDIA A100 (SXM, 40 GB) datasheet: 19.5 TFLOP/s FP32 without tensor cores, 1,555 GB/s HBM2;
# about 5 us to launch a kernel.  Link: PCIe 4.0 x16, 32 GB/s a direction on paper, about 25 GB/s in
# practice from pinned memory, and about 10 us for a cudaMemcpy call.
DEFAULT_DEVICES: dict[str, Roof] = {
    "cpu": Roof(flops=1.28e12, bandwidth=51.2e9, overhead=0.0),
    "cuda": Roof(flops=19.5e12, bandwidth=1.555e12, overhead=5e-6),
}
DEFAULT_LINKS: dict[tuple[str, str], Link] = {(ANY, ANY): Link(latency=1e-5, bandwidth=25e9)}
# Where each default comes from, in a few words (what `vdplace calibrate` says of a default it writes).
DEFAULT_SOURCES: dict[str, str] = {
    "cpu": "a 16-core AVX2 server CPU with two channels of DDR4-3200",
    "cuda": "the NVIDIA A100 (SXM, 40 GB) datasheet, FP32 without tensor cores",
    ANY: "PCIe 4.0 x16 in practice",
}


class Roofline:
    """Rooflines per device and links between devices; see the module docstring for the model.

    `devices` maps device keys to a `Roof`, a mapping with ``flops``,
    ``bandwidth`` and optionally ``overhead``, or None (nothing runs there);
    `links` maps ``(src, dst)`` keys to a `Link` or a mapping with
    ``latency`` and ``bandwidth``.  Taken as given: `with_defaults` starts
    from `DEFAULT_DEVICES` and `DEFAULT_LINKS`.  A key that names no device
    type, target kind or ``kind:ordinal[:scope]`` is a `ValueError`.
    """

    def __init__(
        self,
        devices: Mapping[str, Roof | Mapping[str, Any] | None],
        links: Mapping[tuple[str, str], Link | Mapping[str, Any]] | None = None,
        *,
        where: str = "",
    ) -> None:
        """`where`: the location of these entries in a document (``"$"``), for error messages."""
        places = at(where, "devices") if where else "devices"
        self.devices: dict[str, Roof | None] = {}
        self.origins: dict[str, Origin] = {}  # device key -> where its numbers come from (module docstring)
        for key, value in expect_object(devices, places).items():
            device = check_key(key, at(places, str(key)))
            self.devices[device] = _roof(value, at(places, str(key)))
            origin = _origin(value, at(places, str(key)), ROOF_FIELDS)
            if origin is not None:
                self.origins[device] = origin
        self.links: dict[tuple[str, str], Link] = {}
        self.link_origins: dict[tuple[str, str], str] = {}
        for pair, value in (links or {}).items():
            place = f"{at(where, 'links') if where else 'links'}[{pair!r}]"
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise ValueError(f"{place}: a link's key is a (source, destination) pair of device keys")
            ends = (check_key(pair[0], place, wildcard=True), check_key(pair[1], place, wildcard=True))
            self.links[ends] = _link(value, place)
            said = _origin(value, place, ())
            if isinstance(said, str):  # a link's origin is one word (`_origin` without fields)
                self.link_origins[ends] = said
        self._device_cache: dict[str, Roof | None] = {}
        self._link_cache: dict[tuple[str, str], Link] = {}

    @classmethod
    def with_defaults(
        cls,
        devices: Mapping[str, Roof | Mapping[str, Any] | None] | None = None,
        links: Mapping[tuple[str, str], Link | Mapping[str, Any]] | None = None,
    ) -> Roofline:
        """`DEFAULT_DEVICES` and `DEFAULT_LINKS` with the given entries added or replacing theirs."""
        return cls({**DEFAULT_DEVICES, **(devices or {})}, {**DEFAULT_LINKS, **(links or {})})

    def kernel_time(self, op: OpInfo, vdevice: str) -> float | None:
        """Seconds for `op` on the vdevice named `vdevice` (``"cuda:0:global"``); None where nothing runs."""
        registry = op.registry
        if registry is not None and registry.device_rule == "explicit":
            return 0.0
        roof = self.device(vdevice)
        if roof is None:
            return None
        work = op.work
        flops, nbytes = work.flops, work.bytes
        if flops == 0 and nbytes == 0:
            return 0.0
        return max(flops / roof.flops, nbytes / roof.bandwidth) + roof.overhead

    def copy_time(self, nbytes: int, src: str, dst: str) -> float:
        """Seconds to copy `nbytes` from the vdevice named `src` to the one named `dst` over their link."""
        link = self.link(src, dst)
        return link.latency + nbytes / link.bandwidth

    def send_time(self, nbytes: int, src: str, dst: str, strided: bool = False) -> float:
        """Seconds a copy of `nbytes` from `src` to `dst` keeps `src` busy from its start (`Link`), uncapped;
        `strided`: of a strided value, at ``send_strided_per_byte`` where the link has one."""
        link = self.link(src, dst)
        per_byte = link.send_strided_per_byte if strided and link.send_strided_per_byte else link.send_per_byte
        return link.send_latency + nbytes * per_byte if link.send_latency or per_byte else 0.0

    def device(self, vdevice: str) -> Roof | None:
        """The `Roof` of the vdevice named `vdevice` (None: nothing runs there); `ValueError` if no entry."""
        try:
            return self._device_cache[vdevice]
        except KeyError:
            pass
        for key in candidates(vdevice):
            if key in self.devices:
                found = self._device_cache[vdevice] = self.devices[key]
                return found
        names = ", ".join(repr(k) for k in self.devices) or "none"
        raise ValueError(
            f"the roofline has no entry for vdevice {vdevice!r} (looked up {', '.join(candidates(vdevice))}); "
            f"it has {names}: add one, or null where nothing may run"
        )

    def link(self, src: str, dst: str) -> Link:
        """The most specific link from `src` to `dst` (module docstring); `ValueError` if none matches."""
        try:
            return self._link_cache[src, dst]
        except KeyError:
            pass
        sources, targets = [*candidates(src), ANY], [*candidates(dst), ANY]
        order = sorted(((i, j) for i in range(len(sources)) for j in range(len(targets))), key=lambda p: (sum(p), p))
        for i, j in order:
            found = self.links.get((sources[i], targets[j]))
            if found is not None:
                self._link_cache[src, dst] = found
                return found
        raise ValueError(f"the roofline has no link from {src!r} to {dst!r}: add one, or a ('*', '*') default")

    def to_dict(self) -> dict[str, Any]:
        """The ``devices`` and ``links`` members of the JSON document (docs/cost.md)."""
        devices: dict[str, Any] = {}
        for key, roof in self.devices.items():
            devices[key] = None if roof is None else roof._asdict()
            if roof is not None and key in self.origins:
                devices[key]["origin"] = self.origins[key]
        links = []
        for (src, dst), link in self.links.items():
            item: dict[str, Any] = {"src": src, "dst": dst, "latency": link.latency, "bandwidth": link.bandwidth}
            item.update({k: v for k, v in link._asdict().items() if k in SEND_FIELDS and v})
            if (src, dst) in self.link_origins:
                item["origin"] = self.link_origins[src, dst]
            links.append(item)
        return {"devices": devices, "links": links}

    @classmethod
    def from_dict(cls, document: Mapping[str, Any], where: str = "$") -> Roofline:
        """The roofline of a JSON document's ``devices`` and ``links`` members (each optional, empty if absent)."""
        devices = expect_object(document.get("devices", {}), at(where, "devices"))
        links: dict[tuple[str, str], Any] = {}
        for i, item in enumerate(expect_list(document.get("links", []), at(where, "links"))):
            place = at(at(where, "links"), i)
            expect_keys(
                expect_object(item, place), place, ("src", "dst", "latency", "bandwidth"), ("origin", *SEND_FIELDS)
            )
            src = check_key(expect_string(item["src"], at(place, "src")), at(place, "src"), wildcard=True)
            dst = check_key(expect_string(item["dst"], at(place, "dst")), at(place, "dst"), wildcard=True)
            if (src, dst) in links:
                raise ValueError(f"{place}: a second link from {src!r} to {dst!r}")
            entry = {k: v for k, v in item.items() if k not in ("src", "dst")}
            _link(entry, place)  # checked here too, so that errors name the list index
            _origin(entry, place, ())
            links[src, dst] = entry
        return cls(devices, links, where=where)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Roofline) and self.devices == other.devices and self.links == other.links

    def __repr__(self) -> str:
        return f"Roofline(devices={self.devices!r}, links={self.links!r})"


def candidates(vdevice: str) -> list[str]:
    """The device keys that may describe the vdevice named `vdevice`, most specific first."""
    parts = vdevice.split(":", 2)
    kind = parts[0]
    found = [vdevice]
    if len(parts) == 3:
        found.append(f"{kind}:{parts[1]}")
    found.append(kind)
    found.append(KIND_TO_DEVICE_TYPE.get(kind, kind))
    return list(dict.fromkeys(found))


def check_key(key: Any, where: str, *, wildcard: bool = False) -> str:
    """`key` if it names a device type, target kind or ``kind:ordinal[:scope]`` (or ``"*"``), else `ValueError`."""
    if wildcard and key == ANY:
        return key
    if isinstance(key, str):
        parts = key.split(":", 2)
        ok = parts[0] in KIND_TO_DEVICE_TYPE
        if len(parts) > 1:
            ok = ok and parts[1].isdigit() and (len(parts) == 2 or bool(parts[2]))
        if ok:
            return key
    kinds = ", ".join(dict.fromkeys(KIND_TO_DEVICE_TYPE))
    extra = ", or '*' for any device" if wildcard else ""
    raise ValueError(
        f"{where}: unknown device {key!r}; write a device type or target kind ({kinds}), "
        f"or a vdevice as the module names it ('cuda:0', 'cuda:0:global'){extra}"
    )


def _roof(value: Any, where: str) -> Roof | None:
    if value is None:
        return None
    if isinstance(value, Roof):
        value = value._asdict()
    item = expect_object(value, where)
    expect_keys(item, where, ("flops", "bandwidth"), ("overhead", "origin"))
    return Roof(
        expect_number(item["flops"], at(where, "flops"), positive=True),
        expect_number(item["bandwidth"], at(where, "bandwidth"), positive=True),
        expect_number(item.get("overhead", 0.0), at(where, "overhead")),
    )


def _link(value: Any, where: str) -> Link:
    if isinstance(value, Link):
        value = value._asdict()
    item = expect_object(value, where)
    expect_keys(item, where, ("latency", "bandwidth"), ("origin", *SEND_FIELDS))
    return Link(
        expect_number(item["latency"], at(where, "latency")),
        expect_number(item["bandwidth"], at(where, "bandwidth"), positive=True),
        *(expect_number(item.get(k, 0.0), at(where, k)) for k in SEND_FIELDS),
    )


def _origin(value: Any, where: str, fields: tuple[str, ...]) -> Origin | None:
    """The ``origin`` of an entry (module docstring), checked; None where it has none (a `Roof`, a `Link`)."""
    if not isinstance(value, Mapping) or "origin" not in value:
        return None
    origin, place = value["origin"], at(where, "origin")
    if isinstance(origin, str) and origin in ORIGINS:
        return origin
    if fields and isinstance(origin, Mapping):
        expect_keys(origin, place, (), fields)
        for name, what in origin.items():
            if what not in ORIGINS:
                raise ValueError(f"{at(place, name)}: expected one of {', '.join(map(repr, ORIGINS))}, got {what!r}")
        return dict(origin)
    per_field = f", or an object of those per number ({', '.join(fields)})" if fields else ""
    raise ValueError(f"{place}: expected one of {', '.join(map(repr, ORIGINS))}{per_field}, got {origin!r}")
