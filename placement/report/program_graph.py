"""The placed program as a picture: its ops coloured by device, its copies as edges labelled with their bytes.

`program_graph(module, copies)` reads a placed module into one `FunctionGraph`
per function:

- a node per parameter, per op or function call, per ``If`` and per return;
  its device is the vdevice its value's struct info names (None: unplaced,
  or a tuple whose fields live on several devices);
- an edge from the node that made a value to each node that reads it, aliases,
  tuples and their fields followed (``t = (a, b)``; ``t[1]`` reads ``b``);
- a copy the placed module holds (``R.to_vdevice``, one of `copies`) is no
  node: it is the edge from the value's maker to each reader, marked as a
  copy with the bytes it moves.

A function of more than `MAX_NODES` nodes is drawn by *segments*: each run
of consecutive ops (or parameters) on one device is one node that counts
them, so a chain of a million bindings on two devices is a few boxes; past
`MAX_NODES` segments the rest are left out and counted.  At most
`MAX_FUNCTIONS` functions are drawn.

`render_svg(graph, vdevices)` lays a function out top to bottom by depth
(each node one row below the deepest node it reads; at most `ROW_NODES` a
row) as one inline SVG: boxes filled in their device's colour (`PALETTE`),
grey edges for reads, thick dashed edges in the destination's colour for
copies, each labelled with its bytes.  No script, no external resource.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from html import escape

from vdplace.ir.expr import Binding, Call, Constant, Expr, Function, GlobalVar, If, SeqExpr, Tuple, TupleGetItem, Var
from vdplace.ir.module import IRModule
from vdplace.ir.struct_info import StructInfo, tensor_leaves
from vdplace.ir.units import format_bytes
from vdplace.ir.vdevice import VDevice, vdevice_name
from vdplace.placement.report.html import PALETTE
from vdplace.placement.rewrite.realize import Copy

MAX_NODES = 150
MAX_FUNCTIONS = 12
ROW_NODES = 8
NODE_W, NODE_H = 150, 44
GAP_X, GAP_Y = 26, 54
MARGIN = 16
UNPLACED = "#8a8a8a"

# (node key, the copy this read goes through or None)
Source = tuple[int, Copy | None]


@dataclass
class Node:
    """One box: `kind` is param, op, call, if, const, return or (merged) segment."""

    key: int
    kind: str
    label: str
    text: str
    device: int | None
    line: int | None
    count: int = 1  # parameters or ops a segment stands for
    run: str = ""  # what a segment may grow by: "op" or "param" ("" for other kinds)
    first: str = ""  # the label of a segment's first member


@dataclass
class Edge:
    """A read (`copy` None) or a copy from `src` to `dst`; `nbytes` sums the copies it stands for."""

    src: int
    dst: int
    copy: bool
    nbytes: int = 0
    tip: str = ""


@dataclass
class FunctionGraph:
    name: str
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    merged: bool = False  # drawn by segments
    hidden: int = 0  # segments left out past MAX_NODES


@dataclass
class ProgramGraph:
    functions: list[FunctionGraph]
    hidden_functions: int


def program_graph(module: IRModule, copies: Sequence[Copy]) -> ProgramGraph:
    """The graph of every function of the placed `module` (at most `MAX_FUNCTIONS`); see the module docstring."""
    by_var = {(c.function, c.var): c for c in copies}
    names = list(module.functions)
    graphs = [_Builder(name, module, by_var).build() for name in names[:MAX_FUNCTIONS]]
    return ProgramGraph(graphs, max(0, len(names) - MAX_FUNCTIONS))


class _Builder:
    """Reads one function into a `FunctionGraph`, merging runs of one device when it is large."""

    def __init__(self, name: str, module: IRModule, copies: dict[tuple[str, str], Copy]) -> None:
        self.name = name
        self.func: Function = module.functions[name]
        self.vdevices = list(module.vdevices)
        self.copies = copies
        self.graph = FunctionGraph(name)
        self.sources: dict[Var, tuple[Source, ...]] = {}
        self.fields: dict[Var, list[tuple[Source, ...]]] = {}
        self.edge_at: dict[tuple[int, int, bool], Edge] = {}
        self.carried: dict[int, set[int]] = {}  # id of a copy edge -> ids of the copies it stands for
        self.graph.merged = 1 + len(self.func.params) + _count(self.func.body) > MAX_NODES

    def build(self) -> FunctionGraph:
        for param in self.func.params:
            key = self._node("param", param.name, "parameter", param.struct_info, _line(param))
            self.sources[param] = ((key, None),)
        body = self._seq(self.func.body, "result")
        ret = self._node("return", "return", "result", self.func.ret_struct_info, None)
        self._edges(body, ret)
        if len(self.graph.nodes) > MAX_NODES:
            self._truncate()
        return self.graph

    # -- reading ---------------------------------------------------------------------------
    def _seq(self, seq: SeqExpr, name: str) -> tuple[Source, ...]:
        """Read the bindings of `seq`; what its result reads (an op as the result is a node called `name`)."""
        for block in seq.blocks:
            for binding in block.bindings:
                self._binding(binding)
        body = seq.body
        if isinstance(body, (Call, Constant)):
            key = self._value(body, name, _line(body))
            return ((key, None),)
        return self._read(body)

    def _binding(self, binding: Binding) -> None:
        var, value = binding.var, binding.value
        if isinstance(value, (Var, TupleGetItem)):
            self.sources[var] = self._read(value)
        elif isinstance(value, Tuple):
            self.fields[var] = [self._read(f) for f in value.fields]
            self.sources[var] = tuple(s for f in self.fields[var] for s in f)
        elif isinstance(value, Call) and not isinstance(value.op, GlobalVar) and value.op.name == "to_vdevice":
            copy = self.copies.get((self.name, var.name))
            self.sources[var] = tuple((key, copy) for key, _ in self._read(value.args[0]))
        elif isinstance(value, If):
            branches = self._seq(value.true_branch, var.name) + self._seq(value.false_branch, var.name)
            key = self._node("if", var.name, "if", var.struct_info, _line(binding))
            self._edges(self._read(value.cond) + branches, key)
            self.sources[var] = ((key, None),)
        elif isinstance(value, (Call, Constant)):
            self.sources[var] = ((self._value(value, var.name, _line(binding)), None),)
        else:  # shapes and prim values: no tensor, nothing to draw
            self.sources[var] = ()

    def _value(self, value: Call | Constant, name: str, line: int | None) -> int:
        """The node of an op call, function call or constant whose value is called `name`; its edges in."""
        reads: tuple[tuple[int, Copy | None], ...]
        if isinstance(value, Constant):
            kind, text, reads = "const", "constant", ()
        elif isinstance(value.op, GlobalVar):
            kind, text, reads = "call", f"{value.op.name}()", self._read_all(value.args)
        else:
            kind, text, reads = "op", f"R.{value.op.name}", self._read_all(value.args)
        key = self._node(kind, name, text, value.struct_info, line)
        self._edges(reads, key)
        return key

    def _read(self, expr: Expr) -> tuple[Source, ...]:
        if isinstance(expr, Var):
            return self.sources.get(expr, ())
        if isinstance(expr, Tuple):
            return self._read_all(expr.fields)
        if isinstance(expr, TupleGetItem):
            inner = expr.tuple_value
            fields = self.fields.get(inner) if isinstance(inner, Var) else None
            if fields is not None and 0 <= expr.index < len(fields):
                return fields[expr.index]
            return self._read(inner)
        return ()

    def _read_all(self, exprs: Sequence[Expr]) -> tuple[Source, ...]:
        return tuple(s for e in exprs for s in self._read(e))

    # -- building ----------------------------------------------------------------------------
    def _node(self, kind: str, label: str, text: str, sinfo: StructInfo, line: int | None) -> int:
        device = self._device(sinfo)
        nodes = self.graph.nodes
        run = kind if kind in ("op", "param") else ""
        if self.graph.merged and run and nodes and nodes[-1].run == run and nodes[-1].device == device:
            last = nodes[-1]  # the run of this device goes on: the segment grows
            last.kind, last.count, last.label = "segment", last.count + 1, f"{last.first} … {label}"
            last.text = f"{last.count} {'parameters' if run == 'param' else 'ops'}"
            return last.key
        key = len(nodes)
        nodes.append(Node(key, kind, label, text, device, line, run=run, first=label))
        return key

    def _edges(self, reads: tuple[Source, ...], dst: int) -> None:
        """An edge from each read's maker to `dst`; one per pair, with the bytes of the copies it carries."""
        for src, copy in reads:
            if src == dst:
                continue
            edge = self.edge_at.get((src, dst, copy is not None))
            if edge is None:
                tip = (
                    ""
                    if copy is None
                    else f"{copy.function}:{copy.var}" + (f" (line {copy.span.line})" if copy.span is not None else "")
                )
                edge = self.edge_at[(src, dst, copy is not None)] = Edge(src, dst, copy is not None, 0, tip)
                self.graph.edges.append(edge)
            carried = self.carried.setdefault(id(edge), set())
            if copy is not None and copy.physical and id(copy) not in carried:
                carried.add(id(copy))
                edge.nbytes += copy.nbytes

    def _device(self, sinfo: StructInfo) -> int | None:
        found = {leaf.vdevice for _, leaf in tensor_leaves(sinfo)}
        if len(found) != 1:
            return None
        (vdevice,) = found
        return _index(self.vdevices, vdevice)

    def _truncate(self) -> None:
        """Keep the first `MAX_NODES` nodes (the return too) and the edges among them; count the rest."""
        graph = self.graph
        ret = graph.nodes[-1]
        kept = graph.nodes[: MAX_NODES - 1]
        graph.hidden = len(graph.nodes) - len(kept) - 1
        ret_key_new = len(kept)
        remap = {n.key: i for i, n in enumerate(kept)}
        remap[ret.key] = ret_key_new
        ret.key = ret_key_new
        for i, node in enumerate(kept):
            node.key = i
        graph.nodes = [*kept, ret]
        graph.edges = [
            Edge(remap[e.src], remap[e.dst], e.copy, e.nbytes, e.tip)
            for e in graph.edges
            if e.src in remap and e.dst in remap
        ]


