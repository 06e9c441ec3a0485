"""Struct infos as text (``R.Tensor((2, 3), dtype="float32", vdevice="cuda:0:global")``)."""

from __future__ import annotations

from collections.abc import Sequence

from ..struct_info import (
    FuncStructInfo,
    ObjectStructInfo,
    PrimStructInfo,
    ShapeStructInfo,
    StructInfo,
    TensorStructInfo,
    TupleStructInfo,
)
from ..vdevice import VDevice, index_of, kind_ordinal
from .literals import PrintError, dim_symbols, dims_list, dims_tuple, literal, string_literal


def format_struct_info(sinfo: StructInfo, vdevices: Sequence[VDevice] = ()) -> str:
    """One struct info as the printer writes it (``R.Tensor((2, 3), dtype="float32")``)."""
    return SInfoFormatter(vdevices).format(sinfo)


class SInfoFormatter:
    """Formats struct infos against one vdevice list, caching each distinct value.

    Most bindings of a module share a few struct infos, so each is formatted
    once: looked up first by identity (cheap; `_alive` keeps every cached
    object alive so its id cannot be reused), then by value.  Not thread-safe;
    one formatter serves one `script` call.
    """

    def __init__(self, vdevices: Sequence[VDevice], bare: bool = False) -> None:
        self.vdevices = list(vdevices)
        # `bare`: symbolic dims written as expressions (``(n, 3)``), as a function body writes them
        # (TVM reads quoted dims only in a signature); `symbols` maps each such text to the symbols it names.
        self.bare = bare
        self.symbols: dict[str, set[str]] = {}
        self._cache: dict[tuple, str] = {}
        self._by_id: dict[int, str] = {}
        self._alive: list[StructInfo] = []
        self._names: dict[VDevice, str] = {}

    def vdevice_name(self, vdevice: VDevice) -> str:
        """``kind:ordinal:scope``; PrintError when `vdevice` is not in the list."""
        name = self._names.get(vdevice)
        if name is None:
            index = index_of(self.vdevices, vdevice)
            if index is None:
                raise PrintError(
                    f"{vdevice!r} is not in the module's vdevice list, so it has no name to print; "
                    "add it to the module's vdevices"
                )
            name = f"{vdevice.kind}:{kind_ordinal(self.vdevices, index)}:{vdevice.memory_scope}"
            self._names[vdevice] = name
        return name

    def format(self, sinfo: StructInfo) -> str:
        text = self._by_id.get(id(sinfo))
        if text is None:
            # (type, key) is what StructInfo's own __eq__ / __hash__ compare, without
            # their Python-level calls: one lookup per distinct object, so it is hot.
            key = (type(sinfo), sinfo._key())
            text = self._cache.get(key)
            if text is None:
                text = self._format(sinfo)
                self._cache[key] = text
                if self.bare:
                    names = _symbols(sinfo)
                    if names:
                        self.symbols[text] = names
            self._by_id[id(sinfo)] = text
            self._alive.append(sinfo)
        return text

    def _format(self, sinfo: StructInfo) -> str:
        if isinstance(sinfo, TensorStructInfo):
            return self._tensor(sinfo)
        if isinstance(sinfo, TupleStructInfo):
            return "R.Tuple([" + ", ".join(self.format(f) for f in sinfo.fields) + "])"
        if isinstance(sinfo, ShapeStructInfo):
            if sinfo.values is not None:
                return f"R.Shape({dims_list(sinfo.values, self.bare)})"
            return f"R.Shape(ndim={sinfo.ndim})" if sinfo.ndim >= 0 else "R.Shape()"
        if isinstance(sinfo, PrimStructInfo):
            if sinfo.value is None:
                return f"R.Prim({string_literal(sinfo.dtype)})"
            return f"R.Prim({string_literal(sinfo.dtype)}, value={literal(sinfo.value)})"
        if isinstance(sinfo, ObjectStructInfo):
            return "R.Object"
        if isinstance(sinfo, FuncStructInfo):
            params = ", ".join(self.format(p) for p in sinfo.params)
            return f"R.Callable([{params}], {self.format(sinfo.ret)})"
        raise PrintError(f"cannot print struct info {sinfo!r}")

    def _tensor(self, sinfo: TensorStructInfo) -> str:
        parts = []
        if sinfo.shape is not None:
            parts.append(dims_tuple(sinfo.shape, self.bare))
        if sinfo.dtype:
            parts.append(f"dtype={string_literal(sinfo.dtype)}")
        if sinfo.shape is None and sinfo.ndim >= 0:
            parts.append(f"ndim={sinfo.ndim}")
        if sinfo.vdevice is not None:
            parts.append(f"vdevice={string_literal(self.vdevice_name(sinfo.vdevice))}")
        return "R.Tensor(" + ", ".join(parts) + ")"


def _symbols(sinfo: StructInfo) -> set[str]:
    """The symbols `sinfo`'s dims name, tuples and shapes included."""
    if isinstance(sinfo, TensorStructInfo):
        return dim_symbols(sinfo.shape or ())
    if isinstance(sinfo, ShapeStructInfo):
        return dim_symbols(sinfo.values or ())
    if isinstance(sinfo, TupleStructInfo):
        return set().union(*(_symbols(f) for f in sinfo.fields)) if sinfo.fields else set()
    return set()
