"""How conflict reports name devices, sites and the direction of an equality.

Every rendering (the exception's text, the text/JSON/HTML reports, the fix
messages) names things through these functions, so one module reads the same
in all of them: a device is ``"cuda:0"``, a site ``x`` or ``t[1]``.
"""

from __future__ import annotations

from collections.abc import Sequence

from vdplace.ir.vdevice import VDevice, kind_ordinal
from vdplace.placement.model.constraints import Equal, Site


def device_name(vdevices: Sequence[VDevice], index: int) -> str:
    """``"cuda:0"`` (kind and ordinal among that kind), with the scope only when not global."""
    v = vdevices[index]
    name = f"{v.kind}:{kind_ordinal(vdevices, index)}"
    return name if v.memory_scope == "global" else f"{name}:{v.memory_scope}"


def site_name(site: Site) -> str:
    """A short name for graph nodes and chains: ``x``, ``t[1]``, ``f.return``, ``add(...)``."""
    leaf = "".join(f"[{i}]" for i in site.path)
    if site.kind == "return":
        return f"{site.func}.return{leaf}"
    if site.name.startswith("<") and site.name.endswith(">"):
        inner = site.name[1:-1]
        return ("constant" if inner == "const" else f"{inner}(...)") + leaf
    return f"{site.name}{leaf}"


def site_ref(site: Site) -> str:
    """The site as a sentence names it: "`x`", "the return value of `f`", "a nested `add(...)`"."""
    leaf = "".join(f"[{i}]" for i in site.path)
    if site.kind == "return":
        return f"the return value{' field ' + leaf if leaf else ''} of `{site.func}`"
    if site.name == "<const>":
        return "a constant"
    if site.name.startswith("<") and site.name.endswith(">"):
        return f"a nested `{site.name[1:-1]}(...)`"
    return f"`{site.name}{leaf}`"


def tuple_ref(leaf: Site) -> str:
    """The tuple a leaf site belongs to: "`t`" for t[1], "`t[0]`" for t[0][1]."""
    if leaf.name.startswith("<"):
        return "(a nested tuple)"
    return "`" + leaf.name + "".join(f"[{i}]" for i in leaf.path[:-1]) + "`"


def edge_direction(eq: Equal) -> tuple[int, int] | None:
    """(input site, output site) of an equality: the value that flows in and the one it becomes.

    None when the rule has no direction (see `RuleKind.input_first`).
    """
    first = eq.rule.kind.input_first
    if first is None:
        return None
    return (eq.a, eq.b) if first else (eq.b, eq.a)