def _count(seq: SeqExpr) -> int:
    """Bindings in `seq`, those inside If branches included."""
    total = 0
    for block in seq.blocks:
        for binding in block.bindings:
            total += 1
            if isinstance(binding.value, If):
                total += _count(binding.value.true_branch) + _count(binding.value.false_branch)
    return total


def _line(node: Var | Binding | Expr) -> int | None:
    span = node.span
    return None if span is None else span.line


def _index(vdevices: Sequence[VDevice], vdevice: VDevice | None) -> int | None:
    if vdevice is None:
        return None
    for i, candidate in enumerate(vdevices):
        if candidate == vdevice:
            return i
    return None


# -- drawing -----------------------------------------------------------------------------------


def colour(device: int | None) -> str:
    """The colour of vdevice index `device` (grey when unplaced)."""
    return UNPLACED if device is None else PALETTE[device % len(PALETTE)]


def render_svg(graph: FunctionGraph, vdevices: Sequence[VDevice]) -> str:
    """One function as an inline SVG (see the module docstring)."""
    pos = _layout(graph)
    width = max(x for x, _ in pos.values()) + NODE_W + 2 * MARGIN
    height = max(y for _, y in pos.values()) + NODE_H + 2 * MARGIN
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="program-graph" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="function {escape(graph.name)}">',
        "<defs>"
        + "".join(
            f'<marker id="arrow-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" '
            f'markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{fill}"/></marker>'
            for name, fill in _arrow_colours(graph)
        )
        + "</defs>",
    ]
    nodes = {n.key: n for n in graph.nodes}
    out += [_edge_svg(e, pos, nodes) for e in graph.edges if not e.copy]
    out += [_edge_svg(e, pos, nodes) for e in graph.edges if e.copy]  # copies on top
    out += [_node_svg(n, pos[n.key], vdevices, graph.name) for n in graph.nodes]
    out.append("</svg>")
    return "\n".join(out)


