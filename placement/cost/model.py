"""What cost-aware placement optimizes: the time of each op on each vdevice, of each copy, and memory limits.

A `CostModel` answers three questions, each through one method that the
solvers call (they never call the user's functions directly):

* `kernel(op, vdevice)`: seconds for the binding `op` (an `OpInfo`) on
  `vdevice`, or None where it cannot run there (the user's `kernel_time`
  said None, or the op's registry entry does not support the device type);
* `copy(nbytes, src, dst)`: seconds to move `nbytes` from `src` to `dst`;
  always 0 between vdevices on one physical device (`VDevice.physical`);
* `send(nbytes, src, dst)`: the sender's share of that copy: seconds from
  the copy's start during which it keeps `src`'s device busy (a Ray actor
  putting the value into the object store), at most the copy's seconds;
  0 without a `send_time` (every model but a calibrated Ray one); a
  strided value's (`strided=True`) by ``send_time(nbytes, src, dst,
  strided=True)`` where `send_time` takes that keyword (a Ray actor makes
  it contiguous as it sends it: a transpose), else as a contiguous one's;
* `slowdown(a, b, vdevices)`: how many times slower an op runs on `a`
  while `b`, another device on the same host, is busy too (two Ray
  actors sharing a machine's cores): `contention`, keyed by an unordered
  pair of device keys (``("llvm:0", "cuda:0")``, matched as table keys
  are: `roofline.candidates`), 1 where it names neither pair nor the two
  are one physical device.  The `Time` objective stretches its schedule by
  it (`placement.schedule.contention`);
* `limit(vdevice, vdevices)`: the bytes available on `vdevice`, or None
  for no limit.  `memory` is keyed by vdevice names as the module writes
  them (``"cuda:0"``, ``"cuda:0:global"``; see `ir.vdevice.lookup_vdevice`),
  with values in bytes or strings such as ``"2GiB"`` / ``"512 MB"``.

Ready-made models (docs/cost.md): `CostModel.roofline` (peak FLOP/s and
bandwidth per device, latency and bandwidth per link: `roofline.Roofline`),
`CostModel.from_table` (measured seconds per op: `table.Table`, what
`vdplace calibrate` writes) and `CostModel.from_json` / `to_json` (the file
format of `jsonfile`).  Such a model keeps its description in `source`; one
built from Python callables has none and cannot be written as JSON.

The user's functions receive the vdevice as its printed name
``"kind:ordinal:scope"`` (``"cuda:0:global"``), the same string the placed
module writes, so that a table keyed by names is easy to write.  They must
return finite non-negative numbers; anything else is a `ValueError` naming
the op and the vdevice.
"""

from __future__ import annotations

import fractions
import functools
import inspect
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from vdplace.ir.op import NO_WORK, Op, Work
from vdplace.ir.sizes import Sizes
from vdplace.ir.span import Span
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo, tensor_leaves
from vdplace.ir.vdevice import VDevice, lookup_vdevice, vdevice_name
from vdplace.placement.errors import CostModelError

if TYPE_CHECKING:
    from .roofline import Link, Roof, Roofline
    from .table import Table

KernelTime = Callable[["OpInfo", str], "float | None"]
CopyTime = Callable[[int, str, str], float]
SendTime = Callable[..., float]  # (nbytes, src, dst), and optionally the keyword strided: bool


