"""IRModule: named functions plus the module's global infos (the vdevice list)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import chain
from typing import Any

from .expr import Binding, Function, If, SeqExpr
from .source_file import SourceFile
from .vdevice import VDevice


class IRModule:
    """Functions by global name, in source order, and ``global_infos["vdevice"]``.

    `source` is the text the module was parsed from (for diagnostics to
    quote), or None; a module read by `ir.parse_file` keeps it as a
    `SourceFile` and reads it back on each access of `source`.
    """

    __slots__ = ("functions", "global_infos", "attrs", "name", "_source", "filename")

    def __init__(
        self,
        functions: Mapping[str, Function],
        vdevices: Sequence[VDevice] = (),
        attrs: Mapping[str, Any] | None = None,
        name: str = "Module",
        source: str | SourceFile | None = None,
        filename: str | None = None,
        global_infos: Mapping[str, Sequence[Any]] | None = None,
    ) -> None:
        self.functions: dict[str, Function] = dict(functions)
        infos = {key: list(values) for key, values in (global_infos or {}).items()}
        infos["vdevice"] = list(vdevices) if vdevices else infos.get("vdevice", [])
        self.global_infos: dict[str, list[Any]] = infos
        self.attrs: dict[str, Any] = dict(attrs or {})
        self.name = name
        self._source = source
        self.filename = filename

    @property
    def source(self) -> str | None:
        source = self._source
        return source.text() if isinstance(source, SourceFile) else source

    @source.setter
    def source(self, source: str | SourceFile | None) -> None:
        self._source = source

    @property
    def vdevices(self) -> list[VDevice]:
        return self.global_infos["vdevice"]

    def __getitem__(self, name: str) -> Function:
        return self.functions[name]

    def __contains__(self, name: str) -> bool:
        return name in self.functions

    def __iter__(self) -> Iterator[str]:
        return iter(self.functions)

    def replace(self, **changes: Any) -> IRModule:
        """A new module with some fields changed (functions, vdevices, attrs, ...)."""
        return IRModule(
            functions=changes.get("functions", self.functions),
            vdevices=changes.get("vdevices", self.vdevices),
            attrs=changes.get("attrs", self.attrs),
            name=changes.get("name", self.name),
            source=changes.get("source", self._source),
            filename=changes.get("filename", self.filename),
            global_infos={k: v for k, v in self.global_infos.items() if k != "vdevice"},
        )

    def num_bindings(self) -> int:
        return sum(1 for f in self.functions.values() for _ in iter_bindings(f))

    def __repr__(self) -> str:
        return f"IRModule({self.name}, functions={list(self.functions)}, vdevices={len(self.vdevices)})"


def iter_bindings(func: Function) -> Iterator[Binding]:
    """Every binding of `func` in program order, If branches included."""
    return seq_bindings(func.body)


def seq_bindings(seq: SeqExpr) -> Iterator[Binding]:
    """Every binding of `seq` in program order: an If's binding, then its true branch, then its false branch.

    A lazy generator (callers often stop early) over a stack of binding
    iterators, one per open SeqExpr, so nested Ifs cost no recursion.  It is a
    flat loop rather than an `ir.visitor.ExprVisitor`: it only goes through
    bindings, never into values, and a push-style visitor cannot yield lazily.
    """
    stack = [chain.from_iterable(block.bindings for block in seq.blocks)]
    while stack:
        for binding in stack[-1]:
            yield binding
            value = binding.value
            if isinstance(value, If):
                # Resume this iterator after both branches.
                stack.append(chain.from_iterable(block.bindings for block in value.false_branch.blocks))
                stack.append(chain.from_iterable(block.bindings for block in value.true_branch.blocks))
                break
        else:
            stack.pop()
