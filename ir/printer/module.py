"""A module as TVMScript: the header, module attributes and global infos, each function, then the TIR
functions its ``R.call_tir`` calls name (each once, under a name no other function has)."""

from __future__ import annotations

import keyword
from collections.abc import Callable, Iterator
from typing import TextIO

from ..collector import collector_paused
from ..module import IRModule
from ..tir import PrimFuncNames, prim_func_lines
from .function import INDENT, FunctionPrinter
from .literals import PrintError, format_vdevice, literal
from .sinfo import SInfoFormatter
from .sink import LineSink, SpillingSink
from .values import CallPlan

HEADER = ("# from tvm.script import ir as I", "# from tvm.script import relax as R", "")


def script(mod: IRModule) -> str:
    """The module as TVMScript text that `ir.parse` reads back to an equal module.

    Lines are collected in one list and joined once; struct infos are
    formatted once per distinct value and call layouts once per op, for the
    whole module.  The cyclic garbage collector is paused meanwhile
    (`ir.collector`): printing makes millions of objects and no cycle.
    """
    out: list[str] = []
    with collector_paused(promote=False):
        for lines, body in _pieces(mod, LineSink):
            out.extend(lines)
            out.extend(body.lines)
    return "\n".join(out) + "\n"


def write_script(mod: IRModule, out: TextIO, *, chunk: int = 65536) -> None:
    """Write ``script(mod)`` to `out`, holding about `chunk` of its lines in memory at a time.

    Each function's body is spilled to a temporary file, `chunk` lines at a
    time, while it is printed (`SpillingSink`), so the memory this takes does
    not grow with the module.
    """
    with collector_paused(promote=False):
        for lines, body in _pieces(mod, lambda: SpillingSink(chunk)):
            for line in lines:  # one at a time: a def line of 400k parameters is tens of MB
                out.write(line)
                out.write("\n")
            for piece in body.chunks():
                out.write(piece)


def _pieces(mod: IRModule, sink: Callable[[], LineSink]) -> Iterator[tuple[list[str], LineSink]]:
    """The module's text in order: pairs of lines and then a function's body (empty for the module's header)."""
    name = mod.name if isinstance(mod.name, str) and mod.name.isidentifier() else "Module"
    class_name = "Module" if keyword.iskeyword(name) else name
    header: list[str] = list(HEADER)
    header.append("@I.ir_module")
    header.append(f"class {class_name}:")
    header.extend(_module_header(mod))
    if not mod.functions:
        header.append(f"{INDENT}pass")
    yield header, LineSink()
    blank = len(header) > len(HEADER) + 2  # a blank line after the module's header lines
    signature = SInfoFormatter(mod.vdevices)
    sinfo = SInfoFormatter(mod.vdevices, bare=True)
    plans: dict[str, CallPlan] = {}
    tir = PrimFuncNames(set(mod.functions) | {class_name})
    for gname, func in mod.functions.items():
        if not gname.isidentifier() or keyword.iskeyword(gname):
            raise PrintError(f"function name {gname!r} is not a Python identifier")
        body = sink()
        printer = FunctionPrinter(body, sinfo, plans, class_name, gname, tir, signature)
        lines = printer.print(func)
        printer.release()  # freed once dropped, though the collector is paused
        yield ([""] + lines if blank else lines), body
        blank = True
    for name, prim_func in tir.functions:  # the TIR functions the calls named, after the functions that call them
        yield [""] + prim_func_lines(prim_func, name), LineSink()


def _module_header(mod: IRModule) -> list[str]:
    """``I.module_attrs(...)`` and ``I.module_global_infos(...)`` lines, when the module has any."""
    lines = []
    if mod.attrs:
        lines.append(f"{INDENT}I.module_attrs({literal(dict(mod.attrs))})")
    infos = {k: v for k, v in mod.global_infos.items() if k != "vdevice" and v}
    if mod.vdevices or infos:
        entries = []
        if mod.vdevices:
            entries.append('"vdevice": [' + ", ".join(format_vdevice(v) for v in mod.vdevices) + "]")
        for key, values in infos.items():
            entries.append(f"{literal(key)}: {literal(list(values))}")
        lines.append(f"{INDENT}I.module_global_infos({{{', '.join(entries)}}})")
    return lines