class OpInfo:
    """One binding as a cost model sees it.

    function  the global function the binding is in
    name      the bound variable as written in the text
    op        the registry name of the called op (``"matmul"``, ``"nn.softmax"``)
    args      struct infos of the call's arguments, in order
    result    struct info of the binding's value
    attrs     the call's attributes as written (defaults not filled in)
    span      where the binding is in the source, or None
    registry  the `ir.op.Op`, or None for an op the registry does not know
    sizes     how big its symbolic dims are taken to be (`ir.sizes.Sizes`), for `work` and
              `result_bytes`, so that they agree with placement's bytes; None: `default_sizes()`
    """

    __slots__ = ("function", "name", "op", "args", "result", "attrs", "span", "registry", "sizes", "_work")

    def __init__(
        self,
        function: str,
        name: str,
        op: str,
        args: Sequence[StructInfo],
        result: StructInfo,
        attrs: Mapping[str, Any] | None = None,
        span: Span | None = None,
        registry: Op | None = None,
        sizes: Sizes | None = None,
    ) -> None:
        self.function = function
        self.name = name
        self.op = op
        self.args = tuple(args)
        self.result = result
        self.attrs = dict(attrs or {})
        self.span = span
        self.registry = registry
        self.sizes = sizes
        self._work: Work | None = None

    @property
    def work(self) -> Work:
        """FLOPs and bytes read and written, as the op's registry entry estimates them (zero if unknown), at the
        sizes `sizes` gives symbolic dims.

        A registry's work is a function of the call's shapes, dtypes and attributes (never of its vdevices):
        the work of one signature is computed once per `sizes` (`Sizes.works`) and shared by every call
        of that op and signature in the function."""
        if self._work is None:
            if self.registry is None:
                self._work = NO_WORK
            else:
                sizes = self.sizes or default_sizes()
                key = self._work_key()
                found = sizes.works.get(key) if key is not None else None
                if found is None:
                    resolve, f = sizes.resolve, self.function
                    args = [resolve(a, f) for a in self.args]
                    found = self.registry.work(args, resolve(self.result, f), self.attrs)
                    if key is not None:
                        if len(sizes.works) >= _WORKS_KEPT:
                            sizes.works.clear()
                        sizes.works[key] = found
                self._work = found  # type: ignore[assignment]
        return self._work  # type: ignore[return-value]

    @property
    def result_bytes(self) -> int:
        """Bytes of every tensor of the result (a tuple's leaves summed), at the sizes `sizes` gives."""
        return value_bytes(self.result, self.sizes, self.function)

    def _work_key(self) -> tuple | None:
        """What the registry's work of this call depends on: the op, the function (whose symbolic dims its
        shapes name), the argument and result signatures without their vdevices, and the attributes (with
        their types: ``1`` and ``True`` differ); None when an attribute is not hashable."""
        attrs = tuple((k, type(v), v) for k, v in self.attrs.items())
        try:
            hash(attrs)
        except TypeError:
            return None
        args = tuple(map(_signature, self.args))
        return (self.registry, self.op, self.function, args, _signature(self.result), attrs)

    def __repr__(self) -> str:
        return f"OpInfo({self.function}:{self.name} = {self.op})"


_WORKS_KEPT = 4096  # signatures kept per `Sizes` (`OpInfo.work`); past it the cache starts over


def _signature(sinfo: StructInfo) -> object:
    """`sinfo` without its vdevices: a tensor's shape, dtype and ndim; a tuple's fields' signatures."""
    kind = type(sinfo)
    if kind is TensorStructInfo:
        return (sinfo.shape, sinfo.dtype, sinfo.ndim)  # type: ignore[attr-defined]
    if kind is TupleStructInfo:
        return ("tuple", tuple(map(_signature, sinfo.fields)))  # type: ignore[attr-defined]
    return sinfo


def value_bytes(sinfo: StructInfo, sizes: Sizes | None = None, function: str = "") -> int:
    """Bytes of every tensor leaf of `sinfo` in `function`, symbolic dims sized by `sizes` (`ir.sizes.Sizes`;
    None: `default_sizes()`)."""
    nbytes = (sizes or default_sizes()).nbytes
    return sum(nbytes(leaf, function) for _, leaf in tensor_leaves(sinfo))


@functools.cache
def default_sizes() -> Sizes:
    """The sizes of a figure made with no module at hand: every symbolic dim `ir.sizes.DEFAULT_DIM`, each
    warned about once per process."""
    return Sizes()