def _arrow_colours(graph: FunctionGraph) -> Iterator[tuple[str, str]]:
    yield "read", "#9aa0a6"
    for device in sorted({n.device for n in graph.nodes if n.device is not None}):
        yield f"d{device}", colour(device)
    yield "dnone", UNPLACED


def _layout(graph: FunctionGraph) -> dict[int, tuple[int, int]]:
    """Node key -> (x, y) of its box's corner.

    A node that reads something sits one band below the deepest node it reads
    (parameters and constants aside); a parameter or constant sits to the
    right in the band above its first reader, so weights stand beside the
    ops that use them and a chain runs straight down the left.  A band wraps
    at `ROW_NODES` boxes.
    """
    incoming: dict[int, list[int]] = {}
    readers: dict[int, list[int]] = {}
    for e in graph.edges:
        incoming.setdefault(e.dst, []).append(e.src)
        readers.setdefault(e.src, []).append(e.dst)
    sources = {n.key for n in graph.nodes if n.key not in incoming}
    depth: dict[int, int] = {}
    for node in graph.nodes:  # program order: what a node reads comes before it
        if node.key not in sources:
            inner = [depth[s] for s in incoming[node.key] if s not in sources and s in depth]
            depth[node.key] = 1 + max(inner, default=0)
    for key in sources:
        depth[key] = min((depth[r] for r in readers.get(key, ()) if r in depth), default=1) - 1
    rows: list[list[int]] = []
    for d in sorted(set(depth.values())):
        band = [n.key for n in graph.nodes if depth[n.key] == d and n.key not in sources]
        band += [n.key for n in graph.nodes if depth[n.key] == d and n.key in sources]
        rows += [band[i : i + ROW_NODES] for i in range(0, len(band), ROW_NODES)]
    step_x, step_y = NODE_W + GAP_X, NODE_H + GAP_Y
    return {key: (c * step_x, r * step_y) for r, row in enumerate(rows) for c, key in enumerate(row)}


