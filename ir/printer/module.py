"""A module as TVMScript: the header, module attributes and global infos, then each function."""

from __future__ import annotations

import keyword

from ..module import IRModule
from .function import INDENT, FunctionPrinter
from .literals import PrintError, format_vdevice, literal
from .sinfo import SInfoFormatter
from .values import CallPlan

HEADER = ("# from tvm.script import ir as I", "# from tvm.script import relax as R", "")


def script(mod: IRModule) -> str:
    """The module as TVMScript text that `ir.parse` reads back to an equal module.

    Lines are collected in one list and joined once; struct infos are
    formatted once per distinct value and call layouts once per op, for the
    whole module.
    """
    name = mod.name if isinstance(mod.name, str) and mod.name.isidentifier() else "Module"
    class_name = "Module" if keyword.iskeyword(name) else name
    out: list[str] = list(HEADER)
    out.append("@I.ir_module")
    out.append(f"class {class_name}:")
    out.extend(_module_header(mod))
    if not mod.functions:
        out.append(f"{INDENT}pass")
    sinfo = SInfoFormatter(mod.vdevices)
    plans: dict[str, CallPlan] = {}
    for i, (gname, func) in enumerate(mod.functions.items()):
        if i or len(out) > len(HEADER) + 2:  # a blank line after the module's header lines
            out.append("")
        if not gname.isidentifier() or keyword.iskeyword(gname):
            raise PrintError(f"function name {gname!r} is not a Python identifier")
        FunctionPrinter(out, sinfo, plans, class_name, gname).print(func)
    return "\n".join(out) + "\n"


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