_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
_UNITS.update({"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40})
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?)\s*([a-zA-Z]*)\s*$")


def parse_bytes(text: str | int) -> int:
    """``"2GiB"`` -> 2147483648; ``"512 MB"``, ``"1.5gib"`` (a fraction of a unit rounds down to whole bytes),
    ``"4096"`` and ints accepted; else (``"1.5"`` bytes too) `ValueError`."""
    if isinstance(text, bool):
        raise ValueError(f"not a size in bytes: {text!r}")
    if isinstance(text, int):
        if text < 0:
            raise ValueError(f"a size in bytes must not be negative: {text}")
        return text
    match = _SIZE.match(str(text))
    unit = match.group(2).lower() if match else None
    if match is None or unit not in _UNITS:
        raise ValueError(f"not a size in bytes: {text!r} (write e.g. 2GiB, 512MB, 4096)")
    amount = fractions.Fraction(match.group(1))
    if _UNITS[unit] == 1 and amount.denominator != 1:
        raise ValueError(f"not a whole number of bytes: {text!r} (write e.g. 2GiB, 512MB, 4096)")
    return math.floor(amount * _UNITS[unit])  # exact: 1.3GiB is 1395864371 bytes, not a float's rounding


class CostModel:
    """Kernel times, copy times and memory limits; see the module docstring for the contract.

    `source` is the `Roofline` or `Table` a ready-made model was built from
    (None for one built from callables); `about` holds free-form notes that
    `to_json` writes and `from_json` reads back (who measured a table, how).
    """

    def __init__(
        self,
        kernel_time: KernelTime | None = None,
        copy_time: CopyTime | None = None,
        memory: Mapping[str, int | str] | None = None,
        send_time: SendTime | None = None,
    ) -> None:
        self.kernel_time = kernel_time
        self.copy_time = copy_time
        self.send_time = send_time
        self._send_strided = _takes_keyword(send_time, "strided")
        self.memory: dict[str, int] = {name: parse_bytes(size) for name, size in (memory or {}).items()}
        self.source: Roofline | Table | None = None
        self.about: dict[str, Any] = {}
        # (device key, device key) -> factor >= 1 (module docstring, `slowdown`); written to a cost file
        self.contention: dict[tuple[str, str], float] = {}
        # Seconds to bring a runtime input of n bytes onto a vdevice (name), where inputs do not start on
        # the host: Ray actors get them from the driver (`vdplace.calibration.dispatch`).  None: a copy
        # from the host.  Set on the object, not written to a cost file.
        self.upload_time: Callable[[int, str], float] | None = None

    @classmethod
    def roofline(
        cls,
        devices: Mapping[str, Roof | Mapping[str, Any] | None] | None = None,
        links: Mapping[tuple[str, str], Link | Mapping[str, Any]] | None = None,
        memory: Mapping[str, int | str] | None = None,
    ) -> CostModel:
        """The roofline model (`roofline` module) of the default devices and links with these added or replaced.

        `devices`: ``{"cuda": {"flops": 19.5e12, "bandwidth": 1.555e12, "overhead": 5e-6}}``, keyed by
        device type, target kind or vdevice name; None for a device where nothing runs.  `links`:
        ``{("cpu", "cuda"): {"latency": 1e-5, "bandwidth": 25e9}}``, ``"*"`` for any device.
        """
        from .roofline import Roofline

        return cls.from_source(Roofline.with_defaults(devices, links), memory)

    @classmethod
    def from_table(cls, table: Table, memory: Mapping[str, int | str] | None = None) -> CostModel:
        """The model of a measured `Table` (its fallback roofline for what it does not hold)."""
        return cls.from_source(table, memory)

    @classmethod
    def from_source(cls, source: Roofline | Table, memory: Mapping[str, int | str] | None = None) -> CostModel:
        """The model whose kernel and copy times are those of `source`, a `Roofline` or a `Table`."""
        model = cls(source.kernel_time, source.copy_time, memory, source.send_time)
        model.source = source
        return model

    @classmethod
    def from_json(cls, path: str) -> CostModel:
        """The model of a cost file (docs/cost.md); `ValueError` naming the file and the JSON location if bad."""
        from .jsonfile import load

        source, memory, about, contention = load(path)
        model = cls.from_source(source, memory)
        model.about = about
        model.contention = contention
        return model

    def to_json(self, path: str | None = None) -> str:
        """This model as the JSON text `from_json` reads back; written to `path` too when given.

        A model built from Python callables has no description to write: `ValueError`.
        """
        from .jsonfile import dumps

        if self.source is None:
            raise ValueError(
                "this CostModel was built from Python callables, which cannot be written as JSON; "
                "build it with CostModel.roofline(...), CostModel.from_table(...) or CostModel.from_json(...)"
            )
        text = dumps(self.source, self.memory, self.about, self.contention)
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return text

    def kernel(self, op: OpInfo, vdevice: VDevice, vdevices: Sequence[VDevice]) -> float | None:
        """Seconds for `op` on `vdevice` (a member of the module's `vdevices`), or None where it cannot run."""
        if op.registry is not None and not op.registry.supports(vdevice.device_type):
            return None
        if self.kernel_time is None:
            return 0.0
        name = vdevice_name(vdevices, vdevice)
        try:
            seconds = self.kernel_time(op, name)
        except ValueError as err:
            raise CostModelError(
                f"the cost model cannot time {op.function}:{op.name} on {name}: {err}", op.span
            ) from None
        if type(seconds) is float and 0.0 <= seconds < math.inf:
            return seconds  # what `_checked` returns, without writing the message it would need
        return None if seconds is None else _checked(seconds, f"kernel_time({op!r}, {name!r})", op.span)

    def copy(self, nbytes: int, src: VDevice, dst: VDevice, vdevices: Sequence[VDevice]) -> float:
        """Seconds to move `nbytes` from `src` to `dst`: 0 on one physical device."""
        if src.physical == dst.physical or nbytes == 0:
            return 0.0
        if self.copy_time is None:
            return 0.0
        names = vdevice_name(vdevices, src), vdevice_name(vdevices, dst)
        try:
            seconds = self.copy_time(nbytes, *names)
        except ValueError as err:
            raise CostModelError(f"the cost model cannot time a copy from {names[0]} to {names[1]}: {err}") from None
        if type(seconds) is float and 0.0 <= seconds < math.inf:
            return seconds  # as in `kernel`
        return _checked(seconds, f"copy_time({nbytes}, {names[0]!r}, {names[1]!r})")

    def send(
        self, nbytes: int, src: VDevice, dst: VDevice, vdevices: Sequence[VDevice], strided: bool = False
    ) -> float:
        """Seconds from its start that a copy of `nbytes` from `src` to `dst` keeps `src`'s device busy:
        `send_time`, at most `copy`'s seconds; 0 without `send_time` and on one physical device.
        `strided`: the value is a strided view (module docstring)."""
        if self.send_time is None or src.physical == dst.physical or nbytes == 0:
            return 0.0
        names = vdevice_name(vdevices, src), vdevice_name(vdevices, dst)
        try:
            if strided and self._send_strided:
                seconds = self.send_time(nbytes, *names, strided=True)
            else:
                seconds = self.send_time(nbytes, *names)
        except ValueError as err:
            raise CostModelError(f"the cost model cannot time a send from {names[0]} to {names[1]}: {err}") from None
        if type(seconds) is not float or not 0.0 <= seconds < math.inf:  # as in `kernel`
            where = f"send_time({nbytes}, {names[0]!r}, {names[1]!r}{', strided=True' if strided else ''})"
            seconds = _checked(seconds, where)
        return min(seconds, self.copy(nbytes, src, dst, vdevices)) if seconds else 0.0

    def upload_send(self, nbytes: int, host: VDevice, dst: VDevice, vdevices: Sequence[VDevice]) -> float:
        """The host's share of an input's upload (`send`): 0 where `upload_time` says the driver sends it."""
        return 0.0 if self.upload_time is not None else self.send(nbytes, host, dst, vdevices)

    def upload(self, nbytes: int, host: VDevice, dst: VDevice, vdevices: Sequence[VDevice]) -> float:
        """Seconds to bring a runtime input of `nbytes` to `dst`: `upload_time` if set, else a copy from `host`."""
        if self.upload_time is None:
            return self.copy(nbytes, host, dst, vdevices)
        name = vdevice_name(vdevices, dst)
        try:
            seconds = self.upload_time(nbytes, name)
        except ValueError as err:
            raise CostModelError(f"the cost model cannot time an upload to {name}: {err}") from None
        return _checked(seconds, f"upload_time({nbytes}, {name!r})")

    def slowdown(self, a: VDevice, b: VDevice, vdevices: Sequence[VDevice]) -> float:
        """How many times slower an op on `a` runs while `b` is busy too (module docstring); 1 without an entry."""
        if not self.contention or a.physical == b.physical:
            return 1.0
        from .roofline import candidates

        keys_a = candidates(vdevice_name(vdevices, a))
        keys_b = candidates(vdevice_name(vdevices, b))
        for (x, y), factor in self.contention.items():
            if (x in keys_a and y in keys_b) or (y in keys_a and x in keys_b):
                return factor
        return 1.0

    def limit(self, vdevice: VDevice, vdevices: Sequence[VDevice]) -> int | None:
        """Bytes available on `vdevice`, or None; a key naming no vdevice of the module is a `ValueError`."""
        found: int | None = None
        for key, size in self.memory.items():
            try:
                named = lookup_vdevice(vdevices, key)
            except Exception as err:
                raise ValueError(f"memory limit for {key!r}: {err}") from None
            if named == vdevice:
                found = size if found is None else min(found, size)
        return found


def _takes_keyword(function: Callable[..., Any] | None, name: str) -> bool:
    """Whether `function` accepts the keyword argument `name` (False for None or no signature)."""
    if function is None:
        return False
    try:
        params = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _checked(value: object, where: str, span: Span | None = None) -> float:
    """`value` (what a cost model's callable returned) as seconds; anything else is a `CostModelError` (at
    `span`, the op's, where given)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise CostModelError(f"{where} returned {value!r}; expected a finite number of seconds >= 0", span)
    return float(value)