def _edge_svg(edge: Edge, pos: dict[int, tuple[int, int]], nodes: dict[int, Node]) -> str:
    (x1, y1), (x2, y2) = pos[edge.src], pos[edge.dst]
    sx, sy = x1 + MARGIN + NODE_W / 2, y1 + MARGIN + NODE_H
    tx: float
    ty: float
    tx, ty = x2 + MARGIN + NODE_W / 2, y2 + MARGIN
    if ty <= sy:  # a read back up (into the return, drawn beside): enter from the side
        tx, ty = (x2 + MARGIN, y2 + MARGIN + NODE_H / 2)
    bend = max(24.0, (ty - sy) / 2)
    path = f"M{sx:.0f},{sy:.0f} C{sx:.0f},{sy + bend:.0f} {tx:.0f},{ty - bend:.0f} {tx:.0f},{ty:.0f}"
    if not edge.copy:
        return (
            f'<path class="edge read" d="{path}" fill="none" stroke="#9aa0a6" stroke-width="1.3" '
            'marker-end="url(#arrow-read)"/>'
        )
    device = nodes[edge.dst].device
    stroke = colour(device)
    marker = f"arrow-d{device}" if device is not None else "arrow-dnone"
    label = format_bytes(edge.nbytes) if edge.nbytes else "no bytes"
    mx, my = (sx + tx) / 2, (sy + ty) / 2
    box_w = 7 * len(label) + 10
    return (
        f'<g class="edge copy" data-bytes="{edge.nbytes}"><title>copy {escape(edge.tip)}: {escape(label)}</title>'
        f'<path d="{path}" fill="none" stroke="{stroke}" stroke-width="3" stroke-dasharray="7 4" '
        f'marker-end="url(#{marker})"/>'
        f'<rect x="{mx - box_w / 2:.0f}" y="{my - 9:.0f}" width="{box_w}" height="18" rx="4" fill="#ffffff" '
        f'stroke="{stroke}"/>'
        f'<text class="bytes" x="{mx:.0f}" y="{my + 4:.0f}" text-anchor="middle">{escape(label)}</text></g>'
    )


def _node_svg(node: Node, at: tuple[int, int], vdevices: Sequence[VDevice], function: str) -> str:
    x, y = at[0] + MARGIN, at[1] + MARGIN
    stroke = colour(node.device)
    device = "unplaced" if node.device is None else vdevice_name(vdevices, vdevices[node.device])
    where = f", line {node.line}" if node.line else ""
    tip = f"{function}: {node.label} = {node.text} on {device}{where}"
    shape = ' rx="18"' if node.kind in ("param", "return") else ' rx="5"'
    dash = ' stroke-dasharray="5 3"' if node.kind == "segment" else ""
    return (
        f'<g class="node {node.kind}" data-device="{escape(device)}"><title>{escape(tip)}</title>'
        f'<rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}"{shape} fill="{stroke}26" stroke="{stroke}" '
        f'stroke-width="2"{dash}/>'
        f'<text x="{x + NODE_W / 2:.0f}" y="{y + 18}" text-anchor="middle">{escape(_clip(node.label, 21))}</text>'
        f'<text class="op" x="{x + NODE_W / 2:.0f}" y="{y + 34}" text-anchor="middle">'
        f"{escape(_clip(node.text, 23))}</text></g>"
    )


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "\u2026"
